/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A check report: one result per check (a rule's limit, or --run), each
 * pass, fail or error, with the pools that broke it. rules_eval.c and
 * run_report.c add results; output/report_fmt.c prints them.
 */
#ifndef __PPWATCH_MODEL_CHECK_REPORT_H
#define __PPWATCH_MODEL_CHECK_REPORT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_ERROR };

const char *verdict_name(enum verdict v);

struct finding {       /* one pool over a limit */
	__u32 pool_id; /* the kernel's id, 0 if it has none */
	char pool[24]; /* the pool's name (pool_row.ident) */
	char device[48];
	double value;
	bool at_least; /* value is a lower bound */
};

struct check_result {
	char name[96];	 /* rule name, or "run" */
	char what[96];	 /* "max_inflight <= 4096" */
	const char *key; /* the limit's key, "run" for --run */
	double limit;	 /* the limit's value (pages, bytes, seconds, count) */
	enum verdict v;
	char summary[256];	  /* one line */
	char *details;		  /* more lines, or NULL (malloc'd) */
	size_t npools;		  /* pools the check looked at */
	struct finding *findings; /* pools over the limit (malloc'd) */
	size_t nfindings, capfindings;
};

struct check_report {
	struct check_result *r;
	size_t n, cap;
};

/* a new, zeroed result at the end of the report; NULL: out of memory */
struct check_result *report_add(struct check_report *rep);
void report_free(struct check_report *rep);
/* 0 all passed, 1 one failed, 2 none failed but one could not be checked */
int report_exit_code(const struct check_report *rep);
void report_count(const struct check_report *rep, size_t *pass, size_t *fail, size_t *err);

#endif /* __PPWATCH_MODEL_CHECK_REPORT_H */
