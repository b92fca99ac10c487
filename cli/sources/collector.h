/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The collector reads the BPF maps at one instant into a 'struct reading'
 * (model/snapshot.h): the pool records, the per-CPU pool slots folded into
 * them, the page ledger aggregated per pool, the loss counters. It keeps
 * freed pools around for a while so a view can show them, and trims freed
 * records from the BPF map. It only reads maps: running the iterators,
 * draining the ring buffer and asking netlink are the monitor's session
 * step (sources/monitor.c), which hands the retired pools it hears of to
 * collector_retired().
 */
#ifndef __PPWATCH_SOURCES_COLLECTOR_H
#define __PPWATCH_SOURCES_COLLECTOR_H

#include "model/snapshot.h"
#include "sources/loader.h"

struct gen_addr {
	__u32 gen;
	__u64 addr;
};

struct collector {
	struct session *s;
	double keep_freed_s; /* freed pools stay listed this long */

	struct ppw_pool *grave; /* freed pools no longer in the BPF map */
	size_t ngrave, capgrave;
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

/* Each function reports its own failure (the map, the errno) and returns -errno. */
int collector_init(struct collector *c, struct session *s, double keep_freed_s);
/* a PPW_EV_POOL_RETIRED event: the record of a pool whose address was reused */
int collector_retired(struct collector *c, const struct ppw_event *e);
/* read the maps now into rd (its pools: sorted by address and generation) */
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
