// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "log.h"

static int log_level = LOG_WARN;
static int libbpf_quiet;
static char libbpf_last[256];	/* first libbpf warning since log_libbpf_clear() */

void log_set_level(int level)
{
	log_level = level;
}

int log_get_level(void)
{
	return log_level;
}

static void vlog(int level, const char *fmt, va_list ap)
{
	static const char *const pfx[] = { "Error: ", "Warning: ", "", "debug: ", "" };

	if (level > log_level)
		return;
	fputs(pfx[level], stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int ours = level == LIBBPF_WARN ? LOG_INFO : level == LIBBPF_INFO ? LOG_DEBUG :
		   LOG_LIBBPF_DEBUG;

	/* the first warning after a clear is the root cause; later ones echo it */
	if (level == LIBBPF_WARN && !libbpf_last[0] && !strstr(fmt, "RLIMIT_MEMLOCK")) {
		va_list aq;
		size_t n;

		va_copy(aq, ap);
		vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, aq);
		va_end(aq);
		n = strlen(libbpf_last);
		while (n && (libbpf_last[n - 1] == '\n' || libbpf_last[n - 1] == ' '))
			libbpf_last[--n] = 0;
	}
	if (libbpf_quiet || ours > log_level)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_libbpf_setup(void)
{
	libbpf_set_print(libbpf_print);
}

void log_libbpf_quiet(int quiet)
{
	libbpf_quiet = quiet;
}

const char *log_libbpf_last(void)
{
	return libbpf_last;
}

void log_libbpf_clear(void)
{
	libbpf_last[0] = 0;
}
