/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recording writer: lifecycle events, snapshots, holder scans, the
 * oldest pages of destroyed pools and sampled stacks, written as JSON
 * Lines, one record per line with a "type". 'record' writes them to a
 * file; 'postmortem' without a file records a short window into memory
 * and reads it back (model/rec_reader.c) the same way, so a live report
 * and one from a file come from the same code.
 */
#ifndef __PPWATCH_SOURCES_REC_WRITER_H
#define __PPWATCH_SOURCES_REC_WRITER_H

#include <stdio.h>

#include "lib/ksyms.h"
#include "sources/life_feed.h"
#include "sources/monitor.h"

#define RECORD_FORMAT 1

struct rec_writer_opts {
	const char *path;	 /* what the messages call the output ("-": stdout) */
	struct monitor_opts mon; /* attach type, table sizes, netlink */
	double snapshot_every;	 /* seconds */
	double scan_every;	 /* seconds; destroys and stalls scan at once too */
	uint32_t stack_every;	 /* 0: no stacks */
	double stall_after;
	size_t oldest_pages; /* per destroyed pool, per scan */
};

struct rec_writer {
	FILE *f;
	struct json j;
	struct rec_writer_opts o;
	struct monitor m;
	struct life_feed feed;
	struct ksyms k;
	bool have_ksyms;
	bool scan_now; /* a destroy or a stall asks for a holder scan */
	size_t records;
};

int rec_writer_open(struct rec_writer *w, FILE *f, const struct rec_writer_opts *o);
/* record until duration (0: until interrupted) */
int rec_writer_run(struct rec_writer *w, double duration);
/* a last snapshot, scan and stacks, the end record; closes the monitor */
int rec_writer_close(struct rec_writer *w);

#endif /* __PPWATCH_SOURCES_REC_WRITER_H */
