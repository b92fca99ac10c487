// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/check_report.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return "pass";
	case VERDICT_FAIL:
		return "fail";
	case VERDICT_ERROR:
		return "error";
	}
	return "?";
}

struct check_result *report_add(struct check_report *rep)
{
	return VEC_PUSH(rep->r, rep->n, rep->cap);
}

void report_free(struct check_report *rep)
{
	size_t i;

	for (i = 0; i < rep->n; i++) {
		free(rep->r[i].details);
		free(rep->r[i].findings);
	}
	free(rep->r);
	memset(rep, 0, sizeof(*rep));
}

void report_count(const struct check_report *rep, size_t *pass, size_t *fail, size_t *err)
{
	size_t i;

	*pass = *fail = *err = 0;
	for (i = 0; i < rep->n; i++)
		switch (rep->r[i].v) {
		case VERDICT_PASS:
			(*pass)++;
			break;
		case VERDICT_FAIL:
			(*fail)++;
			break;
		case VERDICT_ERROR:
			(*err)++;
			break;
		}
}

int report_exit_code(const struct check_report *rep)
{
	size_t p, f, e;

	report_count(rep, &p, &f, &e);
	return f ? 1 : e ? 2 : 0;
}
