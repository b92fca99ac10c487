// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_duration(const char *s, double *out)
{
	double v, mult = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mult = 1e-3;
	else if (!strcmp(end, "us"))
		mult = 1e-6;
	else if (!strcmp(end, "s") || !*end)
		mult = 1;
	else if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else if (!strcmp(end, "d"))
		mult = 86400;
	else
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	default: return -EINVAL;
	}
	if (*end && strcmp(end, "i") && strcmp(end, "iB") && strcmp(end, "B"))
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

const char *fmt_bytes(char *buf, size_t len, double b)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;

	while (b >= 1024 && u < ARRAY_SIZE(units) - 1) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f%s", b, units[u]);
	else
		snprintf(buf, len, b < 10 ? "%.1f%s" : "%.0f%s", b, units[u]);
	return buf;
}

const char *fmt_age(char *buf, size_t len, double s)
{
	uint64_t t;

	if (s < 0)
		s = 0;
	if (s < 1)
		snprintf(buf, len, "%.0fms", s * 1000);
	else if (s < 60)
		snprintf(buf, len, "%.1fs", s);
	else if ((t = (uint64_t)s) < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)t / 60,
			 (unsigned long long)t % 60);
	else if (t < 86400)
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)t / 3600,
			 (unsigned long long)(t % 3600) / 60);
	else
		snprintf(buf, len, "%llud%02lluh", (unsigned long long)t / 86400,
			 (unsigned long long)(t % 86400) / 3600);
	return buf;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

uint64_t now_boot_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

uint64_t now_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

double now_mono_s(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1e9;
}

double now_real_s(void)
{
	return clock_ns(CLOCK_REALTIME) / 1e9;
}

bool str_is_prefix(const char *pfx, const char *s)
{
	return pfx && *pfx && !strncmp(pfx, s, strlen(pfx));
}

void print_wrapped(const char *text, int col, int width)
{
	const char *p = text;
	int at = col, n;

	while (*p) {
		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (!n)
			break;
		if (at > col && at + 1 + n > width) {
			printf("\n%*s", col, "");
			at = col;
		} else if (at > col) {
			putchar(' ');
			at++;
		}
		printf("%.*s", n, p);
		at += n;
		p += n;
	}
	putchar('\n');
}

