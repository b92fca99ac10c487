/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libbpf's messages, routed to lib/log.c one level lower (xdp-tools): a
 * libbpf warning is ppwatch info, libbpf info is ppwatch debug, libbpf
 * debug shows with -d. The first warning since the last clear is kept: it
 * names the object that failed.
 */
#ifndef __PPWATCH_SOURCES_LIBBPF_LOG_H
#define __PPWATCH_SOURCES_LIBBPF_LOG_H

/* route libbpf_set_print() here */
void libbpf_log_setup(void);
/* silence libbpf while probing (the failure is reported by the caller) */
void libbpf_log_quiet(int quiet);
/* libbpf's first warning since the last clear, "" if none */
const char *libbpf_log_first(void);
/* every libbpf warning since the last clear (the verifier log among them), up to 64 KiB */
const char *libbpf_log_captured(void);
void libbpf_log_clear(void);

#endif /* __PPWATCH_SOURCES_LIBBPF_LOG_H */
