// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Item blocks: the tracepoints of ppwatch's kernel series (patches/), on
 * kernels that carry the page_pool item-block series.
 *
 *   page_pool_item_block_alloc / _free  (pool, block, dynamic, prealloc, dyn)
 *   page_pool_item_fast_empty / _slow_failed  (pool)
 *   page_pool_destroy_unmap  (pool, inflight, unmapped, blocks, duration_ns)
 *
 * Each one refreshes the pool's counters from the pool itself (they are
 * the kernel's own, so a pool seen late is still exact) and reports what
 * a user watches for: dynamic blocks coming and going, a failed block
 * allocation, the DMA unmap at destroy. Loaded only when the kernel's BTF
 * has the tracepoints.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "pool.bpf.h"

static __always_inline int on_block(struct page_pool *pool, __u64 dynamic, bool alloc)
{
	struct ppw_pool *rec = pool_get(pool, PPW_SEEN_OTHER, 0);

	if (!rec)
		return 0;
	rec->flags |= pool_item_counters(pool, rec);
	if (dynamic & 0xff)
		emit(alloc ? PPW_EV_BLOCK_ALLOC : PPW_EV_BLOCK_FREE, rec, rec->last_inflight,
		     rec->hold_cnt, rec->release_cnt, rec->nid, rec->destroy_cnt);
	return 0;
}

static __always_inline int on_items(struct page_pool *pool, bool failed)
{
	struct ppw_pool *rec = pool_get(pool, PPW_SEEN_OTHER, 0);

	if (!rec)
		return 0;
	rec->flags |= pool_item_counters(pool, rec);
	if (failed)
		emit(PPW_EV_SLOW_FAILED, rec, (__s32)(rec->hold_cnt - rec->release_cnt),
		     rec->hold_cnt, rec->release_cnt, rec->nid, rec->destroy_cnt);
	return 0;
}

static __always_inline int on_unmap(struct page_pool *pool, __s32 inflight, __u32 unmapped,
				    __u32 blocks, __u64 duration_ns)
{
	struct ppw_pool *rec = pool_get(pool, PPW_SEEN_OTHER, 0);

	if (!rec)
		return 0;
	rec->unmapped_pages = unmapped;
	rec->unmap_blocks = blocks;
	rec->unmap_took_ns = duration_ns;
	rec->unmap_ns = bpf_ktime_get_boot_ns();
	emit(PPW_EV_UNMAP, rec, inflight, rec->hold_cnt, rec->release_cnt, rec->nid,
	     rec->destroy_cnt);
	return 0;
}

SEC("tp_btf/page_pool_item_block_alloc")
int BPF_PROG(block_alloc_btf, struct page_pool *pool, void *block, __u64 dynamic)
{
	return on_block(pool, dynamic, true);
}

SEC("tp_btf/page_pool_item_block_free")
int BPF_PROG(block_free_btf, struct page_pool *pool, void *block, __u64 dynamic)
{
	return on_block(pool, dynamic, false);
}

SEC("tp_btf/page_pool_item_fast_empty")
int BPF_PROG(fast_empty_btf, struct page_pool *pool)
{
	return on_items(pool, false);
}

SEC("tp_btf/page_pool_item_slow_failed")
int BPF_PROG(slow_failed_btf, struct page_pool *pool)
{
	return on_items(pool, true);
}

SEC("tp_btf/page_pool_destroy_unmap")
int BPF_PROG(destroy_unmap_btf, struct page_pool *pool, __s32 inflight, __u32 unmapped,
	     __u32 blocks, __u64 duration_ns)
{
	return on_unmap(pool, inflight, unmapped, blocks, duration_ns);
}

SEC("raw_tp/page_pool_item_block_alloc")
int BPF_PROG(block_alloc_raw, struct page_pool *pool, void *block, __u64 dynamic)
{
	return on_block(pool, dynamic, true);
}

SEC("raw_tp/page_pool_item_block_free")
int BPF_PROG(block_free_raw, struct page_pool *pool, void *block, __u64 dynamic)
{
	return on_block(pool, dynamic, false);
}

SEC("raw_tp/page_pool_item_fast_empty")
int BPF_PROG(fast_empty_raw, struct page_pool *pool)
{
	return on_items(pool, false);
}

SEC("raw_tp/page_pool_item_slow_failed")
int BPF_PROG(slow_failed_raw, struct page_pool *pool)
{
	return on_items(pool, true);
}

SEC("raw_tp/page_pool_destroy_unmap")
int BPF_PROG(destroy_unmap_raw, struct page_pool *pool, __s32 inflight, __u32 unmapped,
	     __u32 blocks, __u64 duration_ns)
{
	return on_unmap(pool, inflight, unmapped, blocks, duration_ns);
}
