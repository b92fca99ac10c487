/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CO-RE shims of the holder scan (holders, queues and skbscan): the kernel
 * differences in skbs, slabs, the per-CPU defer lists, compound pages and
 * the protocol iterators. Numbered with, and under the rules of,
 * core_fixes.bpf.h (the page_pool side's): each a flavour struct and an
 * accessor, field or type existence tested, the upstream commit
 * cited, no kernel version number.
 */
#ifndef __PPWATCH_CORE_FIXES_SCAN_BPF_H
#define __PPWATCH_CORE_FIXES_SCAN_BPF_H

#include "core_fixes.bpf.h"

/*
 * 6. skb frags: skb_frag_t became { netmem_ref netmem; len; offset } in
 * 21d2e6737c97 "net: add netmem to skb_frag_t" (Mina Almasry, v6.9); before,
 * a struct bio_vec with bv_page. 'frag' is the address of one frags[] entry.
 */
struct skb_frag___netmem {
	unsigned long netmem;
} __attribute__((preserve_access_index));

struct bio_vec___frag {
	struct page *bv_page;
} __attribute__((preserve_access_index));

static __always_inline __u64 skb_frag_netmem_at(__u64 frag)
{
	struct skb_frag___netmem *n = (void *)frag;
	struct bio_vec___frag *b = (void *)frag;

	if (bpf_core_field_exists(n->netmem))
		return BPF_CORE_READ(n, netmem);
	return (__u64)BPF_CORE_READ(b, bv_page);
}

/*
 * 7. A slab's kmem_cache: struct slab split out of struct page in
 * d122019bf061 "mm: Split slab into its own type" (Matthew Wilcox, v5.17);
 * before, page->slab_cache.
 */
struct page___slab {
	struct kmem_cache *slab_cache;
} __attribute__((preserve_access_index));

static __always_inline __u64 slab_cache_of(__u64 head)
{
	if (bpf_core_type_exists(struct slab))
		return (__u64)BPF_CORE_READ((struct slab *)head, slab_cache);
	return (__u64)BPF_CORE_READ((struct page___slab *)head, slab_cache);
}

/*
 * 9. The per-CPU skb defer lists: softnet_data.defer_list since 68822bdf76f1
 * "net: generalize skb freeing deferral to per-cpu lists" (Eric Dumazet,
 * v5.19), until 5628f3fe3b16 "net: add NUMA awareness to
 * skb_attempt_defer_free()" (Eric Dumazet, v6.18) moved them into
 * net_hotdata.skb_defer_nodes, one per CPU and NUMA node. softnet_data is
 * per-CPU and net_hotdata is not in BTF's VARs: reading either needs its
 * symbol (CONFIG_KALLSYMS_ALL, typeless weak ksyms); without it the lists
 * are reported as not readable.
 *
 * Each way of reading sits in its own static __noinline subprogram, called
 * only under its own field's guard: on 6.12 skb_defer_nodes does not
 * resolve, and clang hoisted its offset above the guard when both paths
 * were in one function ('scan_pools' failed to load, EINVAL).
 */
extern const void net_hotdata __ksym __weak;
extern const void softnet_data __ksym __weak;
extern const void __per_cpu_offset __ksym __weak;

struct softnet_data___old {
	struct sk_buff *defer_list;
} __attribute__((preserve_access_index));

struct skb_defer_node___ppw {
	struct llist_head defer_list;
} __attribute__((preserve_access_index));

struct net_hotdata___defer {
	struct skb_defer_node___ppw *skb_defer_nodes;
} __attribute__((preserve_access_index));

PPW_SUBPROG __u64 defer_head_softnet(__u64 pcpu_off)
{
	struct softnet_data___old *sd = (void *)((__u64)&softnet_data + pcpu_off);

	return (__u64)BPF_CORE_READ(sd, defer_list);
}

PPW_SUBPROG __u64 defer_head_hotdata(__u64 pcpu_off, __u32 node)
{
	struct net_hotdata___defer *hd = (void *)&net_hotdata;
	struct skb_defer_node___ppw *n;
	__u64 nodes;

	nodes = (__u64)BPF_CORE_READ(hd, skb_defer_nodes);
	if (!nodes)
		return 0;
	n = (void *)(nodes + pcpu_off +
		     (__u64)node * bpf_core_type_size(struct skb_defer_node___ppw));
	/* llist_node is the skb's first member: the chain is skb->next */
	return (__u64)BPF_CORE_READ(n, defer_list.first);
}

/* first skb of a CPU's defer list (NUMA node 'node' where there are
 * several), NULL if empty; *readable = 1 if this kernel's lists can be read */
static __always_inline struct sk_buff *defer_list_head(__u32 cpu, __u32 node, __u32 *readable)
{
	__u64 off = 0;

	if (!&__per_cpu_offset)
		return NULL;
	bpf_probe_read_kernel(&off, sizeof(off), (void *)&__per_cpu_offset + (__u64)cpu * 8);
	if (bpf_core_field_exists(((struct softnet_data___old *)0)->defer_list)) {
		if (node || !&softnet_data)
			return NULL;
		*readable = 1;
		return (void *)defer_head_softnet(off);
	}
	if (bpf_core_field_exists(((struct net_hotdata___defer *)0)->skb_defer_nodes) &&
	    &net_hotdata) {
		*readable = 1;
		return (void *)defer_head_hotdata(off, node);
	}
	return NULL;
}

/*
 * 19. A tail page's way to its compound head. Before 7.1 the tail's
 * page->compound_head holds the head's address with bit 0 set. The series
 * "mm: Eliminate fake head pages from vmemmap optimization" (Kiryl
 * Shutsemau, akpm's mm tree April 2026, for v7.1) renamed the field in
 * "mm: rename the 'compound_head' field in the 'struct page' to
 * 'compound_info'", and 8c846c879e22 "mm: rework compound_head() for
 * power-of-2 sizeof(struct page)" changed what it holds where
 * compound_info_has_mask() (CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP and a
 * power-of-2 struct page, Debian's 7.3): a mask, GENMASK(63, order +
 * log2(sizeof(struct page))) with bit 0 set, that the tail's own address
 * is ANDed with. The mask is a config decision BPF cannot see, but the two
 * encodings cannot be mistaken for each other: a mask is ones from bit 63
 * down to some bit, then zeros; no struct page lives at such an address.
 *
 * The field's offset, whichever name it has, comes from user space's look
 * at BTF (cfg_page_compound_off, cli/sources/kfeatures.c): a CO-RE read of
 * each name would be a subprogram of its own (the rule at the top), one
 * call frame more under every page the holder scan checks. One decoding
 * serves both: a head's address + 1 is never such a mask.
 */
/* the head page of page 'pg' (pg itself unless it is a tail page) */
static __always_inline __u64 page_compound_head(__u64 pg)
{
	__u64 info = 0, low;

	if (!cfg_page_compound_off) /* page->flags is at 0: no such field */
		return pg;
	bpf_probe_read_kernel(&info, sizeof(info), (void *)(pg + cfg_page_compound_off));
	if (!(info & 1))
		return pg;
	low = ~(info & ~1ULL); /* a mask: all ones below its lowest bit */
	if (!(low & (low + 1)))
		return pg & info;
	return info - 1;
}

/*
 * 21. Protocol iterators that hold each socket's lock (lock_sock()) while
 * the program runs (softirq cannot change its queues meanwhile): those that
 * take sockets in batches, a batch state with max_sk. iter/tcp since
 * 04c7820b776f "bpf: tcp: Bpf iter batching and lock_sock" (Martin KaFai
 * Lau, v5.15), iter/unix since "bpf: af_unix: Use batching algorithm in bpf
 * unix iter" (Kuniyuki Iwashima, v5.18), iter/udp since "bpf: udp:
 * Implement batching for sockets iterator" (Aditi Ghag, v6.5).
 */
#define PPW_ITER_STATE(s)            \
	struct s {                   \
		unsigned int max_sk; \
	} __attribute__((preserve_access_index))
PPW_ITER_STATE(bpf_tcp_iter_state___ppw);
PPW_ITER_STATE(bpf_udp_iter_state___ppw);
PPW_ITER_STATE(bpf_unix_iter_state___ppw);
/* PPW_SF_LOCKED where the iterator of that batch state locks its sockets */
#define PPW_ITER_LOCKED(s) (bpf_core_field_exists(((struct s *)0)->max_sk) ? PPW_SF_LOCKED : 0)

#endif /* __PPWATCH_CORE_FIXES_SCAN_BPF_H */
