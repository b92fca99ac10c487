/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder: lifecycle events, snapshots, holder scans, the oldest
 * pages of destroyed pools and sampled stacks, written as JSON Lines, one
 * record per line with a "type", in the record types of
 * output/record_fmt.h (format RECORDING_FORMAT, model/contract.h).
 * 'record' writes them to a bounded set of rotated files (lib/rotfile.h),
 * each starting with a header; 'postmortem' without a file records a
 * short window into memory and reads it back (model/recording.c) the
 * same way, so a live report and one from a file come from the same code.
 *
 * A flight recorder must survive what it records:
 * - each record is built in memory and written whole with one write(2),
 *   so it is in the file (for any reader, and for the page cache to write
 *   back) the moment it is made, and a SIGKILL never leaves half of one;
 *   none is longer than the record bound (model/contract.h): one that
 *   would be is written in parts (output/record_parts.h);
 * - the records that matter after a power cut (destroy, stalled and
 *   freed events, and the holder scans they start) are fdatasync'ed, and
 *   so is a file before it is rotated away;
 * - what cannot be written (a full disk, a quota, a rotation that could
 *   not make its new file) is counted and the recording goes on; what
 *   cannot be taken (a holder scan that made no progress, a namespace
 *   that would not open, no memory) is a transient error too: each is a
 *   "gap" record, written when it begins and again when it ends (what
 *   failed, the errno, since when, how often, what was lost), and the
 *   recording goes on. Only a write error of another kind ends it.
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
#include "lib/ksyms.h"
#include "lib/rotfile.h"
#include "model/life_feed.h"
#include "sources/incident_file.h"
#include "sources/monitor.h"

#define REC_RETRIES_ALL 60

struct recorder_opts {
	const char *path;	 /* what the messages call the output ("-": stdout) */
	struct monitor_opts mon; /* attach type, table sizes, netlink */
	double snapshot_every;	 /* seconds, > 0 */
	double scan_every;	 /* seconds, > 0; destroys and stalls scan at once too */
	uint32_t stack_every;	 /* 0: no stacks */
	double stall_after;
	size_t oldest_pages;	 /* per destroyed pool, per scan */
	size_t incident_size;	 /* FILE.incidents' budget (0: none); a set that rotates only */
	unsigned keep_incidents; /* freed incidents kept in it */
	struct file_perm perm;	 /* of FILE.incidents: the set's */
};

/* what can fail and be recorded through: each has its gap records */
enum rec_gap {
	GAP_WRITE,     /* writing a record (a full disk, a quota, a file size limit) */
	GAP_ROTATE,    /* rotating: the new file could not be made */
	GAP_SNAPSHOT,  /* sampling the pools */
	GAP_SCAN,      /* a holder scan */
	GAP_PAGES,     /* a destroyed pool's oldest pages */
	GAP_STACKS,    /* reading the sampled stacks */
	GAP_BUILD,     /* building a record (memory) */
	GAP_INCIDENTS, /* writing FILE.incidents */
	GAP_MAX,
};

struct recorder_gap {
	bool open;
	int err; /* positive errno */
	double since;
	uint64_t failures;
	uint64_t lost, lost_bytes; /* records (and bytes) not written */
};

struct recorder {
	struct rotfile *out;
	struct recorder_opts o;
	struct monitor m;
	struct life_feed feed;
	struct ksyms k;
	bool have_ksyms;
	struct incident_file inc; /* the incidents kept past rotation */
	int fatal;		  /* a write failed for good: the recording ends */
	bool scan_now;		  /* a destroy or a stall asks for a holder scan */
	bool sync_scan;		  /* and its records are synced */
	char run[20];		  /* this recorder's id, in every header */
	char boot_id[40];
	uint64_t seq; /* records made (their "seq") */
	/*
	 * a line numbered before a header or gap record that had to go
	 * first (a rotation, a write gap's end) is written renumbered
	 * renum_from -> renum_to, and so are the other parts of its record,
	 * so that seq rises through the files as they are read
	 */
	uint64_t renum_from, renum_to;
	size_t limit;	  /* the record bound in force */
	size_t records;	  /* lines written */
	uint64_t parts;	  /* records written in parts */
	uint64_t dropped; /* elements left out of a record for the bound */
	struct recorder_gap gaps[GAP_MAX];
	double warned[GAP_MAX]; /* when each last said it on stderr (CLOCK_MONOTONIC) */
	uint64_t lost_total, gaps_total;
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
/* a last snapshot, scan and stacks, the end record (why: "duration", "signal", "error"); closes */
int recorder_close(struct recorder *w, const char *why);

#endif /* __PPWATCH_SOURCES_RECORDER_H */
