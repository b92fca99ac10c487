/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef __PPWATCH_LIB_UTIL_H
#define __PPWATCH_LIB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC  1000000000ULL

/* the longest duration any option takes: ten years */
#define DURATION_MAX_S (10 * 365 * 86400.0)

/*
 * Checked parsers: 0 on success, -EINVAL (and *out untouched) otherwise.
 * Numbers are decimal digits: no sign, blanks, base prefix or exponent.
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * "1.5", "500ms", "30s", "2m", "1h", "1d" -> seconds, at most
 * DURATION_MAX_S; bare numbers are seconds
 */
int parse_duration(const char *s, double *out);
/* "4096", "64k", "16M", "1G" (binary multiples) */
int parse_size(const char *s, uint64_t *out);

/* "1.5KiB" style, into buf */
const char *fmt_bytes(char *buf, size_t len, double bytes);
/* ages: "850ms", "12.3s", "4m05s", "2h03m", "3d04h"; "?" for NaN or infinity */
const char *fmt_age(char *buf, size_t len, double seconds);

uint64_t now_boot_ns(void);
/* the wall clock (seconds) at CLOCK_BOOTTIME 0: add it to a boot time for the wall clock */
double boot_to_real_s(void);
uint64_t now_mono_ns(void);
/* CLOCK_MONOTONIC in seconds: the clock of every deadline */
double now_mono_s(void);
double now_real_s(void);

/*
 * A whole file, at most max bytes, into *buf (NUL-terminated; *len bytes,
 * NULs inside counted): 0, or -errno (-EFBIG: longer than max). Any file
 * that reads, a pipe too ('-f <(...)'); what its bytes may be is the
 * caller's to say. The I/O edge of the parsers, which take a buffer.
 */
int read_file(const char *path, size_t max, char **buf, size_t *len);

bool str_is_prefix(const char *pfx, const char *s);
/* help text: words from column 'col' (the cursor is there), wrapped before 'width' */
void print_wrapped(const char *text, int col, int width);

#endif /* __PPWATCH_LIB_UTIL_H */
