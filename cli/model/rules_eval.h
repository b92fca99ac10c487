/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Rules against a snapshot: every limit of every rule on the pools it
 * matches, one check result per limit.
 */
#ifndef __PPWATCH_MODEL_RULES_EVAL_H
#define __PPWATCH_MODEL_RULES_EVAL_H

#include "model/check_report.h"
#include "model/rules.h"
#include "model/snapshot.h"

/* evaluate every limit of every rule on s (freed pools are ignored) */
int rules_eval(const struct ruleset *rs, const struct snapshot *s, struct check_report *rep);

#endif /* __PPWATCH_MODEL_RULES_EVAL_H */
