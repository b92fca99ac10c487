/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel log in the post-mortem report (pure): each pool the log's
 * "stalled pool shutdown" lines speak of (model/kernel_log.h) linked to
 * the report's pool it is, with how sure that is, or added as a pool of
 * its own.
 *
 * The evidence for a link, each one agreeing, disagreeing or not known:
 *   id            the line's id (since 6.8) is the pool's (ids restart at boot)
 *   destroy time  the line's time - its sec, in the report's clock, is the
 *                 pool's destroy within the clocks' tolerance (the printk
 *                 clock is the scheduler's, not NTP's: it drifts, by up to
 *                 'drift' a second of uptime)
 *   inflight      the pool's inflight at destroy + sec, in the recording,
 *                 is the line's (pages only come back: a line before the
 *                 recording with fewer pages out than its start, or after
 *                 it with more than its end, is not of the pool)
 *   age           live: a pool the kernel still warns about is at most a
 *                 warning interval older than its last line's sec
 * Any disagreement rules a pool out (but for a matching id: it is kept, the
 * confidence low, the conflict named). Of the pools left, each log pool
 * takes the one with the most evidence, one log pool a pool where they
 * can share out; a tie is ambiguous and says its candidates.
 *
 * confidence: "certain" (the id, and the time or inflight agree), "high"
 * (the id alone; or the destroy time and inflight), "medium" (one of
 * them), "low" (only the age; a tie; a conflict).
 */
#ifndef __PPWATCH_MODEL_PM_KLOG_H
#define __PPWATCH_MODEL_PM_KLOG_H

#include <jansson.h>

#include "model/kernel_log.h"

struct klog_link_opts {
	double printk_to_unix; /* Unix time = printk time + this; NAN: not the report's clock */
	double drift;	       /* the printk clock's tolerance per second of it */
	double utc_offset_s;   /* local time - UTC for stamps that do not say their zone */
	int year;	       /* for stamps that do not say it */
	bool live;	       /* the report's pools are the host's now */
	bool alone;	       /* no recording, no live host: the log is all there is */
	const char *source;    /* "/dev/kmsg", or the file's name */
};

/* the drift allowed the printk clock: 100 ppm */
#define KLOG_DRIFT 1e-4

/*
 * k (finished) into rep (a postmortem report): rep.kernel_log, each linked
 * pool's .kernel_log, the log's other pools added to rep.pools (from:
 * "kernel_log"), or, live, those no pool of the host fits (freed since), to
 * rep.kernel_log.gone. 0, or -ENOMEM.
 */
int pm_add_kernel_log(json_t *rep, const struct klog *k, const struct klog_link_opts *o);

/* a log's pool as the report shows it (tests) */
json_t *pm_klog_pool(const struct klog_pool *p, const struct klog_link_opts *o);

#endif /* __PPWATCH_MODEL_PM_KLOG_H */
