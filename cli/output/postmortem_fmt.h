/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The post-mortem report (model/postmortem.c) as text and as YAML.
 */
#ifndef __PPWATCH_OUTPUT_POSTMORTEM_FMT_H
#define __PPWATCH_OUTPUT_POSTMORTEM_FMT_H

#include <stdio.h>

#include "lib/jsonp.h"

void postmortem_text(FILE *f, const struct jv *rep);
/* YAML through libyaml's emitter: 0 or -errno */
int postmortem_yaml(FILE *f, const struct jv *rep);

#endif /* __PPWATCH_OUTPUT_POSTMORTEM_FMT_H */
