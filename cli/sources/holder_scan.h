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

#endif /* __PPWATCH_SOURCES_HOLDER_SCAN_H */
