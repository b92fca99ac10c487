/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The holder scan's walking machinery: skb lists, frags, frag_lists, the TCP
 * out-of-order rbtree, page_pool page identification, virt_to_page, each
 * pool's own pages and the per-CPU skb defer lists. Only holders.bpf.c
 * includes it.
 */
#ifndef __PPWATCH_HOLDERS_BPF_H
#define __PPWATCH_HOLDERS_BPF_H

#include "config.bpf.h"
#include "core_fixes.bpf.h"
#include "maps.bpf.h"

#define PPW_AF_UNIX  1
#define PPW_AF_INET  2
#define PPW_AF_INET6 10
#define PPW_S_IFMT   00170000
#define PPW_S_IFSOCK 0140000
#define PPW_EEXIST   17

/* user space resets it before each scan: one self-check record per scan */
__u32 check_done;
/* the vmemmap base the scan used, so user space can print pfns */
__u64 used_vmemmap;

struct pp_walk {
	struct seq_file *seq;
	__u64 holder;
	void *end; /* the queue head, where the list closes */
	struct sk_buff *cur;
	__u32 where; /* 0: head/frag position decides */
	__u32 skbs;
	__u32 nonpp;
	__u32 truncated;
	__u32 scm;   /* skbs may carry files (a unix socket's receive queue) */
	__u32 bytes; /* skb->len of the skbs walked */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ppw_scan_rec);
} scan_scratch SEC(".maps");

/* page records: a socket can hold more than one seq_file buffer's worth */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PPW_DEF_SCAN_RINGBUF);
} scan_events SEC(".maps");

/* a record of a walk that covers many objects in one iterator element */
static __always_inline void emit_rec(struct ppw_scan_rec *r)
{
	if (bpf_ringbuf_output(&scan_events, r, sizeof(*r), 0))
		cnt_inc(PPW_CNT_SCAN_DROP);
}

/*
 * Sockets walked in this scan, whichever way they were reached (an fd, a
 * protocol iterator, an skb carrying its file): each is walked once. User
 * space empties it before a scan. When it is full a socket is walked again
 * instead: its pages are deduplicated in user space, nothing is lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, __u64);
	__type(value, __u8);
} sock_walked SEC(".maps");

/* true the first time a socket is seen in this scan (or when the table is full) */
static __always_inline bool first_walk(struct sock *sk)
{
	__u64 key = (__u64)sk;
	__u8 one = 1;

	return bpf_map_update_elem(&sock_walked, &key, &one, BPF_NOEXIST) != -PPW_EEXIST;
}

/* sockets whose files skbs carry (SCM_RIGHTS), walked after the protocol iterators */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PPW_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, __u64);
} inflight_socks SEC(".maps");
__u32 inflight_n; /* entries used; user space resets it before a scan */

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
	return v;
}

/* a trusted pointer as a plain number: the verifier forbids arithmetic on it */
static __always_inline __u64 scalar_of(const void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &p);
	return v;
}

/* virt_to_page() for the direct map; 0 if the layout is unknown */
static __always_inline __u64 virt_to_page_addr(__u64 va)
{
	__u64 off = layout_page_offset(), vm = layout_vmemmap();

	if (!off || !vm || va < off)
		return 0;
	return vm + ((va - off) >> cfg_page_shift) * bpf_core_type_size(struct page);
}

/*
 * The pool a netmem belongs to, 0 if it is not a page_pool page; *key gets
 * the ledger key (the head page, or the net_iov with bit 0 set). net_iov
 * keeps pp_magic and pp at the same offsets as struct page.
 */
static __always_inline __u64 netmem_pool(__u64 netmem, __u64 *key)
{
	__u64 pg = netmem & ~1ULL, magic;

	if (!pg)
		return 0;
	if (!(netmem & 1))
		pg = page_compound_head(pg);
	magic = read_u64(pg + bpf_core_field_offset(struct page, pp_magic));
	if ((magic & cfg_pp_magic_mask) != cfg_pp_signature)
		return 0;
	*key = netmem & 1 ? netmem : pg;
	return page_pool_of(pg, ~((1ULL << cfg_page_shift) - 1));
}

/*
 * Pools the scan met through their pages that the pool table does not have
 * (a destroyed pool no device lists any more): scan_pools records them
 * (discover.bpf.c's discover_pool()) before it walks the table. Recording
 * them here would be one call frame too deep for the queue walks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} unknown_pools SEC(".maps");

static __always_inline void emit_netmem(struct pp_walk *w, __u64 netmem, __u32 where)
{
	struct ppw_scan_rec *r;
	__u32 zero = 0;
	__u64 key = 0, pool;

	pool = netmem_pool(netmem, &key);
	if (!pool) {
		w->nonpp++;
		return;
	}
	/* a destroyed pool without a netdev is listed nowhere: its pages lead to it */
	if (!bpf_map_lookup_elem(&pools, &pool)) {
		__u8 one = 1;

		bpf_map_update_elem(&unknown_pools, &pool, &one, BPF_NOEXIST);
	}
	r = bpf_map_lookup_elem(&scan_scratch, &zero);
	if (!r)
		return;
	__builtin_memset(r, 0, sizeof(*r));
	r->type = PPW_REC_PAGE;
	r->page.holder = w->holder;
	r->page.netmem = key;
	r->page.pool = pool;
	r->page.where = w->where ?: where;
	/* in_ledger, gen, hold_ns: the page ledger is user space's (sources/holder_scan.c) */
	r->page.stack_id = -1;
	if (bpf_ringbuf_output(&scan_events, r, sizeof(*r), 0))
		cnt_inc(PPW_CNT_SCAN_DROP);
}

struct frag_walk {
	struct pp_walk *w;
	__u64 shinfo;
	__u32 nr;
	__u32 where;
};

static long frag_cb(__u64 i, void *data)
{
	struct frag_walk *f = data;
	__u64 at;

	if (i >= f->nr)
		return 1;
	at = f->shinfo + bpf_core_field_offset(struct skb_shared_info, frags) +
	     i * bpf_core_type_size(skb_frag_t);
	emit_netmem(f->w, skb_frag_netmem_at(at), f->where);
	return 0;
}

/*
 * Head page and frags of one skb; returns its shinfo address. A frame of its
 * own, not inlined into each walk's callbacks: the walks reach here through
 * several callbacks, and the verifier allows 8 frames and 512 bytes of
 * stack for all of them.
 */
__noinline __u64 scan_one_skb(struct pp_walk *w, __u64 skb_addr, __u32 where)
{
	struct sk_buff *skb = (void *)skb_addr;
	struct frag_walk f = {};
	__u64 head, shinfo;
	__u8 nr = 0;

	if (!w)
		return 0;
	w->skbs++;
	if (!where) /* not a frag_list member: its len counts those already */
		w->bytes += BPF_CORE_READ(skb, len);
	head = (__u64)BPF_CORE_READ(skb, head);
	shinfo = head + BPF_CORE_READ(skb, end);
	if (BPF_CORE_READ_BITFIELD_PROBED(skb, head_frag))
		emit_netmem(w, virt_to_page_addr(head), where ?: PPW_IN_HEAD);
	bpf_probe_read_kernel(&nr, sizeof(nr),
			      (void *)shinfo +
				      bpf_core_field_offset(struct skb_shared_info, nr_frags));
	if (nr) {
		f.w = w;
		f.shinfo = shinfo;
		f.nr = nr;
		f.where = where ?: PPW_IN_FRAG;
		bpf_loop(PPW_MAX_FRAGS, frag_cb, &f, 0);
	}
	return shinfo;
}

struct fraglist_walk {
	struct pp_walk *w;
	struct sk_buff *cur;
};

static long fraglist_cb(__u64 i, void *data)
{
	struct fraglist_walk *fl = data;
	struct sk_buff *skb = fl->cur;

	if (!skb)
		return 1;
	scan_one_skb(fl->w, (__u64)skb, PPW_IN_FRAGLIST);
	fl->cur = BPF_CORE_READ(skb, next);
	return 0;
}

/* an skb and the skbs on its frag_list (GRO's, one level) */
static __always_inline void scan_skb(struct pp_walk *w, struct sk_buff *skb)
{
	struct fraglist_walk fl = {};
	__u64 shinfo;

	shinfo = scan_one_skb(w, (__u64)skb, 0);
	if (!shinfo)
		return;
	bpf_probe_read_kernel(&fl.cur, sizeof(fl.cur),
			      (void *)shinfo +
				      bpf_core_field_offset(struct skb_shared_info, frag_list));
	if (fl.cur) {
		fl.w = w;
		bpf_loop(PPW_MAX_FRAGLIST, fraglist_cb, &fl, 0);
		if (fl.cur) /* longer than the bound: its pages stay unattributed */
			cnt_inc(PPW_CNT_SCAN_TRUNC);
	}
}

/* ---- sockets in flight: files an skb on a unix socket carries (SCM_RIGHTS) ---- */

struct scm_walk {
	__u64 carrier;
	__u64 files; /* &scm_fp_list.fp[0] */
	__u32 n;
};

static __always_inline void inflight_add(__u64 carrier, __u64 sk, __u32 files)
{
	struct ppw_scan_rec *r;
	__u32 zero = 0, i = inflight_n;
	__u64 *slot;

	r = bpf_map_lookup_elem(&scan_scratch, &zero);
	if (r) {
		__builtin_memset(r, 0, sizeof(*r));
		r->type = PPW_REC_INFLIGHT;
		r->inflight.carrier = carrier;
		r->inflight.sk = sk;
		r->inflight.files = files;
		emit_rec(r);
	}
	slot = bpf_map_lookup_elem(&inflight_socks, &i);
	if (!slot) { /* PPW_MAX_INFLIGHT sockets in flight: the rest are not walked */
		cnt_inc(PPW_CNT_SCAN_TRUNC);
		return;
	}
	*slot = sk;
	inflight_n = i + 1;
}

static long scm_file_cb(__u64 i, void *data)
{
	struct scm_walk *s = data;
	struct socket *sock;
	struct file *f = NULL;
	struct sock *sk;

	if (i >= s->n)
		return 1;
	bpf_probe_read_kernel(&f, sizeof(f), (void *)(s->files + i * sizeof(void *)));
	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & PPW_S_IFMT) != PPW_S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (sk)
		inflight_add(s->carrier, (__u64)sk, s->n);
	return 0;
}

/* the files an skb of a unix socket carries: UNIXCB(skb).fp */
static __always_inline void note_inflight(struct pp_walk *w, struct sk_buff *skb)
{
	struct scm_walk s = { .carrier = w->holder };
	__u64 fpl = 0;
	__s16 count = 0;

	if (!bpf_core_field_exists(((struct unix_skb_parms *)0)->fp))
		return;
	bpf_probe_read_kernel(&fpl, sizeof(fpl),
			      (void *)skb + bpf_core_field_offset(struct sk_buff, cb) +
				      bpf_core_field_offset(struct unix_skb_parms, fp));
	if (!fpl)
		return;
	bpf_probe_read_kernel(&count, sizeof(count),
			      (void *)fpl + bpf_core_field_offset(struct scm_fp_list, count));
	if (count <= 0)
		return;
	s.files = fpl + bpf_core_field_offset(struct scm_fp_list, fp);
	s.n = count;
	bpf_loop(PPW_MAX_SCM_FILES, scm_file_cb, &s, 0);
}

static long skb_cb(__u64 i, void *data)
{
	struct pp_walk *w = data;
	struct sk_buff *skb = w->cur;

	if (!skb || (void *)skb == w->end)
		return 1;
	scan_skb(w, skb);
	if (w->scm)
		note_inflight(w, skb);
	w->cur = BPF_CORE_READ(skb, next);
	return 0;
}

/* a NULL-terminated chain of skbs (skb->next): a qdisc's queue, a flow, a defer list */
static __always_inline void walk_list(struct pp_walk *w, struct sk_buff *first, __u32 where)
{
	w->end = NULL;
	w->cur = first;
	w->where = where;
	bpf_loop(cfg_max_skbs, skb_cb, w, 0);
	if (w->cur)
		w->truncated = 1;
	w->where = 0;
}

/* an sk_buff_head: a circular list closed by the head itself */
static __always_inline void walk_queue(struct pp_walk *w, void *head, __u32 where)
{
	w->end = head;
	w->cur = NULL;
	w->where = where;
	bpf_probe_read_kernel(&w->cur, sizeof(w->cur), head);
	bpf_loop(cfg_max_skbs, skb_cb, w, 0);
	if (w->cur && (void *)w->cur != w->end)
		w->truncated = 1;
	w->where = 0;
}

/* ---- the TCP out-of-order queue: an rbtree of skbs (rbnode first) ------------ */

static __always_inline struct rb_node *rb_leftmost(struct rb_node *n)
{
	struct rb_node *l;
	int i;

	for (i = 0; i < PPW_RB_DEPTH && n; i++) {
		l = BPF_CORE_READ(n, rb_left);
		if (!l)
			break;
		n = l;
	}
	return n;
}

static __always_inline struct rb_node *rb_next_node(struct rb_node *n)
{
	struct rb_node *r = BPF_CORE_READ(n, rb_right), *p;
	int i;

	if (r)
		return rb_leftmost(r);
	for (i = 0; i < PPW_RB_DEPTH; i++) {
		p = (void *)(BPF_CORE_READ(n, __rb_parent_color) & ~3UL);
		if (!p || BPF_CORE_READ(p, rb_right) != n)
			return p;
		n = p;
	}
	return NULL;
}

struct ooo_walk {
	struct pp_walk *w;
	struct rb_node *cur;
};

static long ooo_cb(__u64 i, void *data)
{
	struct ooo_walk *o = data;
	struct rb_node *n = o->cur;

	if (!n)
		return 1;
	/* sk_buff's first member is a union with its rb_node */
	scan_skb(o->w, (struct sk_buff *)n);
	o->cur = rb_next_node(n);
	return 0;
}

static __always_inline void walk_ooo(struct pp_walk *w, struct tcp_sock *tp)
{
	struct ooo_walk o = { .w = w };

	o.cur = rb_leftmost(BPF_CORE_READ(tp, out_of_order_queue.rb_node));
	if (!o.cur)
		return;
	w->where = PPW_IN_OOO;
	if (bpf_loop(cfg_max_skbs, ooo_cb, &o, 0) >= cfg_max_skbs && o.cur)
		w->truncated = 1;
	w->where = 0;
}

/*
 * Check virt_to_page() once per scan on a known slab object: the socket.
 * Its page must be a slab of the socket's own kmem_cache (sk_prot->slab).
 */
static __always_inline void pp_self_check(struct seq_file *seq, struct sock *sk)
{
	__u64 want = (__u64)BPF_CORE_READ(sk, __sk_common.skc_prot, slab), pg, cache;
	struct ppw_scan_rec *r;
	__u32 zero = 0;

	if (check_done || !want)
		return;
	check_done = 1;
	r = bpf_map_lookup_elem(&scan_scratch, &zero);
	if (!r)
		return;
	__builtin_memset(r, 0, sizeof(*r));
	pg = virt_to_page_addr(scalar_of(sk));
	cache = pg ? slab_cache_of(page_compound_head(pg)) : 0;
	r->type = PPW_REC_CHECK;
	r->check.addr = (__u64)sk;
	r->check.page = pg;
	r->check.ok = cache == want;
	bpf_seq_write(seq, r, sizeof(*r));
}

/* ---- a pool's own pages ------------------------------------------------------- */

static __always_inline void pool_own_pages(struct page_pool *pool, struct ppw_rec_pool *out)
{
	__u32 prod, cons, size;
	__u64 queue, slot;

	out->alloc_count = BPF_CORE_READ(pool, alloc.count);
	out->frag_netmem = pool_frag_netmem(pool);
	if (pool_ring_count(pool, &out->ring_count))
		return;
	/* ptr_ring: entries live in [consumer_head, producer); full when equal and set */
	prod = BPF_CORE_READ(pool, ring.producer);
	cons = BPF_CORE_READ(pool, ring.consumer_head);
	size = BPF_CORE_READ(pool, ring.size);
	queue = (__u64)BPF_CORE_READ(pool, ring.queue);
	out->ring_size = size;
	if (!size || prod >= size || cons >= size)
		return;
	out->ring_count = (prod + size - cons) % size;
	if (!out->ring_count) {
		slot = read_u64(queue + (__u64)cons * sizeof(void *));
		if (slot)
			out->ring_count = size;
	}
}

/* ---- per-CPU skb defer lists (core_fixes.bpf.h: defer_list_head()) ------------ */

struct defer_walk {
	struct pp_walk w;
	__u32 readable;
};

static long defer_skb_cb(__u64 i, void *data)
{
	struct pp_walk *w = data;
	struct sk_buff *skb = w->cur;

	if (!skb)
		return 1;
	scan_skb(w, skb);
	w->cur = BPF_CORE_READ(skb, next);
	return 0;
}

static long defer_cpu_cb(__u64 cpu, void *data)
{
	struct defer_walk *d = data;
	struct ppw_scan_rec *r;
	__u32 zero = 0, node;

	if (cpu >= cfg_nr_cpus)
		return 1;
	d->w.holder = cpu;
	d->w.skbs = 0;
	for (node = 0; node < PPW_MAX_NODES && node < cfg_nr_nodes; node++) {
		d->w.cur = defer_list_head(cpu, node, &d->readable);
		if (d->w.cur)
			bpf_loop(cfg_max_skbs, defer_skb_cb, &d->w, 0);
		if (d->w.cur) /* more skbs than cfg_max_skbs */
			cnt_inc(PPW_CNT_SCAN_TRUNC);
	}
	r = bpf_map_lookup_elem(&scan_scratch, &zero);
	if (!r)
		return 1;
	__builtin_memset(r, 0, sizeof(*r));
	r->type = PPW_REC_DEFER;
	r->defer.cpu = cpu;
	r->defer.readable = d->readable;
	r->defer.skbs = d->w.skbs;
	emit_rec(r);
	return 0;
}

static __noinline int scan_defer_lists(struct seq_file *seq)
{
	struct defer_walk d = {};

	d.w.seq = seq;
	d.w.where = PPW_IN_DEFER;
	bpf_loop(PPW_MAX_CPUS, defer_cpu_cb, &d, 0);
	if (cfg_nr_cpus > PPW_MAX_CPUS) /* the CPUs past the bound are not walked */
		cnt_add(PPW_CNT_SCAN_TRUNC, cfg_nr_cpus - PPW_MAX_CPUS);
	return 0;
}

#endif /* __PPWATCH_HOLDERS_BPF_H */
