// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A crash dump's parsers on any bytes: the input is VMCOREINFO's text, a
 * NUL, then a kernel's memory at VMC_BASE. VMCOREINFO's lines, the
 * kallsyms tables it names (decoded from that memory), a System.map (the
 * text again) and the walk of a page_pools xarray (at SYMBOL(page_pools),
 * with a small layout of its own) must neither crash nor read outside
 * what they were given, and what they return must hold together: every
 * pool read once, counts that add up.
 */
#include <errno.h>

#include "fuzz.h"
#include "model/snapshot.h"
#include "model/vmcore_holders.h"
#include "model/vmcore_syms.h"
#include "model/vmcore_walk.h"

#define VMC_BASE 0xffffffff80000000ULL

struct image {
	const uint8_t *p;
	size_t n;
};

static int image_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct image *im = ctx;

	if (addr < VMC_BASE || addr - VMC_BASE > im->n || n > im->n - (addr - VMC_BASE))
		return -EFAULT;
	memcpy(buf, im->p + (addr - VMC_BASE), n);
	return 0;
}

static struct vmcore_layout layout(void)
{
	struct vmcore_layout l = { 0 };
	struct vm_field none = VM_ABSENT;

#define AT(f, off, sz) l.f = (struct vm_field){ (off)*8, sz, 0 }
	AT(xa_head, 8, 8);
	AT(xn_shift, 0, 1);
	AT(xn_slots, 16, 8);
	l.xa_chunk = 8;
	l.pool_size = 96;
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
	l.mp_priv = l.p_flags = none;
	l.detach_time_is_ns = true;
	l.unmap = UNMAP_XARRAY;
	AT(nd_name, 0, 16);
	AT(nd_ifindex, 16, 4);
	AT(nd_net, 24, 8);
	AT(nd_dev, 32, 8);
	AT(net_inum, 0, 4);
	AT(net_cookie, 8, 8);
	AT(napi_id, 0, 4);
	AT(dev_name, 0, 8);
	AT(dev_driver, 8, 8);
	AT(dev_class, 16, 8);
	AT(drv_name, 0, 8);
	AT(class_name, 0, 8);
	AT(tk_in_core, 8, 8);
	AT(tk_mono_base, 0, 8);
	AT(tk_offs_boot, 8, 8);
	AT(tk_xtime_sec, 16, 8);
	AT(uts_nodename, 0, 65);
	AT(uts_release, 65, 65);
	/* the holder walk's: small structs, packed in the image at random */
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
	AT(h.v6_rcv_saddr, 8, 16);
	AT(h.v6_daddr, 24, 16);
	AT(h.net, 40, 8);
	AT(h.type, 16, 2);
	AT(h.protocol, 18, 2);
	AT(h.rmem, 24, 4);
	AT(h.rcvq, 32, 8);
	AT(h.reader_q, 48, 8);
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
	AT(h.alloc_count, 96, 4);
	AT(h.ring_prod, 100, 4);
	AT(h.ring_cons, 104, 4);
	AT(h.ring_size, 108, 4);
	AT(h.ring_queue, 112, 8);
	l.h.ring_count = none;
	AT(h.frag_pg, 120, 8);
	AT(h.compound_head, 8, 8);
	AT(h.pp, 16, 8);
	l.h.page_size = 64;
#undef AT
	return l;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	struct image im = { nul ? nul + 1 : data + size, nul ? size - tlen - 1 : 0 };
	struct kmem m = { .read = image_read, .ctx = &im };
	struct vs_want want[] = { { .name = "page_pools" },
				  { .name = "tk_core" },
				  { .name = "__start_BTF" } };
	struct vmcore_layout l = layout();
	struct vmcore_addrs a = { .page_size = 4096 };
	struct vmcoreinfo vi;
	struct vs_result r;
	struct vmcore_walk w;
	struct vmcore_haddrs ha = { .page_shift = 12 };
	struct vmcore_hstats hst;
	struct scan_result scan;
	struct snapshot s;
	size_t i;

	if (vmcoreinfo_parse(&vi, (const char *)data, tlen)) {
		vmcoreinfo_free(&vi);
		return 0;
	}
	FUZZ_CHECK(vi.n <= VMCOREINFO_MAX_KEYS);
	if (!vs_kallsyms(&m, &vi, want, 3, &r))
		FUZZ_CHECK(r.decoded <= r.syms && r.syms <= VS_MAX_SYMS);
	else
		FUZZ_CHECK(r.why[0] || !vs_have_kallsyms(&vi));
	vs_system_map((const char *)data, tlen, &vi, want, 3, &r);
	vmcoreinfo_symbol(&vi, "page_pools", &a.page_pools);
	vmcoreinfo_symbol(&vi, "tk_core", &a.tk_core);
	vmcoreinfo_symbol(&vi, "init_uts_ns", &a.init_uts_ns);
	vmcoreinfo_symbol(&vi, "init_task", &ha.init_task);
	vmcoreinfo_symbol(&vi, "socket_file_ops", &ha.socket_file_ops);
	vmcoreinfo_symbol(&vi, "vmemmap", &ha.vmemmap);
	vmcoreinfo_symbol(&vi, "page_offset_base", &ha.page_offset);
	if (!vmcore_walk(&m, &l, &a, &w)) {
		FUZZ_CHECK(w.rd.n + w.duplicates <= w.entries);
		for (i = 1; i < w.rd.n; i++)
			FUZZ_CHECK(w.rd.pools[i - 1].rec.addr < w.rd.pools[i].rec.addr);
		/* the holder walk: every page it counts is one of the walk's pools */
		if (!vmcore_holders(&m, &l, &ha, &w.rd, &scan, &hst)) {
			FUZZ_CHECK(scan.nsocks == hst.sockets && scan.npages == hst.pages);
			FUZZ_CHECK(scan.nsocks <= scan.nowners);
			for (i = 0; i < scan.npages; i++) {
				size_t k;

				for (k = 0; k < w.rd.n; k++)
					if (w.rd.pools[k].rec.addr == scan.pages[i].pool)
						break;
				FUZZ_CHECK(k < w.rd.n);
			}
			scan_free(&scan);
		}
		if (!snapshot_build(&s, &w.rd, NULL)) {
			FUZZ_CHECK(s.n == w.rd.n);
			snapshot_free(&s);
		}
	}
	vmcore_walk_free(&w);
	vmcoreinfo_free(&vi);
	return 0;
}
