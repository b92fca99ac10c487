/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CO-RE shims: every kernel difference ppwatch's BPF side copes with, in one
 * place. Each entry has a flavour struct (___suffix, matched by libbpf against
 * the running kernel's BTF) and an accessor, tests field or type existence,
 * and cites the upstream commit (id, title, first release). Nothing here
 * tests a kernel version number. Tested on 6.1 (Debian 12), 6.12 (stock,
 * legacy prefix, item-block series), 7.3 (Debian trixie-backports) and
 * 6.18 (kernel/matrix).
 *
 * Two rules every entry follows, learnt from load failures:
 *   - guard on the very field that is read, not on its struct's existence:
 *     a type can exist (e.g. in module BTF) without the field;
 *   - a read whose relocation cannot resolve on some kernel sits after its
 *     guard in a way clang cannot reorder: libbpf turns an unresolved
 *     relocation into an invalid instruction, and clang is free to hoist
 *     the constant (the field offset) above an 'if' in the same function.
 *     Where a fallback path exists, the unresolvable read goes into a
 *     static __noinline subprogram: the verifier checks a static
 *     subprogram only where a reachable call reaches it.
 *
 * Differences handled in user space instead (they need a look at BTF type
 * names, which CO-RE field relocations cannot see) are listed at the end.
 *
 * The holder scan's own differences (skbs, slabs, defer lists, compound
 * heads, locking iterators: 6, 7, 9, 19 and 21) are in
 * core_fixes_scan.bpf.h, under the same rules and numbers.
 */
#ifndef __PPWATCH_CORE_FIXES_BPF_H
#define __PPWATCH_CORE_FIXES_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "ppwatch.h"
#include "config.bpf.h"

/* a static subprogram: verified only where a reachable call reaches it */
#define PPW_SUBPROG static __noinline __attribute__((unused))

/*
 * 1. page_pool_state_{hold,release} carry a netmem_ref, not a struct page *.
 *
 * 4dec64c52e24 "page_pool: convert to use netmem" (Mina Almasry, v6.11) changed
 * TP_PROTO from (pool, const struct page *page, u32) to (pool, netmem_ref
 * netmem, u32) and renamed the trace record's field from 'page' to 'netmem'.
 * For a page the two values are the same number (netmem_ref is the struct
 * page pointer, bit 0 clear); net_iov netmems have bit 0 set. The raw_tp
 * programs see the raw argument and need no shim; the classic tracepoint
 * program reads the record (tp_*_netmem()); the tp_btf programs get the
 * argument typed by BTF, a struct page * before the change, on which the
 * verifier refuses the ledger's shift ("R8 pointer arithmetic with >>=
 * operator prohibited", Debian 12's 6.1): there they read it from their
 * context as a number (tp_btf_netmem()).
 */
struct trace_event_raw_page_pool_state_hold___page {
	const struct page *page;
} __attribute__((preserve_access_index));

struct trace_event_raw_page_pool_state_release___page {
	const struct page *page;
} __attribute__((preserve_access_index));

/* the tp_btf programs' argument 1 as a number on either prototype */
static __always_inline __u64 tp_btf_netmem(unsigned long long *ctx, __u64 arg)
{
	__u64 v = 0;

	if (bpf_core_field_exists(struct trace_event_raw_page_pool_state_hold, netmem))
		return arg;
	bpf_probe_read_kernel(&v, sizeof(v), &ctx[1]);
	return v;
}

static __always_inline __u64 tp_hold_netmem(struct trace_event_raw_page_pool_state_hold *ctx)
{
	struct trace_event_raw_page_pool_state_hold___page *old = (void *)ctx;

	if (bpf_core_field_exists(ctx->netmem))
		return BPF_CORE_READ(ctx, netmem);
	return (__u64)BPF_CORE_READ(old, page);
}

static __always_inline __u64 tp_release_netmem(struct trace_event_raw_page_pool_state_release *ctx)
{
	struct trace_event_raw_page_pool_state_release___page *old = (void *)ctx;

	if (bpf_core_field_exists(ctx->netmem))
		return BPF_CORE_READ(ctx, netmem);
	return (__u64)BPF_CORE_READ(old, page);
}

/*
 * 2. The dma_map / dma_sync bits of struct page_pool.
 *
 * They are bitfields of a ____cacheline_aligned struct; clang 14 cannot emit
 * a CO-RE bitfield relocation through the over-aligned type ("requiring too
 * big alignment"). A flavour without the alignment carries the same fields.
 * The bits were split out of the driver-set flags in 403f11ac9ab7 "page_pool:
 * don't use driver-set flags field directly" (Alexander Lobakin, v6.9); older
 * kernels only have pool->p.flags (PP_FLAG_DMA_MAP, PP_FLAG_DMA_SYNC_DEV).
 */
struct page_pool___bits {
	bool dma_map : 1;
	bool dma_sync : 1;
} __attribute__((preserve_access_index));

struct page_pool_params___flags {
	unsigned int flags;
} __attribute__((preserve_access_index));

struct page_pool___params_flags {
	struct page_pool_params___flags p;
} __attribute__((preserve_access_index));

#define PPW_PP_FLAG_DMA_MAP  (1U << 0) /* include/net/page_pool/types.h */
#define PPW_PP_FLAG_DMA_SYNC (1U << 1)

static __always_inline __u32 pool_dma_flags(struct page_pool *pool)
{
	struct page_pool___bits *b = (void *)pool;
	struct page_pool___params_flags *o = (void *)pool;
	__u32 f = 0, pf;

	if (bpf_core_field_exists(b->dma_map)) {
		if (BPF_CORE_READ_BITFIELD_PROBED(b, dma_map))
			f |= PPW_PF_DMA_MAP;
		if (BPF_CORE_READ_BITFIELD_PROBED(b, dma_sync))
			f |= PPW_PF_DMA_SYNC;
		return f;
	}
	if (bpf_core_field_exists(o->p.flags)) {
		pf = BPF_CORE_READ(o, p.flags);
		if (pf & PPW_PP_FLAG_DMA_MAP)
			f |= PPW_PF_DMA_MAP;
		if (pf & PPW_PP_FLAG_DMA_SYNC)
			f |= PPW_PF_DMA_SYNC;
	}
	return f;
}

/*
 * 3. Pool identity for user space: pool->user.{id,detach_time,list} and
 * pool->slow.netdev.
 *
 * Added by f17c69649c69 "net: page_pool: id the page pools" and 083772c9f972
 * "net: page_pool: record pools per netdev" (Jakub Kicinski, v6.8). Older
 * kernels have neither: the pool is then known by address (and the
 * generation ppwatch gives each address) only.
 */
struct page_pool___user {
	struct {
		u32 id;
		u64 detach_time;
	} user;
	struct {
		struct net_device *netdev;
	} slow;
} __attribute__((preserve_access_index));

static __always_inline __u32 pool_user_id(struct page_pool *pool)
{
	struct page_pool___user *u = (void *)pool;

	if (bpf_core_field_exists(u->user.id))
		return BPF_CORE_READ(u, user.id);
	return 0;
}

static __always_inline __u64 pool_detach_time_raw(struct page_pool *pool)
{
	struct page_pool___user *u = (void *)pool;

	if (bpf_core_field_exists(u->user.detach_time))
		return BPF_CORE_READ(u, user.detach_time);
	return 0;
}

/*
 * The destroy's tick: pool->defer_start, the jiffies page_pool_destroy()
 * stamps on a pool whose pages are still out as it defers the release
 * (c3f812cea0d7 "page_pool: do not release pool until inflight == 0.",
 * v5.5: every kernel ppwatch runs on, 5.10 included). Before
 * pool->user.detach_time (v6.8 above) it is the only destroy time a pool
 * destroyed before ppwatch started has. Set after the destroy's own
 * page_pool_release(): 0 there, the retries and a later look see it.
 */
struct page_pool___defer {
	unsigned long defer_start;
} __attribute__((preserve_access_index));

static __always_inline __u64 pool_defer_start(struct page_pool *pool)
{
	struct page_pool___defer *d = (void *)pool;

	if (bpf_core_field_exists(d->defer_start))
		return BPF_CORE_READ(d, defer_start);
	return 0;
}

static __always_inline struct net_device *pool_netdev(struct page_pool *pool)
{
	struct page_pool___user *u = (void *)pool;

	if (bpf_core_field_exists(u->slow.netdev))
		return BPF_CORE_READ(u, slow.netdev);
	return NULL;
}

/* the same series' dev->page_pools (083772c9f972): its first pool, NULL before */
struct net_device___pools {
	struct hlist_head page_pools;
} __attribute__((preserve_access_index));

static __always_inline struct hlist_node *netdev_pools_first(struct net_device *nd)
{
	struct net_device___pools *d = (void *)nd;

	return bpf_core_field_exists(d->page_pools) ? BPF_CORE_READ(d, page_pools.first) : NULL;
}

/* the pool of an entry netdev_pools_first() led to (pool->user.list exists then) */
static __always_inline __u64 pool_of_user_list(struct hlist_node *n)
{
	return (__u64)n - bpf_core_field_offset(struct page_pool, user.list);
}

/*
 * 4. Memory providers: pool->mp_priv (170aafe35cb9 "netdev: support binding
 * dma-buf to netdevice", Mina Almasry, v6.12). Pools backed by devmem or
 * io_uring zcrx hand out net_iov netmems, not pages.
 */
struct page_pool___mp {
	void *mp_priv;
} __attribute__((preserve_access_index));

static __always_inline bool pool_has_mp(struct page_pool *pool)
{
	struct page_pool___mp *m = (void *)pool;

	if (bpf_core_field_exists(m->mp_priv))
		return BPF_CORE_READ(m, mp_priv) != NULL;
	return false;
}

/*
 * 5. Which pool a page belongs to: page->pp (since 5.14), or, on kernels
 * carrying the item-block series ("page_pool: fix IOMMU crash when driver has
 * already unbound", Yunsheng Lin, v7; not merged upstream, kernel/prereq/),
 * page->pp_item whose PAGE_SIZE-aligned block starts with the pool pointer
 * (page_pool_item_to_block()).
 */
struct page___item {
	void *pp_item;
} __attribute__((preserve_access_index));

struct page_pool_item_block___ppw {
	struct page_pool *pp;
} __attribute__((preserve_access_index));

static __always_inline __u64 page_pool_of(__u64 pg, __u64 page_mask)
{
	struct page___item *pi = (void *)pg;
	struct page_pool_item_block___ppw *blk;
	__u64 item;

	if (bpf_core_field_exists(pi->pp_item)) {
		item = (__u64)BPF_CORE_READ(pi, pp_item);
		if (!item)
			return 0;
		blk = (void *)(item & page_mask);
		return (__u64)BPF_CORE_READ(blk, pp);
	}
	return (__u64)BPF_CORE_READ((struct page *)pg, pp);
}

/*
 * 8. A pool's own pages. frag_page became a netmem_ref (an unsigned long)
 * in 4dec64c52e24 "page_pool: convert to use netmem" (v6.11); before, a
 * struct page *. Same name, same size, but CO-RE does not match an integer
 * field against a pointer one, so each type has its flavour. The item-block
 * series replaces the ptr_ring with a list that keeps a count.
 */
struct page_pool___frag_netmem {
	unsigned long frag_page;
} __attribute__((preserve_access_index));

struct page_pool___frag_page {
	struct page *frag_page;
} __attribute__((preserve_access_index));

struct pp_ring_cache___item {
	atomic_t count;
} __attribute__((preserve_access_index));

struct page_pool___ring_item {
	struct pp_ring_cache___item ring;
} __attribute__((preserve_access_index));

static __always_inline __u64 pool_frag_netmem(struct page_pool *pool)
{
	struct page_pool___frag_netmem *n = (void *)pool;
	struct page_pool___frag_page *o = (void *)pool;

	if (bpf_core_field_exists(n->frag_page))
		return BPF_CORE_READ(n, frag_page);
	if (bpf_core_field_exists(o->frag_page))
		return (__u64)BPF_CORE_READ(o, frag_page);
	return 0;
}

/* true when the kernel keeps a ring count (item-block kernels) */
static __always_inline bool pool_ring_count(struct page_pool *pool, __u32 *count)
{
	struct page_pool___ring_item *p = (void *)pool;

	if (!bpf_core_field_exists(p->ring.count))
		return false;
	*count = BPF_CORE_READ(p, ring.count.counter);
	return true;
}

/*
 * 10. DMA mappings a destroyed pool still has: pool->dma_mapped, an xarray
 * of every mapped page, from ee62ce7a1d90 "page_pool: Track DMA-mapped pages
 * and unmap them when destroying the pool" (Toke Hoiland-Jorgensen, v6.16,
 * stable 6.12.34 and 6.15.3). page_pool_scrub() unmaps all of them on the first
 * release, so it must be empty from then on: xa_head is NULL when empty.
 */
struct page_pool___xa {
	struct xarray dma_mapped;
} __attribute__((preserve_access_index));

/* 1: entries left, 0: empty, -1: no such xarray on this kernel */
static __always_inline int pool_dma_mapped_left(struct page_pool *pool)
{
	struct page_pool___xa *x = (void *)pool;

	if (!bpf_core_field_exists(x->dma_mapped))
		return -1;
	return BPF_CORE_READ(x, dma_mapped.xa_head) != NULL;
}

/*
 * 11. Item-block counters. The v7 series ("page_pool: fix IOMMU crash when
 * driver has already unbound" and "page_pool: support unlimited number of
 * inflight pages", Yunsheng Lin) adds alloc_stats.item_fast_empty and
 * .item_slow_failed (with CONFIG_PAGE_POOL_STATS); ppwatch's series
 * ("page_pool: count item blocks and report them in page-pool-get") adds
 * the block counts, the cumulative ones as u64_stats_t (8 bytes on 64-bit).
 * In the dma_mapped xarray regime, ppwatch's other series ("page_pool:
 * count DMA mapping failures in page-pool-stats", patches/xarray/ on
 * 7.3.4) adds alloc_stats.dma_map_failed and .dma_index_failed.
 */
struct page_pool_alloc_stats___items {
	u64 item_fast_empty;
	u64 item_slow_failed;
	u64 dma_map_failed;
	u64 dma_index_failed;
} __attribute__((preserve_access_index));

struct u64_stats___ppw {
	long v;
};

struct page_pool___items {
	struct page_pool_alloc_stats___items alloc_stats;
	u32 item_blks_prealloc;
	u32 item_blks_dyn;
	struct u64_stats___ppw item_blks_dyn_alloc;
	struct u64_stats___ppw item_blks_dyn_free;
} __attribute__((preserve_access_index));

/* read what the kernel has; returns the PPW_PF_ITEM_* / _DMA_*_STATS flags it found */
static __always_inline __u32 pool_item_counters(struct page_pool *pool, struct ppw_pool *r)
{
	struct page_pool___items *p = (void *)pool;
	__u32 f = 0;

	if (bpf_core_field_exists(p->alloc_stats.item_fast_empty)) {
		r->item_fast_empty = BPF_CORE_READ(p, alloc_stats.item_fast_empty);
		r->item_slow_failed = BPF_CORE_READ(p, alloc_stats.item_slow_failed);
		f |= PPW_PF_ITEM_STATS;
	}
	if (bpf_core_field_exists(p->item_blks_prealloc)) {
		r->blocks_prealloc = BPF_CORE_READ(p, item_blks_prealloc);
		r->blocks_dyn = BPF_CORE_READ(p, item_blks_dyn);
		/* u64_stats_t: one 64-bit counter on 64-bit kernels */
		bpf_core_read(&r->blocks_dyn_alloc, sizeof(__u64), &p->item_blks_dyn_alloc);
		bpf_core_read(&r->blocks_dyn_free, sizeof(__u64), &p->item_blks_dyn_free);
		f |= PPW_PF_ITEM_BLOCKS;
	}
	if (bpf_core_field_exists(p->alloc_stats.dma_index_failed)) {
		r->dma_index_failed = BPF_CORE_READ(p, alloc_stats.dma_index_failed);
		f |= PPW_PF_DMA_INDEX_STATS;
	}
	if (bpf_core_field_exists(p->alloc_stats.dma_map_failed)) {
		r->dma_map_failed = BPF_CORE_READ(p, alloc_stats.dma_map_failed);
		f |= PPW_PF_DMA_MAP_STATS;
	}
	return f;
}

/*
 * 12. The pool's NAPI instance: pool->p.napi, from 8c48eea3adf3 "page_pool:
 * allow caching from safely localized NAPI" (Jakub Kicinski, v6.5). Older
 * kernels have no NAPI in the pool (and no direct recycling by NAPI).
 */
struct page_pool_params___napi {
	struct napi_struct *napi;
} __attribute__((preserve_access_index));

struct page_pool___napi {
	struct page_pool_params___napi p;
} __attribute__((preserve_access_index));

static __always_inline struct napi_struct *pool_napi(struct page_pool *pool)
{
	struct page_pool___napi *n = (void *)pool;

	if (bpf_core_field_exists(n->p.napi))
		return BPF_CORE_READ(n, p.napi);
	return NULL;
}

/*
 * 12b. The pool's XDP memory model id: pool->xdp_mem_id, from 64693ec7774e
 * "page_pool: Store the XDP mem id" (Toke Hoiland-Jorgensen, v5.18), set
 * when the pool is registered as an XDP memory model (drivers with XDP,
 * the live-frames test run). The only kernel-assigned pool id before
 * pool->user.id (v6.8).
 */
struct page_pool___memid {
	u32 xdp_mem_id;
} __attribute__((preserve_access_index));

static __always_inline __u32 pool_xdp_mem_id(struct page_pool *pool)
{
	struct page_pool___memid *m = (void *)pool;

	if (bpf_core_field_exists(m->xdp_mem_id))
		return BPF_CORE_READ(m, xdp_mem_id);
	return 0;
}

/*
 * 13. netdev_priv(): dev->priv, a flexible array at the end of struct
 * net_device since 13cabc47f8ae "netdevice: define and allocate &net_device
 * _properly_" (Alexander Lobakin, v6.11); before, the private area started
 * at ALIGN(sizeof(struct net_device), NETDEV_ALIGN).
 */
#define PPW_NETDEV_ALIGN 32

static __always_inline void *netdev_priv_of(struct net_device *nd)
{
	if (bpf_core_field_exists(nd->priv))
		return (void *)nd + bpf_core_field_offset(struct net_device, priv);
	return (void *)nd + ((bpf_core_type_size(struct net_device) + PPW_NETDEV_ALIGN - 1) &
			     ~(PPW_NETDEV_ALIGN - 1));
}

/*
 * 14. veth's per-queue pools: veth_rq.page_pool, from 0ebab78cbcbf "net:
 * veth: add page_pool for page recycling" (Lorenzo Bianconi, v6.6). veth is
 * a module on most distributions, so these types come from its module BTF,
 * and on 6.1 struct veth_rq exists there without the field: the guard is
 * on the field. veth pools have no netdev (no netlink listing) before
 * ppwatch's series links them.
 */
struct veth_rq___ppw {
	struct page_pool *page_pool;
} __attribute__((preserve_access_index));

struct veth_priv___ppw {
	struct veth_rq___ppw *rq;
} __attribute__((preserve_access_index));

static __always_inline bool veth_has_pools(void)
{
	return bpf_core_field_exists(((struct veth_rq___ppw *)0)->page_pool) &&
	       bpf_core_field_exists(((struct veth_priv___ppw *)0)->rq);
}

/* the pool of rx queue i of veth device nd (call only if veth_has_pools()) */
PPW_SUBPROG __u64 veth_rq_pool(struct net_device *nd, __u32 i)
{
	struct veth_priv___ppw *vp = netdev_priv_of(nd);
	struct veth_rq___ppw *rq = BPF_CORE_READ(vp, rq);

	if (!rq)
		return 0;
	rq = (void *)rq + (__u64)i * bpf_core_type_size(struct veth_rq___ppw);
	return (__u64)BPF_CORE_READ(rq, page_pool);
}

/*
 * 15. The kernel's memory layout for virt_to_page(): page_offset_base and
 * vmemmap_base, variables with CONFIG_RANDOMIZE_MEMORY (x86_64), readable
 * only through their symbols (CONFIG_KALLSYMS_ALL). Not a change of any
 * commit but of configuration: without the symbols, the rodata defaults
 * user space gives (config.bpf.h), checked by the scan on a slab object.
 */
/* global functions, defined once in ledger.bpf.c (a typeless __ksym cannot be
 * declared in two objects the static linker merges) */
extern __u64 layout_page_offset(void);
extern __u64 layout_vmemmap(void);

/*
 * 16. Pools registered as XDP memory models: net/core/xdp.c keeps every
 * registered allocator in 'mem_id_ht' (a static struct rhashtable *, since
 * 8d5d88527587 "xdp: rhashtable with allocator ID to pointer mapping",
 * v4.18) until the allocator is freed, zombies included. It is how
 * discovery finds pools that no netdev lists (every pool before 6.8,
 * drivers that set no .netdev, the live-frames test run). A data symbol:
 * it needs CONFIG_KALLSYMS_ALL, like the defer lists. Buckets hold a lock
 * bit (bit 0) and chain rhash_heads up to a 'nulls' marker (bit 0 set).
 */
extern const void mem_id_ht __ksym __weak;

static __always_inline struct rhashtable *mem_id_table(void)
{
	struct rhashtable *ht = NULL;

	if (!&mem_id_ht)
		return NULL;
	bpf_probe_read_kernel(&ht, sizeof(ht), (void *)&mem_id_ht);
	return ht;
}

/*
 * 17. A pool's item blocks, walked for their occupancy (blocks.bpf.c). The
 * item-block series ("page_pool: fix IOMMU crash when driver has already
 * unbound" and "page_pool: support unlimited number of inflight pages",
 * Yunsheng Lin, v7; not upstream, kernel/prereq/) links every block on
 * pool->item_blocks; pool->item_blk is the dynamic block items come from
 * now, pool->item_blk_idx its next item. A dynamic block (flags bit 0) has
 * ref = its items in use plus, while current, those not handed out; a
 * pre-allocated block has no count: an item of one is in use when its
 * pp_netmem is a page whose pp_item points back at it (a free item holds
 * an llist pointer there instead). Loaded only where struct
 * page_pool_item_block exists (cli/sources/loader.c).
 */
struct page_pool_item___walk {
	unsigned long pp_netmem; /* in an anonymous union with lentry */
} __attribute__((preserve_access_index));

struct page_pool_item_block___walk {
	struct list_head list;
	unsigned int flags;
	refcount_t ref;
	struct page_pool_item___walk items[];
} __attribute__((preserve_access_index));

struct page_pool___walk {
	struct list_head item_blocks;
	struct page_pool_item_block___walk *item_blk;
	unsigned int item_blk_idx;
} __attribute__((preserve_access_index));

#define PPW_ITEM_BLK_DYNAMIC 1 /* PAGE_POOL_ITEM_BLK_DYNAMIC_BIT */

/*
 * 18. The trace records of ppwatch's own kernel series, for the classic
 * tracepoint programs of items.bpf.c: patches/ 0006 ("page_pool: add
 * tracepoints for dynamic item blocks and item exhaustion": event classes
 * page_pool_item_block and page_pool_item_alloc) and 0007
 * (page_pool_destroy_unmap).
 * No upstream kernel has them and vmlinux.h comes from one that does not,
 * so the records are declared here and relocated against the running
 * kernel's trace_event_raw_* types; the programs load only where the
 * tracepoints exist.
 */
struct trace_event_raw_page_pool_item_block___ppw {
	struct trace_entry ent;
	const struct page_pool *pool;
	const void *block;
} __attribute__((preserve_access_index));

struct trace_event_raw_page_pool_item_alloc___ppw {
	struct trace_entry ent;
	const struct page_pool *pool;
} __attribute__((preserve_access_index));

struct trace_event_raw_page_pool_destroy_unmap___ppw {
	struct trace_entry ent;
	const struct page_pool *pool;
	__s32 inflight;
	__u32 unmapped;
	__u32 blocks;
	__u64 duration_ns;
} __attribute__((preserve_access_index));

/*
 * 20. A network namespace's cookie: net->net_cookie, an atomic64_t given on
 * first use from f318903c0bf4 "bpf: Add netns cookie and enable it for bpf
 * cgroup hooks" (Daniel Borkmann, v5.7), a u64 set at setup from
 * 3d368ab87cf6 "net: initialize net->net_cookie at netns setup" (Eric
 * Dumazet, v5.12). Only the u64 is read: before, the cookie is 0, unknown.
 */
struct net___cookie {
	u64 net_cookie;
} __attribute__((preserve_access_index));

static __always_inline __u64 net_cookie_of(struct net *net)
{
	struct net___cookie *n = (void *)net;

	if (bpf_core_field_exists(n->net_cookie))
		return BPF_CORE_READ(n, net_cookie);
	return 0;
}

/*
 * 22. Allocation and recycling statistics: pool->alloc_stats and the per-CPU
 * pool->recycle_stats, from 8610037e8106 "page_pool: Add allocation stats"
 * and ad6fa1e1ab1b "page_pool: Add recycle stats" (Joe Damato, v5.18), only
 * with CONFIG_PAGE_POOL_STATS. Read at sample time (stats.bpf.c, loaded only
 * where BTF has both fields), never on the hot path. CPU c's copy of the
 * per-CPU struct is at the pointer plus c's per-CPU offset, which x86's
 * per-CPU this_cpu_off holds on each CPU (setup_per_cpu_areas()): a typed
 * ksym (a BTF VAR) read with bpf_per_cpu_ptr(); the kernel resolves its
 * address by kallsyms (CONFIG_KALLSYMS_ALL): user space loads the walk only
 * where /proc/kallsyms has it. Declared only in the object that reads it
 * (PPW_STATS_OBJ).
 */
struct page_pool_recycle_stats___ppw {
	u64 cached, cache_full, ring, ring_full, released_refcnt;
} __attribute__((preserve_access_index));

struct page_pool___stats {
	struct {
		u64 fast, slow, slow_high_order, empty, refill, waive;
	} alloc_stats;
	struct page_pool_recycle_stats___ppw *recycle_stats;
} __attribute__((preserve_access_index));

#ifdef PPW_STATS_OBJ
extern const unsigned long this_cpu_off __ksym __weak;

static __always_inline bool pool_has_stats(void)
{
	return bpf_core_field_exists(((struct page_pool___stats *)0)->alloc_stats) &&
	       bpf_core_field_exists(((struct page_pool___stats *)0)->recycle_stats);
}

/* CPU c's per-CPU offset; false where this kernel does not say it */
static __always_inline bool pcpu_offset_of(__u32 cpu, __u64 *off)
{
	const unsigned long *p = &this_cpu_off ? bpf_per_cpu_ptr(&this_cpu_off, cpu) : NULL;

	*off = p ? *p : 0;
	return p != NULL;
}
#endif

/*
 * Differences handled in user space (cli/sources/kfeatures.c), by reading BTF:
 *
 * - pool->user.detach_time is seconds (u64) before, and a ktime_t in ns
 *   after, "page_pool: store detach_time as ktime_t to avoid
 *   false-negatives" (28b225282d44, v7.0; stable 6.18.y). CO-RE matches the
 *   field either way, so user space looks at the member's type name
 *   (features.detach_time_is_ns) and converts the raw value it reads back.
 * - page->compound_head or page->compound_info (core_fixes_scan.bpf.h, 19.): user space
 *   finds the one this kernel has in struct page's BTF, through its
 *   anonymous unions (features.page_compound_off), for
 *   cfg_page_compound_off.
 */

#endif /* __PPWATCH_CORE_FIXES_BPF_H */
