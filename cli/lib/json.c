// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>

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

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
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

void json_f64(struct json *j, double v)
{
	pre_value(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (v == (double)(int64_t)v && fabs(v) < 1e15)
		fprintf(j->f, "%lld", (long long)v);
	else {
		char buf[64];
		size_t n;

		/* microsecond precision, no trailing zeros */
		n = snprintf(buf, sizeof(buf), "%.6f", v);
		while (n > 1 && buf[n - 1] == '0')
			buf[--n] = 0;
		if (buf[n - 1] == '.')
			buf[--n] = 0;
		fputs(buf, j->f);
	}
}

void json_bool(struct json *j, bool v)
{
	pre_value(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
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
