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

/* every error line of the run, joined: what -j puts in its error object */
static char errors[1024];
static size_t errors_len;

static void keep_error(const char *fmt, va_list ap)
{
	char line[512];
	const char *p = line;
	int n;

	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return;
	while (*p == ' ')
		p++; /* a detail line's indent */
	if (errors_len && errors_len < sizeof(errors) - 1)
		errors_len += snprintf(errors + errors_len, sizeof(errors) - errors_len, "; ");
	if (errors_len < sizeof(errors) - 1)
		errors_len += snprintf(errors + errors_len, sizeof(errors) - errors_len, "%s", p);
	if (errors_len > sizeof(errors) - 1)
		errors_len = sizeof(errors) - 1;
}

void log_note_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	keep_error(fmt, ap);
	va_end(ap);
}

const char *log_errors(void)
{
	return errors_len ? errors : NULL;
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
	static const char *const pfx[] = { "Error: ", "Warning: ", "", "debug: ", "" };
	va_list copy;

	if (level == LOG_ERR) {
		va_copy(copy, ap);
		keep_error(fmt, copy);
		va_end(copy);
	}
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

void log_notice(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LOG_WARN)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void log_at(int level, const char *file, int line, int col, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (level == LOG_ERR)
		log_note_error("%s:%d:%d: %s", file, line, col, msg);
	if (level > log_level)
		return;
	fprintf(stderr, "%s:%d:%d: %s: %s\n", file, line, col,
		level == LOG_ERR ? "error" : "warning", msg);
}
