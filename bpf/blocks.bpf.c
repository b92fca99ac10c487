// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Item blocks: how full each of a pool's item blocks is, on kernels with
 * the page_pool item-block series (core_fixes.bpf.h, 17). A dynamic block
 * is given back only when its last item is, so one page held for long pins
 * a whole block: the walk shows which blocks are nearly empty.
 *
 *   blocks_walk (iter/task, on its first task): every live or destroyed
 *   pool's totals; with blocks_pool set, that pool's blocks one by one too.
 *
 * Not on the hot path: user space runs it when it samples.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "pool.bpf.h"

/* 0: every pool, totals only; else this pool's totals and its blocks */
__u64 blocks_pool;

/* struct page pointers: the vmemmap, which items' llist pointers are not in */
#define PPW_VMEMMAP_SPAN (1ULL << 44)

struct items_walk {
	__u64 items; /* &block->items[0] */
	__u64 item_size;
	__u64 netmem_off;
	__u64 pp_item_off;
	__u64 vmemmap;
	__u32 used;
};

/* a pre-allocated block's item i: in use if its page points back at it */
static long item_cb(__u32 i, struct items_walk *w)
{
	__u64 item = w->items + (__u64)i * w->item_size;
	__u64 v = 0, back = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)(item + w->netmem_off));
	if (!v)
		return 0;
	if (v & 1) { /* NET_IOV: a free item's llist pointer is never odd */
		w->used++;
		return 0;
	}
	if (w->vmemmap && v - w->vmemmap >= PPW_VMEMMAP_SPAN)
		return 0;
	bpf_probe_read_kernel(&back, sizeof(back), (void *)(v + w->pp_item_off));
	if (back == item)
		w->used++;
	return 0;
}

struct blocks_walk {
	struct seq_file *seq;
	struct list_head *head, *cur;
	struct page_pool_item_block___walk *current;
	__u32 idx; /* pool->item_blk_idx */
	/*
	 * page_pool_destroy() ran page_pool_item_blk_free(): the current
	 * block's unissued items are off its ref (the v7 series leaves
	 * pool->item_blk set; ppwatch's series clears it)
	 */
	bool destroyed;
	__u32 emitted;
	bool detail;
	bool done;
	struct ppw_blk_rec tot;
	struct ppw_blk_rec blk;
	struct items_walk iw;
};

static long block_cb(__u32 i, struct blocks_walk *w)
{
	struct page_pool_item_block___walk *b;
	__u32 per = w->tot.tot.items_per_block, used, unissued = 0;
	/* typed locals: a CO-RE read through w-> would relocate struct blocks_walk */
	struct list_head *cur = w->cur, *next;
	bool dynamic;
	int ref;

	next = BPF_CORE_READ(cur, next);
	if (!next || next == w->head) {
		w->done = true;
		return 1;
	}
	w->cur = next;
	b = (void *)next - bpf_core_field_offset(struct page_pool_item_block___walk, list);
	dynamic = BPF_CORE_READ(b, flags) & PPW_ITEM_BLK_DYNAMIC;
	if (dynamic) {
		ref = BPF_CORE_READ(b, ref.refs.counter);
		/* page_pool_destroy() already took the unissued items off its ref */
		if (b == w->current && w->idx < per && !w->destroyed)
			unissued = per - w->idx;
		used = ref > (int)unissued ? ref - unissued : 0;
		w->tot.tot.dynamic++;
		w->tot.tot.used_dynamic += used;
		w->tot.tot.unissued += unissued;
		if ((b != w->current || w->destroyed) && used * 4 < per)
			w->tot.tot.sparse++;
	} else {
		w->iw.items =
			(__u64)b + bpf_core_field_offset(struct page_pool_item_block___walk, items);
		w->iw.used = 0;
		bpf_loop(per, item_cb, &w->iw, 0);
		used = w->iw.used;
		w->tot.tot.prealloc++;
		w->tot.tot.used_prealloc += used;
	}
	if (w->detail && w->emitted < PPW_MAX_BLOCK_RECS) {
		w->blk.blk.addr = (__u64)b;
		w->blk.blk.used = used;
		w->blk.blk.unissued = unissued;
		w->blk.blk.dynamic = dynamic;
		w->blk.blk.current = b == w->current && !w->destroyed;
		bpf_seq_write(w->seq, &w->blk, sizeof(w->blk));
		w->emitted++;
	}
	return 0;
}

static void walk_pool(struct blocks_walk *w, struct page_pool *pool, __u32 gen)
{
	struct page_pool___walk *pw = (void *)pool;
	__u32 items_off = bpf_core_field_offset(struct page_pool_item_block___walk, items);
	__u32 page_size = 1U << (cfg_page_shift & 31);

	__builtin_memset(&w->tot, 0, sizeof(w->tot));
	w->tot.type = PPW_BLK_POOL;
	w->tot.gen = gen;
	w->tot.pool = (__u64)pool;
	w->blk.type = PPW_BLK_BLOCK;
	w->blk.gen = gen;
	w->blk.pool = (__u64)pool;
	w->iw.item_size = bpf_core_type_size(struct page_pool_item___walk);
	if (!w->iw.item_size || items_off >= page_size)
		return;
	w->tot.tot.items_per_block = (page_size - items_off) / (__u32)w->iw.item_size;
	w->head = (void *)pool + bpf_core_field_offset(struct page_pool___walk, item_blocks);
	w->cur = w->head;
	w->current = BPF_CORE_READ(pw, item_blk);
	w->idx = BPF_CORE_READ(pw, item_blk_idx);
	w->destroyed = BPF_CORE_READ(pool, destroy_cnt) > 0;
	w->emitted = 0;
	w->done = false;
	bpf_loop(PPW_MAX_BLOCKS, block_cb, w, 0);
	w->tot.tot.truncated = !w->done;
	bpf_seq_write(w->seq, &w->tot, sizeof(w->tot));
}

static long pool_cb(struct bpf_map *map, __u64 *key, struct ppw_pool *rec, struct blocks_walk *w)
{
	/* a freed pool's blocks are gone with it */
	if (rec->state != PPW_POOL_FREED)
		walk_pool(w, (struct page_pool *)*key, rec->gen);
	return 0;
}

SEC("iter/task")
int blocks_walk(struct bpf_iter__task *ctx)
{
	struct blocks_walk w = {};
	struct ppw_pool *rec;
	__u64 key = blocks_pool;

	if (!ctx->task || ctx->meta->seq_num > 0)
		return 0;
	w.seq = ctx->meta->seq;
	w.iw.netmem_off = bpf_core_field_offset(struct page_pool_item___walk, pp_netmem);
	w.iw.pp_item_off = bpf_core_field_offset(struct page___item, pp_item);
	w.iw.vmemmap = layout_vmemmap();
	if (!key) {
		bpf_for_each_map_elem(&pools, pool_cb, &w, 0);
		return 0;
	}
	rec = bpf_map_lookup_elem(&pools, &key);
	if (!rec || rec->state == PPW_POOL_FREED)
		return 0;
	w.detail = true;
	walk_pool(&w, (struct page_pool *)key, rec->gen);
	return 0;
}
