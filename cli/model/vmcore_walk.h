/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The page pools of a crash dump (pure): every pool the kernel keeps in
 * its page_pools xarray (net/core/page_pool_user.c: every pool with a
 * pool->user.id, live or destroyed, with a netdev or without, until it is
 * freed); on a kernel without it (before 6.8) every pool that has a page
 * the dump's struct pages mark as one of its own (page->pp_magic is
 * PP_SIGNATURE, page->pp the pool: drgn's contrib/pp_leak finds them so),
 * which is every pool with pages out or cached (one with none has nothing
 * to report). Each read as ppwatch's BPF side reads a live one (struct
 * ppw_pool: counters, id, netdev, device, driver, NAPI id, detach time,
 * DMA flag and what is left in its dma_mapped xarray) into a struct
 * reading that model/snapshot.c turns into the rows every other report
 * has. The dump's own clock: the timekeeper's CLOCK_BOOTTIME and wall
 * time as of its last update (a tick at most before the dump on a busy
 * kernel; an idle one with its tick stopped updates it at its next
 * wake-up, a second at most while a destroyed pool retries its release).
 *
 * Memory comes through struct kmem; every walk is bounded (the xarray's
 * depth and nodes, VW_MAX_POOLS pools) and every unreadable pool counted,
 * with the first reason.
 */
#ifndef __PPWATCH_MODEL_VMCORE_WALK_H
#define __PPWATCH_MODEL_VMCORE_WALK_H

#include "model/kmem.h"
#include "model/snapshot.h"
#include "model/vmcore_layout.h"

#define VW_MAX_POOLS 65536
#define VW_MAX_NODES 65536
#define VW_MAX_PFN   (1ULL << 36) /* 256 TiB of 4 KiB pages: the page scan's bound */

struct vmcore_addrs {
	uint64_t page_pools;  /* the xarray; 0: not found */
	uint64_t tk_core;     /* struct tk_data tk_core; 0: none */
	uint64_t shadow_tk;   /* struct timekeeper shadow_timekeeper (kernels without tk_data) */
	uint64_t init_uts_ns; /* VMCOREINFO's */
	uint64_t page_size;
	/* the page scan (no page_pools xarray): struct page of pfn 0, pfns below max_pfn */
	uint64_t vmemmap, max_pfn;
	/* jiffies_64 at the dump, to date a destroy by pool->defer_start (0: unknown) */
	uint64_t jiffies;
};

/* what the page scan read (model/vmcore_walk.c) */
struct vmcore_pscan {
	bool ran;
	uint64_t pages;	       /* struct pages read */
	uint64_t missing;      /* struct pages the dump does not have (holes, excluded) */
	uint64_t pool_pages;   /* of those read, marked as a page_pool's */
	uint64_t bad_pool_ptr; /* marked, with a page->pp that is no kernel pointer */
};

struct vmcore_walk {
	struct reading rd; /* the pools; rd.now_ns the dump's CLOCK_BOOTTIME (0: unknown) */
	bool clock;	   /* the timekeeper was read */
	double real_s;	   /* the wall clock at the dump, seconds (NAN: unknown) */
	char hostname[65];
	char release[65];
	uint64_t xa_nodes;   /* xarray nodes read */
	uint64_t entries;    /* pool pointers found */
	uint64_t unreadable; /* of them, pools the dump cannot give */
	uint64_t not_listed; /* past VW_MAX_POOLS */
	uint64_t duplicates; /* a pool found twice: a damaged xarray (each kept once) */
	uint64_t mono_ns;    /* the dump's CLOCK_MONOTONIC (with rd.now_ns) */
	struct vmcore_pscan scan;
	char first_error[160]; /* the first thing that could not be read, for the report */
};

/* 0, or -errno (-ENOMEM; -ENOENT: no page_pools xarray and nothing to scan pages by) */
int vmcore_walk(struct kmem *m, const struct vmcore_layout *l, const struct vmcore_addrs *a,
		struct vmcore_walk *w);
void vmcore_walk_free(struct vmcore_walk *w);

#endif /* __PPWATCH_MODEL_VMCORE_WALK_H */
