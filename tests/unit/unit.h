/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal unit-test harness: TAP-like "ok"/"not ok" lines, a failure
 * count as exit status, and golden-file comparison (UPDATE_GOLDEN=1
 * rewrites the files instead).
 */
#ifndef __PPWATCH_UNIT_H
#define __PPWATCH_UNIT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Compare buf with golden/<name>; UPDATE_GOLDEN=1 writes it instead. */
static inline void check_golden(const char *name, const char *buf)
{
	char path[512], *want = NULL;
	size_t len = 0;
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
	f = fopen(path, "r");
	CHECK(f != NULL, "golden file %s missing (UPDATE_GOLDEN=1 creates it)", path);
	if (!f)
		return;
	if (getdelim(&want, &len, '\0', f) < 0) {
		free(want);
		want = strdup("");
	}
	fclose(f);
	unit_checks++;
	if (strcmp(want, buf)) {
		unit_failures++;
		printf("not ok - golden %s differs\n--- want\n%s--- got\n%s---\n", name, want, buf);
	}
	free(want);
}

/* Capture what fn writes to a FILE into a malloc'd string. */
#define CAPTURE(buf, f, body)                            \
	do {                                             \
		size_t _len;                             \
		FILE *f = open_memstream(&(buf), &_len); \
		body;                                    \
		fclose(f);                               \
	} while (0)

#endif /* __PPWATCH_UNIT_H */
