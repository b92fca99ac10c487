/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one netlink client: the netdev generic netlink family (page-pool-get
 * dumps, page-pool notifications), over the kernel's YNL library and the
 * code generated from the netdev spec, one socket per network namespace
 * since dumps only list the caller's namespace.
 */
#ifndef __PPWATCH_SOURCES_NETLINK_H
#define __PPWATCH_SOURCES_NETLINK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"
#include "sources/netns.h"

struct nl_ns;

struct nl_client {
	struct nl_ns *v;
	size_t n, cap;
	bool subscribe;
	bool available;
	char why[160];	  /* when not available */
	bool no_stats;	  /* page-pool-stats-get: EOPNOTSUPP (no CONFIG_PAGE_POOL_STATS) */
	double dump_s;	  /* the last nl_client_dump() took this long */
	size_t dumped_ns; /* namespaces it asked the kernel for */
};

/* cmd: NETDEV_CMD_PAGE_POOL_{ADD,DEL,CHANGE}_NTF */
typedef void (*nl_ntf_fn)(int cmd, const struct nl_pool *p, void *arg);

/*
 * Failures are reported here, once; a namespace whose dump fails is left out
 * (said once) and the others go on. Resolve the family in our own
 * namespace; !available (with why) is not an error.
 */
int nl_client_init(struct nl_client *c, bool subscribe);
/* open sockets in namespaces not visited yet, close those of namespaces the list dropped */
int nl_client_sync(struct nl_client *c, const struct netns_list *l);
/*
 * Every namespace's pools (*out malloc'd): a namespace is dumped again only
 * when a notification came since its last dump, when it has no
 * notification socket, after NL_REDUMP_S, or when 'fresh' asks (pools only
 * netlink lists: their inflight comes from the dump); else its last dump.
 * Their page-pool-stats (counters that move with every packet) are dumped
 * anew each call, in every namespace that lists a pool.
 */
int nl_client_dump(struct nl_client *c, bool fresh, struct nl_pool **out, size_t *n);
/* notification sockets as POLLIN entries of a poll set; returns how many written */
size_t nl_client_pollfds(const struct nl_client *c, struct pollfd *pfd, size_t max);
/* read pending notifications without blocking */
int nl_client_drain(struct nl_client *c, nl_ntf_fn cb, void *arg);
void nl_client_free(struct nl_client *c);

#endif /* __PPWATCH_SOURCES_NETLINK_H */
