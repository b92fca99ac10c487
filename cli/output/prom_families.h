/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The metric families of ppwatch export (output/prom.c renders them): one
 * table of name, type, unit, labels and help, which the renderer,
 * 'ppwatch export help' and the docs check all read.
 */
#ifndef __PPWATCH_OUTPUT_PROM_FAMILIES_H
#define __PPWATCH_OUTPUT_PROM_FAMILIES_H

#include "output/prom.h"

enum mtype { MT_GAUGE, MT_COUNTER, MT_INFO };

enum fam {
	/* per pool */
	F_INFLIGHT_PAGES,
	F_INFLIGHT_BYTES,
	F_HELD,
	F_RELEASED,
	F_ZOMBIE,
	F_DETACH_AGE,
	F_OLDEST_AGE,
	F_OLDEST_LOWER,
	F_LEDGER,
	F_BEFORE_START,
	F_UNTRACKED,
	F_PHANTOMS,
	F_POOL_LEDGER_LOSSES,
	F_RETRIES,
	F_DMA_STATE,
	F_DMA_HAZARD,
	F_DMA_STILL_MAPPED,
	F_DMA_UNMAPPED,
	F_ITEM_FAST_EMPTY,
	F_ITEM_SLOW_FAILED,
	F_DMA_INDEX_FAILED,
	F_DMA_MAP_FAILED,
	F_ITEM_BLOCKS,
	F_ITEM_BLOCKS_ALLOC,
	F_ITEM_BLOCKS_FREE,
	F_ITEM_BLOCK_ITEMS,
	F_ITEM_BLOCKS_SPARSE,
	F_ALLOC,
	F_RECYCLE,
	F_RECYCLING_RATIO,
	F_LAST_POOL_FAMILY = F_RECYCLING_RATIO,
	/* per device: the pools' sums */
	F_DEV_POOLS,
	F_DEV_INFLIGHT_PAGES,
	F_DEV_INFLIGHT_BYTES,
	F_DEV_HELD,
	F_DEV_RELEASED,
	F_DEV_OLDEST_AGE,
	F_DEV_OLDEST_LOWER,
	F_DEV_LEDGER,
	F_DEV_BEFORE_START,
	F_DEV_UNTRACKED,
	F_DEV_RETRIES,
	F_DEV_ITEM_FAST_EMPTY,
	F_DEV_ITEM_SLOW_FAILED,
	F_DEV_ITEM_BLOCKS,
	F_DEV_ITEM_BLOCKS_ALLOC,
	F_DEV_ITEM_BLOCKS_FREE,
	/* ppwatch and the host */
	F_POOLS,
	F_POOLS_SHOWN,
	F_LEDGER_USED,
	F_LEDGER_CAP,
	F_EVENTS,
	F_LOSSES,
	F_LEDGER_LOSSES,
	F_LEDGER_PHANTOMS,
	F_COLLECT_DURATION,
	F_COLLECT_SECONDS,
	F_COLLECTS,
	F_COLLECT_ERRORS,
	F_LAST_COLLECT,
	F_INTERVAL,
	F_SCRAPE_DURATION,
	F_HTTP,
	F_BUILD,
	F_KERNEL,
	F_CPU,
	F_RSS,
	F_START,
	F_NR,
};

struct family {
	const char *name; /* sample name (with _total, _info) */
	enum mtype type;
	const char *unit; /* OpenMetrics UNIT; NULL: none */
	const char *labels;
	const char *help;
};

extern const struct family prom_fams[F_NR];

#endif /* __PPWATCH_OUTPUT_PROM_FAMILIES_H */
