/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pool's allocation and recycling statistics (CONFIG_PAGE_POOL_STATS):
 * the eleven counters of the netdev family's page-pool-stats, from
 * page-pool-stats-get for the pools netlink lists, else read from the pool
 * by the stats_walk iterator (bpf/stats.bpf.c), and the recycling
 * percentage as ynltool's 'page-pool stats' defines it. Pure: the unit
 * tests feed it hand-made records.
 */
#ifndef __PPWATCH_MODEL_POOL_STATS_H
#define __PPWATCH_MODEL_POOL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "ppwatch.h"

enum pp_stats_source {
	PPS_NONE,    /* not known: the kernel keeps none, or nothing could read them */
	PPS_NETLINK, /* page-pool-stats-get */
	PPS_BPF,     /* read from the pool (stats_walk) */
};

struct pp_stats {
	enum pp_stats_source source;
	bool recycle_known;		/* recycle[] read (the BPF read needs every CPU's copy) */
	__u64 alloc[PPW_ALLOC_MAX];	/* enum ppw_alloc_stat */
	__u64 recycle[PPW_RECYCLE_MAX]; /* enum ppw_recycle_stat */
};

/* the JSON keys of the counters: "alloc_fast" ... "recycle_released_refcnt" */
const char *pp_alloc_key(int i);
const char *pp_recycle_key(int i);
const char *pp_stats_source_name(enum pp_stats_source s);

/*
 * ynltool's page-pool stats (tools/net/ynl/ynltool/page-pool.c): pages
 * recycled over pages allocated, in percent,
 *   (recycle_ring + recycle_cached) / (alloc_fast + alloc_refill + alloc_slow) * 100
 * A lower bound: pages sitting in the cache and ring are not counted (and
 * high-order slow allocations are not in the divisor). NAN when unknown
 * or the pool allocated nothing.
 */
double pp_recycling_pct(const struct pp_stats *s);
/* the two sides of that ratio: pages allocated, pages recycled */
__u64 pp_allocated(const struct pp_stats *s);
__u64 pp_recycled(const struct pp_stats *s);

/* what one stats_walk wrote: its records, sorted by (pool, gen) */
struct stats_scan {
	struct ppw_stats_rec *v;
	size_t n, cap;
};

/* parse a stats_walk stream (appending): 0, -EINVAL (not whole records) or -ENOMEM */
int stats_parse(struct stats_scan *out, const void *buf, size_t len);
void stats_scan_free(struct stats_scan *s);
/* the record of pool (addr, gen), or NULL */
const struct ppw_stats_rec *stats_find(const struct stats_scan *s, __u64 pool, __u32 gen);
/* a record as counters (source PPS_BPF) */
void pp_stats_of_rec(struct pp_stats *out, const struct ppw_stats_rec *r);

struct pool_row;
struct pool_obs;
/*
 * A snapshot row's statistics: netlink's where it listed them, else the
 * stats walk's, with the recycling percentage and the rates since prev
 * (the same pool's row of the snapshot before, dt seconds before; NULL).
 */
void pool_stats_row(struct pool_row *w, const struct pool_obs *o, const struct pool_row *prev,
		    double dt);

#endif /* __PPWATCH_MODEL_POOL_STATS_H */
