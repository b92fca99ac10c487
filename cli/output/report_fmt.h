/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A check report (model/check_report.h) as text, TAP, JUnit XML and JSON.
 * The unit tests compare each format with golden files.
 */
#ifndef __PPWATCH_OUTPUT_REPORT_FMT_H
#define __PPWATCH_OUTPUT_REPORT_FMT_H

#include <stdio.h>

#include "lib/json.h"
#include "model/check_report.h"

enum report_format { REPORT_TEXT, REPORT_TAP, REPORT_JUNIT, REPORT_JSON };

int report_format_parse(const char *s, enum report_format *f);

struct report_meta {
	const char *version;
	double time; /* when the checks ran, Unix time */
	double duration_s;
	const char *timestamp; /* ISO 8601, for JUnit */
	const char *hostname;
	const char *rules_file; /* NULL: none */
};

void report_text(FILE *f, const struct check_report *rep, const struct report_meta *m);
void report_tap(FILE *f, const struct check_report *rep, const struct report_meta *m);
void report_junit(FILE *f, const struct check_report *rep, const struct report_meta *m);
/* members of the current JSON object */
void report_json(struct json *j, const struct check_report *rep, const struct report_meta *m);

#endif /* __PPWATCH_OUTPUT_REPORT_FMT_H */
