// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The holder scan's queues outside sockets: in every network namespace,
 * each device's qdiscs and each IPv4/IPv6 fragment reassembly queue. A
 * packet that waits in one of them keeps its page_pool pages.
 *
 * Qdiscs: the root qdisc and every qdisc on dev->qdisc_hash (the children
 * of classful qdiscs and of mq are hashed there). Each one's generic queue
 * (q->q), its requeue slot (gso_skb) and its bad-txq slot (skb_bad_txq) are
 * walked; so are the private queues of pfifo_fast (three skb_arrays, the
 * default on a real NIC), fq_codel (its flows, Debian's default qdisc) and
 * htb's direct queue. Other kinds that keep skbs in private structures
 * (fq, sfq, netem, cake, ...) are reported with their backlog, not walked.
 *
 * Fragments: net->ipv4.fqdir and net->ipv6.fqdir, each an rhashtable of
 * inet_frag_queue; a queue's fragments are an rbtree of runs of skbs
 * (FRAG_CB(skb)->next_frag).
 *
 * Two iterators, to stay within the verifier's call frames: scan_queues
 * (one element) walks the namespaces and devices and puts every device and
 * every reassembly queue it finds on a list (queue_objs); scan_qobj then
 * walks the list in later runs, one entry per element (task).
 *
 * No address the list keeps is used in another program run without being
 * found again in that run, under its RCU read lock, from the namespace
 * list down: the namespace on net_namespace_list, the device on its
 * dev_base_head, a reassembly queue in its bucket of the same table. Only
 * then is it walked. A device's qdiscs are read from the device in the run
 * that walks them (its root from dev->qdisc, the others from the buckets of
 * dev->qdisc_hash), a batch an element; the next element goes on after the
 * last qdisc walked, found again in its bucket. What is not found again is
 * gone: not walked, counted (PPW_CNT_SCAN_GONE; where a walk could not go
 * on, PPW_CNT_SCAN_TRUNC). Their records go through the scan_events ring;
 * the skbs are walked as the sockets' are (skbwalk.bpf.h), with the maps
 * holders.bpf.c defines.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>

#include "scan.bpf.h"
#include "skbwalk.bpf.h"

/* what the first pass found: devices (their qdiscs) and reassembly queues */
enum ppw_qobj_kind { QO_DEV = 1, QO_FRAGQ_V4, QO_FRAGQ_V6 };

#define QO_ROOT_NEXT 0xffffffffu /* a device whose root qdisc is still to walk */

struct ppw_qobj {
	__u64 addr;   /* the net_device, or the inet_frag_queue */
	__u64 net;    /* the struct net it was found in */
	__u64 tbl;    /* a queue's bucket_table */
	__u64 last;   /* a device's last qdisc walked in bucket (0: none yet) */
	__u32 bucket; /* a queue's bucket; a device's hash bucket being walked */
	__u32 netns_ino;
	__u32 kind;   /* enum ppw_qobj_kind */
	__u32 walked; /* a device's qdiscs walked so far */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PPW_MAX_QUEUE_OBJS);
	__type(key, __u32);
	__type(value, struct ppw_qobj);
} queue_objs SEC(".maps");
__u32 queue_n;	   /* entries the first pass filled */
__u32 qobj_next;   /* the entry scan_qobj walks next */
__u32 qobj_walked; /* qdiscs and queues walked: a run that moved neither stalled */

static __always_inline void qobj_add(__u64 addr, __u64 net, __u64 tbl, __u32 bucket,
				     __u32 netns_ino, __u32 kind)
{
	__u32 i = queue_n;
	struct ppw_qobj *o;

	if (!addr)
		return;
	o = bpf_map_lookup_elem(&queue_objs, &i);
	if (!o) { /* more queues than the list holds: the rest are not walked */
		cnt_inc(PPW_CNT_SCAN_TRUNC);
		return;
	}
	o->addr = addr;
	o->net = net;
	o->tbl = tbl;
	o->last = 0;
	o->bucket = bucket;
	o->netns_ino = netns_ino;
	o->kind = kind;
	o->walked = 0;
	queue_n = i + 1;
}

/* ---- qdiscs ---------------------------------------------------------------------- */

/* fq_codel lives in a module: its types resolve against module BTF, when loaded */
struct fq_codel_flow___ppw {
	struct sk_buff *head;
} __attribute__((preserve_access_index));

struct fq_codel_sched_data___ppw {
	struct fq_codel_flow___ppw *flows;
	__u32 flows_cnt;
} __attribute__((preserve_access_index));

static __always_inline bool kind_is(const char *k, const char *want, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (k[i] != want[i])
			return false;
	return true;
}

/* one band of pfifo_fast: a ptr_ring of skbs (w->aux: the qdisc's private data) */
static long pfifo_band_cb(__u64 i, void *data)
{
	struct pp_walk *w = *(struct pp_walk **)data;
	struct ptr_ring *r;

	if (!w || i >= PPW_PFIFO_FAST_BANDS)
		return 1;
	r = (void *)(w->aux + i * bpf_core_type_size(struct skb_array) +
		     bpf_core_field_offset(struct skb_array, ring));
	w->ring_size = BPF_CORE_READ(r, size);
	w->ring_head = BPF_CORE_READ(r, consumer_head);
	w->ring = (__u64)BPF_CORE_READ(r, queue);
	w->ring_k = 0;
	if (!w->ring || !w->ring_size || w->ring_head >= w->ring_size)
		return 0;
	walk_from(w, data, read_u64(w->ring + (__u64)w->ring_head * sizeof(void *)), PPW_LINK_RING,
		  0);
	return 0;
}

/* pfifo_fast's private data: its bands (sch_generic.c, always built in: no guard) */
static __always_inline void walk_pfifo_fast(struct pp_walk *w, void *ctx)
{
	w->aux += bpf_core_field_offset(struct pfifo_fast_priv, q);
	bpf_loop(PPW_PFIFO_FAST_BANDS, pfifo_band_cb, ctx, 0);
}

static long fq_flow_cb(__u64 i, void *data)
{
	struct pp_walk *w = *(struct pp_walk **)data;
	struct fq_codel_flow___ppw *f;

	if (!w || i >= w->aux_n)
		return 1;
	f = (void *)(w->aux2 + i * bpf_core_type_size(struct fq_codel_flow___ppw));
	walk_list(w, data, (__u64)BPF_CORE_READ(f, head));
	return 0;
}

/*
 * Inlined, against the rule of core_fixes.bpf.h (one frame less: a
 * qdisc's private queues are six frames deep, the budget
 * tests/check-bpf.sh holds them to): fq_codel's types may be absent (a
 * module not loaded), and the guard in scan_qdisc() is checked by loading
 * on such a kernel (this build host's has no fq_codel).
 */
static __always_inline void walk_fq_codel(struct pp_walk *w, void *ctx)
{
	struct fq_codel_sched_data___ppw *fq = (void *)w->aux;

	w->aux2 = (__u64)BPF_CORE_READ(fq, flows);
	w->aux_n = BPF_CORE_READ(fq, flows_cnt);
	if (!w->aux2)
		return;
	if (bpf_loop(PPW_MAX_FQ_FLOWS, fq_flow_cb, ctx, 0) >= PPW_MAX_FQ_FLOWS &&
	    w->aux_n > PPW_MAX_FQ_FLOWS)
		w->truncated = 1;
}

PPW_SUBPROG int walk_htb_direct(struct pp_walk *w)
{
	struct htb_sched *h = (void *)w->aux;

	walk_list(w, &w, (__u64)BPF_CORE_READ(h, direct_queue.head));
	return 0;
}

/* tbf's rate: in a module on most kernels, so read where its type resolves */
PPW_SUBPROG __u64 tbf_rate(__u64 priv)
{
	struct tbf_sched_data *t = (void *)priv;

	return BPF_CORE_READ(t, rate.rate_bytes_ps);
}

/* one qdisc: its record, and the pages of the skbs it holds */
__noinline int scan_qdisc(__u64 addr, __u64 dev, __u32 netns_ino, __u32 root)
{
	struct Qdisc *qd = (void *)addr;
	struct net_device *nd = (void *)dev;
	struct ppw_scan_rec *r;
	struct pp_walk *w;
	char kind[16] = {};

	if (!qd)
		return 0;
	w = walk_begin(addr);
	if (!w)
		return 0;
	BPF_CORE_READ_STR_INTO(&kind, qd, ops, id);
	w->where = PPW_IN_QDISC;
	w->aux = addr + bpf_core_field_offset(struct Qdisc, privdata);
	walk_list(w, &w, (__u64)BPF_CORE_READ(qd, q.head));
	walk_queue(w, &w, addr + bpf_core_field_offset(struct Qdisc, gso_skb));
	walk_queue(w, &w, addr + bpf_core_field_offset(struct Qdisc, skb_bad_txq));
	if (kind_is(kind, "pfifo_fast", 11) && bpf_core_type_exists(struct pfifo_fast_priv))
		walk_pfifo_fast(w, &w);
	else if (kind_is(kind, "fq_codel", 9) &&
		 bpf_core_type_exists(struct fq_codel_sched_data___ppw))
		walk_fq_codel(w, &w);
	else if (kind_is(kind, "htb", 4) && bpf_core_type_exists(struct htb_sched))
		walk_htb_direct(w);

	r = scan_rec(PPW_REC_QDISC);
	if (!r)
		return 0;
	r->qdisc.qdisc = addr;
	r->qdisc.netns_ino = netns_ino;
	r->qdisc.ifindex = BPF_CORE_READ(nd, ifindex);
	r->qdisc.handle = BPF_CORE_READ(qd, handle);
	r->qdisc.parent = BPF_CORE_READ(qd, parent);
	/* a lockless qdisc (pfifo_fast) counts per CPU: its skbs walked say it then */
	r->qdisc.qlen = BPF_CORE_READ(qd, q.qlen);
	if (kind_is(kind, "tbf", 4) && bpf_core_type_exists(struct tbf_sched_data))
		r->qdisc.rate_bytes_ps =
			tbf_rate(addr + bpf_core_field_offset(struct Qdisc, privdata));
	r->qdisc.backlog = BPF_CORE_READ(qd, qstats.backlog);
	r->qdisc.skbs = w->skbs;
	r->qdisc.flags = (root ? PPW_QF_ROOT : 0) | PPW_QF_WALKED |
			 (w->truncated ? PPW_QF_TRUNCATED : 0);
	__builtin_memcpy(r->qdisc.kind, kind, sizeof(kind));
	BPF_CORE_READ_STR_INTO(&r->qdisc.dev, nd, name);
	emit_rec(r);
	return 0;
}

/*
 * The hlist node after @last in bucket @b of a device's qdisc_hash: the
 * bucket's first if @last is 0; 0 at the bucket's end, or if @last is not
 * in it any more (deleted since the element before: the rest of the bucket
 * is not walked, counted as a walk cut short).
 */
struct qchain_find {
	__u64 last;
	struct hlist_node *n;
	__u32 found;
};

static long qchain_find_cb(__u64 i, void *data)
{
	struct qchain_find *f = data;
	struct hlist_node *n = f->n;

	if (!n)
		return 1;
	f->n = BPF_CORE_READ(n, next);
	if ((__u64)n - bpf_core_field_offset(struct Qdisc, hash) == f->last) {
		f->found = 1;
		return 1;
	}
	return 0;
}

static __always_inline struct hlist_node *qhash_next(__u64 dev, __u32 b, __u64 last)
{
	struct qchain_find f = { .last = last };

	if (b >= PPW_MAX_QDISC_BUCKETS)
		return NULL;
	bpf_probe_read_kernel(&f.n, sizeof(f.n),
			      (void *)(dev + bpf_core_field_offset(struct net_device, qdisc_hash) +
				       b * sizeof(void *)));
	if (!last)
		return f.n;
	bpf_loop(PPW_MAX_QDISC_CHAIN, qchain_find_cb, &f, 0);
	if (!f.found) {
		cnt_inc(PPW_CNT_SCAN_TRUNC);
		return NULL;
	}
	return f.n;
}

/*
 * A batch of a device's qdiscs, read from the device (found again in this
 * run): its root first, then every qdisc on dev->qdisc_hash (the children of
 * classful qdiscs and of mq). Every leaf an htb class creates by default has
 * handle 0, so all of them share one bucket: a chain is as long as the
 * classes, and a batch goes on after the last qdisc the one before walked.
 * Returns true once the device is done.
 */
static __always_inline bool scan_dev_qdiscs(struct ppw_qobj *o)
{
	struct net_device *nd = (void *)o->addr;
	struct hlist_node *n;
	__u64 q;
	int k;

	if (o->bucket == QO_ROOT_NEXT) {
		scan_qdisc((__u64)BPF_CORE_READ(nd, qdisc), o->addr, o->netns_ino, 1);
		qobj_walked++;
		o->bucket = bpf_core_field_exists(nd->qdisc_hash) ? 0 : PPW_MAX_QDISC_BUCKETS;
		o->last = 0;
	}
	n = qhash_next(o->addr, o->bucket, o->last);
	for (k = 0; k < PPW_QDISC_BATCH; k++) {
		if (o->bucket >= PPW_MAX_QDISC_BUCKETS)
			return true;
		if (!n) {
			o->bucket++;
			o->last = 0;
			n = qhash_next(o->addr, o->bucket, 0);
			continue;
		}
		if (scan_ring_busy())
			return false;
		if (++o->walked > PPW_MAX_QDISC_CHAIN) { /* a bound, whatever the chains read */
			cnt_inc(PPW_CNT_SCAN_TRUNC);
			return true;
		}
		q = (__u64)n - bpf_core_field_offset(struct Qdisc, hash);
		scan_qdisc(q, o->addr, o->netns_ino, 0);
		qobj_walked++;
		o->last = q;
		n = BPF_CORE_READ(n, next);
	}
	return o->bucket >= PPW_MAX_QDISC_BUCKETS;
}

/* ---- fragment reassembly queues ------------------------------------------------- */

/*
 * One reassembly queue: its record, and its fragments' pages. The
 * fragments are an rbtree of runs: each node is the first skb of a run,
 * FRAG_CB(skb)->next_frag the next skb of the run.
 */
__noinline int scan_fragq(__u64 addr, __u32 netns_ino, __u32 family)
{
	struct inet_frag_queue *q = (void *)addr;
	struct ppw_scan_rec *r;
	struct pp_walk *w;

	if (!q)
		return 0;
	w = walk_begin(addr);
	if (!w)
		return 0;
	w->where = PPW_IN_FRAGQ;
	if (bpf_core_type_exists(struct ipfrag_skb_cb)) {
		w->link_off = bpf_core_field_offset(struct sk_buff, cb) +
			      bpf_core_field_offset(struct ipfrag_skb_cb, next_frag);
		walk_from(w, &w, (__u64)rb_leftmost(BPF_CORE_READ(q, rb_fragments.rb_node)),
			  PPW_LINK_RUNS, 0);
	}
	r = scan_rec(PPW_REC_FRAGQ);
	if (!r)
		return 0;
	r->fragq.fq = addr;
	r->fragq.netns_ino = netns_ino;
	r->fragq.family = family;
	if (family == PPW_AF_INET) {
		bpf_probe_read_kernel(r->fragq.saddr, 4,
				      (void *)addr + bpf_core_field_offset(struct inet_frag_queue,
									   key.v4.saddr));
		bpf_probe_read_kernel(r->fragq.daddr, 4,
				      (void *)addr + bpf_core_field_offset(struct inet_frag_queue,
									   key.v4.daddr));
		r->fragq.id = bpf_ntohs(BPF_CORE_READ(q, key.v4.id));
		r->fragq.protocol = BPF_CORE_READ(q, key.v4.protocol);
	} else {
		bpf_probe_read_kernel(r->fragq.saddr, 16,
				      (void *)addr + bpf_core_field_offset(struct inet_frag_queue,
									   key.v6.saddr));
		bpf_probe_read_kernel(r->fragq.daddr, 16,
				      (void *)addr + bpf_core_field_offset(struct inet_frag_queue,
									   key.v6.daddr));
		r->fragq.id = bpf_ntohl(BPF_CORE_READ(q, key.v6.id));
	}
	r->fragq.len = BPF_CORE_READ(q, len);
	r->fragq.meat = BPF_CORE_READ(q, meat);
	r->fragq.skbs = w->skbs;
	r->fragq.flags = w->truncated;
	emit_rec(r);
	return 0;
}

struct fbucket_walk {
	struct bucket_table *tbl;
	__u64 net;
	__u32 size;
	__u32 netns_ino;
	__u32 family;
	__u32 cut;
};

static long frag_bucket_cb(__u64 i, void *data)
{
	struct fbucket_walk *b = data;
	__u64 head = 0, at;
	int k;

	if (i >= b->size)
		return 1;
	at = (__u64)b->tbl + bpf_core_field_offset(struct bucket_table, buckets) + i * 8;
	bpf_probe_read_kernel(&head, sizeof(head), (void *)at);
	head &= ~1ULL; /* the bucket's lock bit */
	for (k = 0; k < PPW_MAX_FRAG_CHAIN; k++) {
		if (!head || (head & 1)) /* empty, or the nulls marker */
			return 0;
		qobj_add(head - bpf_core_field_offset(struct inet_frag_queue, node), b->net,
			 (__u64)b->tbl, i, b->netns_ino,
			 b->family == PPW_AF_INET6 ? QO_FRAGQ_V6 : QO_FRAGQ_V4);
		head = (__u64)BPF_CORE_READ((struct rhash_head *)head, next);
	}
	b->cut = 1;
	return 0;
}

/* the reassembly queues of one fqdir (an rhashtable of inet_frag_queue) onto the list */
__noinline int list_fqdir(__u64 addr, __u64 net, __u32 netns_ino, __u32 family)
{
	struct fqdir *fd = (void *)addr;
	struct fbucket_walk b = { .net = net, .netns_ino = netns_ino, .family = family };
	struct bucket_table *tbl;

	if (!fd)
		return 0;
	tbl = BPF_CORE_READ(fd, rhashtable.tbl);
	if (!tbl)
		return 0;
	if (BPF_CORE_READ(tbl, nest)) { /* a nested table: not walked */
		cnt_inc(PPW_CNT_SCAN_TRUNC);
		return 0;
	}
	b.tbl = tbl;
	b.size = BPF_CORE_READ(tbl, size);
	bpf_loop(PPW_MAX_FRAG_BUCKETS, frag_bucket_cb, &b, 0);
	if (b.cut || b.size > PPW_MAX_FRAG_BUCKETS)
		cnt_inc(PPW_CNT_SCAN_TRUNC);
	return 0;
}

/* ---- every namespace's devices and fragment queues ------------------------------- */

struct qnet_walk {
	struct list_head *head;
	struct list_head *cur;
	const void *ns_ops; /* proc_ns_operations of a real struct net */
};

struct qdev_walk {
	struct list_head *head;
	struct list_head *cur;
	__u64 net;
	__u32 netns_ino;
};

static long qdev_cb(__u64 i, void *data)
{
	struct qdev_walk *w = data;
	struct list_head *cur = w->cur;

	if (!cur || cur == w->head)
		return 1;
	qobj_add((__u64)cur - bpf_core_field_offset(struct net_device, dev_list), w->net, 0,
		 QO_ROOT_NEXT, w->netns_ino, QO_DEV);
	w->cur = BPF_CORE_READ(cur, next);
	return 0;
}

static long qnet_cb(__u64 i, void *data)
{
	struct qnet_walk *w = data;
	struct list_head *cur = w->cur;
	struct qdev_walk dw = {};
	struct net *net;

	net = (void *)cur - bpf_core_field_offset(struct net, list);
	/* the ring also holds net_namespace_list itself: not a struct net */
	if (BPF_CORE_READ(net, ns.ops) == w->ns_ops) {
		dw.netns_ino = BPF_CORE_READ(net, ns.inum);
		dw.net = (__u64)net;
		list_fqdir((__u64)BPF_CORE_READ(net, ipv4.fqdir), dw.net, dw.netns_ino,
			   PPW_AF_INET);
		if (bpf_core_field_exists(net->ipv6.fqdir))
			list_fqdir((__u64)BPF_CORE_READ(net, ipv6.fqdir), dw.net, dw.netns_ino,
				   PPW_AF_INET6);
		dw.head = (void *)net + bpf_core_field_offset(struct net, dev_base_head);
		dw.cur = BPF_CORE_READ(net, dev_base_head.next);
		if (bpf_loop(PPW_MAX_DEVS, qdev_cb, &dw, 0) >= PPW_MAX_DEVS && dw.cur != dw.head)
			cnt_inc(PPW_CNT_SCAN_TRUNC);
	}
	cur = BPF_CORE_READ(cur, next);
	if (!cur || cur == w->head)
		return 1;
	w->cur = cur;
	return 0;
}

/* every namespace from the reader's own: list its queues */
static __always_inline void list_all_queues(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct qnet_walk w = {};
	struct net *net;

	net = BPF_CORE_READ(task, nsproxy, net_ns);
	if (!net)
		return;
	w.head = (void *)net + bpf_core_field_offset(struct net, list);
	w.cur = w.head;
	w.ns_ops = BPF_CORE_READ(net, ns.ops);
	if (bpf_loop(PPW_MAX_NETNS, qnet_cb, &w, 0) >= PPW_MAX_NETNS)
		cnt_inc(PPW_CNT_SCAN_TRUNC);
}

/*
 * Every namespace's qdiscs and fragment reassembly queues, listed in one
 * element...
 */
SEC("iter/task")
int scan_queues(struct bpf_iter__task *ctx)
{
	if (!ctx->task || ctx->meta->seq_num > 0)
		return 0;
	queue_n = 0;
	list_all_queues();
	return 0;
}

/* ---- the list, walked: each entry found again first ----------------------------- */

struct net_find {
	struct list_head *head;
	struct list_head *cur;
	__u64 want;
	__u32 ino;
	__u32 found;
};

static long net_find_cb(__u64 i, void *data)
{
	struct net_find *f = data;
	struct list_head *cur = f->cur;
	struct net *net;

	cur = BPF_CORE_READ(cur, next);
	if (!cur || cur == f->head)
		return 1;
	f->cur = cur;
	net = (void *)cur - bpf_core_field_offset(struct net, list);
	if ((__u64)net == f->want) {
		f->found = BPF_CORE_READ(net, ns.inum) == f->ino;
		return 1;
	}
	return 0;
}

/* is the namespace at @net (inode @ino) still on net_namespace_list? */
static __always_inline bool net_listed(__u64 net, __u32 ino)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct net_find f = { .want = net, .ino = ino };
	struct net *own = BPF_CORE_READ(task, nsproxy, net_ns);

	if (!own)
		return false;
	if ((__u64)own == net)
		return BPF_CORE_READ(own, ns.inum) == ino;
	/* the ring holds net_namespace_list itself too: not a struct net, never @net */
	f.head = (void *)own + bpf_core_field_offset(struct net, list);
	f.cur = f.head;
	bpf_loop(PPW_MAX_NETNS, net_find_cb, &f, 0);
	return f.found;
}

static long dev_find_cb(__u64 i, void *data)
{
	struct net_find *f = data;
	struct list_head *cur = f->cur;

	cur = BPF_CORE_READ(cur, next);
	if (!cur || cur == f->head)
		return 1;
	f->cur = cur;
	if ((__u64)cur - bpf_core_field_offset(struct net_device, dev_list) == f->want) {
		f->found = 1;
		return 1;
	}
	return 0;
}

/* is the device at @dev still on @net's dev_base_head (@net found again)? */
static __always_inline bool dev_listed(__u64 net, __u64 dev)
{
	struct net_find f = { .want = dev };

	f.head = (void *)net + bpf_core_field_offset(struct net, dev_base_head);
	f.cur = f.head;
	bpf_loop(PPW_MAX_DEVS, dev_find_cb, &f, 0);
	return f.found;
}

/*
 * Is the reassembly queue still in its bucket of its namespace's table
 * (@net found again)? A table resized since is another table: the queue
 * counts as gone.
 */
static __always_inline bool fragq_listed(const struct ppw_qobj *o)
{
	struct net *net = (void *)o->net;
	struct bucket_table *tbl = NULL;
	struct fqdir *fd = NULL;
	__u64 head = 0;
	int k;

	if (o->kind == QO_FRAGQ_V4)
		fd = BPF_CORE_READ(net, ipv4.fqdir);
	else if (bpf_core_field_exists(net->ipv6.fqdir))
		fd = BPF_CORE_READ(net, ipv6.fqdir);
	if (fd)
		tbl = BPF_CORE_READ(fd, rhashtable.tbl);
	if (!tbl || (__u64)tbl != o->tbl || o->bucket >= BPF_CORE_READ(tbl, size))
		return false;
	bpf_probe_read_kernel(&head, sizeof(head),
			      (void *)tbl + bpf_core_field_offset(struct bucket_table, buckets) +
				      (__u64)o->bucket * 8);
	head &= ~1ULL; /* the bucket's lock bit */
	for (k = 0; k < PPW_MAX_FRAG_CHAIN; k++) {
		if (!head || (head & 1)) /* the end, or the nulls marker */
			return false;
		if (head - bpf_core_field_offset(struct inet_frag_queue, node) == o->addr)
			return true;
		head = (__u64)BPF_CORE_READ((struct rhash_head *)head, next);
	}
	return false;
}

/*
 * ...then walked, an entry of the list in each element (each task) of a
 * run, until the page ring is half full: user space drains it and reads a
 * fresh iterator while qobj_next < queue_n (and qobj_walked moves: a
 * device's qdiscs take a batch an element). Each entry is found again
 * first (see the top of the file). In a loop over entries in one element,
 * the queue walks would be one call frame deeper, and iter/bpf_map_elem is
 * refused on some kernels (EPERM on this build host).
 */
SEC("iter/task")
int scan_qobj(struct bpf_iter__task *ctx)
{
	__u32 i = qobj_next;
	struct ppw_qobj *o;

	if (!ctx->task || i >= queue_n || scan_ring_busy())
		return 0;
	o = bpf_map_lookup_elem(&queue_objs, &i);
	if (!o) {
		qobj_next = i + 1;
		return 0;
	}
	if (!net_listed(o->net, o->netns_ino) ||
	    (o->kind == QO_DEV ? !dev_listed(o->net, o->addr) : !fragq_listed(o))) {
		cnt_inc(PPW_CNT_SCAN_GONE);
		qobj_next = i + 1;
		return 0;
	}
	if (o->kind == QO_DEV) {
		if (!scan_dev_qdiscs(o))
			return 0; /* more of its qdiscs: the next element */
	} else {
		scan_fragq(o->addr, o->netns_ino,
			   o->kind == QO_FRAGQ_V6 ? PPW_AF_INET6 : PPW_AF_INET);
		qobj_walked++;
	}
	qobj_next = i + 1;
	return 0;
}
