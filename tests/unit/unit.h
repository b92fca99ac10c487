/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal unit-test harness: TAP-like "ok"/"not ok" lines, a failure
 * count as exit status; text tables read by column (table_cell) and JSON
 * checked by path (CHECK_JSON), so that a test states the values it knows
 * from its fixture. Golden-file comparison (UPDATE_GOLDEN=1 rewrites the
 * files) is what is left of the older way: a golden copy is the code's own
 * output, and passes whatever the code does once rewritten.
 */
#ifndef __PPWATCH_UNIT_H
#define __PPWATCH_UNIT_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int unit_failures, unit_checks;
static const char *unit_golden_dir = "tests/unit/golden";

#define CHECK(cond, ...)                                                           \
	do {                                                                       \
		unit_checks++;                                                     \
		if (!(cond)) {                                                     \
			unit_failures++;                                           \
			printf("not ok - %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                       \
			printf("\n");                                              \
		}                                                                  \
	} while (0)

#define CHECK_INT(a, b) \
	CHECK((long long)(a) == (long long)(b), "%lld != %lld", (long long)(a), (long long)(b))
#define CHECK_STR(a, b) CHECK(!strcmp((a), (b)), "'%s' != '%s'", (a), (b))
#define CHECK_NEAR(a, b, eps) \
	CHECK(fabs((double)(a) - (double)(b)) <= (eps), "%g != %g", (double)(a), (double)(b))
#define CHECK_NAN(a) CHECK(isnan(a), "%g is not NaN", (double)(a))

#define TEST(fn)                                                                     \
	do {                                                                         \
		int before = unit_failures;                                          \
		fn();                                                                \
		printf("%s - %s\n", unit_failures == before ? "ok" : "not ok", #fn); \
	} while (0)

static inline int unit_done(void)
{
	printf("# %d checks, %d failed\n", unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

/* the whole text of file @path, malloc'd ("" if it cannot be read); NULL if it cannot be opened */
static inline char *unit_read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	if (getdelim(&s, &cap, '\0', f) < 0) {
		free(s);
		s = strdup("");
	}
	fclose(f);
	return s;
}

/* Compare buf with golden/<name>; UPDATE_GOLDEN=1 writes it instead. */
static inline void check_golden(const char *name, const char *buf)
{
	char path[512], *want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", getenv("GOLDEN_DIR") ?: unit_golden_dir, name);
	if (getenv("UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		CHECK(f != NULL, "cannot write %s", path);
		if (f) {
			fputs(buf, f);
			fclose(f);
		}
		return;
	}
	want = unit_read_text(path);
	CHECK(want != NULL, "golden file %s missing (UPDATE_GOLDEN=1 creates it)", path);
	if (!want)
		return;
	unit_checks++;
	if (strcmp(want, buf)) {
		unit_failures++;
		printf("not ok - golden %s differs\n--- want\n%s--- got\n%s---\n", name, want, buf);
	}
	free(want);
}

/*
 * A text table as ppwatch prints one: a header line of column names, then
 * rows, cells separated by blanks, none empty ("-" stands for nothing).
 * table_check() fails unless each row has a cell under each name, left-
 * aligned (it starts where the name starts) or right-aligned (it ends where
 * the name ends); table_cell() is the cell of column COL in the row whose
 * first cell is KEY ("(none)" when there is no such row or column).
 */
#define TABLE_MAX_COLS 32

struct table_span {
	int start, end;
};

/* the blank-separated words of a line: their spans, how many (at most TABLE_MAX_COLS + 1) */
static inline int table_words(const char *line, size_t len, struct table_span *w)
{
	int n = 0;
	size_t i = 0;

	while (i < len && n <= TABLE_MAX_COLS) {
		while (i < len && line[i] == ' ')
			i++;
		if (i == len)
			break;
		w[n].start = i;
		while (i < len && line[i] != ' ')
			i++;
		w[n++].end = i;
	}
	return n;
}

static inline void table_check(const char *text)
{
	struct table_span h[TABLE_MAX_COLS + 1], w[TABLE_MAX_COLS + 1];
	const char *line = text, *nl;
	int nh = -1, n, i, row = 0;

	for (; *line; line = nl + 1, row++) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		n = table_words(line, nl - line, nh < 0 ? h : w);
		if (nh < 0) {
			nh = n;
			CHECK(nh > 0 && nh <= TABLE_MAX_COLS, "header: %d columns", nh);
		} else {
			CHECK(n == nh, "row %d: %d cells under %d columns: %.*s", row, n, nh,
			      (int)(nl - line), line);
			for (i = 0; i < n && i < nh; i++)
				CHECK(w[i].start == h[i].start || w[i].end == h[i].end,
				      "row %d, column %d (%.*s): cell %.*s is not under it", row, i,
				      h[i].end - h[i].start, text + h[i].start,
				      w[i].end - w[i].start, line + w[i].start);
		}
		if (!*nl)
			break;
	}
}

static inline const char *table_cell(const char *text, const char *key, const char *col)
{
	static char out[256];
	struct table_span h[TABLE_MAX_COLS + 1], w[TABLE_MAX_COLS + 1];
	const char *line, *nl = strchr(text, '\n');
	int nh, n, c;

	if (!nl)
		return "(none)";
	nh = table_words(text, nl - text, h);
	for (c = 0; c < nh; c++)
		if ((size_t)(h[c].end - h[c].start) == strlen(col) &&
		    !strncmp(text + h[c].start, col, h[c].end - h[c].start))
			break;
	for (line = nl + 1; c < nh && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		n = table_words(line, nl - line, w);
		if (n > c && (size_t)(w[0].end - w[0].start) == strlen(key) &&
		    !strncmp(line + w[0].start, key, w[0].end - w[0].start)) {
			snprintf(out, sizeof(out), "%.*s", w[c].end - w[c].start,
				 line + w[c].start);
			return out;
		}
		if (!*nl)
			break;
	}
	return "(none)";
}

/*
 * JSON values by what they must be: CHECK_JSON(v, "id=7 state=\"zombie\"
 * dma/state=\"unmapped\" items=null") fails once for each member that is
 * not the value after its '=' (JSON; numbers compared as numbers, 1100 and
 * 1100.0 alike). A path walks objects by key and arrays by index
 * ("pools/0/id").
 */
static inline const json_t *json_at(const json_t *v, const char *path, size_t len)
{
	char key[64], *end;
	size_t n;

	while (v && len) {
		n = strcspn(path, "/");
		n = n < len ? n : len;
		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		if (json_is_array(v)) {
			unsigned long i = strtoul(key, &end, 10);

			v = *end ? NULL : json_array_get(v, i);
		} else {
			v = json_object_get(v, key);
		}
		n += n < len;
		path += n;
		len -= n;
	}
	return v;
}

static inline bool json_same(const json_t *a, const json_t *b)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (!a || !b || json_typeof(a) != json_typeof(b))
		return false;
	if (json_is_string(a))
		return !strcmp(json_string_value(a), json_string_value(b));
	/* an index or key one side lacks is NULL there, and not the same */
	if (json_is_array(a)) {
		for (i = 0; i < json_array_size(a) || i < json_array_size(b); i++)
			if (!json_same(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	if (json_is_object(a) && json_object_size(a) != json_object_size(b))
		return false;
	json_object_foreach((json_t *)a, k, x)
	{
		if (!json_same(x, json_object_get(b, k)))
			return false;
	}
	return true; /* true, false, null: the type says it */
}

static inline void json_check(const char *file, int line, const json_t *v, const char *spec)
{
	const char *p = spec, *eq, *end;
	json_t *want;
	char *got;

	while (*(p += strspn(p, " "))) {
		eq = strchr(p, '=');
		if (!eq)
			break;
		end = eq + 1;
		if (*end == '"') /* a string: to its closing quote */
			for (end++; *end && *end != '"'; end++)
				end += *end == '\\' && end[1];
		end += strcspn(end, " ");
		want = json_loadb(eq + 1, end - eq - 1, JSON_DECODE_ANY, NULL);
		unit_checks++;
		if (!want || !json_same(json_at(v, p, eq - p), want)) {
			got = json_at(v, p, eq - p) ? json_dumps(json_at(v, p, eq - p),
								 JSON_ENCODE_ANY | JSON_COMPACT) :
						      NULL;
			unit_failures++;
			printf("not ok - %s:%d: %.*s is %s, not %.*s\n", file, line, (int)(eq - p),
			       p, got ? got : "(absent)", (int)(end - eq - 1), eq + 1);
			free(got);
		}
		json_decref(want);
		p = end;
	}
	unit_checks++;
	if (*p) {
		unit_failures++;
		printf("not ok - %s:%d: '%s' is not PATH=VALUE\n", file, line, p);
	}
}

#define CHECK_JSON(v, spec) json_check(__FILE__, __LINE__, v, spec)

/* Capture what fn writes to a FILE into a malloc'd string. */
#define CAPTURE(buf, f, body)                            \
	do {                                             \
		size_t _len;                             \
		FILE *f = open_memstream(&(buf), &_len); \
		body;                                    \
		fclose(f);                               \
	} while (0)

#endif /* __PPWATCH_UNIT_H */
