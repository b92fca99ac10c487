/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A verdict for each pool of a post-mortem report (pure), from all the
 * report knows of it (model/pool_verdict.h): the recording's or the live
 * host's inflight over time and last holder scan, its kernel-log lines
 * (model/pm_klog.h). Each pool gets .verdict:
 *
 *   verdict        the code (pool_verdict_name())
 *   basis          what it rests on: "recording" or "live", "kernel_log",
 *                  "holder_scan"
 *   inflight, bytes, bytes_estimated (inflight times the page size when
 *                  only a log tells: pages of order 0)
 *   trend          {from_age_s, from, to_age_s, to}: inflight at two ages
 *                  since the destroy (the recent VERDICT window), or null
 *   rate_pages_per_s, eta_s   draining
 *   holders        the walkable holders ({holder, kind, pages, remedy}, as
 *                  the holder scan named them), unattributed: the rest
 *   driver         the pool's driver, when known (accounting_bug, leaked)
 *   hold_stacks    leaked: where its pages were taken (the recorder's
 *                  sampled stacks), stacks_recorded: whether it sampled any
 *   freed_by       freed: "recording", "host" (no pool on the host fits
 *                  the log's any more), "log" (the log goes on without it)
 *   rebooted       the log's next boot came while it stalled
 */
#ifndef __PPWATCH_MODEL_PM_VERDICT_H
#define __PPWATCH_MODEL_PM_VERDICT_H

#include <jansson.h>

/* every pool of rep.pools and rep.kernel_log.gone: 0, or -ENOMEM */
int pm_add_verdicts(json_t *rep);

#endif /* __PPWATCH_MODEL_PM_VERDICT_H */
