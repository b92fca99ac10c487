/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The holder scan: runs holders.bpf.c's iterators (the pool table and defer
 * lists once, process fds once, TCP/UDP/unix sockets in every network
 * namespace) and collects their records. cli/attrib.c makes sense of them.
 */
#ifndef __PPWATCH_SCAN_H
#define __PPWATCH_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "ppwatch.h"

struct scan_result {
	struct ppw_rec_sock *socks;
	size_t nsocks, capsocks;
	struct ppw_rec_page *pages;
	size_t npages, cappages;
	struct ppw_rec_owner *owners;
	size_t nowners, capowners;
	struct ppw_rec_pool *pools;
	size_t npools, cappools;
	struct ppw_rec_defer *defer;
	size_t ndefer, capdefer;
	int layout_ok;			/* virt_to_page self-check: 1 ok, 0 wrong, -1 not run */
	bool layout_from_kallsyms;
	unsigned int netns_scanned;
	unsigned int netns_failed;
	__u64 drops;			/* page records lost: scan ring full */
	double elapsed_s;
};

struct session;
struct netns_list;

/* 0, or -errno (reported) */
int scan_run(struct session *s, struct netns_list *nsl, struct scan_result *out);
void scan_free(struct scan_result *r);

#endif /* __PPWATCH_SCAN_H */
