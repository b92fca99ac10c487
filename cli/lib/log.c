// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

static int log_level = LOG_WARN;

void log_set_level(int level)
{
	log_level = level;
}

int log_get_level(void)
{
	return log_level;
}

void log_vmsg(int level, const char *fmt, va_list ap)
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
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
