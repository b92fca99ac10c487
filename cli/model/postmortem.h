/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The post-mortem report (pure): from recorded records (model/rec_reader.h)
 * to one value tree per report, which output/postmortem_fmt.c renders as
 * text or YAML and lib/jsonp.c as JSON. For every pool
 * that is stalled, still destroyed-but-out, or was freed during the
 * recording: identity and device, timeline (destroy, retries, stall,
 * unmap, freed), inflight over time, holders at the last scan, oldest
 * pages, and the sampled stacks that released the last pages.
 */
#ifndef __PPWATCH_MODEL_POSTMORTEM_H
#define __PPWATCH_MODEL_POSTMORTEM_H

#include <stddef.h>

#include "lib/jsonp.h"

/* records: one parsed JSON object per line; source: "live" or the file name */
struct jv *postmortem_build(struct jv *const *records, size_t n, const char *source);

#endif /* __PPWATCH_MODEL_POSTMORTEM_H */
