// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Allocation and recycling statistics (CONFIG_PAGE_POOL_STATS), read from
 * each pool itself: what page-pool-stats-get reports for the pools netlink
 * lists, for every pool ppwatch knows, veth's (no netdev) included.
 *
 *   stats_walk (iter/task, on its first task): one struct ppw_stats_rec per
 *   pool of the pool table that is not freed: pool->alloc_stats, and
 *   pool->recycle_stats summed over every possible CPU as
 *   page_pool_get_stats() sums them (core_fixes.bpf.h, 22).
 *
 * Not on the hot path: user space runs it when it samples. Loaded only
 * where the kernel's BTF has both fields (cli/sources/loader.c): the
 * reads below are guarded by that, and by pool_has_stats() here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#define PPW_STATS_OBJ
#include "pool.bpf.h"

struct stats_walk {
	struct seq_file *seq;
	struct ppw_stats_rec r;
	__u64 pcpu; /* pool->recycle_stats, a per-CPU pointer */
	bool cpus_ok;
};

static long cpu_cb(__u32 cpu, struct stats_walk *w)
{
	struct page_pool_recycle_stats___ppw *rs;
	__u64 off;

	if (cpu >= cfg_nr_cpus)
		return 1;
	if (!pcpu_offset_of(cpu, &off)) {
		w->cpus_ok = false;
		return 1;
	}
	rs = (void *)(w->pcpu + off);
	w->r.recycle[PPW_RECYCLE_CACHED] += BPF_CORE_READ(rs, cached);
	w->r.recycle[PPW_RECYCLE_CACHE_FULL] += BPF_CORE_READ(rs, cache_full);
	w->r.recycle[PPW_RECYCLE_RING] += BPF_CORE_READ(rs, ring);
	w->r.recycle[PPW_RECYCLE_RING_FULL] += BPF_CORE_READ(rs, ring_full);
	w->r.recycle[PPW_RECYCLE_RELEASED_REFCNT] += BPF_CORE_READ(rs, released_refcnt);
	return 0;
}

static long pool_cb(struct bpf_map *map, __u64 *key, struct ppw_pool *rec, struct stats_walk *w)
{
	struct page_pool___stats *pool = (void *)*key;

	/*
	 * A freed pool's memory is gone. page_pool_release fires (and the
	 * lifecycle program marks the record freed) before the kernel frees
	 * the pool: a record still not freed after the reads was read while
	 * its pool was there.
	 */
	if (rec->state == PPW_POOL_FREED)
		return 0;
	__builtin_memset(&w->r, 0, sizeof(w->r));
	w->r.pool = *key;
	w->r.gen = rec->gen;
	w->r.alloc[PPW_ALLOC_FAST] = BPF_CORE_READ(pool, alloc_stats.fast);
	w->r.alloc[PPW_ALLOC_SLOW] = BPF_CORE_READ(pool, alloc_stats.slow);
	w->r.alloc[PPW_ALLOC_SLOW_HIGH_ORDER] = BPF_CORE_READ(pool, alloc_stats.slow_high_order);
	w->r.alloc[PPW_ALLOC_EMPTY] = BPF_CORE_READ(pool, alloc_stats.empty);
	w->r.alloc[PPW_ALLOC_REFILL] = BPF_CORE_READ(pool, alloc_stats.refill);
	w->r.alloc[PPW_ALLOC_WAIVE] = BPF_CORE_READ(pool, alloc_stats.waive);
	w->r.flags = PPW_STATS_ALLOC;
	w->pcpu = (__u64)BPF_CORE_READ(pool, recycle_stats);
	if (w->pcpu) {
		w->cpus_ok = true;
		bpf_loop(PPW_MAX_CPU_SLOTS, cpu_cb, w, 0);
		if (w->cpus_ok)
			w->r.flags |= PPW_STATS_RECYCLE;
	}
	if (*(volatile __u32 *)&rec->state == PPW_POOL_FREED)
		return 0;
	bpf_seq_write(w->seq, &w->r, sizeof(w->r));
	return 0;
}

SEC("iter/task")
int stats_walk(struct bpf_iter__task *ctx)
{
	struct stats_walk w = {};

	if (!ctx->task || ctx->meta->seq_num > 0 || !pool_has_stats())
		return 0;
	w.seq = ctx->meta->seq;
	bpf_for_each_map_elem(&pools, pool_cb, &w, 0);
	return 0;
}
