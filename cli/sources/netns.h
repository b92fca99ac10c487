/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Network namespaces on this host: the entries of /run/netns (iproute2), every
 * process's namespace (listed by a BPF task walk, or by /proc), and our own.
 * Netlink dumps and socket iterators are per-namespace, so ppwatch visits
 * each of them.
 */
#ifndef __PPWATCH_SOURCES_NETNS_H
#define __PPWATCH_SOURCES_NETNS_H

#include <stdbool.h>
#include <stddef.h>

struct netns {
	unsigned long ino;
	int fd;
	char name[64]; /* iproute2 name, or "pid:N" */
	bool seen;     /* by the scan under way */
};

struct netns_list {
	struct netns *v;
	size_t n, cap;
	int self_fd; /* where we started */
	unsigned long self_ino;
};

/*
 * Add namespaces not seen before, and close those no process is in and no
 * /run/netns name holds any more (an open namespace file keeps the
 * namespace alive, and its devices and pools with it): the list holds what
 * the host has, not everything it had. The processes' namespaces from
 * procs (n of them: the BPF task walk's records, an inode and a pid each)
 * where the caller has them, else from a stat() of every /proc/PID/ns/net.
 */
struct ppw_netns_rec;
int netns_scan(struct netns_list *l, const struct ppw_netns_rec *procs, size_t n);
void netns_free(struct netns_list *l);
const struct netns *netns_find(const struct netns_list *l, unsigned long ino);
/* run fn inside the namespace, then come back; fn's return value or -errno */
int netns_run(const struct netns_list *l, const struct netns *ns, int (*fn)(void *), void *arg);

#endif /* __PPWATCH_SOURCES_NETNS_H */
