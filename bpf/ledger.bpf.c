// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inflight ledger: page_pool_state_hold / page_pool_state_release.
 *
 * These fire only when a page enters the pool from the page allocator or
 * leaves back to it; recycling through the pool's cache and ring fires
 * nothing. The ledger therefore holds every page the pool owns that is not
 * back in the page allocator: pages out in the stack and pages parked in
 * the pool's own cache and ring, exactly what the kernel calls "inflight".
 *
 * Each event has three entry points (tp_btf, raw_tp, classic tracepoint);
 * user space keeps the best one that loads and turns the others off.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* the one object that defines the shared maps and the rodata settings */
#define PPW_DEFINE_MAPS
#include "pool.bpf.h"

static __always_inline __s32 take_stack(void *ctx, struct ppw_pool *rec, __u32 kind)
{
	struct ppw_stack_key k = {};
	__u64 one = 1, *v;
	__s32 id;

	if (!cfg_stack_every)
		return -1;
	/* every release of a destroyed pool: "who returned the last pages?" */
	if (kind != PPW_STACK_ZOMBIE_RELEASE && cfg_stack_every > 1 &&
	    bpf_get_prandom_u32() % cfg_stack_every)
		return -1;
	id = bpf_get_stackid(ctx, &stacks, 0);
	if (id < 0) {
		cnt_inc(PPW_CNT_STACK_FAIL);
		return -1;
	}
	cnt_inc(PPW_CNT_STACKS);
	k.pool = rec->addr;
	k.gen = rec->gen;
	k.kind = kind;
	k.stack_id = id;
	v = bpf_map_lookup_elem(&stack_counts, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	else if (bpf_map_update_elem(&stack_counts, &k, &one, BPF_NOEXIST))
		cnt_inc(PPW_CNT_STACK_FAIL);
	return id;
}

static __always_inline int on_hold(void *ctx, struct page_pool *pool, __u64 netmem, __u32 hold)
{
	struct ppw_page page = {};
	struct ppw_pool *rec;

	cnt_inc(PPW_CNT_HOLD);
	rec = pool_get(pool, PPW_SEEN_HOLD, hold);
	if (!rec)
		return 0;
	u32_store_newer(&rec->hold_cnt, hold);
	/* counted in the base already: the pool was found mid-event */
	if ((__s32)(hold - rec->base_hold) <= 0)
		return 0;

	page.pool = rec->addr;
	page.gen = rec->gen;
	page.cpu = bpf_get_smp_processor_id();
	page.hold_ns = bpf_ktime_get_boot_ns();
	page.stack_id = take_stack(ctx, rec, PPW_STACK_HOLD);
	if (bpf_map_update_elem(&pages, &netmem, &page, BPF_ANY)) {
		cnt_inc(PPW_CNT_LEDGER_FULL);
		__sync_fetch_and_add(&rec->untracked_holds, 1);
		return 0;
	}
	__sync_fetch_and_add(&rec->ledger_holds, 1);
	return 0;
}

static __always_inline int on_release(void *ctx, struct page_pool *pool, __u64 netmem,
				      __u32 release)
{
	struct ppw_pool *rec;

	cnt_inc(PPW_CNT_RELEASE);
	rec = pool_get(pool, PPW_SEEN_RELEASE, release);
	if (!rec) {
		bpf_map_delete_elem(&pages, &netmem);
		return 0;
	}
	u32_store_newer(&rec->release_cnt, release);
	take_stack(ctx, rec, rec->state == PPW_POOL_LIVE ? PPW_STACK_RELEASE :
						      PPW_STACK_ZOMBIE_RELEASE);
	if (bpf_map_delete_elem(&pages, &netmem) == 0) {
		__sync_fetch_and_add(&rec->ledger_releases, 1);
		return 0;
	}
	/* not in the ledger: held before ppwatch started (or lost to a full ledger) */
	if ((__s32)(release - rec->base_release) > 0) {
		__sync_fetch_and_add(&rec->unmatched_releases, 1);
		cnt_inc(PPW_CNT_UNMATCHED);
	}
	return 0;
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(hold_btf, struct page_pool *pool, __u64 netmem, __u32 hold)
{
	return on_hold(ctx, pool, netmem, hold);
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(release_btf, struct page_pool *pool, __u64 netmem, __u32 release)
{
	return on_release(ctx, pool, netmem, release);
}

SEC("raw_tp/page_pool_state_hold")
int BPF_PROG(hold_raw, struct page_pool *pool, __u64 netmem, __u32 hold)
{
	return on_hold(ctx, pool, netmem, hold);
}

SEC("raw_tp/page_pool_state_release")
int BPF_PROG(release_raw, struct page_pool *pool, __u64 netmem, __u32 release)
{
	return on_release(ctx, pool, netmem, release);
}

SEC("tracepoint/page_pool/page_pool_state_hold")
int hold_tp(struct trace_event_raw_page_pool_state_hold *ctx)
{
	return on_hold(ctx, (struct page_pool *)BPF_CORE_READ(ctx, pool),
		       tp_hold_netmem(ctx), BPF_CORE_READ(ctx, hold));
}

SEC("tracepoint/page_pool/page_pool_state_release")
int release_tp(struct trace_event_raw_page_pool_state_release *ctx)
{
	return on_release(ctx, (struct page_pool *)BPF_CORE_READ(ctx, pool),
			  tp_release_netmem(ctx), BPF_CORE_READ(ctx, release));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
