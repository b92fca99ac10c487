/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Running the stats walk (bpf/stats.bpf.c) into a model/pool_stats.h scan. */
#ifndef __PPWATCH_SOURCES_POOL_STATS_H
#define __PPWATCH_SOURCES_POOL_STATS_H

#include "model/pool_stats.h"
#include "sources/loader.h"

/* this session reads pools' statistics (CONFIG_PAGE_POOL_STATS; the walk loaded) */
bool stats_available(const struct session *s);
/*
 * Every known pool's allocation and recycling counters, read from the
 * pool, into *out (the caller frees it with stats_scan_free()). 0, or
 * -errno (reported).
 */
int stats_scan_run(struct session *s, struct stats_scan *out);

#endif /* __PPWATCH_SOURCES_POOL_STATS_H */
