// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A crash dump's item blocks (model/vmcore_blocks.c) on a memory made by
 * hand: a pool with a pre-allocated block whose items point at pages that
 * do and do not point back, and a dynamic current block; counted as the
 * live walk (bpf/blocks.bpf.c) counts them, for a live pool and a
 * destroyed one, a list the dump cuts, and a kernel without the series.
 */
#include "model/vmcore_blocks.h"
#include "fake_mem.h"
#include "unit.h"
#include "vmcore_fixture.h"

#define POOL	   0xffff888000010000ULL
#define BLKA	   0xffff888000020000ULL /* pre-allocated */
#define BLKB	   0xffff888000030000ULL /* dynamic, the current one */
#define VMEMMAP	   0xffffea0000000000ULL
#define PAGE(n)	   (VMEMMAP + (uint64_t)(n)*64)
#define ITEM(b, i) ((b) + 32 + (uint64_t)(i)*16)
#define PER	   ((4096 - 32) / 16)

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, 8);
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, 4);
}

/* the pool and its two blocks (the list: pool -> A -> B -> pool), ref of B */
static void put_pool(struct fake *f, uint32_t idx, uint32_t ref, bool cut)
{
	uint8_t *p = region(f, POOL, 256), *a = region(f, BLKA, 4096), *b;
	unsigned i;

	put64(p, 112, BLKA + 8);
	put64(p, 128, BLKB);
	put32(p, 136, idx);
	put64(a, 8, BLKB + 8);
	/* items 0-2: pages that point back; 3: a page another item has; 4: a free item's next */
	for (i = 0; i < 4; i++) {
		uint8_t *pg = region(f, PAGE(i), 64);

		put64(a, 32 + i * 16 + 8, PAGE(i));
		put64(pg, 40, i < 3 ? ITEM(BLKA, i) : ITEM(BLKA, 9));
	}
	put64(a, 32 + 4 * 16 + 8, ITEM(BLKA, 7));
	put64(a, 32 + 5 * 16 + 8, 0xffff888000040001ULL); /* a net_iov (bit 0): in use */
	if (cut)
		return; /* block B is not in the dump */
	b = region(f, BLKB, 4096);
	put64(b, 8, POOL + 112);
	put32(b, 24, 1); /* PAGE_POOL_ITEM_BLK_DYNAMIC_BIT */
	put32(b, 28, ref);
}

static struct reading one_pool(uint32_t destroy_cnt)
{
	struct reading rd = { 0 };

	rd.pools = calloc(1, sizeof(*rd.pools));
	rd.n = rd.cap = 1;
	rd.pools[0].rec.addr = POOL;
	rd.pools[0].rec.destroy_cnt = destroy_cnt;
	return rd;
}

static void test_blocks(void)
{
	struct vmcore_layout l = vmcore_small_layout(false);
	struct vmcore_bstats st;
	struct fake f = { 0 };
	struct kmem m = { .read = fake_read, .ctx = &f };
	struct reading rd;
	const struct block_occupancy *o;

	vmcore_fixture_blocks(&l);

	/* live: B handed out 200 of its items, 10 of them still out */
	put_pool(&f, 200, PER - 200 + 10, false);
	rd = one_pool(0);
	CHECK_INT(vmcore_blocks(&m, &l, VMEMMAP, 4096, &rd, &st), 0);
	o = &rd.pools[0].occ;
	CHECK(st.kernel_has && rd.pools[0].has_occ, "the blocks read");
	CHECK_INT(st.pools, 1);
	CHECK_INT(st.blocks, 2);
	CHECK_INT(st.unreadable, 0);
	CHECK_INT(o->items_per_block, PER);
	CHECK_INT(o->prealloc, 1);
	CHECK_INT(o->used_prealloc, 4); /* 3 pages that point back, 1 net_iov */
	CHECK_INT(o->dynamic, 1);
	CHECK_INT(o->unissued, PER - 200);
	CHECK_INT(o->used_dynamic, 10);
	CHECK_INT(o->sparse, 0); /* the current block is never sparse while live */
	CHECK(!o->truncated, "every block read");
	free(rd.pools);
	fake_free(&f);

	/* destroyed: page_pool_destroy() took the unissued items off B's ref */
	put_pool(&f, 200, 10, false);
	rd = one_pool(1);
	CHECK_INT(vmcore_blocks(&m, &l, VMEMMAP, 4096, &rd, &st), 0);
	o = &rd.pools[0].occ;
	CHECK_INT(o->unissued, 0);
	CHECK_INT(o->used_dynamic, 10);
	CHECK_INT(o->sparse, 1); /* 10 of 254 items for a page of its own */
	free(rd.pools);
	fake_free(&f);

	/* B not in the dump: what was read is kept, the pool says truncated */
	put_pool(&f, 200, 10, true);
	rd = one_pool(0);
	CHECK_INT(vmcore_blocks(&m, &l, VMEMMAP, 4096, &rd, &st), 0);
	o = &rd.pools[0].occ;
	CHECK_INT(o->prealloc, 1);
	CHECK_INT(o->used_prealloc, 4);
	CHECK_INT(o->dynamic, 0);
	CHECK(o->truncated, "a block the dump lacks: truncated");
	CHECK_INT(st.unreadable, 1);
	free(rd.pools);

	/* a kernel without the series (no struct page pp_item): nothing read */
	l.b.page_item = VM_ABSENT;
	rd = one_pool(0);
	CHECK_INT(vmcore_blocks(&m, &l, VMEMMAP, 4096, &rd, &st), 0);
	CHECK(!st.kernel_has && !rd.pools[0].has_occ, "no blocks on a kernel without them");
	free(rd.pools);
	fake_free(&f);
}

int main(void)
{
	TEST(test_blocks);
	return unit_done();
}
