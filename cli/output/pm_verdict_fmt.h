/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The post-mortem's verdicts and kernel-log lines (model/pm_verdict.h,
 * model/pm_klog.h) in words: postmortem_prose() writes each verdict's
 * sentence and the commands to run next into the report, so that text,
 * JSON and YAML say the same; the text renderer's parts for them.
 */
#ifndef __PPWATCH_OUTPUT_PM_VERDICT_FMT_H
#define __PPWATCH_OUTPUT_PM_VERDICT_FMT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/* .verdict.summary and .verdict.next of every pool: 0, or -ENOMEM */
int postmortem_prose(json_t *rep);

/* the kernel log's own lines, before the pools (nothing without one) */
void pm_text_log_summary(FILE *f, const json_t *rep);
/* is the pool's verdict (.verdict.verdict) this one? */
bool pm_verdict_is(const json_t *pool, const char *verdict);
/* a pool's verdict, its holders with their remedies, what to run next */
void pm_text_verdict(FILE *f, const json_t *pool);
/* a pool's kernel-log lines and how they were linked to it */
void pm_text_kernel_log(FILE *f, const json_t *pool);
/* a pool only the kernel log knows of */
void pm_text_log_pool(FILE *f, const json_t *pool);
/* the log's pools no pool of the host fits any more */
void pm_text_gone(FILE *f, const json_t *rep);

#endif /* __PPWATCH_OUTPUT_PM_VERDICT_FMT_H */
