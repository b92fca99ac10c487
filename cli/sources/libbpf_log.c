// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "lib/bpf_diag.h"
#include "lib/log.h"
#include "sources/libbpf_log.h"

static int quiet;
static char first[256];		 /* first libbpf warning since libbpf_log_clear() */
static char captured[64 * 1024]; /* every warning since then, for bpf_diag */
static size_t ncaptured;

/* keep a warning for bpf_diag: verifier logs lose their middle, not their verdict */
static void capture(const char *fmt, va_list ap)
{
	char *msg = NULL;
	int n;

	n = vasprintf(&msg, fmt, ap);
	if (n > 0)
		ncaptured = bpf_diag_append(captured, sizeof(captured), ncaptured, msg, (size_t)n);
	free(msg);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int ours = level == LIBBPF_WARN ? LOG_INFO :
		   level == LIBBPF_INFO ? LOG_DEBUG :
					  LOG_LIBBPF_DEBUG;

	if (level == LIBBPF_WARN) {
		va_list aq;

		va_copy(aq, ap);
		capture(fmt, aq);
		va_end(aq);
	}
	/* the first warning after a clear is the root cause; later ones echo it */
	if (level == LIBBPF_WARN && !first[0] && !strstr(fmt, "RLIMIT_MEMLOCK")) {
		va_list aq;
		size_t n;

		va_copy(aq, ap);
		vsnprintf(first, sizeof(first), fmt, aq);
		va_end(aq);
		n = strlen(first);
		while (n && (first[n - 1] == '\n' || first[n - 1] == ' '))
			first[--n] = 0;
	}
	if (quiet || ours > log_get_level())
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void libbpf_log_setup(void)
{
	libbpf_set_print(libbpf_print);
}

void libbpf_log_quiet(int q)
{
	quiet = q;
}

const char *libbpf_log_first(void)
{
	return first;
}

const char *libbpf_log_captured(void)
{
	return captured;
}

void libbpf_log_clear(void)
{
	first[0] = 0;
	captured[0] = 0;
	ncaptured = 0;
}
