// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stddef.h>
#include <string.h>

#include "model/kernel.h"

const char *unmap_regime_name(enum unmap_regime r)
{
	switch (r) {
	case UNMAP_XARRAY:
		return "dma_mapped-xarray";
	case UNMAP_ITEM_BLOCKS:
		return "item-blocks";
	case UNMAP_ON_RETURN:
		return "on-return";
	default:
		return "unknown";
	}
}

#define FACT(f) offsetof(struct kernel_facts, f)

static const struct {
	const char *name;
	size_t have;		/* the bool in struct kernel_facts */
	bool series;		/* needs a kernel series, not just a newer kernel */
	enum unmap_regime only; /* a gap of this regime only (UNMAP_UNKNOWN: any) */
	const char *what;
	bool on_demand; /* said in text only by the views that show it */
} gaps[] = {
	{ "pool_ids", FACT(pool_ids), false, UNMAP_UNKNOWN,
	  "pool ids and destroy times (pool->user, f17c69649c69): pools are named x<XDP "
	  "memory-model id> or @<address>; a pool destroyed before ppwatch started is dated "
	  "by its destroy's jiffies (pool->defer_start)" },
	{ "netlink", FACT(netlink), false, UNMAP_UNKNOWN,
	  "the netdev netlink family (page-pool-get): no per-device pool lists or kernel "
	  "stats, only what the tracepoints show" },
	{ "napi_id", FACT(napi), false, UNMAP_UNKNOWN, "NAPI ids (pool->p.napi, 8c48eea3adf3)" },
	{ "page_ages", FACT(ledger), false, UNMAP_UNKNOWN,
	  "page ages or per-page state (the page ledger's programs need BPF atomic fetch and "
	  "compare-and-exchange instructions, Linux 5.12, and the bpf_loop and "
	  "bpf_map_lookup_percpu_elem helpers, Linux 5.19): counters only" },
	{ "discovery", FACT(discovery), false, UNMAP_UNKNOWN,
	  "pools that make no events (the iterators that find them need the bpf_loop helper, "
	  "Linux 5.17): a pool appears with its first event" },
	{ "pp_stats", FACT(pp_stats), false, UNMAP_UNKNOWN,
	  "allocation and recycling statistics (the kernel is built without "
	  "CONFIG_PAGE_POOL_STATS): no alloc_* / recycle_* counters or recycling ratio",
	  .on_demand = true },
	{ "item_stats", FACT(item_stats), true, UNMAP_UNKNOWN,
	  "item_fast_empty / item_slow_failed (the page_pool item-block series)" },
	{ "item_blocks", FACT(item_blocks), true, UNMAP_UNKNOWN,
	  "per-block item counts (ppwatch's kernel series, patches/)" },
	{ "unmap_event", FACT(unmap_event), true, UNMAP_UNKNOWN,
	  "the unmap at destroy as an event (page_pool_destroy_unmap, patches/): the DMA "
	  "state follows from the regime" },
	{ "dma_index_stats", FACT(dma_index_stats), true, UNMAP_XARRAY,
	  "dma_index_failed, pages dropped for want of a DMA index (ppwatch's xarray "
	  "series, patches/xarray/)" },
	{ "dma_map_stats", FACT(dma_map_stats), true, UNMAP_XARRAY,
	  "dma_map_failed, pages dropped because they could not be DMA-mapped (ppwatch's "
	  "xarray series, patches/xarray/)" },
};

const char *kernel_gap(const struct kernel_facts *k, bool core, int i, const char **what)
{
	size_t g;

	for (g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		if (*(const bool *)((const char *)k + gaps[g].have) ||
		    (core && (gaps[g].series || gaps[g].on_demand)))
			continue;
		if (gaps[g].only != UNMAP_UNKNOWN && gaps[g].only != k->unmap)
			continue;
		if (i-- == 0) {
			*what = gaps[g].what;
			return gaps[g].name;
		}
	}
	return NULL;
}

const char *kernel_gap_named(const struct kernel_facts *k, const char *name)
{
	const char *n, *what;
	int i;

	for (i = 0; (n = kernel_gap(k, false, i, &what)); i++)
		if (!strcmp(n, name))
			return what;
	return NULL;
}
