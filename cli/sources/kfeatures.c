// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/util.h"
#include "sources/kfeatures.h"

static bool has_type(const struct btf *btf, const char *name, int kind)
{
	return btf__find_by_name_kind(btf, name, kind) > 0;
}

static const struct btf_member *find_member(const struct btf *btf, int type_id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const struct btf_member *m;
	int i;

	if (!t || (!btf_is_struct(t) && !btf_is_union(t)))
		return NULL;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return m;
	return NULL;
}

/*
 * pool->user.detach_time: u64 seconds, or ktime_t nanoseconds since
 * "page_pool: store detach_time as ktime_t to avoid false-negatives"
 * (28b225282d44). CO-RE cannot tell the two apart: read the type name.
 */
static bool detach_time_is_ktime(const struct btf *btf, int pool_id)
{
	const struct btf_member *user, *dt;
	const struct btf_type *t;

	user = find_member(btf, pool_id, "user");
	if (!user)
		return false;
	dt = find_member(btf, user->type, "detach_time");
	if (!dt)
		return false;
	t = btf__type_by_id(btf, dt->type);
	return t && btf_is_typedef(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "ktime_t");
}

/*
 * The byte offset of member 'name' of struct or union type_id, looking
 * into its anonymous members (struct page's unions); -1 if there is none.
 */
static long member_offset(const struct btf *btf, int type_id, const char *name, int depth)
{
	const struct btf_type *t;
	const struct btf_member *m;
	const char *mn;
	long off;
	int i, id = btf__resolve_type(btf, type_id);

	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t || (!btf_is_struct(t) && !btf_is_union(t)) || depth > 8)
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		mn = btf__name_by_offset(btf, m->name_off);
		if (mn && !strcmp(mn, name))
			return btf_member_bit_offset(t, i) / 8;
		if (mn && *mn)
			continue;
		off = member_offset(btf, m->type, name, depth + 1);
		if (off >= 0)
			return btf_member_bit_offset(t, i) / 8 + off;
	}
	return -1;
}

/* pool->p.<name>: p is struct page_pool_params, or _fast since v6.7 */
static bool params_has(const struct btf *btf, int pool_id, const char *name)
{
	const struct btf_member *p = find_member(btf, pool_id, "p");

	return p && find_member(btf, p->type, name);
}

/* does enum 'ename' of the kernel's BTF have the enumerator 'val'? */
static bool enum_has(const struct btf *btf, const char *ename, const char *val)
{
	int id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_enum *e;
	int i;

	if (!t)
		return false;
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), val))
			return true;
	return false;
}

#ifndef BPF_ATOMIC
#define BPF_ATOMIC 0xc0
#endif
#ifndef BPF_FETCH
#define BPF_FETCH 0x01
#endif

/*
 * BPF atomic fetch instructions ("bpf: Add BPF_FETCH field / create
 * atomic_fetch_add instruction", v5.12, with cmpxchg and xchg): a kernel
 * without them refuses any program that contains one. No BTF type tells,
 * so load four instructions that use one. Only EINVAL says no: a probe
 * that cannot run (no privilege) leaves the answer to the real load.
 */
static bool probe_atomics(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 0 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1,
		  .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1,
		  .off = -8,
		  .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ppw_atomics", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	p_dbg("probe: BPF atomic fetch instruction: %s", strerror(errno));
	return errno != EINVAL;
}

/*
 * bpf_map_lookup_percpu_elem ("bpf: add bpf_map_lookup_percpu_elem for
 * percpu map", 07343110b293, v5.19), which the programs' freed-pool slot
 * walk calls (bpf/pool.bpf.h, pcpu_clear_cb()): a kernel with bpf_loop
 * (v5.17) but not this refuses the whole lifecycle program. The helper
 * itself, asked of the kernel (a raw tracepoint program that calls it,
 * loaded); where the probe cannot load anything, the helper's name in
 * the kernel's enum bpf_func_id says.
 */
static bool probe_percpu_lookup(const struct btf *btf)
{
	int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
					BPF_FUNC_map_lookup_percpu_elem, NULL);

	if (r >= 0)
		return r > 0;
	p_dbg("probe: bpf_map_lookup_percpu_elem: %s; by BTF instead", strerror(-r));
	return enum_has(btf, "bpf_func_id", "BPF_FUNC_map_lookup_percpu_elem");
}

/*
 * Every tracepoint ppwatch's programs hook (the SEC() names of bpf/), once,
 * and the flag that says this kernel has it (its btf_trace_ typedef).
 */
static const struct {
	const char *name;
	size_t flag; /* offset of a bool in struct features */
} tracepoints[] = {
	{ "page_pool_state_hold", offsetof(struct features, tp_hold) },
	{ "page_pool_state_release", offsetof(struct features, tp_release) },
	{ "page_pool_release", offsetof(struct features, tp_pool_release) },
	{ "page_pool_update_nid", offsetof(struct features, tp_update_nid) },
	{ "page_pool_item_block_alloc", offsetof(struct features, tp_block_alloc) },
	{ "page_pool_item_block_free", offsetof(struct features, tp_block_free) },
	{ "page_pool_item_fast_empty", offsetof(struct features, tp_fast_empty) },
	{ "page_pool_item_slow_failed", offsetof(struct features, tp_slow_failed) },
	{ "page_pool_destroy_unmap", offsetof(struct features, tp_destroy_unmap) },
};

static bool *tp_flag(struct features *f, size_t i)
{
	return (bool *)((char *)f + tracepoints[i].flag);
}

bool features_tp_present(const struct features *f, const char *tp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracepoints); i++)
		if (!strcmp(tp, tracepoints[i].name))
			return *tp_flag((struct features *)f, i);
	return true; /* not one of page_pool's */
}

int features_probe(struct features *f)
{
	struct utsname u;
	struct btf *btf;
	int pool_id, err;
	size_t i;

	memset(f, 0, sizeof(*f));
	if (!uname(&u))
		snprintf(f->release, sizeof(f->release), "%s", u.release);
	f->page_size = sysconf(_SC_PAGESIZE);
	f->tracefs = !access("/sys/kernel/tracing/events/page_pool", F_OK) ||
		     !access("/sys/kernel/debug/tracing/events/page_pool", F_OK);

	btf = btf__load_vmlinux_btf();
	err = libbpf_get_error(btf);
	if (err) {
		snprintf(f->btf_err, sizeof(f->btf_err), "%s", strerror(-err));
		return err;
	}
	f->btf = true;
	pool_id = btf__find_by_name_kind(btf, "page_pool", BTF_KIND_STRUCT);
	f->page_pool = pool_id > 0;
	{
		int id = btf__find_by_name_kind(btf, "page", BTF_KIND_STRUCT);

		long off = -1;

		f->struct_page_size = id > 0 ? btf__resolve_size(btf, id) : 0;
		/* a tail page's way to its head (bpf/core_fixes_scan.bpf.h, 19.):
		 * compound_info from 7.1 on, compound_head before */
		if (id > 0)
			off = member_offset(btf, id, "compound_info", 0);
		if (id > 0 && off < 0)
			off = member_offset(btf, id, "compound_head", 0);
		f->page_compound_off = off > 0 ? off : 0;
	}
	for (i = 0; i < ARRAY_SIZE(tracepoints); i++) {
		char name[96];

		snprintf(name, sizeof(name), "btf_trace_%s", tracepoints[i].name);
		*tp_flag(f, i) = has_type(btf, name, BTF_KIND_TYPEDEF);
	}
	/* "bpf: Add bpf_loop helper" (v5.17) */
	f->bpf_loop = enum_has(btf, "bpf_func_id", "BPF_FUNC_loop");
	f->atomics = probe_atomics();
	/* the page log's clock: "bpf: add bpf_jiffies64 helper" (v5.5), "bpf: Add
	 * bpf_ktime_get_boot_ns()" (v5.8) for the pairs that turn it into time */
	f->jiffies = enum_has(btf, "bpf_func_id", "BPF_FUNC_jiffies64") &&
		     enum_has(btf, "bpf_func_id", "BPF_FUNC_ktime_get_boot_ns");
	f->percpu_lookup = probe_percpu_lookup(btf);
	/* the answers of a 5.10 kernel, for the integration tests of the
	 * programs' PPW_COMPAT build on a newer one */
	if (getenv("PPWATCH_NO_BPF_LOOP"))
		f->bpf_loop = false;
	if (getenv("PPWATCH_NO_BPF_ATOMICS"))
		f->atomics = false;
	/* and of a 5.17 or 5.18 one */
	if (getenv("PPWATCH_NO_PERCPU_LOOKUP"))
		f->percpu_lookup = false;
	if (f->page_pool) {
		f->pool_user = find_member(btf, pool_id, "user") != NULL;
		f->detach_time_is_ns = detach_time_is_ktime(btf, pool_id);
		f->pool_napi = params_has(btf, pool_id, "napi");
		f->pool_defer = find_member(btf, pool_id, "defer_start") != NULL;
		/* CONFIG_PAGE_POOL_STATS (8610037e8106, ad6fa1e1ab1b, v5.18) */
		f->pp_stats = find_member(btf, pool_id, "alloc_stats") &&
			      find_member(btf, pool_id, "recycle_stats");
		int stats = btf__find_by_name_kind(btf, "page_pool_alloc_stats", BTF_KIND_STRUCT);

		f->item_stats = stats > 0 && find_member(btf, stats, "item_fast_empty");
		f->dma_index_stats = stats > 0 && find_member(btf, stats, "dma_index_failed");
		f->dma_map_stats = stats > 0 && find_member(btf, stats, "dma_map_failed");
		f->item_blocks = find_member(btf, pool_id, "item_blks_prealloc") != NULL;
		if (has_type(btf, "page_pool_item", BTF_KIND_STRUCT))
			f->unmap = UNMAP_ITEM_BLOCKS;
		else if (find_member(btf, pool_id, "dma_mapped"))
			f->unmap = UNMAP_XARRAY;
		else
			f->unmap = UNMAP_ON_RETURN;
	}
	btf__free(btf);
	p_dbg("features: page_pool=%d tp hold=%d release=%d pool_release=%d nid=%d user=%d "
	      "detach_ns=%d unmap=%s tracefs=%d bpf_loop=%d atomics=%d jiffies=%d "
	      "percpu_lookup=%d defer_start=%d compound_off=%ld pp_stats=%d",
	      f->page_pool, f->tp_hold, f->tp_release, f->tp_pool_release, f->tp_update_nid,
	      f->pool_user, f->detach_time_is_ns, unmap_regime_name(f->unmap), f->tracefs,
	      f->bpf_loop, f->atomics, f->jiffies, f->percpu_lookup, f->pool_defer,
	      f->page_compound_off, f->pp_stats);
	return 0;
}

bool features_full_build(const struct features *f)
{
	return f->atomics && f->bpf_loop && f->percpu_lookup;
}
