/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Views over a holder scan: who holds each pool's pages ('holders') and
 * every inflight page of a pool ('pages'). Pure, like render.c.
 */
#ifndef __PPWATCH_OUTPUT_HOLDER_TABLE_H
#define __PPWATCH_OUTPUT_HOLDER_TABLE_H

#include <stdio.h>

#include "lib/json.h"
#include "model/attrib.h"
#include "output/table.h"

struct page_row {
	__u64 netmem;
	__u64 pfn;	   /* 0: unknown (net_iov, or layout unknown) */
	double age_s;	   /* NAN: unknown */
	bool age_at_least; /* held before ppwatch saw the pool */
	bool in_ledger;
	__s32 cpu;	   /* hold CPU, -1 unknown */
	__s32 stack_id;	   /* -1: not sampled */
	const char *where; /* "head", "frag", ... or NULL */
	char holder[160];
	char stack[200]; /* symbolised hold stack, innermost first */
};

const char *where_name(__u32 where);

/* the views: one pool's holders, one pool's pages */
struct oview holder_oview(void);
struct oview page_oview(void);

void render_holders_text(FILE *f, const struct holders_report *rep, bool wide);
/* "pools": [ {pool identity, inflight, holders: [...]} ], "scan": {...} */
void render_holders_json(struct json *j, const struct holders_report *rep);
void render_scan_summary_text(FILE *f, const struct holders_report *rep);

void render_pages_text(FILE *f, const struct page_row *rows, size_t n, bool wide);
void render_pages_json(struct json *j, const struct page_row *rows, size_t n);

#endif /* __PPWATCH_OUTPUT_HOLDER_TABLE_H */
