/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a recording ('ppwatch record', sources/rec_writer.c): JSON
 * Lines, one object with a "type" per line, the first a "header". The file
 * may come from another host: every line is parsed by jansson (strict
 * JSON, UTF-8, no duplicate keys) and checked, and an error names the
 * file, line and column.
 */
#ifndef __PPWATCH_MODEL_REC_READER_H
#define __PPWATCH_MODEL_REC_READER_H

#include <stdio.h>

#include <jansson.h>

/* deeper than any record ppwatch writes: a line nested deeper is refused */
#define REC_MAX_DEPTH 16

/*
 * Every record of f, in order, as a JSON array; NULL with the reason
 * reported when a line is not a ppwatch record or there is no header.
 */
json_t *rec_read(FILE *f, const char *name);

/* a member's number (integer or real), or dflt when absent or not a number */
static inline double rec_num(const json_t *obj, const char *key, double dflt)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* a member's string, or dflt when absent or not a string */
static inline const char *rec_str(const json_t *obj, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : dflt;
}

#endif /* __PPWATCH_MODEL_REC_READER_H */
