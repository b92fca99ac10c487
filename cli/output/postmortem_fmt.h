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

#endif /* __PPWATCH_OUTPUT_POSTMORTEM_FMT_H */
