/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The page log's reader: each CPU's log (bpf/ledger.bpf.h) mapped
 * read-only, drained into the page ledger (model/page_ledger.c) when one
 * is a quarter full and every 10 to 250 ms (page_log.c: passes as long as
 * the logs allow, so that a page's hold and release meet in one), never
 * letting one fill, and the log's jiffies turned into CLOCK_BOOTTIME.
 *
 * The clock: clock_pair (ledger.bpf.c, run with BPF_PROG_TEST_RUN) gives
 * jiffies between two readings of CLOCK_MONOTONIC, which say the kernel's
 * HZ too (model/ages.c); each drain's pair narrows where the ticks begin (page_log.c
 * says how, and how suspends are counted). A log time then stands for the
 * middle of its tick: ages are right to half a tick and the bounds' width
 * (a tick at first, a fraction of it after a few drains), whatever the
 * CPU. Nothing waits for the clock and nothing fails for it: until the
 * tick is known an age is a lower bound (page_log_exact()).
 */
#define PL_MAX_SUSPENDS 64
#ifndef __PPWATCH_SOURCES_PAGE_LOG_H
#define __PPWATCH_SOURCES_PAGE_LOG_H

#include "model/page_ledger.h"
#include "sources/loader.h"

struct page_log {
	bool on; /* the session logs pages (a ledger level, not the counters-only build) */
	struct session *s;
	const struct ppw_log_rec *log; /* every CPU's log, read-only */
	size_t log_len;
	struct ppw_log_ctl *ctl; /* their control lines: our tails */
	size_t ctl_len;
	__u64 map_bytes; /* the kernel's charge for both maps (fdinfo memlock, read at open) */
	__u32 recs, shift;
	int ncpus;
	__u64 *stall_at; /* per CPU: a slot that stayed unwritten, and since when */
	__u64 *stall_ns;
	struct page_ledger led;
	/* jiffies -> CLOCK_MONOTONIC: tick edge_j began in [edge_lo, edge_hi], each tick_ns long */
	__u64 tick_ns, edge_j, edge_lo, edge_hi;
	__u64 first_j, first_mid, first_ns1; /* the first pair: the tick measured from it */
	__u64 last_j, last_ns1, prev_j;	     /* the latest pair */
	/* -> CLOCK_BOOTTIME: the suspends seen, from which jiffies on each applies */
	__u64 boot_off0, boot_off; /* at open, now */
	__u64 susp_j[PL_MAX_SUSPENDS], susp_off[PL_MAX_SUSPENDS];
	int nsusp;
	unsigned int pair_failed;
	__u64 jiffies;		  /* the newest jiffies read: the logs' 32 bits unwrap around it */
	double due_s, interval_s; /* the next drain (now_mono_s()), the spacing */
	/* the reader's own cost, for bench/ (-v prints it at the end) */
	__u64 records, passes, skipped, cpu_ns;
};

/* Each reports its own failure (the object, the errno, what to do) and returns -errno. */
int page_log_open(struct page_log *pl, struct session *s);
void page_log_close(struct page_log *pl);
/* fold what every log holds now */
int page_log_drain(struct page_log *pl);
/* the drain is due (now_mono_s() >= page_log_due()) or a log is filling: drain */
int page_log_tick(struct page_log *pl);
/* when the next drain is due, now_mono_s() terms (INFINITY when off) */
double page_log_due(const struct page_log *pl);
/*
 * CLOCK_BOOTTIME of the middle of tick j (a log time); while the tick is
 * not known (!page_log_exact()), the latest the hold can have been
 * (ages from it are lower bounds)
 */
__u64 page_log_ns(const struct page_log *pl, __u64 j);
bool page_log_exact(const struct page_log *pl);
/* events the logs had no room for, by kind, and slots the reader skipped */
void page_log_losses(const struct page_log *pl, __u64 *holds, __u64 *releases, __u64 *skipped);
/*
 * The kernel's word on n ledger pages (prog 'page_check'): for each, the
 * pool it belongs to now, 0 for none, PPW_CHECK_UNKNOWN where the kernel
 * cannot tell. 0 or -errno (not reported).
 */
int page_log_check(struct page_log *pl, const __u64 *netmem, __u64 *pool, size_t n);
/* records the logs hold now, not read yet (every CPU's) */
__u64 page_log_unread(const struct page_log *pl);
/* what the logs and the ledger take: kernel-charged map memory and the ledger's */
__u64 page_log_bytes(const struct page_log *pl);

#endif /* __PPWATCH_SOURCES_PAGE_LOG_H */
