/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* 'ppwatch blocks': each pool's item blocks, text and JSON from one column table. */
#ifndef __PPWATCH_OUTPUT_BLOCK_TABLE_H
#define __PPWATCH_OUTPUT_BLOCK_TABLE_H

#include <stdio.h>

#include "lib/json.h"
#include "model/blocks.h"
#include "model/snapshot.h"
#include "output/table.h"

/* one pool's blocks, with the pool's row for its name */
struct pool_block_view {
	const struct pool_row *row;
	const struct pool_blocks *pb;
	__u32 page_size; /* a block is one page */
};

/* the block view over one pool's blocks (o: that pool's occupancy) */
struct oview block_oview(const struct block_occupancy *o);
void render_blocks_text(FILE *f, const struct pool_block_view *v, size_t n, bool wide);
void render_blocks_json(struct json *j, const struct pool_block_view *v, size_t n);

#endif /* __PPWATCH_OUTPUT_BLOCK_TABLE_H */
