/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Maps shared by ppwatch's BPF objects. ledger.bpf.c defines them
 * (PPW_DEFINE_MAPS); every other object declares them extern, and
 * 'bpftool gen object' links all of them into one skeleton.
 *
 * Sizes here are defaults: user space sets the size of every map that
 * depends on the session's options before load (cli/sources/loader.c,
 * size_maps()).
 */
#ifndef __PPWATCH_MAPS_BPF_H
#define __PPWATCH_MAPS_BPF_H

#include <bpf/bpf_helpers.h>

#include "ppwatch.h"

#ifdef PPW_DEFINE_MAPS
#define PPW_MAP
#else
#define PPW_MAP extern
#endif

/* struct page_pool * -> record */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PPW_DEF_MAX_POOLS);
	__type(key, __u64);
	__type(value, struct ppw_pool);
} pools SEC(".maps");

/* the last pool generation handed out (pool.bpf.h: next_gen()) */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pool_seq SEC(".maps");

/* per CPU: the pools this CPU saw last (the counters level's only state) */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PPW_PCPU_SLOTS);
	__type(key, __u32);
	__type(value, struct ppw_pcpu_pool);
} pcpu_pools SEC(".maps");

/* the page log: cfg_log_recs records per CPU, CPU after CPU (ledger.bpf.h; sized by user space) */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ppw_log_rec);
} page_log SEC(".maps");

/* each CPU's log head, the reader's tail (user space writes it) and drops, a line each */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ppw_log_ctl);
} log_ctl SEC(".maps");

/* netmem -> the hold stack of a page whose hold took one (--stacks) */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PPW_DEF_STACKS);
	__type(key, __u64);
	__type(value, __s32);
} page_stacks SEC(".maps");

/* lifecycle events */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PPW_DEF_RINGBUF);
} events SEC(".maps");

/* enum ppw_counter -> count, per CPU */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PPW_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* sampled stacks; sized to 1 entry while --stacks is off */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PPW_DEF_STACKS);
	__type(key, __u32);
	__uint(value_size, PPW_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* (pool, gen, kind, stack) -> events */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PPW_DEF_STACKS);
	__type(key, struct ppw_stack_key);
	__type(value, __u64);
} stack_counts SEC(".maps");

/* scratch space for building records off the 512-byte stack */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ppw_pool);
} scratch SEC(".maps");

static __always_inline void cnt_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &idx);

	if (v)
		*v += n;
}

static __always_inline void cnt_inc(__u32 idx)
{
	cnt_add(idx, 1);
}

#endif /* __PPWATCH_MAPS_BPF_H */
