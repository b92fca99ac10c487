// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ppwatch.h"
#include "model/vmcore_blocks.h"
#include "model/vmcore_read.h"

#define BLK_DYNAMIC   1		   /* PAGE_POOL_ITEM_BLK_DYNAMIC_BIT */
#define VMEMMAP_SPAN  (1ULL << 44) /* struct pages: where no free item's llist pointer is */
#define MAX_PAGE_SIZE (64U << 10)

struct bwalk {
	struct kmem *m;
	const struct vmcore_layout *l;
	uint64_t vmemmap;
	uint32_t page_size, per, items_off;
	uint8_t *page; /* a pre-allocated block, read whole */
	struct vmcore_bstats *st;
};

/* a pre-allocated block's items in use: those whose page points back at them */
static int prealloc_used(struct bwalk *w, uint64_t blk, uint32_t *used)
{
	const struct vmcore_layout *l = w->l;
	uint64_t v, back, item;
	uint32_t i;

	*used = 0;
	if (kmem_read(w->m, blk, w->page, w->page_size))
		return -EFAULT;
	for (i = 0; i < w->per; i++) {
		item = w->items_off + (uint64_t)i * l->b.item_size;
		if (vm_field_of(w->page + item, w->page_size - item, l->b.item_netmem, &v) || !v)
			continue;
		if (v & 1) { /* a net_iov: a free item's llist pointer is never odd */
			(*used)++;
			continue;
		}
		if (w->vmemmap && v - w->vmemmap >= VMEMMAP_SPAN)
			continue; /* a free item's next pointer */
		if (!vm_read_field(w->m, v, l->b.page_item, &back) && back == blk + item)
			(*used)++;
	}
	return 0;
}

static void pool_blocks(struct bwalk *w, struct pool_obs *o)
{
	const struct vmcore_layout *l = w->l;
	struct block_occupancy *occ = &o->occ;
	uint64_t pool = o->rec.addr, head, cur, next, flags, ref, current = 0, idx = 0;
	bool destroyed = o->rec.destroy_cnt > 0;
	uint32_t n, used, unissued;

	memset(occ, 0, sizeof(*occ));
	occ->items_per_block = w->per;
	o->has_occ = true;
	w->st->pools++;
	vm_read_field(w->m, pool, l->b.pool_cur, &current);
	vm_read_field(w->m, pool, l->b.pool_idx, &idx);
	head = pool + vm_off(l->b.pool_list);
	for (cur = head, n = 0; n < PPW_MAX_BLOCKS; n++) {
		uint64_t b;

		if (vm_read_field(w->m, cur, l->b.list_next, &next) || !KERNEL_PTR(next))
			goto unreadable;
		if (next == head)
			return;
		cur = next;
		b = next - vm_off(l->b.blk_list);
		if (vm_read_field(w->m, b, l->b.blk_flags, &flags))
			goto unreadable;
		w->st->blocks++;
		if (flags & BLK_DYNAMIC) {
			if (vm_read_field(w->m, b, l->b.blk_ref, &ref))
				goto unreadable;
			/* page_pool_destroy() already took the unissued items off its ref */
			unissued = b == current && idx < w->per && !destroyed ?
					   w->per - (uint32_t)idx :
					   0;
			used = (int32_t)ref > (int32_t)unissued ? (uint32_t)ref - unissued : 0;
			occ->dynamic++;
			occ->used_dynamic += used;
			occ->unissued += unissued;
			if ((b != current || destroyed) && used * 4 < w->per)
				occ->sparse++;
		} else {
			if (prealloc_used(w, b, &used))
				goto unreadable;
			occ->prealloc++;
			occ->used_prealloc += used;
		}
	}
	occ->truncated = true; /* more blocks than the live walk reads, or a list in a loop */
	return;
unreadable:
	/* the dump lacks a block (or the list): what was read is kept */
	w->st->unreadable++;
	occ->truncated = true;
}

int vmcore_blocks(struct kmem *m, const struct vmcore_layout *l, uint64_t vmemmap,
		  uint32_t page_size, struct reading *rd, struct vmcore_bstats *st)
{
	struct bwalk w = { .m = m, .l = l, .vmemmap = vmemmap, .page_size = page_size, .st = st };
	size_t i;

	memset(st, 0, sizeof(*st));
	st->kernel_has = l->b.item_size && vm_has(l->b.pool_list) && vm_has(l->b.pool_cur) &&
			 vm_has(l->b.pool_idx) && vm_has(l->b.list_next) && vm_has(l->b.blk_list) &&
			 vm_has(l->b.blk_flags) && vm_has(l->b.blk_ref) && vm_has(l->b.blk_items) &&
			 vm_has(l->b.item_netmem) && vm_has(l->b.page_item);
	w.items_off = st->kernel_has ? (uint32_t)vm_off(l->b.blk_items) : 0;
	/* a block is one page, its items after its header: else no kernel of the series */
	if (page_size < 4096 || page_size > MAX_PAGE_SIZE || w.items_off >= page_size)
		st->kernel_has = false;
	if (!st->kernel_has)
		return 0;
	w.per = (page_size - w.items_off) / l->b.item_size;
	w.page = malloc(page_size);
	if (!w.page)
		return -ENOMEM;
	for (i = 0; i < rd->n; i++)
		if (rd->pools[i].rec.addr)
			pool_blocks(&w, &rd->pools[i]);
	free(w.page);
	return 0;
}
