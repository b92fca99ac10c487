/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The page ledger's structure: which pages are inflight and since when.
 *
 * An array of buckets of PPW_LEDGER_WAYS slots; a page's bucket is its
 * struct page's index modulo the number of buckets, so pages next to each
 * other in memory sit next to each other in the ledger: the page
 * allocator hands out runs of neighbouring pages, and a random index (a
 * hash) into a ledger of tens of MiB costs a cache and a TLB miss per
 * event (bench/README.md). A hold takes a free slot of its
 * bucket with a compare-and-swap on the slot's netmem (two CPUs never take
 * the same slot), a release clears the slot that has its netmem. A bucket
 * whose slots are all taken sends the page to the overflow hash map
 * ('pages'), which is also where a release looks when its bucket does not
 * have the page. The sampled level keeps only pages whose hash has
 * cfg_sample_mask's bits clear: the same page is chosen at hold and at
 * release, whichever CPU sees them, and neighbouring pages are chosen
 * independently.
 *
 * Why not one hash map keyed by netmem, as before: a preallocated hash
 * insert and delete cost ~400 ns per event here (bench/README.md); an
 * array slot is a bounds check, a few compares and one atomic on a cache
 * line no other page shares for long.
 */
#ifndef __PPWATCH_LEDGER_BPF_H
#define __PPWATCH_LEDGER_BPF_H

#include "pool.bpf.h"

/* a page's index: struct pages (and net_iovs) are 64-byte aligned */
static __always_inline __u64 ledger_hash(__u64 netmem)
{
	return netmem >> 6;
}

/* the sampled level: is this page one of the sample? (every page otherwise) */
static __always_inline bool ledger_sampled(__u64 h)
{
	return cfg_level != PPW_LEVEL_SAMPLED ||
	       !(((__u32)h * (__u32)PPW_HASH_MUL >> 16) & cfg_sample_mask);
}

/* the first slot of the page's bucket */
static __always_inline __u32 ledger_bucket(__u64 h)
{
	return ((__u32)h % cfg_ledger_buckets) * PPW_LEDGER_WAYS;
}

/* the slot holding netmem, or NULL (then look in 'pages') */
static __always_inline struct ppw_ledger_slot *ledger_slot_of(__u64 netmem, __u64 h)
{
	__u32 first = ledger_bucket(h), i, idx;
	struct ppw_ledger_slot *s;

#pragma unroll
	for (i = 0; i < PPW_LEDGER_WAYS; i++) {
		idx = first + i;
		s = bpf_map_lookup_elem(&ledger, &idx);
		if (s && s->netmem == netmem)
			return s;
	}
	return NULL;
}

/* a hold time as the slot keeps it: never 0, which means "being written" */
static __always_inline __u32 ledger_time(__u64 now)
{
	__u32 t = (now - cfg_epoch_ns) >> PPW_LEDGER_TIME_SHIFT;

	return t ?: 1;
}

/*
 * Record a held page of pool (addr, gen). Returns 0, 1 when it went to the
 * overflow map, or -1 when that is full too (the caller counts the page
 * as untracked).
 */
static __always_inline int ledger_insert(__u64 netmem, __u64 h, __u64 pool, __u32 gen)
{
	struct ppw_ledger_slot *s, *same = NULL, *free = NULL;
	__u32 first = ledger_bucket(h), i, idx;
	__u64 now = bpf_ktime_get_boot_ns();
	struct ppw_page page;

#pragma unroll
	for (i = 0; i < PPW_LEDGER_WAYS; i++) {
		idx = first + i;
		s = bpf_map_lookup_elem(&ledger, &idx);
		if (!s)
			continue;
		if (s->netmem == netmem) {
			same = s; /* a release was lost: the page is back */
			break;
		}
		if (!free && !s->netmem)
			free = s;
	}
	s = same;
	if (!s && free && !__sync_val_compare_and_swap(&free->netmem, 0, netmem))
		s = free;
	if (s) {
		s->gen = gen;
		s->hold = ledger_time(now); /* last: a reader takes 0 for "being written" */
		return 0;
	}
	page.pool = pool;
	page.gen = gen;
	page.cpu = bpf_get_smp_processor_id();
	page.hold_ns = now;
	page.stack_id = -1;
	page.pad = 0;
	if (bpf_map_update_elem(&pages, &netmem, &page, BPF_ANY))
		return -1;
	__sync_fetch_and_add(&ledger_spilled, 1);
	return 1;
}

/* Forget a released page: true if the ledger had it. */
static __always_inline bool ledger_remove(__u64 netmem, __u64 h)
{
	struct ppw_ledger_slot *s = ledger_slot_of(netmem, h);

	if (s) {
		s->hold = 0;
		/* only this page's release clears it: no other CPU writes the slot now */
		s->netmem = 0;
		return true;
	}
	if (!ledger_spilled || bpf_map_delete_elem(&pages, &netmem))
		return false;
	__sync_fetch_and_sub(&ledger_spilled, 1);
	return true;
}

/* What the ledger knows of netmem, for the holder scan: false if nothing. */
static __always_inline bool ledger_lookup(__u64 netmem, struct ppw_page *out)
{
	__u64 h = ledger_hash(netmem);
	struct ppw_ledger_slot *s;
	struct ppw_page *p;
	__s32 *stack;
	__u32 hold;

	if (!ledger_sampled(h))
		return false;
	out->stack_id = -1;
	if (cfg_stack_every) {
		stack = bpf_map_lookup_elem(&page_stacks, &netmem);
		if (stack)
			out->stack_id = *stack;
	}
	s = ledger_slot_of(netmem, h);
	if (s) {
		hold = s->hold;
		out->gen = s->gen;
		out->cpu = (__u32)-1;
		out->hold_ns = cfg_epoch_ns + ((__u64)hold << PPW_LEDGER_TIME_SHIFT);
		return hold != 0;
	}
	p = bpf_map_lookup_elem(&pages, &netmem);
	if (!p)
		return false;
	out->pool = p->pool;
	out->gen = p->gen;
	out->cpu = p->cpu;
	out->hold_ns = p->hold_ns;
	return true;
}

#endif /* __PPWATCH_LEDGER_BPF_H */
