/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The post-mortem report (pure): from recorded records (cli/recorder.h) to
 * one value tree per report, rendered as text, JSON or YAML. For every pool
 * that is stalled, still destroyed-but-out, or was freed during the
 * recording: identity and device, timeline (destroy, retries, stall,
 * unmap, freed), inflight over time, holders at the last scan, oldest
 * pages, and the sampled stacks that released the last pages.
 */
#ifndef __PPWATCH_POSTMORTEM_H
#define __PPWATCH_POSTMORTEM_H

#include <stdio.h>

#include "lib/jsonp.h"

/* records: one parsed JSON object per line; source: "live" or the file name */
struct jv *postmortem_build(struct jv *const *records, size_t n, const char *source);
void postmortem_text(FILE *f, const struct jv *rep);
/* YAML through libyaml's emitter: 0 or -errno */
int postmortem_yaml(FILE *f, const struct jv *rep);

#endif /* __PPWATCH_POSTMORTEM_H */
