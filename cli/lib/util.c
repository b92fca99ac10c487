// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"

/* the length of the run of decimal digits at s */
static size_t digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/*
 * Decimal digits only: no sign, no blanks, no base prefix (strtoull would
 * take " -1" as 2^64-1 and, in base 0, "010" as 8).
 */
static int decimal_u64(const char *s, const char **end, uint64_t *out)
{
	unsigned long long v;
	size_t n = s ? digits(s) : 0;
	char *e;

	if (!n)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || e != s + n)
		return -EINVAL;
	*end = e;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (decimal_u64(s, &end, &v) || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_duration(const char *s, double *out)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "", 1 },   { "s", 1 },	  { "ms", 1e-3 }, { "us", 1e-6 },
		      { "m", 60 }, { "h", 3600 }, { "d", 86400 } };
	size_t n, i;
	double v;

	/* DIGITS [. DIGITS] [UNIT]: no sign, exponent, hex float, inf or nan */
	n = s ? digits(s) : 0;
	if (!n)
		return -EINVAL;
	if (s[n] == '.') {
		if (!digits(s + n + 1))
			return -EINVAL;
		n += 1 + digits(s + n + 1);
	}
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(s + n, units[i].unit))
			break;
	if (i == ARRAY_SIZE(units))
		return -EINVAL;
	errno = 0;
	v = strtod(s, NULL) * units[i].mult;
	if (errno || !(v <= DURATION_MAX_S))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v, mult = 1;

	if (decimal_u64(s, &end, &v))
		return -EINVAL;
	switch (*end) {
	case 0:
		break;
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		end++;
		break;
	default:
		return -EINVAL;
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
	if (!(b < 1e15)) /* a recorded value: any double */
		snprintf(buf, len, "%.3g%s", b, units[u]);
	else if (u == 0)
		snprintf(buf, len, "%.0f%s", b, units[u]);
	else
		snprintf(buf, len, b < 10 ? "%.1f%s" : "%.0f%s", b, units[u]);
	return buf;
}

const char *fmt_age(char *buf, size_t len, double s)
{
	uint64_t t;

	if (isnan(s) || s == INFINITY) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (s < 0)
		s = 0;
	if (s < 1)
		snprintf(buf, len, "%.0fms", s * 1000);
	else if (s < 60)
		snprintf(buf, len, "%.1fs", s);
	else if (s >= 1e15) /* no cast past the range of an integer */
		snprintf(buf, len, "%.3gd", s / 86400);
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

double boot_to_real_s(void)
{
	return now_real_s() - now_boot_ns() / 1e9;
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

int read_file(const char *path, size_t max, char **buf, size_t *len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0, n = 0, got;
	char *b = NULL, *nb;
	int err = 0;

	*buf = NULL;
	*len = 0;
	if (!f)
		return -errno;
	while (!err) {
		if (n == cap) {
			/* up to one byte past max: how a longer file shows */
			cap = cap ? cap * 2 : 4096;
			cap = cap > max + 1 ? max + 1 : cap;
			nb = realloc(b, cap + 1);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (n > max)
			err = -EFBIG;
		else if (!got && ferror(f))
			err = errno ? -errno : -EIO;
		else if (!got)
			break;
	}
	fclose(f);
	if (err) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
