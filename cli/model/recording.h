/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a recording ('ppwatch record', sources/recorder.c): JSON
 * Lines, one object with a "type" per line, each file starting with a
 * "header". A recorder rotates FILE to FILE.1, FILE.2, ...: recording_open()
 * takes FILE and reads the whole set, oldest first.
 *
 * One record at a time (recording_next()), in memory bounded by the longest
 * line: a recording of weeks is never loaded whole. What a recorder
 * killed by the OOM killer, a hung host, a full disk or a power cut
 * leaves is read as far as it goes: a line that is not a record (not
 * JSON to jansson's strict reading, no "type", nested too deep, longer
 * than the record bound, RECORDING_MAX_RECORD, the writer's too) is
 * skipped and counted, a last line cut short is noted with where the
 * file ends, and raw bytes that are not UTF-8 inside a string are read
 * as the \xHH escape every output shows them as (lib/escape.h). FILE
 * itself missing beside its rotations (a crash between a rotation's
 * renames and its new file) is noted, not an error. recording_summary()
 * says all of it, for the report.
 *
 * Each file's header says its format (model/contract.h; none: read as
 * format 1): one this ppwatch does not read (newer, or not a number)
 * stops the reading with -EPROTO, and r->why says what it is and what
 * to do.
 */
#ifndef __PPWATCH_MODEL_RECORDING_H
#define __PPWATCH_MODEL_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/json_read.h"
#include "model/contract.h"

/* deeper than any record ppwatch writes: a line nested deeper is damaged */
#define RECORDING_MAX_DEPTH 16
/* FILE and FILE.1 ... FILE.999 at most */
#define RECORDING_MAX_FILES 1000
/* damaged lines described per file (all are counted) */
#define RECORDING_DAMAGE_KEPT 4

struct recording_damage {
	uint64_t line; /* 1-based */
	uint64_t byte; /* where it starts */
	char why[160]; /* escaped */
};

/* what one file gave */
struct recording_file {
	char *name;
	uint64_t bytes, lines, records;
	uint64_t damaged; /* lines skipped */
	struct recording_damage damage[RECORDING_DAMAGE_KEPT];
	uint64_t escaped; /* lines read with raw bytes escaped */
	uint64_t unknown; /* records of a type this ppwatch does not know */
	bool header;	  /* it has a header record */
	int format;	  /* its header's (0: none seen) */
	bool incidents;	  /* FILE.incidents (its header says so): copies, read first */
	bool cut;	  /* it ends inside its last record */
	uint64_t cut_line, cut_from;
	FILE *fp;
};

/* a record FILE.incidents kept, waiting for its place in the set's time order */
struct recording_copy {
	json_t *rec;
	double time;
	uint64_t seq;
	int part;
	size_t run; /* its header (recording.hdrs) */
};

/* a run's header, and the first seq the set (not FILE.incidents) has of it */
struct recording_run {
	char id[72];
	json_t *hdr;	 /* NULL: the set's file has not been read yet */
	uint64_t lo_seq; /* UINT64_MAX: the set has none */
};

struct recording {
	struct recording_file *files; /* oldest first */
	size_t n, cap, cur;
	/*
	 * FILE.incidents, merged into the set: its copies read first (all of
	 * them: it is small), those the set still has left out (the same run
	 * and a seq the set has), the others handed out in time order among
	 * the set's records, each after its run's header.
	 */
	bool has_incidents, merge_ready;
	struct recording_copy *copies;
	size_t ncopies, capcopies, next_copy;
	struct recording_run *runs;
	size_t nruns, capruns;
	size_t cur_run;	  /* the run of the last record handed out (SIZE_MAX: none) */
	json_t *ahead;	  /* the set's next record, read ahead */
	json_t *queued;	  /* handed out after the header that goes before it */
	bool queued_kept; /* (and whether it is a copy) */
	bool kept;	  /* the record recording_next() gave last is a copy */
	bool set_done;	  /* the set's files are read */
	size_t set_run;	  /* the run of the set's last header (SIZE_MAX: none) */
	bool own;	  /* the reader closes the streams */
	/* the current line */
	char *blk, *line, *fix;
	size_t blk_pos, blk_end, line_cap, fix_cap;
	bool blk_eof;
	uint64_t off;
	const char *failed;  /* the file an error is about */
	bool newest_missing; /* FILE was not there, its rotations were */
	char why[400];	     /* what -EPROTO is about, and what to do (escaped) */
};

/*
 * FILE and its rotations (FILE.1 ... FILE.999, as far as they go), opened
 * at once, newest first, so a rotation meanwhile neither hides a file nor
 * shows one twice (a file seen again is left out); read oldest first,
 * with FILE.incidents (the incidents kept past rotation) when there is one:
 * its copies of records the set no longer has in their time order among
 * the set's, each once (recording_kept() says which they are).
 * 0, or -errno with r->failed naming the file that would not open.
 */
int recording_open(struct recording *r, const char *path);
/* one stream (standard input, a memory file), which the reader does not close */
int recording_open_stream(struct recording *r, FILE *f, const char *name);
/*
 * The next record (a new reference in *rec): 1; 0 after the last file;
 * -errno when reading failed (r->failed names the file) or without memory;
 * -EPROTO for a file of a format this ppwatch does not read (r->why).
 */
int recording_next(struct recording *r, json_t **rec);
/* the record recording_next() gave last is a copy from FILE.incidents */
bool recording_kept(const struct recording *r);
/* records read in all */
uint64_t recording_records(const struct recording *r);
/* what was read, file by file (for the report): a new reference, or NULL */
json_t *recording_summary(const struct recording *r);
void recording_close(struct recording *r);

#endif /* __PPWATCH_MODEL_RECORDING_H */
