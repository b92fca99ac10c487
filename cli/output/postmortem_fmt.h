/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The post-mortem report (model/postmortem.c) as text, JSON (lib/json.c)
 * and YAML (libyaml's emitter). The report carries what a recording
 * carried, from whichever host: every string goes out through
 * lib/escape.h, every number without a cast to an integer type.
 */
#ifndef __PPWATCH_OUTPUT_POSTMORTEM_FMT_H
#define __PPWATCH_OUTPUT_POSTMORTEM_FMT_H

#include <stdio.h>

#include <jansson.h>

#include "lib/json.h"

void postmortem_text(FILE *f, const json_t *rep);
/* any JSON value through the JSON writer: objects, arrays, numbers as they are */
void postmortem_json(struct json *j, const json_t *v);
/* 0, or -EIO with the emitter's complaint reported */
int postmortem_yaml(FILE *f, const json_t *rep);

/* the text renderers' parts (output/pm_verdict_fmt.c too): a count of a report, whole */
const char *count_str(char *buf, size_t len, double v);
/* a string of a report, escaped; dflt when o has none at key */
void put_str(FILE *f, const json_t *o, const char *key, const char *dflt);
/* a sampled stack's first frames, innermost first, and the line's end */
void put_frames(FILE *f, const json_t *frames);

#endif /* __PPWATCH_OUTPUT_POSTMORTEM_FMT_H */
