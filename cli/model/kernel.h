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
	UNMAP_XARRAY,	   /* pool->dma_mapped: unmapped at the first scrub */
	UNMAP_ITEM_BLOCKS, /* struct page_pool_item: unmapped in destroy */
	UNMAP_ON_RETURN,   /* neither: mapped until each page returns */
};

const char *unmap_regime_name(enum unmap_regime r);

/* What this kernel and session offer, for reports and documents. */
struct kernel_facts {
	const char *attach; /* the program type that loaded: tp_btf, ... */
	enum unmap_regime unmap;
	bool netlink;  /* the netdev family answers */
	bool pool_ids; /* pool->user: ids, destroy time (f17c69649c69) */
	bool napi;     /* pool->p.napi (8c48eea3adf3) */
	unsigned long page_size;
	bool detach_time_is_ns; /* pool->user.detach_time is a ktime_t */
	bool item_stats;	/* the v7 series' item counters */
	bool item_blocks;	/* ppwatch's series: item block counts */
	bool unmap_event;	/* ppwatch's series: a tracepoint at the unmap at destroy */
	bool dma_index_stats;	/* ppwatch's xarray series: dma_index_failed */
	bool dma_map_stats;	/* ppwatch's xarray series: dma_map_failed */
	bool ledger;		/* BPF atomic fetch/cmpxchg (v5.12): the page ledger */
	bool discovery;		/* bpf_loop (v5.17): the iterators that find pools */
	bool pp_stats;		/* CONFIG_PAGE_POOL_STATS: allocation and recycling */
};

/*
 * What this kernel cannot report, one gap at a time: i = 0, 1, ... until
 * NULL. Returns the gap's JSON name ("pool_ids"); *what says what is missing
 * and what ppwatch does instead. 'core' limits the walk to the gaps of an
 * unpatched kernel, leaving out the item counters that need a kernel series
 * and the gaps said only on demand (kernel_gap_named()).
 */
const char *kernel_gap(const struct kernel_facts *k, bool core, int i, const char **what);
/*
 * What is missing, if this kernel lacks the gap 'name' ("pp_stats"), else
 * NULL: for the views that show what the core walk leaves out of the
 * line every command prints (the allocation and recycling statistics,
 * which most distribution kernels do not keep).
 */
const char *kernel_gap_named(const struct kernel_facts *k, const char *name);

#endif /* __PPWATCH_MODEL_KERNEL_H */
