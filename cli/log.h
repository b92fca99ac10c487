/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One logging module. Everything goes to stderr, so '-j' keeps stdout pure
 * JSON. libbpf's messages are routed here one level lower (xdp-tools).
 */
#ifndef __PPWATCH_LOG_H
#define __PPWATCH_LOG_H

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_LIBBPF_DEBUG };

void log_set_level(int level);
int log_get_level(void);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* route libbpf_set_print() here; 'quiet' silences it while probing */
void log_libbpf_setup(void);
void log_libbpf_quiet(int quiet);
/* libbpf's first warning since the last clear (names the object that failed) */
const char *log_libbpf_last(void);
void log_libbpf_clear(void);

#define p_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define p_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define p_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define p_dbg(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* __PPWATCH_LOG_H */
