/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * FILE.incidents: what the recorder (sources/recorder.c) keeps of each
 * incident however much of the set rotates away (model/incidents.h says
 * what, and what goes first when the budget is short). The recorder hands
 * it the records it writes; it keeps the incident pools' copies and
 * writes the file whole (lib/atomic_file.h: a temporary file beside it,
 * synced, renamed over it, the directory synced), at most once a second
 * and at once after a destroy's, a stall's or a free's scan. A file a
 * recorder before this one left (a crash, a restart) is kept in it while
 * there is room. Its mode is the set's (lib/private_file.h).
 */
#ifndef __PPWATCH_SOURCES_INCIDENT_FILE_H
#define __PPWATCH_SOURCES_INCIDENT_FILE_H

#include "lib/private_file.h"
#include "model/incidents.h"
#include "output/record_build.h"
#include "sources/page_list.h"

struct incident_file {
	bool on;
	char *path;
	struct file_perm perm;
	struct incidents x;
	size_t limit;	/* the record bound of the copies */
	double written; /* CLOCK_MONOTONIC of the last write */
	uint64_t warned_dropped;
	char what[1200]; /* after a failed write: what failed */
};

/* FILE.incidents of a set at path, within budget bytes, keep freed ones kept: 0 or -errno */
int incf_open(struct incident_file *f, const char *path, size_t budget, unsigned keep,
	      const struct file_perm *perm, size_t limit);
void incf_close(struct incident_file *f);

/* an event record written (text, whole): a destroy begins an incident, a free ends it */
void incf_event(struct incident_file *f, const struct event_row *er, const char *text, size_t len,
		double time, uint64_t seq);
/* the records of many pools written: each incident pool's part of them, kept */
void incf_snapshot(struct incident_file *f, const struct snapshot *s, double time, uint64_t seq);
void incf_scan(struct incident_file *f, const struct holders_report *rep, double time,
	       uint64_t seq);
void incf_pages(struct incident_file *f, const struct pool_row *row, const struct page_list *l,
		double time, uint64_t seq);
void incf_stacks(struct incident_file *f, const struct ksyms *k, const struct snapshot *s,
		 const struct stack_agg *v, size_t n, uint64_t every, double time, uint64_t seq);

/* is there something to write, and is it time (now: CLOCK_MONOTONIC; force: at once)? */
bool incf_due(const struct incident_file *f, double now, bool force);
/* the file written anew under header (whole lines): 0 or -errno (f->what) */
int incf_write(struct incident_file *f, const char *header, size_t hlen, double now);

#endif /* __PPWATCH_SOURCES_INCIDENT_FILE_H */
