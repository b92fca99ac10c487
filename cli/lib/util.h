/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef __PPWATCH_LIB_UTIL_H
#define __PPWATCH_LIB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC 1000000000ULL

/* Checked parsers: 0 on success, -EINVAL (and *out untouched) otherwise. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* "1.5", "500ms", "30s", "2m", "1h" -> seconds; bare numbers are seconds */
int parse_duration(const char *s, double *out);
/* "4096", "64k", "16M", "1G" (binary multiples) */
int parse_size(const char *s, uint64_t *out);

/* "1.5KiB" style, into buf */
const char *fmt_bytes(char *buf, size_t len, double bytes);
/* ages: "850ms", "12.3s", "4m05s", "2h03m", "3d04h" */
const char *fmt_age(char *buf, size_t len, double seconds);

uint64_t now_boot_ns(void);
uint64_t now_mono_ns(void);
/* CLOCK_MONOTONIC in seconds: the clock of every deadline */
double now_mono_s(void);
double now_real_s(void);

bool str_is_prefix(const char *pfx, const char *s);
/* help text: words from column 'col' (the cursor is there), wrapped before 'width' */
void print_wrapped(const char *text, int col, int width);

#endif /* __PPWATCH_LIB_UTIL_H */
