// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hot path: page_pool_state_hold / page_pool_state_release.
 *
 * These fire only when a page enters the pool from the page allocator or
 * leaves back to it; recycling through the pool's cache and ring fires
 * nothing. What is inflight is what the kernel calls so: pages out in the
 * stack and pages parked in the pool's own cache and ring.
 *
 * Every event carries the pool's own running counter (hold or release).
 * At every level (cfg_level) the event stores it in this CPU's slot of the
 * pool (pool.bpf.h): no shared cache line, no atomic, no hash lookup after
 * the first event of a pool on a CPU. The ledger levels then append the
 * event to this CPU's page log (ledger.bpf.h), which user space folds into
 * the page ledger: every page, or the sample of pages whose netmem hash
 * the sample mask selects.
 *
 * Each event has three entry points (tp_btf, raw_tp, classic tracepoint);
 * user space keeps the best one that loads and turns the others off.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* the one object that defines the shared maps and the rodata settings
 * (its PPW_COMPAT build, config.bpf.h, declares them) */
#ifndef PPW_COMPAT
#define PPW_DEFINE_MAPS
#endif
#include "ledger.bpf.h"

/*
 * The kernel's memory layout (core_fixes.bpf.h, 15): global functions,
 * defined here once for every object that calls them: the static linker
 * cannot merge one typeless __ksym declared in two objects ("failed to
 * resolve size of underlying type").
 */
#ifdef PPW_DEFINE_MAPS
extern const void page_offset_base __ksym __weak;
extern const void vmemmap_base __ksym __weak;

__noinline __u64 layout_page_offset(void)
{
	__u64 v = 0;

	if (&page_offset_base)
		bpf_probe_read_kernel(&v, sizeof(v), (void *)&page_offset_base);
	return v ?: cfg_page_offset;
}

__noinline __u64 layout_vmemmap(void)
{
	__u64 v = 0;

	if (&vmemmap_base)
		bpf_probe_read_kernel(&v, sizeof(v), (void *)&vmemmap_base);
	return v ?: cfg_vmemmap;
}
#endif

/* --stacks: a stack for 1 in cfg_stack_every events, counted per pool and kind */
static __always_inline __s32 take_stack(void *ctx, __u64 pool, __u32 gen, __u32 kind)
{
	struct ppw_stack_key k = {};
	__u64 one = 1, *v;
	__s32 id;

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
	k.pool = pool;
	k.gen = gen;
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
	struct ppw_pcpu_pool *pc = pcpu_slot(pool);
	__s32 stack_id = -1;

	if (!pc)
		return 0;
	/* on one CPU a pool's hold counter only grows: a step back is a new pool */
	if ((pc->pool != (__u64)pool || (__s32)(hold - pc->hold) <= 0) &&
	    pcpu_fill(pc, pool, PPW_SEEN_HOLD, hold))
		return 0;
	pc->hold = hold;
	pc->holds++;
	if (cfg_stack_every)
		stack_id = take_stack(ctx, pc->pool, pc->gen, PPW_STACK_HOLD);
	if (PPW_COMPAT || cfg_level == PPW_LEVEL_COUNTERS)
		return 0;
	/* counted in the base already: the pool was found mid-event */
	if ((__s32)(hold - pc->base_hold) <= 0)
		return 0;
	if (!ledger_sampled(ledger_hash(netmem)))
		return 0;
	/* the page's own hold stack, for 'pages' and 'record' */
	if (stack_id >= 0 && bpf_map_update_elem(&page_stacks, &netmem, &stack_id, BPF_ANY))
		cnt_inc(PPW_CNT_STACK_FAIL);
	if (!log_append(netmem, 0, pc->gen))
		pc->untracked++;
	return 0;
}

static __always_inline int on_release(void *ctx, struct page_pool *pool, __u64 netmem,
				      __u32 release)
{
	struct ppw_pcpu_pool *pc = pcpu_slot(pool);
	struct ppw_pool *rec;

	if (!pc)
		return 0;
	if ((pc->pool != (__u64)pool || (__s32)(release - pc->release) <= 0) &&
	    pcpu_fill(pc, pool, PPW_SEEN_RELEASE, release))
		return 0; /* no record (pool table full): counted there */
	pc->release = release;
	pc->releases++;
	if (cfg_stack_every) {
		rec = bpf_map_lookup_elem(&pools, &pc->pool);
		if (rec && rec->gen == pc->gen)
			take_stack(ctx, pc->pool, pc->gen,
				   rec->state == PPW_POOL_LIVE ? PPW_STACK_RELEASE :
								 PPW_STACK_ZOMBIE_RELEASE);
	}
	if (PPW_COMPAT || cfg_level == PPW_LEVEL_COUNTERS)
		return 0;
	/* counted in the base already: a page out before the pool was found */
	if ((__s32)(release - pc->base_release) <= 0)
		return 0;
	if (!ledger_sampled(ledger_hash(netmem)))
		return 0;
	if (cfg_stack_every)
		bpf_map_delete_elem(&page_stacks, &netmem);
	/* not logged: the page stays in the ledger, a phantom the pool's count bounds */
	if (!log_append(netmem, PPW_LOG_RELEASE, pc->gen))
		pc->rel_lost++;
	return 0;
}

#if !PPW_COMPAT
/*
 * A (jiffies, CLOCK_MONOTONIC) pair on demand (BPF_PROG_TEST_RUN, never
 * attached): user space's map from the log's times to the clock. The
 * jiffies value held at some instant between the two clock reads.
 * CLOCK_MONOTONIC because jiffies follow it (the tick, or NO_HZ's catch-up
 * from it) and neither counts a suspend; user space adds the suspends it
 * saw (CLOCK_BOOTTIME - CLOCK_MONOTONIC) to hold times after them.
 */
__u64 clock_ns, clock_jiffies, clock_ns_after;

SEC("raw_tp")
int clock_pair(void *ctx)
{
	clock_ns = bpf_ktime_get_ns();
	clock_jiffies = bpf_jiffies64();
	clock_ns_after = bpf_ktime_get_ns();
	return 0;
}

/*
 * The kernel's word on the pages the ledger suspects (phantoms: their
 * release may have been lost), run on demand (BPF_PROG_TEST_RUN, never
 * attached): for each netmem of check_page[] (the ledger's key: a head
 * page, or a net_iov with bit 0 set), the pool it belongs to now, 0 when
 * it belongs to none (page_pool clears pp_magic when a page goes back to
 * the page allocator), PPW_CHECK_UNKNOWN on a kernel without pp_magic.
 */
__u64 check_page[PPW_CHECK_PAGES], check_pool[PPW_CHECK_PAGES];
__u32 check_n;

/* the pool of page pg, 0 if it is not a page_pool page (reads page->pp_magic: 5.14) */
PPW_SUBPROG __u64 page_owner(__u64 pg)
{
	__u64 magic = BPF_CORE_READ((struct page *)pg, pp_magic);

	if ((magic & cfg_pp_magic_mask) != cfg_pp_signature)
		return 0;
	return page_pool_of(pg, ~((1ULL << cfg_page_shift) - 1));
}

SEC("raw_tp")
int page_check(void *ctx)
{
	__u32 i;

	for (i = 0; i < PPW_CHECK_PAGES && i < check_n; i++) {
		if (!bpf_core_field_exists(((struct page *)0)->pp_magic))
			check_pool[i] = PPW_CHECK_UNKNOWN;
		else
			check_pool[i] = page_owner(check_page[i] & ~1ULL);
	}
	return 0;
}
#endif

SEC("tp_btf/page_pool_state_hold")
int PPW_BPF_PROG(PPW_NAME(hold_btf), struct page_pool *pool, __u64 netmem, __u32 hold)
{
	return on_hold(ctx, pool, tp_btf_netmem(ctx, netmem), hold);
}

SEC("tp_btf/page_pool_state_release")
int PPW_BPF_PROG(PPW_NAME(release_btf), struct page_pool *pool, __u64 netmem, __u32 release)
{
	return on_release(ctx, pool, tp_btf_netmem(ctx, netmem), release);
}

SEC("raw_tp/page_pool_state_hold")
int PPW_BPF_PROG(PPW_NAME(hold_raw), struct page_pool *pool, __u64 netmem, __u32 hold)
{
	return on_hold(ctx, pool, netmem, hold);
}

SEC("raw_tp/page_pool_state_release")
int PPW_BPF_PROG(PPW_NAME(release_raw), struct page_pool *pool, __u64 netmem, __u32 release)
{
	return on_release(ctx, pool, netmem, release);
}

SEC("tracepoint/page_pool/page_pool_state_hold")
int PPW_NAME(hold_tp)(struct trace_event_raw_page_pool_state_hold *ctx)
{
	return on_hold(ctx, (struct page_pool *)BPF_CORE_READ(ctx, pool), tp_hold_netmem(ctx),
		       BPF_CORE_READ(ctx, hold));
}

SEC("tracepoint/page_pool/page_pool_state_release")
int PPW_NAME(release_tp)(struct trace_event_raw_page_pool_state_release *ctx)
{
	return on_release(ctx, (struct page_pool *)BPF_CORE_READ(ctx, pool), tp_release_netmem(ctx),
			  BPF_CORE_READ(ctx, release));
}

#if !PPW_COMPAT
char LICENSE[] SEC("license") = "Dual BSD/GPL";
#endif
