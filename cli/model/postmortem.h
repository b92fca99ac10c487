/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The post-mortem report (pure): from recorded records (model/rec_reader.h)
 * to one JSON value tree (jansson) per report, which
 * output/postmortem_fmt.c renders as text, JSON or YAML. For every pool
 * that is stalled, still destroyed-but-out, or was freed during the
 * recording: identity and device, timeline (destroy, retries, stall,
 * unmap, freed), inflight over time, holders at the last scan, oldest
 * pages, and the sampled stacks that released the last pages. No limit on
 * pools or events: a recording of days reports every pool and every event.
 */
#ifndef __PPWATCH_MODEL_POSTMORTEM_H
#define __PPWATCH_MODEL_POSTMORTEM_H

#include "model/rec_reader.h"

/*
 * records: the array rec_read() returns; source: "live" or the file name.
 * The report (a new reference), or NULL without memory.
 */
json_t *postmortem_build(const json_t *records, const char *source);

#endif /* __PPWATCH_MODEL_POSTMORTEM_H */
