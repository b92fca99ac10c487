// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A crash dump's parsers on any bytes: the input is VMCOREINFO's text, a
 * NUL, then a kernel's memory at VMC_BASE. VMCOREINFO's lines, the
 * kallsyms tables it names (decoded from that memory), a System.map (the
 * text again), the walk of a page_pools xarray (at SYMBOL(page_pools),
 * with a small layout of its own) and, without one, the page scan (struct
 * pages at SYMBOL(vmemmap), SYMBOL(max_pfn) of them, bounded here), and
 * the item blocks of the pools found must neither crash nor read outside
 * what they were given, and what they return must hold together: every
 * pool read once, counts that add up.
 */
#include <errno.h>

#include "fuzz.h"
#include "vmcore_fixture.h"
#include "ppwatch.h"
#include "model/snapshot.h"
#include "model/vmcore_blocks.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	struct image im = { nul ? nul + 1 : data + size, nul ? size - tlen - 1 : 0 };
	struct kmem m = { .read = image_read, .ctx = &im };
	struct vs_want want[] = { { .name = "page_pools" },
				  { .name = "tk_core" },
				  { .name = "__start_BTF" } };
	struct vmcore_layout l = vmcore_small_layout(true);
	struct vmcore_addrs a = { .page_size = 4096 };
	struct vmcoreinfo vi;
	struct vs_result r;
	struct vmcore_walk w;
	struct vmcore_haddrs ha = { .page_shift = 12 };
	struct vmcore_hstats hst;
	struct vmcore_bstats bst;
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
	a.vmemmap = ha.vmemmap;
	vmcoreinfo_symbol(&vi, "max_pfn", &a.max_pfn);
	a.max_pfn &= (1 << 16) - 1; /* the scan's time grows with it: a fuzz run's bound */
	vmcoreinfo_symbol(&vi, "jiffies_64", &a.jiffies);
	if (!vmcore_walk(&m, &l, &a, &w)) {
		FUZZ_CHECK(w.rd.n + w.duplicates <= w.entries);
		/* the page scan: every pool found by a page of its own */
		FUZZ_CHECK(!w.scan.ran || (w.scan.pages + w.scan.missing <= a.max_pfn &&
					   w.scan.bad_pool_ptr <= w.scan.pool_pages &&
					   w.scan.pool_pages <= w.scan.pages &&
					   w.entries <= w.scan.pool_pages - w.scan.bad_pool_ptr));
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
		/* the item blocks: counts no block can exceed, every pool's walk bounded */
		vmcore_fixture_blocks(&l);
		if (!vmcore_blocks(&m, &l, ha.vmemmap, 4096, &w.rd, &bst)) {
			FUZZ_CHECK(bst.kernel_has && bst.pools == w.rd.n);
			for (i = 0; i < w.rd.n; i++) {
				const struct block_occupancy *o = &w.rd.pools[i].occ;

				FUZZ_CHECK(o->prealloc + o->dynamic <= PPW_MAX_BLOCKS);
				FUZZ_CHECK(o->used_prealloc <= o->prealloc * o->items_per_block);
				FUZZ_CHECK(o->unissued <= o->dynamic * o->items_per_block);
			}
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
