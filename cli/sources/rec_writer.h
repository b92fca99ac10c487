/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder: lifecycle events, snapshots, holder scans, the oldest pages
 * of destroyed pools and sampled stacks, written as JSON Lines, one record
 * per line with a "type". 'record' writes them to a file; 'postmortem'
 * without a file records a short window into memory and reads it back the
 * same way, so a live report and one from a file come from the same code.
 */
#ifndef __PPWATCH_RECORDER_H
#define __PPWATCH_RECORDER_H

#include <stdio.h>

#include "lib/ksyms.h"
#include "model/lifecycle.h"
#include "sources/monitor.h"
#include "output/event_table.h"

#define RECORD_FORMAT 1

struct recorder_opts {
	double snapshot_every;	/* seconds */
	double scan_every;	/* seconds; destroys and stalls scan at once too */
	uint32_t stack_every;	/* 0: no stacks */
	double stall_after;
	size_t oldest_pages;	/* per destroyed pool, per scan */
};

struct recorder {
	FILE *f;
	struct json j;
	struct recorder_opts o;
	struct monitor m;
	struct lifecycle lc;
	struct event_ctx ec;
	struct ksyms k;
	bool have_ksyms;
	bool scan_now;		/* a destroy or a stall asks for a holder scan */
	double next_snapshot, next_scan;
	size_t records;
};

int recorder_open(struct recorder *r, FILE *f, const struct recorder_opts *o);
/* record until duration (0: until interrupted) */
int recorder_run(struct recorder *r, double duration);
/* a last snapshot, scan and stacks, the end record; closes the monitor */
int recorder_close(struct recorder *r);

#endif /* __PPWATCH_RECORDER_H */
