/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the members a crash-dump walk reads are, in the dumped kernel:
 * filled from the dump's own BTF by sources/vmcore_btf.c (by name, as
 * CO-RE does: no offset is compiled in), read by model/vmcore_walk.c. A
 * member the kernel does not have is absent (bit_off < 0), and what
 * needs it is reported unknown.
 */
#ifndef __PPWATCH_MODEL_VMCORE_LAYOUT_H
#define __PPWATCH_MODEL_VMCORE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/kernel.h"

struct vm_field {
	int64_t bit_off;   /* from the start of its outermost struct; < 0: absent */
	uint32_t size;	   /* bytes of its type */
	uint32_t bit_size; /* a bitfield's width; 0: not one */
};

#define VM_ABSENT ((struct vm_field){ .bit_off = -1 })

static inline bool vm_has(struct vm_field f)
{
	return f.bit_off >= 0;
}

/* the byte offset of a member that is not a bitfield */
static inline uint64_t vm_off(struct vm_field f)
{
	return (uint64_t)f.bit_off / 8;
}

struct vmcore_layout {
	/* struct xarray, struct xa_node */
	struct vm_field xa_head, xn_shift, xn_slots;
	uint32_t xa_chunk; /* slots a node has (XA_CHUNK_SIZE) */
	/* struct page_pool */
	uint32_t pool_size; /* sizeof(struct page_pool) */
	struct vm_field order, pool_size_param, nid, dev, napi, hold, release, dma_map, dma_sync,
		destroy_cnt, netdev, id, detach_time, dma_mapped_head, xdp_mem_id, mp_priv,
		p_flags, /* before the dma_map bitfield: PP_FLAG_DMA_MAP (bit 0), _SYNC (bit 1) */
		/* before destroy_cnt (6.8): a destroy dropped user_cnt to 0, set defer_start */
		user_cnt, defer_start;
	bool detach_time_is_ns;
	enum unmap_regime unmap;
	/* struct net_device, struct net, struct napi_struct */
	struct vm_field nd_name, nd_ifindex, nd_net, nd_dev, net_inum, net_cookie, napi_id;
	/* struct device, struct device_driver, struct class */
	struct vm_field dev_name, dev_driver, dev_class, drv_name, class_name,
		dev_in_sysfs,	    /* kobj.state_in_sysfs: the device still registered */
		dev_p, devp_device; /* struct device's private part, and its back-pointer */
	/*
	 * the timekeeper: within tk_core (struct tk_data), or the core one of
	 * timekeeper_data[] (tk_core_off: TIMEKEEPER_CORE's element), or the
	 * symbol shadow_timekeeper
	 */
	struct vm_field tk_in_core, tk_mono_base, tk_offs_boot, tk_xtime_sec;
	uint64_t tk_core_off;
	/* struct uts_namespace: name.nodename, name.release */
	struct vm_field uts_nodename, uts_release;
	/* the holder walk (model/vmcore_holders.c) */
	struct {
		/* struct task_struct, files_struct, fdtable, file, inode, socket */
		struct vm_field tasks, pid, tgid, comm, files, fdt, max_fds, fd, f_op, private_data,
			f_inode, i_ino, sock_sk;
		/* struct sock (its __sk_common) */
		struct vm_field family, state, num, dport, rcv_saddr, daddr, v6_rcv_saddr, v6_daddr,
			net, type, protocol, rcvq, rmem, reader_q;
		/* struct sk_buff, skb_shared_info, the frag's page */
		struct vm_field skb_next, skb_head, skb_end, skb_len, head_frag, nr_frags, frags,
			frag_list, frag_page;
		uint32_t frag_size; /* sizeof(skb_frag_t) */
		/* struct page_pool's own pages: alloc cache, ptr_ring (or its count), frag page */
		struct vm_field alloc_count, ring_prod, ring_cons, ring_size, ring_queue,
			ring_count, frag_pg;
		/* struct page (pp_magic: the page scan's, model/pp_magic.h) */
		struct vm_field compound_head, pp, pp_magic;
		uint32_t page_size; /* sizeof(struct page) */
	} h;
	/*
	 * the item blocks (model/vmcore_blocks.c; the item-block series:
	 * bpf/core_fixes.bpf.h, 17): struct page_pool's list of them, its
	 * current block and next item; struct page_pool_item_block, its
	 * pool and items; struct page_pool_item's page; struct page's item
	 * (which, not page->pp, says a page's pool there: its block's pp)
	 */
	struct {
		struct vm_field pool_list, pool_cur, pool_idx, list_next, blk_list, blk_flags,
			blk_ref, blk_items, blk_pp, item_netmem, page_item;
		uint32_t item_size; /* sizeof(struct page_pool_item) */
	} b;
};

#endif /* __PPWATCH_MODEL_VMCORE_LAYOUT_H */
