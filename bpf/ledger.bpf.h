/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The page log: what the hot path writes for the page ledger.
 *
 * Each CPU appends its hold and release events to its own log (a region
 * of the 'page_log' array, cfg_log_recs records) and never looks up a
 * page: user space folds the logs into the ledger of inflight pages
 * (cli/model/page_ledger.c, drained by cli/sources/page_log.c). An event
 * costs a slot reservation on this CPU's control line ('log_ctl'), a
 * jiffies read and three stores into a line the CPU wrote a moment ago;
 * a page-indexed table in the kernel cost a cache miss per event
 * (bench/README.md has both).
 *
 * Nesting: a release program can interrupt a hold program on the same
 * CPU (an interrupt or softirq frees a page while a task allocates), so
 * the slot is reserved with an atomic add on this CPU's head (atomic
 * against the interrupt, uncontended: no other CPU writes this line but
 * the reader, once per drain), and the record says it is complete by its
 * first word, written last, whose lap bit (PPW_LOG_LAP) is the parity of
 * the slot's lap: a reader at a slot whose lap bit is the previous lap's
 * has caught up with a writer that was interrupted there, and waits.
 *
 * The reader drains when it sees a log a quarter full, else every 10 to
 * 250 ms, and at once when a log is half full: the event that reserves
 * the middle slot sends an 8-byte record through the lifecycle ring (too
 * short to be an event: only its wakeup counts), so a burst after a
 * quiet spell does not fill the log first.
 *
 * A full log: the reader has not consumed the records of a whole lap
 * (less PPW_LOG_SLACK slots, the deepest nesting), so the event is
 * dropped before any slot is reserved, counted by kind on this CPU's
 * control line and to its pool (a hold: the pool's untracked pages; a
 * release: its lost releases, the bound on the phantoms user space may
 * find): a full log never blocks an event, overwrites a record or leaves
 * a hole. Holds stop a quarter of the log earlier than releases: a page
 * not logged is one the ledger does not have (untracked), a release not
 * logged leaves a page in it that is gone (a phantom, until user space
 * reconciles the pool with the kernel's count), so releases keep room
 * longest.
 *
 * The time of an event is jiffies: the cheapest clock there is (one load)
 * and the same number on every CPU in the same tick, so two events of a
 * page on two CPUs in different ticks are in order, and in the same tick
 * the fold knows it cannot tell. User space turns jiffies into time with
 * the (jiffies, CLOCK_MONOTONIC) pairs clock_pair() gives it and the
 * kernel's HZ (sources/page_log.c): ages are right to one tick
 * (1 to 10 ms).
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

/*
 * Append (netmem, kind) of pool generation gen to this CPU's log.
 * Returns false when the log was full (the caller counts the page).
 */
static __always_inline bool log_append(__u64 netmem, __u64 kind, __u32 gen)
{
	__u32 room = cfg_log_recs - PPW_LOG_SLACK - (kind ? 0 : cfg_log_recs / 4);
	__u32 t = (__u32)bpf_jiffies64(), cpu = bpf_get_smp_processor_id(), idx;
	struct ppw_log_ctl *c = bpf_map_lookup_elem(&log_ctl, &cpu);
	struct ppw_log_rec *r;
	__u64 h, w, tail;

	if (!c)
		return false;
	/* the reader's tail is behind by (nearly) a lap: full (the slack covers nesting) */
	tail = *(volatile __u64 *)&c->tail;
	if (c->head - tail >= room) {
		if (kind)
			__sync_fetch_and_add(&c->dropped_rel, 1);
		else
			__sync_fetch_and_add(&c->dropped, 1);
		return false;
	}
	h = __sync_fetch_and_add(&c->head, 1);
	/* half full: wake the reader now (a burst after a quiet spell), once per crossing */
	if (h - tail == cfg_log_recs / 2)
		bpf_ringbuf_output(&events, &h, sizeof(h), BPF_RB_FORCE_WAKEUP);
	idx = cpu * cfg_log_recs + ((__u32)h & (cfg_log_recs - 1));
	r = bpf_map_lookup_elem(&page_log, &idx);
	if (!r)
		return false; /* cannot happen (the array has every CPU's log); the reader skips it */
	r->gen = gen;
	r->t = t;
	w = netmem | kind | ((((h >> cfg_log_shift) + 1) & 1) ? PPW_LOG_LAP : 0);
	/* the first word last: it says the record is there */
#if defined(__TARGET_ARCH_x86)
	/* x86 keeps stores in order: a compiler barrier is enough */
	asm volatile("" ::: "memory");
	r->w = w;
#else
	/* elsewhere a fully ordered exchange (BPF has no store-release before 6.16) */
	__sync_lock_test_and_set(&r->w, w);
#endif
	return true;
}

#endif /* __PPWATCH_LEDGER_BPF_H */
