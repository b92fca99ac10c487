// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The baseline for bench/: counting-only programs on the same tracepoints
 * as ppwatch's hot path, attached the same way (tp_btf). Their run time
 * per event is the floor every tracepoint program pays; ppwatch's cost is
 * reported as a ratio to it, measured in the same run.
 *
 * With ppbench --contention, two more pairs do the same per-pool
 * bookkeeping two ways, to show what a shared cache line costs when both
 * CPUs make events at once: 'shared_*' keeps the newest counter and an
 * event count in one record every CPU updates with atomics (the design
 * ppwatch had), 'pcpu_*' in each CPU's own slot with plain stores (the
 * design it has).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 holds, releases;

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(count_hold)
{
	__sync_fetch_and_add(&holds, 1);
	return 0;
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(count_release)
{
	__sync_fetch_and_add(&releases, 1);
	return 0;
}

struct demo_rec {
	__u32 hold;
	__u32 release;
	__u64 holds;
	__u64 releases;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct demo_rec);
} shared_rec SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct demo_rec);
} pcpu_rec SEC(".maps");

/* the old u32_store_newer(): a compare-and-swap loop on a shared word */
static __always_inline void store_newer(__u32 *p, __u32 v)
{
	__u32 old;
	int i;

	for (i = 0; i < 4; i++) {
		old = *p;
		if ((__s32)(v - old) <= 0)
			return;
		if (__sync_val_compare_and_swap(p, old, v) == old)
			return;
	}
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(shared_hold, struct page_pool *pool, __u64 netmem, __u32 hold)
{
	__u32 zero = 0;
	struct demo_rec *r = bpf_map_lookup_elem(&shared_rec, &zero);

	if (!r)
		return 0;
	store_newer(&r->hold, hold);
	__sync_fetch_and_add(&r->holds, 1);
	return 0;
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(shared_release, struct page_pool *pool, __u64 netmem, __u32 release)
{
	__u32 zero = 0;
	struct demo_rec *r = bpf_map_lookup_elem(&shared_rec, &zero);

	if (!r)
		return 0;
	store_newer(&r->release, release);
	__sync_fetch_and_add(&r->releases, 1);
	return 0;
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(pcpu_hold, struct page_pool *pool, __u64 netmem, __u32 hold)
{
	__u32 zero = 0;
	struct demo_rec *r = bpf_map_lookup_elem(&pcpu_rec, &zero);

	if (!r)
		return 0;
	r->hold = hold;
	r->holds++;
	return 0;
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(pcpu_release, struct page_pool *pool, __u64 netmem, __u32 release)
{
	__u32 zero = 0;
	struct demo_rec *r = bpf_map_lookup_elem(&pcpu_rec, &zero);

	if (!r)
		return 0;
	r->release = release;
	r->releases++;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
