/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Facts about the running kernel that the model interprets. The probing
 * itself is in sources/kfeatures.c; the model only needs the answers.
 */
#ifndef __PPWATCH_MODEL_KERNEL_H
#define __PPWATCH_MODEL_KERNEL_H

#include <stdbool.h>

/* How a destroyed pool's DMA mappings go away. */
enum unmap_regime {
	UNMAP_UNKNOWN,
	UNMAP_XARRAY,		/* pool->dma_mapped: unmapped at the first scrub */
	UNMAP_ITEM_BLOCKS,	/* struct page_pool_item: unmapped in destroy */
	UNMAP_ON_RETURN,	/* neither: mapped until each page returns */
};

const char *unmap_regime_name(enum unmap_regime r);

/* What this kernel and session offer, for reports and documents. */
struct kernel_facts {
	const char *attach; /* the program type that loaded: tp_btf, ... */
	enum unmap_regime unmap;
	bool netlink; /* the netdev family answers */
	unsigned long page_size;
	bool detach_time_is_ns; /* pool->user.detach_time is a ktime_t */
	bool item_stats; /* the v7 series' item counters */
	bool item_blocks; /* ppwatch's series: item block counts */
};

#endif /* __PPWATCH_MODEL_KERNEL_H */
