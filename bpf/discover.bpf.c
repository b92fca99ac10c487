// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Discovery: find pools that exist before they produce an event.
 *
 * A pool that is idle (no page enters or leaves it) fires no tracepoint, and
 * netlink lists only pools attached to a netdev. This one-shot iterator walks
 * every network namespace (the ring of struct net, starting from the
 * reader's own) and, in each, every net_device:
 *   - dev->page_pools: the pools netlink would list, including zombies and
 *     orphans re-parented to loopback;
 *   - veth's per-queue pools (veth_rq->page_pool), which have no netdev;
 * then the XDP memory-model table (every pool registered with XDP, which
 * is every driver pool before 6.8 lists pools per netdev, and the
 * live-frames test run's).
 * Every pool found goes through pool_get(), so its counters at that moment
 * become the "before start" base.
 *
 * It runs as an iter/task program and does its work on the first task only.
 *
 * netns_walk, another iter/task program, lists the network namespaces
 * processes are in, for user space's visits to every namespace (netlink
 * dumps, the holder scan's socket iterators): one read instead of a
 * stat() of every /proc/PID/ns/net (9 us each on a 6.18 guest: 90 ms a
 * refresh on a host of 10,000 processes).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "pool.bpf.h"

struct net_walk {
	struct list_head *head; /* &start->list */
	struct list_head *cur;
	const void *ns_ops; /* proc_ns_operations of a real struct net */
};

struct dev_walk {
	struct list_head *head; /* &net->dev_base_head */
	struct list_head *cur;
};

/* a device's pools (core_fixes.bpf.h: netdev_pools_first()) */
struct dev_pools_walk {
	struct hlist_node *cur;
};

/*
 * Global (not static) functions are verified once, on their own, instead of
 * once per call site: addresses go in as scalars, read back with CO-RE.
 */
__noinline int discover_pool(__u64 addr)
{
	struct page_pool *pool = (void *)addr;
	struct ppw_pool *rec;

	if (!pool)
		return 0;
	rec = pool_get(pool, PPW_SEEN_DISCOVERY, 0);
	if (!rec)
		return 0;
	cnt_inc(PPW_CNT_DISCOVERED);
	/* counters that change without an event ppwatch hooks: fresh each scan */
	pool_item_counters(pool, rec);
	return 0;
}

static long pp_cb(__u64 i, void *data)
{
	struct dev_pools_walk *w = data;
	struct hlist_node *n = w->cur;

	if (!n)
		return 1;
	discover_pool(pool_of_user_list(n));
	w->cur = BPF_CORE_READ(n, next);
	return 0;
}

static __always_inline bool is_veth(struct net_device *nd)
{
	const char *kind = BPF_CORE_READ(nd, rtnl_link_ops, kind);
	char k[5] = {};

	if (!kind || bpf_probe_read_kernel_str(k, sizeof(k), kind) != 5)
		return false;
	return k[0] == 'v' && k[1] == 'e' && k[2] == 't' && k[3] == 'h';
}

struct rq_walk {
	__u64 nd;
	__u32 n;
};

static long rq_cb(__u64 i, void *data)
{
	struct rq_walk *w = data;

	if (i >= w->n)
		return 1;
	discover_pool(veth_rq_pool((struct net_device *)w->nd, i));
	return 0;
}

/* veth's per-queue pools (core_fixes.bpf.h: veth_rq_pool()) */
__noinline int discover_veth(__u64 addr)
{
	struct net_device *nd = (void *)addr;
	struct rq_walk w = { .nd = addr };

	if (!nd || !veth_has_pools())
		return 0;
	w.n = BPF_CORE_READ(nd, real_num_rx_queues);
	bpf_loop(PPW_MAX_VETH_RQ, rq_cb, &w, 0);
	if (w.n > PPW_MAX_VETH_RQ)
		cnt_inc(PPW_CNT_DISCOVERY_TRUNC);
	return 0;
}

static long dev_cb(__u64 i, void *data)
{
	struct dev_walk *w = data;
	struct list_head *cur = w->cur;
	struct dev_pools_walk pw = {};
	struct net_device *nd;

	if (!cur || cur == w->head)
		return 1;
	nd = (void *)cur - bpf_core_field_offset(struct net_device, dev_list);
	pw.cur = netdev_pools_first(nd);
	if (pw.cur && bpf_loop(PPW_MAX_DEV_POOLS, pp_cb, &pw, 0) == PPW_MAX_DEV_POOLS)
		cnt_inc(PPW_CNT_DISCOVERY_TRUNC);
	if (is_veth(nd))
		discover_veth((__u64)nd);
	w->cur = BPF_CORE_READ(cur, next);
	return 0;
}

static long net_cb(__u64 i, void *data)
{
	struct net_walk *w = data;
	struct list_head *cur = w->cur;
	struct dev_walk dw = {};
	struct net *net;

	net = (void *)cur - bpf_core_field_offset(struct net, list);
	/* the ring also holds net_namespace_list itself: not a struct net */
	if (BPF_CORE_READ(net, ns.ops) == w->ns_ops) {
		dw.head = (void *)net + bpf_core_field_offset(struct net, dev_base_head);
		dw.cur = BPF_CORE_READ(net, dev_base_head.next);
		if (bpf_loop(PPW_MAX_DEVS, dev_cb, &dw, 0) == PPW_MAX_DEVS)
			cnt_inc(PPW_CNT_DISCOVERY_TRUNC);
	}
	cur = BPF_CORE_READ(cur, next);
	if (!cur || cur == w->head)
		return 1;
	w->cur = cur;
	return 0;
}

/* ---- the XDP memory-model table (core_fixes.bpf.h: mem_id_table()) ---------- */

struct mem_walk {
	struct bucket_table *tbl;
	__u32 size;
	__u32 page_pool_type;
};

static long mem_bucket_cb(__u64 i, void *data)
{
	struct mem_walk *w = data;
	struct xdp_mem_allocator *xa;
	__u64 head = 0, at;
	int k;

	if (i >= w->size)
		return 1;
	at = (__u64)w->tbl + bpf_core_field_offset(struct bucket_table, buckets) + i * 8;
	bpf_probe_read_kernel(&head, sizeof(head), (void *)at);
	head &= ~1ULL; /* the bucket's lock bit */
	for (k = 0; k < PPW_MAX_MEM_CHAIN; k++) {
		if (!head || (head & 1)) /* empty, or the nulls marker */
			return 0;
		xa = (void *)(head - bpf_core_field_offset(struct xdp_mem_allocator, node));
		if (BPF_CORE_READ(xa, mem.type) == w->page_pool_type)
			discover_pool((__u64)BPF_CORE_READ(xa, page_pool));
		head = (__u64)BPF_CORE_READ((struct rhash_head *)head, next);
	}
	cnt_inc(PPW_CNT_DISCOVERY_TRUNC);
	return 0;
}

static __noinline int discover_mem_models(void)
{
	struct rhashtable *ht = mem_id_table();
	struct bucket_table *tbl;
	struct mem_walk w = {};

	if (!ht)
		return 0;
	/* a typed local, not w.tbl: BPF_CORE_READ on a member of a local
	 * struct would relocate that struct too, and it has no kernel BTF */
	tbl = BPF_CORE_READ(ht, tbl);
	if (!tbl || BPF_CORE_READ(tbl, nest)) /* nested tables: > 16k entries */
		return 0;
	w.tbl = tbl;
	w.size = BPF_CORE_READ(tbl, size);
	w.page_pool_type = bpf_core_enum_value(enum xdp_mem_type, MEM_TYPE_PAGE_POOL);
	if (bpf_loop(PPW_MAX_MEM_BUCKETS, mem_bucket_cb, &w, 0) == PPW_MAX_MEM_BUCKETS &&
	    w.size > PPW_MAX_MEM_BUCKETS)
		cnt_inc(PPW_CNT_DISCOVERY_TRUNC);
	return 0;
}

SEC("iter/task")
int discover(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct net_walk w = {};
	struct net *net;

	if (!task || ctx->meta->seq_num > 0)
		return 0;
	task = bpf_get_current_task_btf();
	net = BPF_CORE_READ(task, nsproxy, net_ns);
	if (!net)
		return 0;
	w.head = (void *)net + bpf_core_field_offset(struct net, list);
	w.cur = w.head;
	w.ns_ops = BPF_CORE_READ(net, ns.ops);
	if (bpf_loop(PPW_MAX_NETNS, net_cb, &w, 0) == PPW_MAX_NETNS)
		cnt_inc(PPW_CNT_DISCOVERY_TRUNC);
	discover_mem_models();
	return 0;
}

SEC("iter/task")
int netns_walk(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct ppw_netns_rec r;
	struct net *net;

	/* processes, as /proc lists them: a thread's namespace is its leader's */
	if (!task || BPF_CORE_READ(task, pid) != BPF_CORE_READ(task, tgid))
		return 0;
	net = BPF_CORE_READ(task, nsproxy, net_ns);
	if (!net) /* exiting */
		return 0;
	r.inum = BPF_CORE_READ(net, ns.inum);
	r.pid = BPF_CORE_READ(task, tgid);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}
