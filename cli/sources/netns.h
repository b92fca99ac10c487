/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Network namespaces on this host: the entries of /run/netns (iproute2), every
 * process's namespace, and our own. Netlink dumps and socket iterators are
 * per-namespace, so ppwatch visits each of them.
 */
#ifndef __PPWATCH_SOURCES_NETNS_H
#define __PPWATCH_SOURCES_NETNS_H

#include <stdbool.h>
#include <stddef.h>

struct netns {
	unsigned long ino;
	int fd;
	char name[64]; /* iproute2 name, or "pid:N" */
};

struct netns_list {
	struct netns *v;
	size_t n, cap;
	int self_fd; /* where we started */
	unsigned long self_ino;
};

/* add namespaces not seen before; existing entries stay */
int netns_scan(struct netns_list *l);
void netns_free(struct netns_list *l);
const struct netns *netns_find(const struct netns_list *l, unsigned long ino);
/* run fn inside the namespace, then come back; fn's return value or -errno */
int netns_run(const struct netns_list *l, const struct netns *ns, int (*fn)(void *), void *arg);

#endif /* __PPWATCH_SOURCES_NETNS_H */
