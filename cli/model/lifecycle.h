/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Pool lifecycle (pure): the BPF side's events (first sight, destroy, each
 * retry, freed, NUMA node change, address reuse) and netlink's
 * notifications become a timeline per pool; 'stalled' is derived when a
 * destroyed pool stays out longer than a threshold (the kernel warns at 60
 * s). Freed pools are kept, up to a bound, so a post-mortem still sees them.
 */
#ifndef __PPWATCH_MODEL_LIFECYCLE_H
#define __PPWATCH_MODEL_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>

#include "ppwatch.h"

enum life_kind {
	LE_NEW = 1,	/* first seen (created, or found existing) */
	LE_DESTROY,	/* page_pool_destroy(): first release */
	LE_RETRY,	/* a later release, about once a second */
	LE_STALLED,	/* still not freed after the threshold */
	LE_UNMAP,	/* DMA mappings torn down (item-block series tracepoint) */
	LE_FREED,	/* inflight reached 0, pool freed */
	LE_NID,		/* page_pool_update_nid */
	LE_NL_ADD,	/* netlink page-pool-add-ntf */
	LE_NL_CHANGE,	/* netlink page-pool-change-ntf */
	LE_NL_DEL,	/* netlink page-pool-del-ntf */
	LE_BLOCK_ALLOC, /* a dynamic item block allocated (ppwatch's series) */
	LE_BLOCK_FREE,	/* a dynamic item block freed */
	LE_SLOW_FAILED, /* no item block: a page allocation failed */
	LE_KIND_MAX,
};

struct life_event {
	enum life_kind kind;
	__u64 ts_ns; /* CLOCK_BOOTTIME */
	__u64 pool;
	__u32 gen;
	__u32 id;
	__s32 inflight;
	__u32 retry;	     /* LE_RETRY: 1, 2, ... */
	double detach_age_s; /* NAN if not destroyed */
	__s32 nid;
	struct ppw_pool rec; /* the pool record after the event (zeroed for netlink) */
};

#define LIFE_MAX_EVENTS	 64  /* kept per pool: the first ones and the latest */
#define LIFE_MAX_SAMPLES 256 /* inflight over time, per pool */

struct life_sample {
	__u64 ts_ns;
	__s32 inflight;
};

struct pool_life {
	__u64 addr;
	__u32 gen;
	__u32 id;
	struct ppw_pool rec; /* latest */
	__u64 first_ns;
	__u64 destroy_ns; /* 0: not seen (maybe before start: see rec) */
	__u64 stalled_ns;
	__u64 unmap_ns;
	__u64 freed_ns;
	__u32 retries;
	__u64 first_retry_ns, last_retry_ns;
	struct life_event events[LIFE_MAX_EVENTS];
	size_t nevents;	       /* kept */
	size_t dropped_events; /* retries beyond the bound (first and last kept) */
	struct life_sample samples[LIFE_MAX_SAMPLES];
	size_t nsamples;
};

struct lifecycle {
	struct pool_life *v;
	size_t n, cap;
	double stall_after_s; /* default 60, the kernel's warning */
	size_t max_freed;     /* freed pools kept (oldest dropped first) */
};

void life_init(struct lifecycle *lc, double stall_after_s, size_t max_freed);
void life_free(struct lifecycle *lc);
/* a BPF event: fills *out (the event to report) and returns 1, or 0 */
int life_on_bpf(struct lifecycle *lc, const struct ppw_event *e, double detach_age_s,
		struct life_event *out);
/* a netlink notification (cmd: PPW_NETDEV_CMD_PAGE_POOL_*_NTF) */
int life_on_netlink(struct lifecycle *lc, int cmd, __u32 id, __u64 now_ns, struct life_event *out);
/*
 * Time passes: stalled pools. detach_age_s(pool) comes from the model (it
 * knows the kernel's detach time for pools destroyed before start).
 * Returns how many events were written to out (at most max).
 */
int life_tick(struct lifecycle *lc, __u64 now_ns,
	      double (*detach_age_s)(const struct pool_life *, void *), void *arg,
	      struct life_event *out, int max);
/* inflight over time */
void life_sample(struct lifecycle *lc, __u64 addr, __u32 gen, __u64 ts_ns, __s32 inflight);
struct pool_life *life_find(struct lifecycle *lc, __u64 addr, __u32 gen);
const char *life_kind_name(enum life_kind k);
int life_kind_parse(const char *s);

#endif /* __PPWATCH_MODEL_LIFECYCLE_H */
