// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	*j = (struct json){ .f = f, .pretty = pretty };
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator and indentation before a value or a key. */
static void pre_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			fputc(',', j->f);
		j->need_comma[j->depth] = true;
		indent(j);
	}
}

static void open(struct json *j, char c)
{
	pre_value(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close(struct json *j, char c)
{
	bool had = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_obj_open(struct json *j)
{
	open(j, '{');
}

void json_obj_close(struct json *j)
{
	close(j, '}');
}

void json_arr_open(struct json *j)
{
	open(j, '[');
}

void json_arr_close(struct json *j)
{
	close(j, ']');
}

/* strings are untrusted (names from the kernel, recorded text): lib/escape.h */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	esc_put(f, s, strlen(s), "\"\\");
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	pre_value(j);
	put_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void json_str(struct json *j, const char *s)
{
	pre_value(j);
	put_string(j->f, s ? s : "");
}

void json_u64(struct json *j, uint64_t v)
{
	pre_value(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_s64(struct json *j, int64_t v)
{
	pre_value(j);
	fprintf(j->f, "%lld", (long long)v);
}

/*
 * Whole numbers up to 2^53 as integers, others below 1e15 to the
 * microsecond without trailing zeros, the rest (recorded values may be
 * anything) in the shortest %g form that reads back the same. Never a
 * cast: a double past the range of an integer type has no integer value.
 */
void json_f64(struct json *j, double v)
{
	char buf[40];
	size_t n;
	int prec;

	pre_value(j);
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	if (v == 0) {
		fputs("0", j->f); /* -0 too */
	} else if (fabs(v) <= 9007199254740992.0 && v == floor(v)) {
		fprintf(j->f, "%.0f", v);
	} else if (fabs(v) < 1e15) {
		n = snprintf(buf, sizeof(buf), "%.6f", v);
		while (n > 1 && buf[n - 1] == '0')
			buf[--n] = 0;
		if (buf[n - 1] == '.')
			buf[--n] = 0;
		fputs(strcmp(buf, "-0") ? buf : "0", j->f);
	} else {
		for (prec = 15; prec < 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		if (prec == 17)
			snprintf(buf, sizeof(buf), "%.17g", v);
		fputs(buf, j->f);
	}
}

void json_bool(struct json *j, bool v)
{
	pre_value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_put_null(struct json *j)
{
	pre_value(j);
	fputs("null", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
	j->depth = 0;
	j->after_key = false;
	j->need_comma[0] = false;
}
