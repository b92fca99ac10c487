// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracepoints of ppwatch's kernel series: on kernels with the page_pool
 * item-block series (patches/)
 *
 *   page_pool_item_block_alloc / _free  (pool, block, dyn)
 *   page_pool_item_fast_empty / _slow_failed  (pool)
 *   page_pool_destroy_unmap  (pool, inflight, unmapped, blocks, duration_ns)
 *
 * (the series for the dma_mapped xarray, patches/xarray/, adds counters,
 * no event: pool.bpf.h reads them with the others)
 *
 * Each one refreshes the pool's counters from the pool itself (they are
 * the kernel's own, so a pool seen late is still exact) and reports what
 * a user watches for: dynamic blocks coming and going, a failed block
 * allocation, the DMA unmap at destroy. Each has tp_btf, raw_tp and
 * classic tracepoint programs, like every hook of ppwatch's; they load
 * only where the kernel's BTF has the tracepoints.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "pool.bpf.h"

static __always_inline int on_block(struct page_pool *pool, void *block, bool alloc)
{
	struct page_pool_item_block___walk *b = block;
	struct ppw_pool *rec = pool_get(pool, PPW_SEEN_OTHER, 0);

	if (!rec)
		return 0;
	rec->flags |= pool_item_counters(pool, rec);
	/* the series announces dynamic blocks only; the block says so itself */
	if (BPF_CORE_READ(b, flags) & PPW_ITEM_BLK_DYNAMIC)
		emit(alloc ? PPW_EV_BLOCK_ALLOC : PPW_EV_BLOCK_FREE, rec, rec->last_inflight);
	return 0;
}

static __always_inline int on_items(struct page_pool *pool, bool failed)
{
	struct ppw_pool *rec = pool_get(pool, PPW_SEEN_OTHER, 0);

	if (!rec)
		return 0;
	rec->flags |= pool_item_counters(pool, rec);
	if (failed)
		emit(PPW_EV_SLOW_FAILED, rec, (__s32)(rec->hold_cnt - rec->release_cnt));
	return 0;
}

static __always_inline int on_unmap(struct page_pool *pool, __s32 inflight, __u32 unmapped,
				    __u32 blocks, __u64 duration_ns)
{
	struct ppw_pool *rec = pool_get(pool, PPW_SEEN_OTHER, 0);

	if (!rec)
		return 0;
	rec->flags |= pool_item_counters(pool, rec);
	rec->unmapped_pages = unmapped;
	rec->unmap_blocks = blocks;
	rec->unmap_took_ns = duration_ns;
	rec->unmap_ns = bpf_ktime_get_boot_ns();
	emit(PPW_EV_UNMAP, rec, inflight);
	return 0;
}

SEC("tp_btf/page_pool_item_block_alloc")
int BPF_PROG(block_alloc_btf, struct page_pool *pool, void *block)
{
	return on_block(pool, block, true);
}

SEC("tp_btf/page_pool_item_block_free")
int BPF_PROG(block_free_btf, struct page_pool *pool, void *block)
{
	return on_block(pool, block, false);
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
int BPF_PROG(block_alloc_raw, struct page_pool *pool, void *block)
{
	return on_block(pool, block, true);
}

SEC("raw_tp/page_pool_item_block_free")
int BPF_PROG(block_free_raw, struct page_pool *pool, void *block)
{
	return on_block(pool, block, false);
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

/* classic tracepoints: the records (core_fixes.bpf.h §18) */
SEC("tracepoint/page_pool/page_pool_item_block_alloc")
int block_alloc_tp(struct trace_event_raw_page_pool_item_block___ppw *ctx)
{
	return on_block((struct page_pool *)ctx->pool, (void *)ctx->block, true);
}

SEC("tracepoint/page_pool/page_pool_item_block_free")
int block_free_tp(struct trace_event_raw_page_pool_item_block___ppw *ctx)
{
	return on_block((struct page_pool *)ctx->pool, (void *)ctx->block, false);
}

SEC("tracepoint/page_pool/page_pool_item_fast_empty")
int fast_empty_tp(struct trace_event_raw_page_pool_item_alloc___ppw *ctx)
{
	return on_items((struct page_pool *)ctx->pool, false);
}

SEC("tracepoint/page_pool/page_pool_item_slow_failed")
int slow_failed_tp(struct trace_event_raw_page_pool_item_alloc___ppw *ctx)
{
	return on_items((struct page_pool *)ctx->pool, true);
}

SEC("tracepoint/page_pool/page_pool_destroy_unmap")
int destroy_unmap_tp(struct trace_event_raw_page_pool_destroy_unmap___ppw *ctx)
{
	return on_unmap((struct page_pool *)ctx->pool, ctx->inflight, ctx->unmapped, ctx->blocks,
			ctx->duration_ns);
}
