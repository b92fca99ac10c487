/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The page pools of a crash dump (pure): every pool the kernel keeps in
 * its page_pools xarray (net/core/page_pool_user.c: every pool with a
 * pool->user.id, live or destroyed, with a netdev or without, until it is
 * freed), each read as ppwatch's BPF side reads a live one (struct
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

struct vmcore_addrs {
	uint64_t page_pools;  /* the xarray; 0: not found */
	uint64_t tk_core;     /* struct tk_data tk_core; 0: none */
	uint64_t shadow_tk;   /* struct timekeeper shadow_timekeeper (kernels without tk_data) */
	uint64_t init_uts_ns; /* VMCOREINFO's */
	uint64_t page_size;
};

struct vmcore_walk {
	struct reading rd; /* the pools; rd.now_ns the dump's CLOCK_BOOTTIME (0: unknown) */
	bool clock;	   /* the timekeeper was read */
	double real_s;	   /* the wall clock at the dump, seconds (NAN: unknown) */
	char hostname[65];
	char release[65];
	uint64_t xa_nodes;     /* xarray nodes read */
	uint64_t entries;      /* pool pointers found */
	uint64_t unreadable;   /* of them, pools the dump cannot give */
	uint64_t not_listed;   /* past VW_MAX_POOLS */
	uint64_t duplicates;   /* a pool found twice: a damaged xarray (each kept once) */
	char first_error[160]; /* the first thing that could not be read, for the report */
};

/* 0, or -errno (-ENOMEM; -ENOENT: no page_pools xarray) */
int vmcore_walk(struct kmem *m, const struct vmcore_layout *l, const struct vmcore_addrs *a,
		struct vmcore_walk *w);
void vmcore_walk_free(struct vmcore_walk *w);

#endif /* __PPWATCH_MODEL_VMCORE_WALK_H */
