/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The verifier's figures for each program loaded, when
 * PPWATCH_VERIFIER_STATS is set (the VM tests log them on every kernel):
 * the stack depth of each of a program's functions, named, and the
 * instructions it processed. Never otherwise: a log level set by hand
 * replaces the instruction log libbpf asks for when a load fails, which
 * the diagnosis (lib/bpf_diag.c) reads.
 */
#ifndef __PPWATCH_SOURCES_PROG_STATS_H
#define __PPWATCH_SOURCES_PROG_STATS_H

struct bpf_object;

/* before the load: a statistics log for each program to load; NULL when off */
char *prog_stats_arm(struct bpf_object *obj);
/* after a load: one line per program (-v), then the logs are freed */
void prog_stats_report(struct bpf_object *obj, char *logs);

#endif /* __PPWATCH_SOURCES_PROG_STATS_H */
