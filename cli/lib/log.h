/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One logging module. Everything goes to stderr, so '-j' keeps stdout pure
 * JSON. libbpf's messages come here too, one level lower (xdp-tools), through
 * sources/libbpf_log.c. The error rule (bpftool's): the function that fails
 * reports it once with p_err(), naming the object, the errno and what to
 * do; its callers pass -errno up and print nothing. Errors are also kept,
 * so that with -j the run can end with an {"error": ...} object on stdout.
 */
#ifndef __PPWATCH_LIB_LOG_H
#define __PPWATCH_LIB_LOG_H

#include <stdarg.h>

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_LIBBPF_DEBUG };

void log_set_level(int level);
int log_get_level(void);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* the error lines of the run so far, joined with "; " (NULL: none) */
const char *log_errors(void);
/* keep an error that was printed another way (a usage error) */
void log_note_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define p_err(...)  log_msg(LOG_ERR, __VA_ARGS__)
#define p_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define p_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define p_dbg(...)  log_msg(LOG_DEBUG, __VA_ARGS__)
/*
 * A diagnostic at a place in a file, as compilers and ppwatch's own file
 * checks (model/diag.c) print it: "FILE:LINE:COL: error: MSG" (or
 * "warning:"); errors are kept as p_err()'s are.
 */
void log_at(int level, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
#define p_err_at(file, pos, ...)  log_at(LOG_ERR, file, (pos).line, (pos).col, __VA_ARGS__)
#define p_warn_at(file, pos, ...) log_at(LOG_WARN, file, (pos).line, (pos).col, __VA_ARGS__)
/* what an operator must see without -v (a SIGHUP taken), with no prefix */
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define p_notice(...) log_notice(__VA_ARGS__)
/* "s" when n is not 1: "%zu user%s", n, plural(n) */
#define plural(n) ((n) == 1 ? "" : "s")

#endif /* __PPWATCH_LIB_LOG_H */
