/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The holder scan's shared declarations: the maps and globals of the scan
 * families (holders.bpf.c defines them, PPW_DEFINE_SCAN; queues.bpf.c and
 * skbscan.bpf.c declare them extern and 'bpftool gen object' links one
 * copy), the walk state, and the small helpers they use. The walk over a
 * queue is skbwalk.bpf.h, the pages of one skb skbscan.bpf.c.
 *
 * The walk state lives in a per-CPU array, not on the stack: the verifier
 * allows 512 bytes of stack for all the frames of a call chain, and a walk
 * is five or six frames deep (tests/bpf-stack.py measures each chain).
 * Iterator programs run with migration disabled, and no scan program runs
 * inside another, so one state per CPU is enough.
 */
#ifndef __PPWATCH_SCAN_BPF_H
#define __PPWATCH_SCAN_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "ppwatch.h"
#include "config.bpf.h"
#include "core_fixes.bpf.h"
#include "core_fixes_scan.bpf.h"
#include "maps.bpf.h"

#define PPW_AF_UNIX  1
#define PPW_AF_INET  2
#define PPW_AF_INET6 10
#define PPW_S_IFMT   00170000
#define PPW_S_IFSOCK 0140000
#define PPW_EEXIST   17

#ifdef PPW_DEFINE_SCAN
#define PPW_SCAN_MAP
#define PPW_SCAN_VAR(type, name) type name
#else
#define PPW_SCAN_MAP		 extern
#define PPW_SCAN_VAR(type, name) extern type name
#endif

/* How a walk goes from one skb to the next (struct pp_walk's link). */
enum ppw_link {
	PPW_LINK_LIST = 1, /* skb->next, to NULL or to the list head (end) */
	PPW_LINK_RB,	   /* an rbtree of skbs (the TCP out-of-order queue) */
	PPW_LINK_RUNS,	   /* an rbtree of runs of skbs (a fragment queue: link_off) */
	PPW_LINK_RING,	   /* the slots of a ptr_ring (pfifo_fast's bands) */
};

/*
 * One walk's state (the map walk_state). Each skb is scanned (its head page
 * and frags), then the skbs on its frag_list, then the walk moves on the
 * way 'link' says: one bpf_loop over a whole queue, frag_lists included.
 */
struct pp_walk {
	__u64 holder; /* what the pages are held by: a socket, qdisc, fragment queue, CPU */
	__u64 cur;    /* the skb scanned next; 0 at the end */
	__u64 end;    /* PPW_LINK_LIST: the head that closes a circular list (0: none) */
	__u64 parent; /* the skb whose frag_list cur is on; 0 on the queue itself */
	__u64 node;   /* PPW_LINK_RB, _RUNS: the rb_node of this skb or run */
	__u64 ring;   /* PPW_LINK_RING: the ptr_ring's slots */
	__u64 shinfo; /* the skb being scanned: its skb_shared_info */
	__u64 aux;    /* the holder's own walk: a qdisc's private data, the files an skb carries */
	__u64 aux2;   /* fq_codel's flows */
	__u32 link;   /* enum ppw_link */
	__u32 link_off; /* PPW_LINK_RUNS: where an skb keeps the next skb of its run */
	__u32 ring_size, ring_head, ring_k;
	__u32 aux_n;	  /* entries at aux (files) or aux2 (flows) */
	__u32 where;	  /* PPW_IN_*: the queue the pages are in (0: head/frag decides) */
	__u32 frag_where; /* the frags' PPW_IN_* */
	__u32 nr_frags;
	__u32 fl_n; /* skbs walked on the current frag_list */
	__u32 skbs;
	__u32 nonpp;
	__u32 truncated;
	__u32 scm;   /* skbs may carry files (a unix socket's receive queue) */
	__u32 bytes; /* skb->len of the skbs walked */
	__u32 readable;
};

PPW_SCAN_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pp_walk);
} walk_state SEC(".maps");

PPW_SCAN_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ppw_scan_rec);
} scan_scratch SEC(".maps");

/* page records: a socket can hold more than one seq_file buffer's worth */
PPW_SCAN_MAP struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PPW_DEF_SCAN_RINGBUF);
} scan_events SEC(".maps");

/*
 * Sockets walked in this scan, whichever way they were reached (an fd, a
 * protocol iterator, an skb carrying its file): each is walked once. User
 * space empties it before a scan. When it is full a socket is walked again
 * instead: its pages are deduplicated in user space, nothing is lost.
 */
PPW_SCAN_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, __u64);
	__type(value, __u8);
} sock_walked SEC(".maps");

/*
 * A socket whose file an skb carries (SCM_RIGHTS), found while a unix
 * socket was walked and walked in a later run (scan_inflight): what it is
 * known by when it is walked again, the file and the inode with it.
 */
struct ppw_inflight_ref {
	__u64 carrier; /* the unix socket whose queue holds the skb */
	__u64 sk;
	__u64 file;
	__u64 ino;
	__u32 files; /* files the skb carries */
	__u32 pad;
};

PPW_SCAN_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PPW_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct ppw_inflight_ref);
} inflight_socks SEC(".maps");

/*
 * Pools the scan met through their pages that the pool table does not have
 * (a destroyed pool no device lists any more): scan_pools records them
 * (discover.bpf.c's discover_pool()) before it walks the table.
 */
PPW_SCAN_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} unknown_pools SEC(".maps");

/* entries of inflight_socks used; user space resets it before a scan */
PPW_SCAN_VAR(__u32, inflight_n);

/* this CPU's walk state, emptied; NULL only if the map lookup fails */
static __always_inline struct pp_walk *walk_begin(__u64 holder)
{
	__u32 zero = 0;
	struct pp_walk *w = bpf_map_lookup_elem(&walk_state, &zero);

	if (w) {
		__builtin_memset(w, 0, sizeof(*w));
		w->holder = holder;
	}
	return w;
}

/* the scratch record, emptied, of the given type */
static __always_inline struct ppw_scan_rec *scan_rec(__u32 type)
{
	__u32 zero = 0;
	struct ppw_scan_rec *r = bpf_map_lookup_elem(&scan_scratch, &zero);

	if (r) {
		__builtin_memset(r, 0, sizeof(*r));
		r->type = type;
	}
	return r;
}

/* a record of a walk that covers many objects in one iterator element */
static __always_inline void emit_rec(struct ppw_scan_rec *r)
{
	if (bpf_ringbuf_output(&scan_events, r, sizeof(*r), 0))
		cnt_inc(PPW_CNT_SCAN_DROP);
}

/* true the first time a socket is seen in this scan (or when the table is full) */
static __always_inline bool first_walk(struct sock *sk)
{
	__u64 key = (__u64)sk;
	__u8 one = 1;

	return bpf_map_update_elem(&sock_walked, &key, &one, BPF_NOEXIST) != -PPW_EEXIST;
}

/*
 * The walks that cover many holders in one iterator run (scan_inflight,
 * scan_qobj) stop at the end of an element once the page ring is half
 * full: the next run goes on, after user space drained the ring.
 */
static __always_inline bool scan_ring_busy(void)
{
	__u64 used = bpf_ringbuf_query(&scan_events, BPF_RB_AVAIL_DATA);

	return used && used > bpf_ringbuf_query(&scan_events, BPF_RB_RING_SIZE) / 2;
}

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
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

/* ---- the TCP out-of-order queue and fragment runs: rbtrees of skbs ------------ */

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

#endif /* __PPWATCH_SCAN_BPF_H */
