// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pool lifecycle: page_pool_release and page_pool_update_nid.
 *
 * page_pool_release fires from page_pool_release(), i.e. once from
 * page_pool_destroy() (destroy_cnt 1, after the cache and ring were
 * scrubbed) and then once per retry of the deferred release work, about
 * every second, while pages are still out. Its inflight is what is outside
 * the pool. When it reports 0 the kernel frees the pool right after.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "pool.bpf.h"

static __always_inline int on_pool_release(struct page_pool *pool, __s32 inflight, __u32 hold,
					   __u32 release, __u64 cnt)
{
	struct ppw_pool *rec;
	__u64 now;

	cnt_inc(PPW_CNT_POOL_RELEASE);
	rec = pool_get(pool, PPW_SEEN_OTHER, 0);
	if (!rec)
		return 0;
	now = bpf_ktime_get_boot_ns();
	u32_store_newer(&rec->hold_cnt, hold);
	u32_store_newer(&rec->release_cnt, release);
	rec->destroy_cnt = cnt;
	rec->last_inflight = inflight;
	rec->last_release_ns = now;
	rec->release_events += 1;
	/* page_pool_detached() sets it after the first call returns */
	rec->kernel_detach_time = pool_detach_time_raw(pool);
	/* set once the destroy's own call returned: from the first retry */
	pool_read_defer(rec, pool);
	/* registered after the pool was first seen (drivers register the
	 * memory model after creating the pool) */
	if (!rec->xdp_mem_id)
		rec->xdp_mem_id = pool_xdp_mem_id(pool);

	if (rec->state == PPW_POOL_LIVE) {
		rec->state = PPW_POOL_DETACHED;
		if (cnt <= 1) {
			rec->detach_ns = now;
			rec->destroy_inflight = inflight;
		}
	}
	rec->dma_mapped_left = pool_dma_mapped_left(pool) > 0;
	pool_item_counters(pool, rec);
	emit(cnt <= 1 ? PPW_EV_DESTROY : PPW_EV_RETRY, rec, inflight);
	if (inflight == 0) {
		rec->state = PPW_POOL_FREED;
		rec->freed_ns = now;
		pcpu_clear(rec);
		emit(PPW_EV_FREED, rec, inflight);
	}
	return 0;
}

static __always_inline int on_update_nid(struct page_pool *pool, int new_nid)
{
	struct ppw_pool *rec;

	rec = pool_get(pool, PPW_SEEN_OTHER, 0);
	if (!rec)
		return 0;
	rec->nid = new_nid;
	emit(PPW_EV_NID, rec, rec->last_inflight);
	return 0;
}

SEC("tp_btf/page_pool_release")
int PPW_BPF_PROG(PPW_NAME(pool_release_btf), struct page_pool *pool, __s32 inflight, __u32 hold,
		 __u32 release)
{
	return on_pool_release(pool, inflight, hold, release, BPF_CORE_READ(pool, destroy_cnt));
}

SEC("raw_tp/page_pool_release")
int PPW_BPF_PROG(PPW_NAME(pool_release_raw), struct page_pool *pool, __s32 inflight, __u32 hold,
		 __u32 release)
{
	return on_pool_release(pool, inflight, hold, release, BPF_CORE_READ(pool, destroy_cnt));
}

SEC("tracepoint/page_pool/page_pool_release")
int PPW_NAME(pool_release_tp)(struct trace_event_raw_page_pool_release *ctx)
{
	return on_pool_release((struct page_pool *)BPF_CORE_READ(ctx, pool),
			       BPF_CORE_READ(ctx, inflight), BPF_CORE_READ(ctx, hold),
			       BPF_CORE_READ(ctx, release), BPF_CORE_READ(ctx, cnt));
}

SEC("tp_btf/page_pool_update_nid")
int PPW_BPF_PROG(PPW_NAME(update_nid_btf), struct page_pool *pool, int new_nid)
{
	return on_update_nid(pool, new_nid);
}

SEC("raw_tp/page_pool_update_nid")
int PPW_BPF_PROG(PPW_NAME(update_nid_raw), struct page_pool *pool, int new_nid)
{
	return on_update_nid(pool, new_nid);
}

SEC("tracepoint/page_pool/page_pool_update_nid")
int PPW_NAME(update_nid_tp)(struct trace_event_raw_page_pool_update_nid *ctx)
{
	return on_update_nid((struct page_pool *)BPF_CORE_READ(ctx, pool),
			     BPF_CORE_READ(ctx, new_nid));
}
