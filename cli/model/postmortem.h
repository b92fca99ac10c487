/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The post-mortem report (pure): from recorded records (model/recording.h),
 * fed one at a time, to one JSON value tree (jansson) per report, which
 * output/postmortem_fmt.c renders as text, JSON or YAML. For every pool
 * that is stalled, still destroyed-but-out, or was freed during the
 * recording: identity and device, timeline (destroy, retries, stall,
 * unmap, freed), inflight over time, holders at the last scan, oldest
 * pages, and the sampled stacks that released the last pages.
 *
 * Streaming: what a report needs is kept as records go by (the last
 * snapshot row, holder scan, pages and stacks of each pool, its events,
 * the retries folded as they come), the rest let go, so memory grows
 * with the pools a recording names, not with its length. Every pool and
 * every lifecycle event (new, destroy, stalled, unmap, freed) is
 * reported, and every retry counted, however long the recording; of the
 * events that repeat (NUMA node, netlink, item blocks) the first
 * PM_MINOR_MAX are listed and the rest counted (events_not_listed), and
 * inflight over time keeps its last PM_SERIES_MAX changes (the earlier
 * ones counted: inflight_over_time_dropped).
 */
#ifndef __PPWATCH_MODEL_POSTMORTEM_H
#define __PPWATCH_MODEL_POSTMORTEM_H

#include "model/recording.h"

#define PM_EVENTS_MAX  64  /* events listed per pool: a lifecycle has 5 */
#define PM_MINOR_MAX   32  /* of them, of the kinds that repeat */
#define PM_SERIES_MAX  512 /* inflight changes kept per pool */
#define PM_HOLD_STACKS 3   /* hold stacks shown per pool */
#define PM_GAPS_MAX    32  /* the recorder's gaps listed (the rest counted) */
#define PM_RUNS_MAX    16  /* the recorder runs a set holds, listed (the rest counted) */

struct pm;

struct pm *pm_new(void);
/* one record, in order (borrowed: what is kept is referenced): 0, or -ENOMEM */
int pm_feed(struct pm *a, json_t *rec);
/*
 * Every record the reader has left, in order: 0, or -errno (the reader's:
 * r->failed names the file; or -ENOMEM).
 */
int pm_read(struct pm *a, struct recording *r);
/*
 * What the report is read against, to say how a recording without its
 * recorder's end record ended: now (wall clock; 0: unknown), this boot's
 * /proc/sys/kernel/random/boot_id and this host's name (NULL: unknown),
 * and whether a pid is a ppwatch running here (NULL: unknown).
 */
void pm_context(struct pm *a, double now, const char *boot_id, const char *host,
		bool (*alive)(int pid));
/*
 * The report (a new reference), or NULL without memory. Its "runs" say,
 * for each recorder run the records are of, the time its records cover
 * and its "end": its end record's reason (duration, signal, error), or
 * without one, on the host and boot that recorded it, "running" (its
 * recorder's pid is a ppwatch still) or "killed" (killed, or crashed);
 * on the host after another boot, "rebooted" (a crash, a power cut, a
 * reboot); elsewhere "no_end". source: "live" or
 * the file name; input: what the reader says it read (recording_summary(), borrowed), or NULL.
 */
json_t *pm_report(struct pm *a, const char *source, json_t *input);
/*
 * Report live pools with pages out too, not only destroyed, stalled and
 * freed ones (a crash dump's report: every pool with pages out)
 */
void pm_report_live(struct pm *a, bool on);
void pm_free(struct pm *a);

#endif /* __PPWATCH_MODEL_POSTMORTEM_H */
