// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/blocks.h"

static struct pool_blocks *pending(struct blocks_scan *out)
{
	/* blocks come before their pool's totals: an open entry collects them */
	if (out->n && !out->pools[out->n - 1].pool)
		return &out->pools[out->n - 1];
	return VEC_PUSH(out->pools, out->n, out->cap);
}

int blocks_parse(struct blocks_scan *out, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	struct ppw_blk_rec r;
	struct pool_blocks *p;
	struct block_info *bi;
	size_t off;

	for (off = 0; off + sizeof(r) <= len; off += sizeof(r)) {
		memcpy(&r, b + off, sizeof(r));
		p = pending(out);
		if (!p)
			return -ENOMEM;
		switch (r.type) {
		case PPW_BLK_BLOCK:
			if (p->nblocks >= PPW_MAX_BLOCK_RECS) {
				p->blocks_cut = true;
				break;
			}
			bi = VEC_PUSH(p->blocks, p->nblocks, p->capblocks);
			if (!bi)
				return -ENOMEM;
			bi->addr = r.blk.addr;
			bi->used = r.blk.used;
			bi->unissued = r.blk.unissued;
			bi->dynamic = r.blk.dynamic;
			bi->current = r.blk.current;
			break;
		case PPW_BLK_POOL:
			if (!r.pool)
				return -EINVAL;
			p->pool = r.pool;
			p->gen = r.gen;
			p->occ = (struct block_occupancy){
				.items_per_block = r.tot.items_per_block,
				.prealloc = r.tot.prealloc,
				.dynamic = r.tot.dynamic,
				.used_prealloc = r.tot.used_prealloc,
				.used_dynamic = r.tot.used_dynamic,
				.sparse = r.tot.sparse,
				.unissued = r.tot.unissued,
				.truncated = r.tot.truncated,
			};
			/* a detail walk stops writing blocks at PPW_MAX_BLOCK_RECS */
			if (p->nblocks && p->nblocks < (size_t)r.tot.prealloc + r.tot.dynamic)
				p->blocks_cut = true;
			break;
		default:
			return -EINVAL;
		}
	}
	/* blocks with no totals after them: the stream was cut */
	if (out->n && !out->pools[out->n - 1].pool) {
		free(out->pools[out->n - 1].blocks);
		out->n--;
		return -EINVAL;
	}
	return off == len ? 0 : -EINVAL;
}

void blocks_scan_free(struct blocks_scan *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->pools[i].blocks);
	free(s->pools);
	memset(s, 0, sizeof(*s));
}

const struct pool_blocks *blocks_find(const struct blocks_scan *s, __u64 pool, __u32 gen)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->pools[i].pool == pool && s->pools[i].gen == gen)
			return &s->pools[i];
	return NULL;
}
