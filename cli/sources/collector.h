/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The collector reads the kernel side at one instant into a 'struct reading'
 * (model/snapshot.h): the BPF pool records, the page ledger aggregated per pool,
 * netlink's view, the loss counters. It also keeps freed pools around for a
 * while so a view can show them, and trims freed records from the BPF map.
 */
#ifndef __PPWATCH_SOURCES_COLLECTOR_H
#define __PPWATCH_SOURCES_COLLECTOR_H

#include "model/snapshot.h"
#include "sources/loader.h"
#include "sources/netlink.h"
#include "sources/netns.h"

struct gen_addr {
	__u32 gen;
	__u64 addr;
};

struct collector {
	struct session *s;
	struct nl_client *nl; /* NULL: no netlink */
	struct netns_list *nsl;
	double keep_freed_s; /* freed pools stay listed this long */
	bool discover;	     /* run the discovery iterator each time */
	bool blocks;	     /* walk the item blocks each time (if any) */

	struct ppw_pool *grave; /* freed pools no longer in the BPF map */
	size_t ngrave, capgrave;
	struct pool_obs *obs;
	size_t nobs, capobs;
	__u64 *keys; /* page ledger batch buffers */
	struct ppw_page *vals;
	size_t batch;
	__u64 *pkeys; /* pool table batch buffers */
	struct ppw_pool *pvals;
	__u32 pcap;
	struct ppw_pcpu_pool *slots; /* one key of the per-CPU slots, every CPU */
	struct gen_addr *gens;	     /* the pools by generation, for the ledger's slots */
	size_t ngens, capgens;
};

int collector_init(struct collector *c, struct session *s, struct nl_client *nl,
		   struct netns_list *nsl);
/* feed a lifecycle event from the ring buffer */
void collector_event(struct collector *c, const struct ppw_event *e);
/* read everything now; l points into the collector until the next call */
int collector_collect(struct collector *c, struct reading *rd);
void collector_free(struct collector *c);

struct ledger_page {
	__u64 netmem;
	struct ppw_page v;
};

/* every page-ledger entry of the pool (addr, gen); *out is malloc'd */
int collector_ledger_of(struct collector *c, __u64 pool, __u32 gen, struct ledger_page **out,
			size_t *n);

#endif /* __PPWATCH_SOURCES_COLLECTOR_H */
