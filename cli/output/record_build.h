/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recording's records assembled, each type from the model's structs
 * (its elements by output/record_fmt.h, split by output/record_parts.h):
 * what sources/recorder.c writes, and what the unit tests write and read
 * back without a kernel. Every record begins with "type", "time" (wall
 * clock, seconds) and "seq" (its number in the recorder's run; the parts
 * of one record share it).
 */
#ifndef __PPWATCH_OUTPUT_RECORD_BUILD_H
#define __PPWATCH_OUTPUT_RECORD_BUILD_H

#include "output/record_fmt.h"
#include "output/record_parts.h"

/* '{' and the members every record begins with (malloc'd), or NULL without memory */
char *rbuild_prefix(const char *type, double time, uint64_t seq);

/* a record of a few members, whole, with its newline: malloc'd text, or NULL */
struct rbuild_header {
	const char *run, *hostname, *boot_id, *release, *attach;
	const char *file; /* NULL: a file of the set; "incidents" */
	enum unmap_regime unmap;
	uint64_t page_size;
	bool netlink;
	bool pp_stats; /* CONFIG_PAGE_POOL_STATS: pools' "stats" can be recorded */
	double boot_to_real, stall_after, snapshot_every, scan_every;
	uint32_t stack_every;
	uint64_t max_record;
	uint32_t pid; /* the recorder's */
};
char *rbuild_header(const struct rbuild_header *h, double time, uint64_t seq, size_t *len);

struct rbuild_gap {
	const char *what;
	int err;	     /* positive errno */
	double since, until; /* until NAN: it goes on */
	uint64_t failures, lost, lost_bytes;
};
char *rbuild_gap(const struct rbuild_gap *g, double time, uint64_t seq, size_t *len);

struct rbuild_end {
	const char *why; /* "duration", "signal", "error" */
	uint64_t records, lost, gaps, split, dropped, thinned;
};
char *rbuild_end(const struct rbuild_end *e, double time, uint64_t seq, size_t *len);

char *rbuild_event(const struct event_row *er, double time, uint64_t seq, size_t *len);

/* the records of many elements, into p (p->nomem: incomplete); rparts_emit() writes them */
void rbuild_snapshot(struct rparts *p, const struct snapshot *s);
void rbuild_holders(struct rparts *p, const struct holders_report *rep);
void rbuild_pages(struct rparts *p, const struct pool_row *row, const struct page_row *rows,
		  size_t n);
void rbuild_stacks(struct rparts *p, const struct ksyms *k, const struct snapshot *s,
		   const struct stack_agg *v, size_t n, uint64_t every);

#endif /* __PPWATCH_OUTPUT_RECORD_BUILD_H */
