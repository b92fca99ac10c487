/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The holder scan: runs holders.bpf.c's iterators (the pool table and defer
 * lists once, process fds once, TCP/UDP/unix sockets in every network
 * namespace) and collects their records (struct scan_result); model/attrib.c makes sense
 * of them.
 */
#ifndef __PPWATCH_SOURCES_HOLDER_SCAN_H
#define __PPWATCH_SOURCES_HOLDER_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "model/attrib.h"

struct session;
struct netns_list;

/* 0, or -errno (reported) */
int scan_run(struct session *s, struct netns_list *nsl, struct scan_result *out);

struct monitor;
/*
 * Who holds what, now: a scan, a fresh snapshot (it includes destroyed
 * pools the scan found through their pages), and the attribution of every
 * page to its holder. 0 or -errno (reported); free with holders_release().
 */
int holders_take(struct monitor *m, struct scan_result *scan, struct holders_report *rep);
void holders_release(struct scan_result *scan, struct holders_report *rep);

#endif /* __PPWATCH_SOURCES_HOLDER_SCAN_H */
