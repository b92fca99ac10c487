/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The text parts both post-mortem renderers write with
 * (output/postmortem_fmt.c, output/pm_verdict_fmt.c): what a recording
 * carried goes out escaped (lib/escape.h), every number without a cast to
 * an integer type.
 */
#ifndef __PPWATCH_OUTPUT_PM_TEXT_H
#define __PPWATCH_OUTPUT_PM_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* a count of a report, whole, or in %g form past 1e15 */
const char *count_str(char *buf, size_t len, double v);
/* a string of a report, escaped; dflt when o has none at key */
void put_str(FILE *f, const json_t *o, const char *key, const char *dflt);
/* a sampled stack's first frames, innermost first, and the line's end */
void put_frames(FILE *f, const json_t *frames);

#endif /* __PPWATCH_OUTPUT_PM_TEXT_H */
