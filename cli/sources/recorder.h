/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recording writer: lifecycle events, snapshots, holder scans, the
 * oldest pages of destroyed pools and sampled stacks, written as JSON
 * Lines, one record per line with a "type". 'record' writes them to a
 * bounded set of rotated files (lib/rotfile.h), each starting with a
 * header; 'postmortem' without a file records a short window into memory
 * and reads it back (model/recording.c) the same way, so a live report
 * and one from a file come from the same code.
 *
 * A flight recorder must survive what it records: each record is built
 * in memory and written whole with one write(2), so it is in the file
 * (for any reader, and for the page cache to write back) the moment it
 * is made, and a SIGKILL never leaves half of one; the records that
 * matter after a power cut (destroy, stalled and freed events, and the
 * holder scans they start) are fdatasync'ed. A record that cannot be
 * written (a full disk) is counted and the recording goes on: the next
 * one written is preceded by a "gap" record saying how many were lost
 * and why.
 *
 * A pool that stalls for days retries once a second: so as not to rotate
 * the start of an incident away with its retries, a pool's first
 * REC_RETRIES_ALL retries are written, then one in REC_RETRIES_ALL, and
 * any that sees its inflight change (postmortem counts retries by their
 * number, so none is lost to the report).
 */
#ifndef __PPWATCH_SOURCES_RECORDER_H
#define __PPWATCH_SOURCES_RECORDER_H

#include <stdio.h>

#include "lib/json.h"
#include "lib/rotfile.h"

#include "lib/ksyms.h"
#include "model/life_feed.h"
#include "sources/monitor.h"

#define RECORD_FORMAT 1

#define REC_RETRIES_ALL 60

struct recorder_opts {
	const char *path;	 /* what the messages call the output ("-": stdout) */
	struct monitor_opts mon; /* attach type, table sizes, netlink */
	double snapshot_every;	 /* seconds */
	double scan_every;	 /* seconds; destroys and stalls scan at once too */
	uint32_t stack_every;	 /* 0: no stacks */
	double stall_after;
	size_t oldest_pages; /* per destroyed pool, per scan */
};

struct recorder {
	struct rotfile *out;
	struct json j;
	FILE *mem;  /* the record being built */
	FILE *sink; /* where it goes when there is no memory for it */
	char *buf;
	size_t len;
	int err;   /* building it failed (memory) */
	int fatal; /* an event could not be written: the recording ends */
	struct recorder_opts o;
	struct monitor m;
	struct life_feed feed;
	struct ksyms k;
	bool have_ksyms;
	bool scan_now;	/* a destroy or a stall asks for a holder scan */
	bool sync_scan; /* and its records are synced */
	size_t records;
	/* records a full disk (or quota) kept out, since the last gap record, and in all */
	uint64_t lost, lost_bytes, lost_total;
	int lost_err;
	double lost_warned;
	/* the retries of each pool still destroyed: what its last written one said */
	struct rec_retry {
		__u64 pool;
		__u32 gen;
		__s32 inflight;
	} * retries;
	size_t nretries, cap_retries;
	uint64_t retries_thinned;
};

/* record into out, which the caller opened (and closes after recorder_close()) */
int recorder_open(struct recorder *w, struct rotfile *out, const struct recorder_opts *o);
/* record until duration (0: until interrupted) */
int recorder_run(struct recorder *w, double duration);
/* a last snapshot, scan and stacks, the end record; closes the monitor */
int recorder_close(struct recorder *w);

#endif /* __PPWATCH_SOURCES_RECORDER_H */
