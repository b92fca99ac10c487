/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CO-RE shims: every kernel difference ppwatch's BPF side copes with, in one
 * place. Each entry has a flavour struct (___suffix, matched by libbpf against
 * the running kernel's BTF) and an accessor, and cites the upstream change.
 * Nothing here tests a kernel version number.
 *
 * Differences handled in user space instead (they need a look at BTF type
 * names, which CO-RE field relocations cannot see) are listed at the end.
 */
#ifndef __PPWATCH_CORE_FIXES_BPF_H
#define __PPWATCH_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

/*
 * 1. page_pool_state_{hold,release} carry a netmem_ref, not a struct page *.
 *
 * "net: page_pool: convert to use netmem" (Mina Almasry, v6.10) changed
 * TP_PROTO from (pool, const struct page *page, u32) to (pool, netmem_ref
 * netmem, u32) and renamed the trace record's field from 'page' to 'netmem'.
 * For a page the two values are the same number (netmem_ref is the struct
 * page pointer, bit 0 clear); net_iov netmems have bit 0 set. The tp_btf and
 * raw_tp programs see the raw argument and need no shim; the classic
 * tracepoint program reads the record and does.
 */
struct trace_event_raw_page_pool_state_hold___page {
	const struct page *page;
} __attribute__((preserve_access_index));

struct trace_event_raw_page_pool_state_release___page {
	const struct page *page;
} __attribute__((preserve_access_index));

static __always_inline __u64
tp_hold_netmem(struct trace_event_raw_page_pool_state_hold *ctx)
{
	struct trace_event_raw_page_pool_state_hold___page *old = (void *)ctx;

	if (bpf_core_field_exists(ctx->netmem))
		return BPF_CORE_READ(ctx, netmem);
	return (__u64)BPF_CORE_READ(old, page);
}

static __always_inline __u64
tp_release_netmem(struct trace_event_raw_page_pool_state_release *ctx)
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
 * The bits were split out of the driver-set flags in "page_pool: don't use
 * driver-set flags field directly" (Alexander Lobakin, v6.9); older kernels
 * only have pool->p.flags (PP_FLAG_DMA_MAP, PP_FLAG_DMA_SYNC_DEV).
 */
struct page_pool___bits {
	bool dma_map:1;
	bool dma_sync:1;
} __attribute__((preserve_access_index));

struct page_pool_params___flags {
	unsigned int flags;
} __attribute__((preserve_access_index));

struct page_pool___params_flags {
	struct page_pool_params___flags p;
} __attribute__((preserve_access_index));

#define PPW_PP_FLAG_DMA_MAP	(1U << 0)	/* include/net/page_pool/types.h */
#define PPW_PP_FLAG_DMA_SYNC	(1U << 1)

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
 * Added by "net: page_pool: id the page pools" and "net: page_pool: record
 * pools per netdev" (Jakub Kicinski, v6.8). Older kernels have neither: the
 * pool is then known by address only.
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

static __always_inline struct net_device *pool_netdev(struct page_pool *pool)
{
	struct page_pool___user *u = (void *)pool;

	if (bpf_core_field_exists(u->slow.netdev))
		return BPF_CORE_READ(u, slow.netdev);
	return NULL;
}

/*
 * 4. Memory providers: pool->mp_priv ("netdev: support binding dma-buf to
 * netdevice", Mina Almasry, v6.12). Pools backed by devmem or io_uring zcrx
 * hand out net_iov netmems, not pages.
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
 * 5. Which pool a page belongs to: page->pp, or, on kernels carrying the
 * item-block series ("page_pool: fix IOMMU crash when driver has already
 * unbound", Yunsheng Lin, v7), page->pp_item whose PAGE_SIZE-aligned block
 * starts with the pool pointer (page_pool_item_to_block()).
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
 * 6. skb frags: skb_frag_t became { netmem_ref netmem; len; offset } in "net:
 * add netmem to skb_frag_t" (Mina Almasry, v6.8); before, a struct bio_vec
 * with bv_page.
 */
struct bio_vec___frag {
	struct page *bv_page;
} __attribute__((preserve_access_index));

static __always_inline __u64 skb_frag_netmem_at(__u64 frag)
{
	__u64 v = 0;

	if (bpf_core_field_exists(((struct skb_frag *)0)->netmem))
		bpf_probe_read_kernel(&v, sizeof(v),
				      (void *)frag + bpf_core_field_offset(struct skb_frag, netmem));
	else
		bpf_probe_read_kernel(&v, sizeof(v),
				      (void *)frag + bpf_core_field_offset(struct bio_vec___frag,
									   bv_page));
	return v;
}

/*
 * 7. A slab's kmem_cache: struct slab split out of struct page in "mm: Split
 * slab into its own type" (Matthew Wilcox, v5.17); before, page->slab_cache.
 */
struct page___slab {
	struct kmem_cache *slab_cache;
} __attribute__((preserve_access_index));

static __always_inline __u64 slab_cache_of(__u64 head)
{
	if (bpf_core_type_exists(struct slab))
		return (__u64)BPF_CORE_READ((struct slab *)head, slab_cache);
	return (__u64)BPF_CORE_READ((struct page___slab *)head, slab_cache);
}

/*
 * 8. A pool's own pages. frag_page was a struct page * before "page_pool:
 * convert to use netmem" (v6.10); same size, same name. The item-block
 * series replaces the ptr_ring with a list that keeps a count.
 */
struct pp_ring_cache___item {
	atomic_t count;
} __attribute__((preserve_access_index));

struct page_pool___ring_item {
	struct pp_ring_cache___item ring;
} __attribute__((preserve_access_index));

static __always_inline __u64 pool_frag_netmem(struct page_pool *pool)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v),
			      (void *)pool + bpf_core_field_offset(struct page_pool, frag_page));
	return v;
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
 * 9. The per-CPU skb defer lists: softnet_data.defer_list since "net:
 * generalize skb freeing deferral to per-cpu lists" (Eric Dumazet, v5.19),
 * until v6.18 moved them into net_hotdata.skb_defer_nodes, one per CPU and
 * NUMA node. net_hotdata is not in BTF: reading it needs its symbol
 * (CONFIG_KALLSYMS_ALL); without it the lists are reported as not readable.
 */
struct softnet_data___old {
	struct sk_buff *defer_list;
} __attribute__((preserve_access_index));

struct net_hotdata___defer {
	void *skb_defer_nodes;
} __attribute__((preserve_access_index));

/*
 * 10. DMA mappings a destroyed pool still has: pool->dma_mapped, an xarray
 * of every mapped page, from "page_pool: Track DMA-mapped pages and unmap
 * them when destroying the pool" (Toke Hoiland-Jorgensen, v6.16, stable
 * 6.12.34 and 6.15.3). page_pool_scrub() unmaps all of them on the first
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
 */
struct page_pool_alloc_stats___items {
	u64 item_fast_empty;
	u64 item_slow_failed;
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

/* read what the kernel has; returns PPW_PF_ITEM_STATS | PPW_PF_ITEM_BLOCKS it found */
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
		bpf_probe_read_kernel(&r->blocks_dyn_alloc, sizeof(__u64), (void *)pool +
				      bpf_core_field_offset(struct page_pool___items, item_blks_dyn_alloc));
		bpf_probe_read_kernel(&r->blocks_dyn_free, sizeof(__u64), (void *)pool +
				      bpf_core_field_offset(struct page_pool___items, item_blks_dyn_free));
		f |= PPW_PF_ITEM_BLOCKS;
	}
	return f;
}

/*
 * Differences handled in user space (cli/sources/kfeatures.c), by reading BTF:
 *
 * - pool->user.detach_time is seconds (u64) before, and a ktime_t in ns
 *   after, "page_pool: store detach_time as ktime_t to avoid
 *   false-negatives" (28b225282d44, v7.0; stable 6.18.y). CO-RE matches the
 *   field either way, so user space looks at the member's type name and sets
 *   rodata 'detach_time_is_ns'.
 */

#endif /* __PPWATCH_CORE_FIXES_BPF_H */
