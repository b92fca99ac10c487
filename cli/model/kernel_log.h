/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel log's "stalled pool shutdown" lines (pure: lines in, no I/O).
 *
 * page_pool_release_retry() warns once a minute (DEFER_WARN_INTERVAL) for a
 * destroyed pool whose pages have not come back:
 *
 *   since 6.8 (be0096676e23, only for pools no netdev shows):
 *     page_pool_release_retry() stalled pool shutdown: id 51, 4032 inflight 26825 sec
 *   before (every pool):
 *     page_pool_release_retry() stalled pool shutdown 1389 inflight 60 sec
 *
 * "sec" counts from the destroy (pool->defer_start), so a line's time minus
 * its sec is when its pool was destroyed, and the sec of two lines of one
 * pool is a clock of its own even where the log has no timestamps.
 *
 * A line comes from any of the ways people keep the log, told apart line
 * by line (a file may mix them): a /dev/kmsg record ("4,1234,5678901,-;..."),
 * dmesg ("[ 5678.901234] ..."), dmesg -T ("[Mon Jan 13 10:01:02 2025] ..."),
 * dmesg -x, -r and with caller ids, ISO 8601 stamps (dmesg --time-format
 * iso, journalctl -o short-iso, rsyslog), syslog's and journalctl's
 * "Jan 13 10:01:02 host kernel: ...", with or without the printk stamp
 * after the tag, and lines with no stamp at all. The numbers are read by
 * their words ("id N", "N inflight", "N sec"), so downstream variants that
 * add a device name or fields read too; inflight may be negative (a double
 * release). Boots are told by the kernel's banner, journalctl's "-- Boot"
 * lines, or a printk clock that goes back.
 *
 * Lines are grouped into the pools they speak of as they come, memory
 * bounded by pools, not lines: by id (per boot) where the line has one;
 * else by destroy time (line time - sec) where it has a time; else by
 * sequence (each pool's sec grows by a minute a line). Pools destroyed in
 * the same second are told apart by order, and marked so.
 *
 * Everything a line says is untrusted: text is kept as written, and
 * escaped (lib/escape.h) wherever it is shown.
 */
#ifndef __PPWATCH_MODEL_KERNEL_LOG_H
#define __PPWATCH_MODEL_KERNEL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/klog_line.h"

#define KLOG_POOLS_MAX	4096 /* pools kept; lines of more are counted */
#define KLOG_POINTS_MAX 64   /* inflight changes kept per pool: the first, then the last */
#define KLOG_WARN_EVERY 60.0 /* DEFER_WARN_INTERVAL */

struct klog_point {
	int64_t sec, inflight;
};

/* the lines of one pool */
struct klog_pool {
	unsigned boot;
	bool has_id;
	uint32_t id;
	const char *grouped_by; /* "id", "destroy time" or "sequence" */
	bool together;		/* destroyed in the same second as another: told apart by order */
	char dev[32];
	uint64_t lines;
	struct klog_line first, last;
	int64_t min_inflight, max_inflight;
	/* inflight where it changed: pts[0] the first line, then a ring of the last */
	struct klog_point pts[KLOG_POINTS_MAX];
	size_t npts, head;
	uint64_t pts_dropped;
	/* set by klog_finish(): */
	bool ended;	      /* the log goes on past its next warning without it */
	bool rebooted;	      /* a later boot follows in the log */
	double ended_after_s; /* the log's end - its last line (same clock); NAN: unknown */
};

struct klog {
	uint64_t lines;
	uint64_t stall_lines;  /* read and grouped */
	uint64_t unread_lines; /* saying it, but not with the numbers a pool needs */
	uint64_t unread_first; /* the first of them */
	char unread_text[KLOG_TEXT_MAX];
	uint64_t negative_warnings; /* "Negative(N) inflight packet-pages" (WARN in page_pool_inflight) */
	int64_t negative_first;	 /* the first one's N */
	uint64_t by_fmt[KF_MAX]; /* stamped lines of each form */
	unsigned boots;		 /* boots the lines span (0: no line) */
	char kernel[64];	 /* the release of the last boot's banner, "" */
	struct klog_pool *pools;
	size_t n, cap;
	uint64_t lines_not_grouped; /* of pools past KLOG_POOLS_MAX */
	uint64_t lost_lines;	    /* not kept for want of memory */
	/* the log's last time in the last boot, in each clock (NAN: none) */
	struct klog_time end;
	/* the parser's state */
	unsigned boot;
	bool boot_has_lines;
	double last_mono;
	size_t *ids; /* pools with an id: (boot, id) -> position + 1 */
	size_t ids_n, ids_cap;
};

void klog_init(struct klog *k);
void klog_free(struct klog *k);
/*
 * One line (without its newline; a /dev/kmsg record without its
 * continuation lines): 0, or -ENOMEM (the line is lost and counted).
 */
int klog_feed_line(struct klog *k, const char *line, size_t len);
/* whole lines of a buffer (the last one may lack its newline) */
int klog_feed(struct klog *k, const char *buf, size_t len);
/*
 * The log is complete: which pools it stops naming. end_mono: the printk
 * clock now (a live log: it runs on to now), or NAN (a file ends at its
 * last stamped line).
 */
void klog_finish(struct klog *k, double end_mono);

/* the pool's kept inflight points, oldest first: i < klog_npoints() */
size_t klog_npoints(const struct klog_pool *p);
const struct klog_point *klog_point(const struct klog_pool *p, size_t i);

#endif /* __PPWATCH_MODEL_KERNEL_LOG_H */
