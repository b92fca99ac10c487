/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The output layer: a view is a table of columns over rows of one record
 * type. The same column table and the same getter produce the text table
 * and the JSON objects, so the two cannot drift apart.
 *
 * A column key may be dotted ("live.refs"): consecutive columns sharing a
 * prefix become one nested JSON object.
 */
#ifndef __PPWATCH_OUTPUT_TABLE_H
#define __PPWATCH_OUTPUT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"

enum otype { OT_STR, OT_U64, OT_S64, OT_F64, OT_BOOL };

/* how a value looks in text (JSON always gets the raw number) */
enum ofmt {
	OF_PLAIN,
	OF_BYTES, /* 1.5MiB */
	OF_AGE,	  /* 12.3s, 4m05s */
	OF_RATE,  /* %.0f */
	OF_HEX,	  /* 0x... */
};

enum ocol_flags {
	OC_LEFT = 1 << 0,     /* left-aligned text */
	OC_WIDE = 1 << 1,     /* text only with --wide */
	OC_JSON = 1 << 2,     /* JSON only, never in text */
	OC_AT_LEAST = 1 << 3, /* value is a lower bound: text prefixes '>' */
	OC_TEXT = 1 << 4,     /* text only, never in JSON */
};

/*
 * One cell's value, as a getter fills it. A value the getter formats (an
 * address, a pair of counts) goes into the value's own buf (OV_FMT): two
 * values fetched one after the other, as a sort compares them, never
 * share storage. 'text' is what text shows instead of the string when the
 * two differ (a short form); JSON and sorting use the string itself.
 */
struct oval {
	enum otype t;
	bool null;	  /* unknown / not applicable: JSON null, text "-" */
	bool at_least;	  /* lower bound, see OC_AT_LEAST: text prefixes '>' */
	bool estimate;	  /* from a sample: text prefixes '~' */
	const char *text; /* OT_STR: text's rendering, NULL: the string */
	union {
		const char *s;
		uint64_t u;
		int64_t i;
		double f;
		bool b;
	};
	char buf[64]; /* the getter's scratch for this value (OV_FMT) */
};

struct ocol {
	const char *key; /* JSON key, snake_case, unit in the name */
	const char *hdr; /* text header */
	int width;
	enum ofmt fmt;
	unsigned int flags;
};

typedef void (*oget_fn)(const void *row, int col, struct oval *v, void *ctx);

struct oview {
	const struct ocol *cols;
	int ncols;
	oget_fn get;
	void *ctx;
	/* JSON only: members a flat column cannot carry (arrays), per row */
	void (*json_extra)(struct json *j, const void *row, void *ctx);
};

#define OV_STR(v, x)  ((v)->t = OT_STR, (v)->s = (x))
#define OV_U64(v, x)  ((v)->t = OT_U64, (v)->u = (x))
#define OV_S64(v, x)  ((v)->t = OT_S64, (v)->i = (x))
#define OV_F64(v, x)  ((v)->t = OT_F64, (v)->f = (x))
#define OV_BOOL(v, x) ((v)->t = OT_BOOL, (v)->b = (x))
/* a string the getter formats, kept in the value itself */
#define OV_FMT(v, ...) \
	((v)->t = OT_STR, snprintf((v)->buf, sizeof((v)->buf), __VA_ARGS__), (v)->s = (v)->buf)

/* text: the value of one cell, formatted, into buf */
const char *ocell_text(const struct ocol *c, const struct oval *v, char *buf, size_t len);
/* text table with header; rows are row_size bytes apart */
void out_text(FILE *f, const struct oview *ov, const void *rows, size_t n, size_t row_size,
	      bool wide, bool header);
/* one JSON object for a row */
void out_json_row(struct json *j, const struct oview *ov, const void *row);
/* a JSON array of row objects */
void out_json_rows(struct json *j, const struct oview *ov, const void *rows, size_t n,
		   size_t row_size);
/* the column is in the text table (wide: with --wide) */
bool ocol_shown(const struct ocol *c, bool wide);
/* find a column by key (exact, then unique prefix); -1 if none */
int ocol_find(const struct oview *ov, const char *key);

/*
 * Sort rows by a column: numbers biggest first, strings A-Z (numbers in
 * them by value: strverscmp), unknown last;
 * 'reverse' flips the order (unknown stays last). 0, or -ENOENT for no such
 * column.
 */
int out_sort(void *rows, size_t n, size_t row_size, const struct oview *ov, const char *key,
	     bool reverse);
#endif /* __PPWATCH_OUTPUT_TABLE_H */
