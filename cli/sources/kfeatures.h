/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the running kernel offers, from its BTF: tracepoints, field types,
 * the page_pool variant. Probes, never version numbers.
 */
#ifndef __PPWATCH_SOURCES_KFEATURES_H
#define __PPWATCH_SOURCES_KFEATURES_H

#include <stdbool.h>

#include "model/kernel.h"

struct features {
	char release[65]; /* uname -r */
	bool btf;	  /* /sys/kernel/btf/vmlinux loaded */
	bool page_pool;	  /* struct page_pool in BTF */
	bool tp_hold;	  /* btf_trace_page_pool_state_hold */
	bool tp_release;
	bool tp_pool_release;
	bool tp_update_nid;
	/* ppwatch's kernel series (patches/) */
	bool tp_block_alloc, tp_block_free, tp_fast_empty, tp_slow_failed, tp_destroy_unmap;
	/* ppwatch's xarray series (patches/xarray/) */
	bool dma_index_stats;	/* alloc_stats.dma_index_failed */
	bool dma_map_stats;	/* alloc_stats.dma_map_failed */
	bool item_stats;	/* alloc_stats.item_fast_empty (the v7 series) */
	bool item_blocks;	/* item block counters (ppwatch's series) */
	bool pool_user;		/* pool->user: ids, netdev lists (v6.8) */
	bool detach_time_is_ns; /* user.detach_time is ktime_t */
	bool pool_napi;		/* pool->p.napi (v6.5) */
	bool pool_defer;	/* pool->defer_start (v5.5): a destroy's date (model/ages.h) */
	bool pp_stats;		/* alloc_stats, recycle_stats (CONFIG_PAGE_POOL_STATS) */
	enum unmap_regime unmap;
	/* what the BPF programs may contain (their PPW_COMPAT build where not) */
	bool bpf_loop; /* the bpf_loop helper (v5.17): iterators, freed-pool slots */
	bool atomics;  /* BPF atomic fetch and cmpxchg (v5.12): the page log's slots */
	bool jiffies;  /* bpf_jiffies64, bpf_ktime_get_boot_ns (v5.8): the page log's clock */
	/* bpf_map_lookup_percpu_elem (v5.19): a freed pool's per-CPU slots emptied */
	bool percpu_lookup;
	bool tracefs; /* events/page_pool visible in tracefs */
	long page_size;
	long struct_page_size; /* sizeof(struct page), for pfns */
	/* offsetof(struct page, compound_info or compound_head); 0: neither */
	long page_compound_off;
	char btf_err[96];
};

int features_probe(struct features *f);
/*
 * The programs as built (not their PPW_COMPAT build) load here: every
 * instruction and helper they contain is this kernel's (bpf/config.bpf.h).
 */
bool features_full_build(const struct features *f);
/* a page_pool tracepoint (its name, as in SEC("tp_btf/NAME")) exists here; true for others */
bool features_tp_present(const struct features *f, const char *tp);

#endif /* __PPWATCH_SOURCES_KFEATURES_H */
