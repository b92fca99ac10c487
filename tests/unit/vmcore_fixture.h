/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A crash dump's layout of small structs of our own (model/vmcore_layout.h),
 * for the unit tests (tests/unit/test_vmcore.c: memory made to fit it) and
 * the fuzz target (tests/fuzz/fuzz_vmcore.c: any bytes read through it).
 * 'all': the members a kernel may lack are present too (the fuzz target's).
 */
#ifndef __PPWATCH_VMCORE_FIXTURE_H
#define __PPWATCH_VMCORE_FIXTURE_H

#include <stdbool.h>

#include "model/vmcore_layout.h"

static inline struct vmcore_layout vmcore_small_layout(bool all)
{
	struct vmcore_layout l = { 0 };

	/* no item blocks (vmcore_fixture_blocks() adds them) */
	l.b.pool_list = l.b.pool_cur = l.b.pool_idx = l.b.list_next = l.b.blk_list = VM_ABSENT;
	l.b.blk_flags = l.b.blk_ref = l.b.blk_items = l.b.blk_pp = l.b.item_netmem = VM_ABSENT;
	l.b.page_item = VM_ABSENT;
#define AT(f, off, sz) l.f = (struct vm_field){ (off)*8, sz, 0 }
	AT(xa_head, 8, 8);
	AT(xn_shift, 0, 1);
	AT(xn_slots, 16, 8);
	l.xa_chunk = 4;
	l.pool_size = 128;
	AT(order, 0, 4);
	AT(pool_size_param, 4, 4);
	AT(nid, 8, 4);
	AT(dev, 16, 8);
	AT(napi, 24, 8);
	AT(hold, 32, 4);
	AT(release, 36, 4);
	l.dma_map = (struct vm_field){ 40 * 8 + 1, 1, 1 };
	l.dma_sync = (struct vm_field){ 40 * 8 + 2, 1, 1 };
	AT(destroy_cnt, 48, 8);
	AT(netdev, 56, 8);
	AT(id, 64, 4);
	AT(detach_time, 72, 8);
	AT(dma_mapped_head, 80, 8);
	AT(xdp_mem_id, 88, 4);
	l.mp_priv = VM_ABSENT;
	l.p_flags = VM_ABSENT;
	AT(user_cnt, 92, 4);
	AT(defer_start, 104, 8);
	l.detach_time_is_ns = true;
	l.unmap = UNMAP_XARRAY;
	AT(nd_name, 0, 16);
	AT(nd_ifindex, 16, 4);
	AT(tk_in_core, 8, 8);
	AT(tk_mono_base, 0, 8);
	AT(tk_offs_boot, 8, 8);
	AT(tk_xtime_sec, 16, 8);
	/* the holder walk's: task, files, socket, sock, skb, page */
	AT(h.tasks, 0, 8);
	AT(h.pid, 16, 4);
	AT(h.tgid, 20, 4);
	AT(h.comm, 24, 16);
	AT(h.files, 40, 8);
	AT(h.fdt, 0, 8);
	AT(h.max_fds, 0, 4);
	AT(h.fd, 8, 8);
	AT(h.f_op, 0, 8);
	AT(h.private_data, 8, 8);
	AT(h.f_inode, 16, 8);
	AT(h.i_ino, 0, 8);
	AT(h.sock_sk, 0, 8);
	AT(h.family, 0, 2);
	AT(h.state, 2, 1);
	AT(h.num, 4, 2);
	AT(h.dport, 6, 2);
	AT(h.rcv_saddr, 8, 4);
	AT(h.daddr, 12, 4);
	AT(h.type, 16, 2);
	AT(h.protocol, 18, 2);
	AT(h.rmem, 24, 4);
	AT(h.rcvq, 32, 8);
	AT(h.skb_next, 0, 8);
	AT(h.skb_head, 8, 8);
	AT(h.skb_end, 16, 4);
	AT(h.skb_len, 20, 4);
	l.h.head_frag = (struct vm_field){ 24 * 8 + 1, 1, 1 };
	AT(h.nr_frags, 0, 1);
	AT(h.frag_list, 8, 8);
	AT(h.frags, 16, 8);
	l.h.frag_size = 16;
	AT(h.frag_page, 0, 8);
	AT(h.compound_head, 8, 8);
	AT(h.pp, 16, 8);
	AT(h.pp_magic, 8, 8); /* as in the kernel: the word compound_head is */
	l.h.page_size = 64;
	l.h.ring_count = VM_ABSENT;
	if (all) { /* the fuzz seeds' (tests/fuzz/corpus/vmcore) */
		l.xa_chunk = 8;
		l.pool_size = 96;
	} else {
		l.nd_net = l.nd_dev = l.net_inum = l.net_cookie = l.napi_id = VM_ABSENT;
		l.dev_name = l.dev_driver = l.dev_class = l.drv_name = l.class_name = VM_ABSENT;
		l.dev_in_sysfs = l.dev_p = l.devp_device = VM_ABSENT;
		l.uts_nodename = l.uts_release = VM_ABSENT;
		l.h.v6_rcv_saddr = l.h.v6_daddr = l.h.net = l.h.reader_q = VM_ABSENT;
		l.h.alloc_count = l.h.ring_prod = l.h.ring_cons = l.h.ring_size = l.h.ring_queue =
			l.h.frag_pg = VM_ABSENT;
		return l;
	}
	AT(nd_net, 24, 8);
	AT(nd_dev, 32, 8);
	AT(net_inum, 0, 4);
	AT(net_cookie, 8, 8);
	AT(napi_id, 0, 4);
	AT(dev_name, 0, 8);
	AT(dev_driver, 8, 8);
	AT(dev_class, 16, 8);
	l.dev_in_sysfs = (struct vm_field){ 24 * 8 + 1, 1, 1 };
	AT(dev_p, 32, 8);
	AT(devp_device, 0, 8);
	AT(drv_name, 0, 8);
	AT(class_name, 0, 8);
	AT(uts_nodename, 0, 65);
	AT(uts_release, 65, 65);
	AT(h.v6_rcv_saddr, 8, 16);
	AT(h.v6_daddr, 24, 16);
	AT(h.net, 40, 8);
	AT(h.reader_q, 48, 8);
	AT(h.alloc_count, 96, 4);
	AT(h.ring_prod, 100, 4);
	AT(h.ring_cons, 104, 4);
	AT(h.ring_size, 108, 4);
	AT(h.ring_queue, 112, 8);
	AT(h.frag_pg, 120, 8);
#undef AT
	return l;
}

/*
 * The item-block series' members (model/vmcore_blocks.h), absent from the
 * small layout until this adds them: the pool's list of blocks at 112, its
 * current block at 128 and next item at 136; a block's pool at 0, list at
 * 8, flags at 24, ref at 28, items (16 bytes: the page at 8) from 32;
 * struct page's item at 40.
 */
static inline void vmcore_fixture_blocks(struct vmcore_layout *l)
{
#define AT(f, off, sz) l->f = (struct vm_field){ (off)*8, sz, 0 }
	AT(b.pool_list, 112, 16);
	AT(b.pool_cur, 128, 8);
	AT(b.pool_idx, 136, 4);
	AT(b.list_next, 0, 8);
	AT(b.blk_list, 8, 16);
	AT(b.blk_flags, 24, 4);
	AT(b.blk_ref, 28, 4);
	AT(b.blk_items, 32, 0);
	AT(b.blk_pp, 0, 8);
	AT(b.item_netmem, 8, 8);
	AT(b.page_item, 40, 8);
	l->b.item_size = 16;
#undef AT
}

#endif /* __PPWATCH_VMCORE_FIXTURE_H */
