// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor of each way to keep a page ledger, per operation: the same
 * tracepoints as ppwatch's hot path, each alternative a hold/release pair
 * that does only that much, measured by bpf_stats next to the counting
 * program (count.bpf.c) in the same run (ppbench --alt NAME loads one
 * pair at a time; bench/run.sh alt runs them all).
 *
 *   log   append (netmem, gen) to this CPU's log: a slot reserved with
 *         an atomic add on this CPU's line, three stores (ppwatch's log
 *         without its clock); ppbench drains the logs while it runs
 *   jif   the same with bpf_jiffies64() as the time (what ppwatch does)
 *   read  jif's programs, ppbench reading every record as ppwatch's reader
 *         does (the lines move to the other CPU and back); the others
 *         only move the tails
 *   ktm   the same with bpf_ktime_get_boot_ns() (an exact clock per event)
 *   one   jif with a log per CPU and program (hold's, release's), each with
 *         one writer: its slot reserved with a plain load and store, no
 *         atomic (what dropping the nesting-safe reservation would save)
 *   half  jif with 8-byte records (netmem, kind, lap): the jiffies as a
 *         record of their own when they moved since this CPU's last record
 *         (two slots reserved then, in one add), the pool's generation left
 *         out: the floor of a log of half the lines
 *   fixed jif writing every record to its CPU's first slot: the log's
 *         reservation and stores without a new line every 4 records (what
 *         the lines themselves cost)
 *   arr   the page ledger in a kernel array, as ppwatch kept it until the
 *         log: the page's bucket of 4 slots (by page index), a slot taken
 *         with compare-and-swap at hold and cleared at release, the exact
 *         clock
 *   hash  a hash map netmem -> (gen, time): insert at hold, delete at
 *         release, the exact clock
 *   ring  a 16-byte record per event through a BPF ring buffer (ppbench
 *         consumes it)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define LOG_SHIFT 16
#define LOG_RECS  (1U << LOG_SHIFT)
#define MAX_CPUS  64
#define LOG_SLOTS (LOG_RECS * MAX_CPUS)
#define ARR_WAYS  4

struct rec {
	__u64 w;
	__u32 gen, t;
};

struct ctl {
	__u64 head, tail, dropped;
	__u64 last_t; /* half: the jiffies of this CPU's last time record */
	__u64 pad[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LOG_SLOTS);
	__type(key, __u32);
	__type(value, struct rec);
} alt_log SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2 * MAX_CPUS); /* one: release's at MAX_CPUS + cpu */
	__type(key, __u32);
	__type(value, struct ctl);
} alt_ctl SEC(".maps");

/* half's log: 8-byte records */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LOG_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} alt_log8 SEC(".maps");

struct slot {
	__u64 netmem;
	__u32 gen, t;
};

/* 1.5 slots per page of 1M, as the kernel ledger was sized */
#define ARR_BUCKETS (1U << 18)
#define ARR_SLOTS   (ARR_BUCKETS * ARR_WAYS)
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ARR_SLOTS);
	__type(key, __u32);
	__type(value, struct slot);
} alt_arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 18);
	__type(key, __u64);
	__type(value, struct slot);
} alt_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} alt_ring SEC(".maps");

enum alt_clock { CLK_NONE, CLK_JIFFIES, CLK_KTIME };

/* the record at idx of the log: its first word (w, with the lap bit) written last */
static __always_inline void put_rec(__u32 idx, __u64 w, __u32 t)
{
	struct rec *r = bpf_map_lookup_elem(&alt_log, &idx);

	if (!r)
		return;
	r->gen = 1;
	r->t = t;
	asm volatile("" ::: "memory");
	r->w = w;
}

/* the slot of record h of CPU cpu's log */
static __always_inline __u32 log_idx(__u32 cpu, __u64 h)
{
	return cpu * LOG_RECS + ((__u32)h & (LOG_RECS - 1));
}

/* the lap bit (bit 2) of record h of a log of 2^shift records */
static __always_inline __u64 lap_bit(__u64 h, unsigned int shift)
{
	return (((h >> shift) + 1) & 1) << 2;
}

/* a full log (the reader a lap behind, less slack): the event counted as dropped */
static __always_inline bool log_full(struct ctl *c)
{
	if (c->head - *(volatile __u64 *)&c->tail < LOG_RECS - 16)
		return false;
	__sync_fetch_and_add(&c->dropped, 1);
	return true;
}

static __always_inline int log_event(__u64 netmem, __u64 kind, enum alt_clock clk, bool fixed)
{
	__u32 cpu = bpf_get_smp_processor_id(), t = 0;
	struct ctl *c;
	__u64 h;

	if (clk == CLK_JIFFIES)
		t = (__u32)bpf_jiffies64();
	else if (clk == CLK_KTIME)
		t = (__u32)(bpf_ktime_get_boot_ns() >> 20);
	c = bpf_map_lookup_elem(&alt_ctl, &cpu);
	if (!c || log_full(c))
		return 0;
	h = __sync_fetch_and_add(&c->head, 1);
	put_rec(fixed ? log_idx(cpu, 0) : log_idx(cpu, h), netmem | kind | lap_bit(h, LOG_SHIFT),
		t);
	return 0;
}

static __always_inline void put8(__u32 idx, __u64 w)
{
	__u64 *r = bpf_map_lookup_elem(&alt_log8, &idx);

	if (r)
		*r = w;
}

/* half: 8-byte records, the jiffies a record of their own when they moved */
static __always_inline int log_half(__u64 netmem, __u64 kind)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 t = bpf_jiffies64(), h, n;
	struct ctl *c = bpf_map_lookup_elem(&alt_ctl, &cpu);

	if (!c || log_full(c))
		return 0;
	n = c->last_t != t ? 2 : 1;
	h = __sync_fetch_and_add(&c->head, n);
	if (n == 2) {
		c->last_t = t;
		put8(log_idx(cpu, h), (t << 3) | 1);
		h++;
	}
	put8(log_idx(cpu, h), netmem | kind | lap_bit(h, LOG_SHIFT));
	return 0;
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(ahalf_hold, struct page_pool *pool, __u64 netmem)
{
	return log_half(netmem, 0);
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(ahalf_release, struct page_pool *pool, __u64 netmem)
{
	return log_half(netmem, 2);
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(afixed_hold, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 0, CLK_JIFFIES, true);
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(afixed_release, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 2, CLK_JIFFIES, true);
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(alog_hold, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 0, CLK_NONE, false);
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(alog_release, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 2, CLK_NONE, false);
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(ajif_hold, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 0, CLK_JIFFIES, false);
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(ajif_release, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 2, CLK_JIFFIES, false);
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(aktm_hold, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 0, CLK_KTIME, false);
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(aktm_release, struct page_pool *pool, __u64 netmem)
{
	return log_event(netmem, 2, CLK_KTIME, false);
}

/* one writer per (CPU, program): hold's and release's halves of the CPU's log */
static __always_inline int log_one(__u64 netmem, __u64 kind)
{
	__u32 cpu = bpf_get_smp_processor_id(), t = (__u32)bpf_jiffies64();
	__u32 k = cpu + (kind ? MAX_CPUS : 0);
	struct ctl *c = bpf_map_lookup_elem(&alt_ctl, &k);
	__u64 h;

	if (!c)
		return 0;
	h = c->head;
	if (h - *(volatile __u64 *)&c->tail >= LOG_RECS / 2 - 16) {
		c->dropped++;
		return 0;
	}
	put_rec(cpu * LOG_RECS + (kind ? LOG_RECS / 2 : 0) + ((__u32)h & (LOG_RECS / 2 - 1)),
		netmem | kind | lap_bit(h, LOG_SHIFT - 1), t);
	*(volatile __u64 *)&c->head = h + 1;
	return 0;
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(aone_hold, struct page_pool *pool, __u64 netmem)
{
	return log_one(netmem, 0);
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(aone_release, struct page_pool *pool, __u64 netmem)
{
	return log_one(netmem, 2);
}

/* netmem as a number: tp_btf's argument (a page pointer on some kernels) */
static __always_inline __u64 as_u64(__u64 v)
{
	__u64 x;

	asm volatile("%[x] = %[v]" : [x] "=r"(x) : [v] "r"(v));
	return x;
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(aarr_hold, struct page_pool *pool, __u64 netmem)
{
	__u64 n = as_u64(netmem), now = bpf_ktime_get_boot_ns();
	__u32 first = ((__u32)(n >> 6) % ARR_BUCKETS) * ARR_WAYS, i, idx;
	struct slot *s, *free = NULL;

#pragma unroll
	for (i = 0; i < ARR_WAYS; i++) {
		idx = first + i;
		s = bpf_map_lookup_elem(&alt_arr, &idx);
		if (!s)
			continue;
		if (s->netmem == n) {
			free = s;
			break;
		}
		if (!free && !s->netmem)
			free = s;
	}
	if (free && (free->netmem == n || !__sync_val_compare_and_swap(&free->netmem, 0, n))) {
		free->gen = 1;
		free->t = (__u32)(now >> 20);
	}
	return 0;
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(aarr_release, struct page_pool *pool, __u64 netmem)
{
	__u64 n = as_u64(netmem);
	__u32 first = ((__u32)(n >> 6) % ARR_BUCKETS) * ARR_WAYS, i, idx;
	struct slot *s;

#pragma unroll
	for (i = 0; i < ARR_WAYS; i++) {
		idx = first + i;
		s = bpf_map_lookup_elem(&alt_arr, &idx);
		if (s && s->netmem == n) {
			s->t = 0;
			s->netmem = 0;
			break;
		}
	}
	return 0;
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(ahash_hold, struct page_pool *pool, __u64 netmem)
{
	__u64 n = as_u64(netmem);
	struct slot v = { .netmem = n, .gen = 1, .t = (__u32)(bpf_ktime_get_boot_ns() >> 20) };

	bpf_map_update_elem(&alt_hash, &n, &v, BPF_ANY);
	return 0;
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(ahash_release, struct page_pool *pool, __u64 netmem)
{
	__u64 n = as_u64(netmem);

	bpf_map_delete_elem(&alt_hash, &n);
	return 0;
}

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(aring_hold, struct page_pool *pool, __u64 netmem)
{
	struct rec r = { .w = as_u64(netmem), .gen = 1, .t = (__u32)bpf_jiffies64() };

	bpf_ringbuf_output(&alt_ring, &r, sizeof(r), 0);
	return 0;
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(aring_release, struct page_pool *pool, __u64 netmem)
{
	struct rec r = { .w = as_u64(netmem) | 2, .gen = 1, .t = (__u32)bpf_jiffies64() };

	bpf_ringbuf_output(&alt_ring, &r, sizeof(r), 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
