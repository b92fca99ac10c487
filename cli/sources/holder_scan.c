// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "ppwatch.skel.h"
#include "sources/holder_scan.h"
#include "sources/loader.h"
#include "sources/monitor.h"
#include "sources/netns.h"

static int push(void *slot, const void *rec, size_t size)
{
	if (!slot)
		return -ENOMEM;
	memcpy(slot, rec, size);
	return 0;
}

static int add_rec(struct scan_result *r, const struct ppw_scan_rec *rec)
{
	switch (rec->type) {
	case PPW_REC_SOCK:
		return push(VEC_PUSH(r->socks, r->nsocks, r->capsocks), &rec->sock,
			    sizeof(rec->sock));
	case PPW_REC_PAGE:
		return push(VEC_PUSH(r->pages, r->npages, r->cappages), &rec->page,
			    sizeof(rec->page));
	case PPW_REC_OWNER:
		return push(VEC_PUSH(r->owners, r->nowners, r->capowners), &rec->owner,
			    sizeof(rec->owner));
	case PPW_REC_POOL:
		return push(VEC_PUSH(r->pools, r->npools, r->cappools), &rec->pool,
			    sizeof(rec->pool));
	case PPW_REC_DEFER:
		return push(VEC_PUSH(r->defer, r->ndefer, r->capdefer), &rec->defer,
			    sizeof(rec->defer));
	case PPW_REC_CHECK:
		if (r->layout_ok != 0) /* one wrong check is enough */
			r->layout_ok = rec->check.ok ? 1 : 0;
		break;
	}
	return 0;
}

static int on_page(void *ctx, void *data, size_t size)
{
	if (size < sizeof(struct ppw_scan_rec))
		return 0;
	return add_rec(ctx, data);
}

struct iter_arg {
	struct bpf_link *link;
	struct ring_buffer *rb;
	struct scan_result *r;
	const char *what;
};

/* Read one iterator to the end, draining the page ring as it goes; its caller reports. */
static int read_iter(void *p)
{
	struct iter_arg *a = p;
	struct ppw_scan_rec rec;
	size_t have = 0;
	ssize_t n;
	int fd, err = 0;

	fd = bpf_iter_create(bpf_link__fd(a->link));
	if (fd < 0)
		return -errno;
	/* small reads: few sockets per read, so the page ring never fills */
	while ((n = read(fd, (char *)&rec + have, sizeof(rec) - have)) > 0) {
		have += n;
		if (have == sizeof(rec)) {
			err = add_rec(a->r, &rec);
			if (err)
				break;
			have = 0;
		}
		ring_buffer__consume(a->rb);
	}
	if (n < 0)
		err = -errno;
	ring_buffer__consume(a->rb);
	close(fd);
	return err;
}

static void clear_fd_walked(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.fd_walked);
	__u64 key, next;

	while (!bpf_map_get_next_key(fd, NULL, &next)) {
		key = next;
		bpf_map_delete_elem(fd, &key);
	}
}

int scan_run(struct session *s, struct netns_list *nsl, struct scan_result *out)
{
	struct bpf_link *net_links[] = { s->skel->links.scan_tcp, s->skel->links.scan_udp,
					 s->skel->links.scan_unix };
	static const char *const net_what[] = { "tcp", "udp", "unix" };
	struct iter_arg a = { .r = out };
	__u64 before[PPW_CNT_MAX], after[PPW_CNT_MAX];
	uint64_t t0 = now_mono_ns();
	size_t i, k;
	int err;

	memset(out, 0, sizeof(*out));
	out->layout_ok = -1;
	out->layout_from_kallsyms = s->layout.from_kallsyms;
	if (!s->skel->links.scan_pools || !s->skel->links.scan_fds) {
		p_err("holder scan: the iterators are not loaded");
		return -ENOENT;
	}
	a.rb = ring_buffer__new(bpf_map__fd(s->skel->maps.scan_events), on_page, out, NULL);
	if (!a.rb) {
		err = -errno;
		p_err("holder scan: ring buffer for map 'scan_events': %s", strerror(-err));
		return err;
	}
	session_counters(s, before, PPW_CNT_MAX);
	s->skel->bss->check_done = 0;
	clear_fd_walked(s);

	a.link = s->skel->links.scan_fds;
	a.what = "task_file";
	err = read_iter(&a);
	if (err) {
		p_err("holder scan: reading the process fd iterator (prog 'scan_fds'): %s",
		      strerror(-err));
		goto out;
	}
	/* the protocol iterators list the sockets of the namespace they are created in */
	err = netns_scan(nsl);
	if (err)
		goto out;
	for (i = 0; i < nsl->n; i++) {
		for (k = 0; k < 3; k++) {
			a.link = net_links[k];
			a.what = net_what[k];
			err = netns_run(nsl, &nsl->v[i], read_iter, &a);
			if (err)
				break;
		}
		if (err) { /* counted and shown (netns_failed) */
			p_dbg("holder scan: netns %s, %s iterator: %s", nsl->v[i].name, a.what,
			      strerror(-err));
			out->netns_failed++;
			err = 0;
		} else {
			out->netns_scanned++;
		}
	}
	/* last: pools found through their pages during the walk are in the table now */
	a.link = s->skel->links.scan_pools;
	a.what = "pool";
	err = read_iter(&a);
	if (err)
		p_err("holder scan: reading the pool iterator (prog 'scan_pools'): %s",
		      strerror(-err));
out:
	session_counters(s, after, PPW_CNT_MAX);
	out->drops = after[PPW_CNT_SCAN_DROP] - before[PPW_CNT_SCAN_DROP];
	out->walks_cut = after[PPW_CNT_SCAN_TRUNC] - before[PPW_CNT_SCAN_TRUNC];
	out->elapsed_s = (now_mono_ns() - t0) / 1e9;
	ring_buffer__free(a.rb);
	return err;
}

int holders_take(struct monitor *m, struct scan_result *scan, struct holders_report *rep)
{
	int err;

	memset(rep, 0, sizeof(*rep));
	err = scan_run(&m->s, &m->nsl, scan);
	/* after the scan: the snapshot includes pools found through their pages */
	err = err ?: monitor_sample(m);
	if (!err) {
		err = attrib_build(rep, scan, &m->cur,
				   &(struct attrib_params){ .now_ns = m->cur.ts_ns,
							    .page_size = m->kernel.page_size });
		if (err)
			p_err("attributing pages to holders: %s", strerror(-err));
	}
	if (err)
		scan_free(scan);
	return err;
}

void holders_release(struct scan_result *scan, struct holders_report *rep)
{
	attrib_free(rep);
	scan_free(scan);
}
