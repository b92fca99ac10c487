/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Item-block occupancy (kernels with the page_pool item-block series): what
 * the blocks_walk iterator reports, per pool and per block. A dynamic
 * block goes back to the page allocator only when its last item does, so
 * a block with few items in use is memory held for little; 'sparse'
 * counts those (not the current block, under a quarter used).
 */
#ifndef __PPWATCH_MODEL_BLOCKS_H
#define __PPWATCH_MODEL_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "ppwatch.h"

/* A pool's totals: the compact summary 'pools -w' and 'top -w' show. */
struct block_occupancy {
	__u32 items_per_block;
	__u32 prealloc; /* blocks */
	__u32 dynamic;
	__u32 used_prealloc; /* items tracking a page */
	__u32 used_dynamic;
	__u32 sparse;	/* dynamic blocks, not current, under 1/4 used */
	__u32 unissued; /* the current block's items not handed out */
	bool truncated; /* more blocks than the walk reads */
};

struct block_info {
	__u64 addr;
	__u32 used;
	__u32 unissued;
	bool dynamic;
	bool current;
};

struct pool_blocks {
	__u64 pool;
	__u32 gen;
	struct block_occupancy occ;
	struct block_info *blocks; /* the detail walk only */
	size_t nblocks, capblocks;
	bool blocks_cut; /* more blocks than PPW_MAX_BLOCK_RECS */
};

struct blocks_scan {
	struct pool_blocks *pools;
	size_t n, cap;
};

/*
 * Parse what blocks_walk wrote (struct ppw_blk_rec records) into *out,
 * appending. Block records belong to the pool record that follows them.
 * Returns 0, or -EINVAL for a stream that is not whole records (out keeps
 * what parsed), -ENOMEM.
 */
int blocks_parse(struct blocks_scan *out, const void *buf, size_t len);
void blocks_scan_free(struct blocks_scan *s);
/* the pool (addr, gen) in a scan, or NULL */
const struct pool_blocks *blocks_find(const struct blocks_scan *s, __u64 pool, __u32 gen);

static inline __u32 occ_items(const struct block_occupancy *o)
{
	return (o->prealloc + o->dynamic) * o->items_per_block;
}

static inline __u32 occ_used(const struct block_occupancy *o)
{
	return o->used_prealloc + o->used_dynamic;
}

/* items of a block nobody uses: free (pre-allocated) or spent (dynamic) */
static inline __u32 block_idle(const struct block_info *b, __u32 per)
{
	__u32 busy = b->used + b->unissued;

	return busy < per ? per - busy : 0;
}

/* a dynamic block that pins its page for few items */
static inline bool block_sparse(const struct block_info *b, __u32 per)
{
	return b->dynamic && !b->current && (__u64)b->used * 4 < per;
}

#endif /* __PPWATCH_MODEL_BLOCKS_H */
