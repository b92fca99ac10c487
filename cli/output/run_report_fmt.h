/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * check --run's report (model/run_report.c) as text, as JSON, and as the
 * check result the report formats print (output/report_fmt.c).
 */
#ifndef __PPWATCH_OUTPUT_RUN_REPORT_FMT_H
#define __PPWATCH_OUTPUT_RUN_REPORT_FMT_H

#include <stdio.h>

#include "lib/json.h"
#include "model/check_report.h"
#include "model/run_report.h"

/* the run as one check result: verdict, summary, the text report as details */
int run_report_result(const struct run_report *rep, struct check_result *res);
/* the post-mortem: the command, then each stuck pool with its holders */
void run_report_text(FILE *f, const struct run_report *rep);
void run_report_json(struct json *j, const struct run_report *rep);

#endif /* __PPWATCH_OUTPUT_RUN_REPORT_FMT_H */
