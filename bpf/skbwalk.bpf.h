/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The walk over a queue of skbs, for every holder the scan walks: one
 * bpf_loop whose step (skb_walk_cb) scans the skb at the cursor with
 * scan_one_skb() (skbscan.bpf.c), goes down its frag_list (one level, as
 * GRO builds them) and moves on the way the queue links its skbs
 * (enum ppw_link). Nested loops would each be a call frame: a socket's
 * walk is five frames deep this way (the program, walk_sock, this step,
 * scan_one_skb, its frag step), a qdisc's private queue six.
 *
 * A bpf_loop callback must be a static function of the object that calls
 * bpf_loop: holders.bpf.c and queues.bpf.c each get their own copy.
 */
#ifndef __PPWATCH_SKBWALK_BPF_H
#define __PPWATCH_SKBWALK_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "scan.bpf.h"

/* skbscan.bpf.c: the head page and frags of one skb; its skb_shared_info */
extern __u64 scan_one_skb(struct pp_walk *w, __u64 skb, __u32 in_fraglist);

/* a bpf_loop callback: static, kept where a header's includer does not call it */
#define PPW_CALLBACK static __attribute__((unused))

/* ---- sockets in flight: files an skb on a unix socket carries (SCM_RIGHTS) ---- */

/* a socket in flight, for scan_inflight (which says so once it has checked it) */
static __always_inline void inflight_add(__u64 carrier, __u64 sk, __u64 file, __u64 ino,
					 __u32 files)
{
	struct ppw_inflight_ref *ref;
	__u32 i = inflight_n;

	ref = bpf_map_lookup_elem(&inflight_socks, &i);
	if (!ref) { /* PPW_MAX_INFLIGHT sockets in flight: the rest are not walked */
		cnt_inc(PPW_CNT_SCAN_TRUNC);
		return;
	}
	ref->carrier = carrier;
	ref->sk = sk;
	ref->file = file;
	ref->ino = ino;
	ref->files = files;
	inflight_n = i + 1;
}

PPW_CALLBACK long scm_file_cb(__u64 i, void *data)
{
	struct pp_walk *w = *(struct pp_walk **)data;
	struct socket *sock;
	struct file *f = NULL;
	struct sock *sk;

	if (!w || i >= w->aux_n)
		return 1;
	bpf_probe_read_kernel(&f, sizeof(f), (void *)(w->aux + i * sizeof(void *)));
	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & PPW_S_IFMT) != PPW_S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (sk)
		inflight_add(w->holder, (__u64)sk, (__u64)f, BPF_CORE_READ(f, f_inode, i_ino),
			     w->aux_n);
	return 0;
}

/* the files an skb of a unix socket carries: UNIXCB(skb).fp */
static __always_inline void note_inflight(struct pp_walk *w, void *ctx, __u64 skb)
{
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
	w->aux = fpl + bpf_core_field_offset(struct scm_fp_list, fp);
	w->aux_n = count;
	bpf_loop(PPW_MAX_SCM_FILES, scm_file_cb, ctx, 0);
}

/* ---- one step ------------------------------------------------------------------- */

/* the skb after 'skb' on its queue (its frag_list done), 0 at the end */
static __always_inline __u64 skb_after(struct pp_walk *w, __u64 skb)
{
	__u64 next = 0;

	switch (w->link) {
	case PPW_LINK_RING: /* entries from consumer_head on, until an empty slot */
		if (++w->ring_k >= w->ring_size)
			return 0;
		bpf_probe_read_kernel(
			&next, sizeof(next),
			(void *)(w->ring +
				 ((w->ring_head + w->ring_k) % w->ring_size) * sizeof(void *)));
		return next;
	case PPW_LINK_RUNS: /* the run goes on, or the tree's next node starts the next run */
		bpf_probe_read_kernel(&next, sizeof(next), (void *)(skb + w->link_off));
		if (next)
			return next;
		/* fallthrough */
	case PPW_LINK_RB: /* sk_buff's first member is a union with its rb_node */
		next = (__u64)rb_next_node((struct rb_node *)w->node);
		w->node = next;
		return next;
	default:
		return (__u64)BPF_CORE_READ((struct sk_buff *)skb, next);
	}
}

/*
 * The loop's step: data points at a pointer to the walk state (on the
 * stack of the frame that runs the loop: bpf_loop wants its context there).
 */
PPW_CALLBACK long skb_walk_cb(__u64 i, void *data)
{
	struct pp_walk *w = *(struct pp_walk **)data;
	__u64 skb, shinfo, next = 0;

	if (!w)
		return 1;
	skb = w->cur;
	if (!skb || skb == w->end)
		return 1;
	shinfo = scan_one_skb(w, skb, w->parent != 0);
	if (!w->parent) {
		if (w->scm)
			note_inflight(w, data, skb);
		if (shinfo) /* its frag_list first */
			bpf_probe_read_kernel(&next, sizeof(next),
					      (void *)shinfo +
						      bpf_core_field_offset(struct skb_shared_info,
									    frag_list));
		if (next) {
			w->parent = skb;
			w->fl_n = 1;
			w->cur = next;
			return 0;
		}
	} else {
		next = (__u64)BPF_CORE_READ((struct sk_buff *)skb, next);
		if (next && ++w->fl_n <= PPW_MAX_FRAGLIST) {
			w->cur = next;
			return 0;
		}
		if (next) /* longer than the bound: its pages stay unattributed */
			cnt_inc(PPW_CNT_SCAN_TRUNC);
		skb = w->parent; /* the frag_list is done: on from its skb */
		w->parent = 0;
	}
	w->cur = skb_after(w, skb);
	return 0;
}

/*
 * Walk from skb 'first' on, the way 'link' says (for PPW_LINK_RB and _RUNS
 * 'first' is the tree's first node; for PPW_LINK_LIST 'end' closes a
 * circular list), where 'ctx' points at a pointer to w; a queue longer
 * than cfg_max_skbs is marked truncated.
 */
static __always_inline void walk_from(struct pp_walk *w, void *ctx, __u64 first, __u32 link,
				      __u64 end)
{
	w->cur = first;
	w->node = first;
	w->end = end;
	w->parent = 0;
	w->link = link;
	if (first && first != end) {
		bpf_loop(cfg_max_skbs, skb_walk_cb, ctx, 0);
		if (w->cur && w->cur != w->end)
			w->truncated = 1;
	}
	w->end = 0;
}

/* a NULL-terminated chain of skbs (skb->next): a qdisc's queue, a flow */
static __always_inline void walk_list(struct pp_walk *w, void *ctx, __u64 first)
{
	walk_from(w, ctx, first, PPW_LINK_LIST, 0);
}

/* an sk_buff_head: a circular list closed by the head itself */
static __always_inline void walk_queue(struct pp_walk *w, void *ctx, __u64 head)
{
	walk_from(w, ctx, read_u64(head), PPW_LINK_LIST, head);
}

#endif /* __PPWATCH_SKBWALK_BPF_H */
