// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppvm-bpf SECONDS: attach the tp_btf programs of ppvm-bpf.bpf.c whose
 * tracepoints this kernel has, print "ppvm-bpf ready attached=..." and then
 * one line per record for SECONDS (or until SIGTERM), flushed:
 *
 *   block_alloc id=I pool=P block=B pp=P' flags=F ref=R prealloc=N dyn=N arg_dyn=N
 *   block_free  (same)
 *   fast_empty  id=I pool=P inflight=N exhausted=0|1 dyn=N
 *   destroy_unmap id=I pool=P inflight=N unmapped=N blocks=N duration_ns=N prealloc=N dyn=N
 *                (page_pool_destroy_unmap of the item series)
 *   block id=I pool=P block=B flags=F ref=R inuse=N items=N
 *   blocks id=I pool=P inflight=N n=N inuse=N prealloc=N dyn=N complete=0|1
 *   dma id=I pool=P inflight=N dma_map=0|1 xarray=0|1 xa_empty=0|1
 *                (every page_pool_release: the pool's dma_map bit and its
 *                dma_mapped xarray, which the destroy's scrub empties)
 *   dma_live id=I pool=P dma_map=0|1 xarray=0|1 xa_empty=0|1
 *                (the same at a pool's first page_pool_state_hold seen)
 *
 * ppvm-bpf btf STRUCT[.MEMBER]...: does this kernel's BTF have struct
 * STRUCT (with a member MEMBER)? Prints "STRUCT[.MEMBER]=yes|no" for each,
 * one line; exit 0 if all are there, 1 if one is not, 2 on an error: what
 * a kernel's layout says about it (the regime, page-pool stats), read
 * without ppwatch, one BTF load for them all.
 *
 * Static (libbpf.a), for the VM initramfs.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "ppvm-bpf.h"
#include "ppvm-bpf.skel.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_ev(void *ctx, void *data, size_t len)
{
	const struct ppvm_ev *e = data;
	const unsigned long long *v = (const unsigned long long *)e->v;

	(void)ctx;
	(void)len;
	switch (e->kind) {
	case PPVM_BLOCK_ALLOC:
	case PPVM_BLOCK_FREE:
		printf("%s id=%u pool=%llx block=%llx pp=%llx flags=%llu ref=%lld prealloc=%llu dyn=%llu arg_dyn=%llu\n",
		       e->kind == PPVM_BLOCK_ALLOC ? "block_alloc" : "block_free", e->id,
		       (unsigned long long)e->pool, (unsigned long long)e->block, v[0], v[1],
		       (long long)(int)v[2], v[3], v[4], v[5]);
		break;
	case PPVM_FAST_EMPTY:
		printf("fast_empty id=%u pool=%llx inflight=%lld exhausted=%llu dyn=%llu\n", e->id,
		       (unsigned long long)e->pool, (long long)(int)v[0], v[1], v[4]);
		break;
	case PPVM_DESTROY_UNMAP:
		printf("destroy_unmap id=%u pool=%llx inflight=%lld unmapped=%llu", e->id,
		       (unsigned long long)e->pool, (long long)(int)v[0], v[1]);
		if (e->nargs == 5)
			printf(" blocks=%llu duration_ns=%llu prealloc=%llu dyn=%llu", v[2], v[3],
			       v[4], v[5]);
		printf("\n");
		break;
	case PPVM_BLOCK:
		printf("block id=%u pool=%llx block=%llx flags=%llu ref=%lld inuse=%llu items=%llu\n",
		       e->id, (unsigned long long)e->pool, (unsigned long long)e->block, v[0],
		       (long long)(int)v[1], v[2], v[3]);
		break;
	case PPVM_DMA:
		printf("dma id=%u pool=%llx inflight=%lld dma_map=%llu xarray=%llu xa_empty=%llu\n",
		       e->id, (unsigned long long)e->pool, (long long)(int)v[0], v[1], v[2], v[3]);
		break;
	case PPVM_DMA_LIVE:
		printf("dma_live id=%u pool=%llx dma_map=%llu xarray=%llu xa_empty=%llu\n", e->id,
		       (unsigned long long)e->pool, v[1], v[2], v[3]);
		break;
	case PPVM_BLOCKS:
		printf("blocks id=%u pool=%llx inflight=%lld n=%llu inuse=%llu prealloc=%llu dyn=%llu complete=%llu\n",
		       e->id, (unsigned long long)e->pool, (long long)(int)v[0], v[1], v[2], v[3],
		       v[4], v[5]);
		break;
	}
	fflush(stdout);
	return 0;
}

/* arguments of tracepoint NAME in this kernel's BTF, -1 if it has none */
static int tp_nargs(const struct btf *vmlinux, const char *name)
{
	const struct btf_type *t;
	char tname[128];
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(vmlinux, id);      /* typedef */
	t = btf__type_by_id(vmlinux, t->type); /* pointer */
	t = btf__type_by_id(vmlinux, t->type); /* func proto */
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1; /* less void *__data */
}

/* ppvm-bpf btf STRUCT[.MEMBER]... */
static int cmd_btf(int n, char **q)
{
	const struct btf_member *m;
	const struct btf_type *t;
	struct btf *vmlinux;
	int id, i, k, yes, all = 1;
	char sname[128], *member;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "ppvm-bpf: no vmlinux BTF: %s\n", strerror(errno));
		return 2;
	}
	for (k = 0; k < n; k++) {
		snprintf(sname, sizeof(sname), "%s", q[k]);
		member = strchr(sname, '.');
		if (member)
			*member++ = 0;
		id = btf__find_by_name_kind(vmlinux, sname, BTF_KIND_STRUCT);
		yes = id > 0 && !member;
		if (id > 0 && member) {
			t = btf__type_by_id(vmlinux, id);
			m = btf_members(t);
			for (i = 0; i < btf_vlen(t) && !yes; i++, m++)
				yes = !strcmp(btf__name_by_offset(vmlinux, m->name_off), member);
		}
		printf("%s%s=%s", k ? " " : "", q[k], yes ? "yes" : "no");
		all &= yes;
	}
	printf("\n");
	btf__free(vmlinux);
	return all ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct ppvm_bpf *skel;
	struct btf *vmlinux;
	char attached[256] = "";
	time_t end;
	int n, err;

	if (argc >= 3 && !strcmp(argv[1], "btf"))
		return cmd_btf(argc - 2, argv + 2);
	if (argc != 2) {
		fprintf(stderr, "usage: %s SECONDS | btf STRUCT[.MEMBER]...\n", argv[0]);
		return 2;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "ppvm-bpf: no vmlinux BTF: %s\n", strerror(errno));
		return 1;
	}
	skel = ppvm_bpf__open();
	if (!skel) {
		fprintf(stderr, "ppvm-bpf: open: %s\n", strerror(errno));
		return 1;
	}
	/* each program, its tracepoint and the TP_PROTO arity it is written for */
	const struct {
		struct bpf_program *prog;
		const char *tp;
		int nargs;
	} progs[] = {
		{ skel->progs.block_alloc, "page_pool_item_block_alloc", 3 },
		{ skel->progs.block_free, "page_pool_item_block_free", 3 },
		{ skel->progs.fast_empty, "page_pool_item_fast_empty", 1 },
		{ skel->progs.destroy_unmap5, "page_pool_destroy_unmap", 5 },
		{ skel->progs.release, "page_pool_release", 4 },
		{ skel->progs.release_dma, "page_pool_release", 4 },
		{ skel->progs.hold_dma, "page_pool_state_hold", 3 },
	};
	n = sizeof(progs) / sizeof(progs[0]);
	for (int i = 0; i < n; i++) {
		int have = tp_nargs(vmlinux, progs[i].tp);
		/* the block walk only where pools have item blocks */
		bool on = have == progs[i].nargs &&
			  (progs[i].prog != skel->progs.release ||
			   btf__find_by_name_kind(vmlinux, "page_pool_item_block",
						  BTF_KIND_STRUCT) > 0);

		bpf_program__set_autoload(progs[i].prog, on);
		if (on) {
			strncat(attached, attached[0] ? "," : "",
				sizeof(attached) - strlen(attached) - 1);
			strncat(attached, bpf_program__name(progs[i].prog),
				sizeof(attached) - strlen(attached) - 1);
		}
	}
	btf__free(vmlinux);
	err = ppvm_bpf__load(skel);
	if (!err)
		err = ppvm_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "ppvm-bpf: load/attach: %s\n", strerror(-err));
		return 1;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_ev, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "ppvm-bpf: ring buffer: %s\n", strerror(errno));
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	printf("ppvm-bpf ready attached=%s\n", attached[0] ? attached : "none");
	fflush(stdout);
	end = time(NULL) + atoi(argv[1]);
	while (!stop && time(NULL) < end) {
		err = ring_buffer__poll(rb, 200);
		if (err < 0 && err != -EINTR)
			break;
	}
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	ppvm_bpf__destroy(skel);
	return 0;
}
