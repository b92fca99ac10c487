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
 * than RECORDING_MAX_LINE) is skipped and counted, a last line cut short is
 * noted with where the file ends, and raw bytes that are not UTF-8
 * inside a string are read as the \xHH escape every output shows them
 * as (lib/escape.h). recording_summary() says all of it, for the report.
 */
#ifndef __PPWATCH_MODEL_RECORDING_H
#define __PPWATCH_MODEL_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/json_read.h"

/* deeper than any record ppwatch writes: a line nested deeper is damaged */
#define RECORDING_MAX_DEPTH 16
/* longer than any record ppwatch writes (a holder scan of a big host): damaged */
#define RECORDING_MAX_LINE (64u << 20)
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
	bool cut;	  /* it ends inside its last record */
	uint64_t cut_line, cut_from;
	FILE *fp;
};

struct recording {
	struct recording_file *files; /* oldest first */
	size_t n, cap, cur;
	bool own; /* the reader closes the streams */
	/* the current line */
	char *blk, *line, *fix;
	size_t blk_pos, blk_end, line_cap, fix_cap;
	bool blk_eof;
	uint64_t off;
	const char *failed; /* the file an error is about */
};

/*
 * FILE and its rotations (FILE.1 ... FILE.999, as far as they go), opened
 * at once, newest first, so a rotation meanwhile neither hides a file nor
 * shows one twice (a file seen again is left out); read oldest first.
 * 0, or -errno with r->failed naming the file that would not open.
 */
int recording_open(struct recording *r, const char *path);
/* one stream (standard input, a memory file), which the reader does not close */
int recording_open_stream(struct recording *r, FILE *f, const char *name);
/*
 * The next record (a new reference in *rec): 1; 0 after the last file;
 * -errno when reading failed (r->failed names the file) or without memory.
 */
int recording_next(struct recording *r, json_t **rec);
/* records read in all */
uint64_t recording_records(const struct recording *r);
/* what was read, file by file (for the report): a new reference, or NULL */
json_t *recording_summary(const struct recording *r);
void recording_close(struct recording *r);

#endif /* __PPWATCH_MODEL_RECORDING_H */
