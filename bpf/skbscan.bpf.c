// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The holder scan's pages of one skb: its head (when the head is a page
 * fragment) and every frag, each checked for the page_pool signature and
 * written out with the pool it belongs to and the holder the walk is in.
 * A compilation unit of its own: every walk (skbwalk.bpf.h, in
 * holders.bpf.c and queues.bpf.c) calls scan_one_skb(), with the maps
 * holders.bpf.c defines (scan.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "scan.bpf.h"

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

static __always_inline void emit_netmem(struct pp_walk *w, __u64 netmem, __u32 where)
{
	struct ppw_scan_rec *r;
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
	r = scan_rec(PPW_REC_PAGE);
	if (!r)
		return;
	r->page.holder = w->holder;
	r->page.netmem = key;
	r->page.pool = pool;
	r->page.where = where;
	/* in_ledger, gen, hold_ns: the page ledger is user space's (sources/holder_scan.c) */
	r->page.stack_id = -1;
	emit_rec(r);
}

static long frag_cb(__u64 i, void *data)
{
	struct pp_walk *w = *(struct pp_walk **)data;
	__u64 at;

	if (!w || i >= w->nr_frags)
		return 1;
	at = w->shinfo + bpf_core_field_offset(struct skb_shared_info, frags) +
	     i * bpf_core_type_size(skb_frag_t);
	emit_netmem(w, skb_frag_netmem_at(at), w->frag_where);
	return 0;
}

/*
 * Head page and frags of one skb: a global function, verified once, not
 * at every walk that reaches it (skbwalk.bpf.h declares it). Returns the
 * skb's skb_shared_info, 0 if w is NULL.
 */
__noinline __u64 scan_one_skb(struct pp_walk *w, __u64 skb_addr, __u32 in_fraglist)
{
	struct sk_buff *skb = (void *)skb_addr;
	__u64 head;
	__u8 nr = 0;

	if (!w)
		return 0;
	w->skbs++;
	if (!in_fraglist) /* not a frag_list member: its len counts those already */
		w->bytes += BPF_CORE_READ(skb, len);
	head = (__u64)BPF_CORE_READ(skb, head);
	w->shinfo = head + BPF_CORE_READ(skb, end);
	if (BPF_CORE_READ_BITFIELD_PROBED(skb, head_frag))
		emit_netmem(w, virt_to_page_addr(head),
			    w->where		?:
				    in_fraglist ? PPW_IN_FRAGLIST :
						  PPW_IN_HEAD);
	bpf_probe_read_kernel(&nr, sizeof(nr),
			      (void *)w->shinfo +
				      bpf_core_field_offset(struct skb_shared_info, nr_frags));
	if (nr) {
		w->nr_frags = nr;
		w->frag_where = w->where ?: in_fraglist ? PPW_IN_FRAGLIST : PPW_IN_FRAG;
		bpf_loop(PPW_MAX_FRAGS, frag_cb, &w, 0);
	}
	return w->shinfo;
}
