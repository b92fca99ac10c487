/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What 'check --run' saw: a run report built from the pools before the
 * command and a snapshot after it. Pure: the unit tests drive it with
 * hand-made snapshots.
 */
#ifndef __PPWATCH_MODEL_RUN_REPORT_H
#define __PPWATCH_MODEL_RUN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/check_report.h"
#include "model/pool_verdict.h"
#include "model/snapshot.h"

/* A pool as it was just before the command started. */
struct run_key {
	__u64 addr;
	__u32 gen;
	__u32 id;
	enum row_state state;
};

/*
 * Who holds a stuck pool's pages. Filled by run_find_holders() (cmd/check.c)
 * when ppwatch can attribute pages to sockets and processes.
 */
struct run_holder {
	int pid; /* 0: not known */
	char comm[16];
	char what[160];	  /* the holding object, e.g. "udp 192.0.2.2:5001 ino 306415" */
	char remedy[320]; /* what to do about it, as holders says it */
	__s64 pages;	  /* pages of this pool it holds; -1: not known */
	bool walked;	  /* a holder the scan walked to (not the unattributed rest) */
};

struct run_pool {
	struct pool_row row;	    /* at the end of the run */
	bool created;		    /* first seen after the command started */
	bool destroyed;		    /* destroyed by the command, or before the deadline */
	bool stuck;		    /* destroyed and not freed within the deadline */
	double destroyed_s;	    /* after the command started; NAN: not known */
	double freed_s;		    /* after the command ended (< 0: before); NAN: not freed */
	struct run_holder *holders; /* malloc'd */
	size_t nholders;
	const char *holders_note;    /* why no holders are listed (static string) */
	struct pool_verdict verdict; /* stuck pools: what is the matter (run_report_verdicts()) */
	double attributed, unattributed; /* pages of walked holders, and the rest */
};

struct run_report {
	const char *command;
	bool started; /* the command ran (fork and exec worked) */
	char start_error[128];
	int exit_status; /* of the command; -1: killed by a signal */
	int signal;
	double duration_s; /* command start to end */
	double deadline_s;
	double waited_s;	/* watched after the command ended */
	__u64 ts_ns;		/* when the final snapshot was taken */
	struct run_pool *pools; /* created or destroyed only; stuck first */
	size_t n;
	size_t ncreated, ndestroyed, nfreed, nstuck, npreexisting;
	__u64 losses_during[PPW_CNT_MAX]; /* loss counters' growth over the run */
};

/*
 * Compare the pools before the command (base) with a snapshot taken after
 * the deadline (fin, which keeps freed pools): which pools the command
 * created and destroyed, which of those were freed within deadline_s of
 * end_ns. Times are CLOCK_BOOTTIME ns, as in the snapshot. The command's
 * own facts (command, status, duration) are the caller's to fill.
 */
int run_report_build(struct run_report *rep, const struct run_key *base, size_t nbase,
		     const struct snapshot *fin, __u64 start_ns, __u64 end_ns, double deadline_s);
void run_report_free(struct run_report *rep);
/* each stuck pool's verdict, once its holders are known (model/pool_verdict.h) */
void run_report_verdicts(struct run_report *rep);
/* true when every destroyed pool is freed (nothing left to wait for) */
bool run_report_settled(const struct run_report *rep);
/* the verdict as one check result; details are the post-mortem */

#endif /* __PPWATCH_MODEL_RUN_REPORT_H */
