// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "output/block_table.h"
#include "output/pool_table.h"
#include "output/table.h"

enum block_col {
	BC_ADDR,
	BC_KIND,
	BC_USED,
	BC_IDLE,
	BC_UNISSUED,
	BC_CURRENT,
	BC_SPARSE,
	BC_NOTE,
	BC_MAX
};

static const struct ocol block_cols[BC_MAX] = {
	[BC_ADDR] = { "addr", "BLOCK", 18, OF_PLAIN, OC_LEFT },
	[BC_KIND] = { "kind", "KIND", 8, OF_PLAIN, OC_LEFT },
	[BC_USED] = { "used", "USED", 5, OF_PLAIN, 0 },
	/* free items of a pre-allocated block; spent ones of a dynamic block */
	[BC_IDLE] = { "idle", "IDLE", 5, OF_PLAIN, 0 },
	[BC_UNISSUED] = { "unissued", "UNISSUED", 8, OF_PLAIN, 0 },
	[BC_CURRENT] = { "current", "CUR", 3, OF_PLAIN, OC_JSON },
	[BC_SPARSE] = { "sparse", "SPARSE", 6, OF_PLAIN, OC_JSON },
	[BC_NOTE] = { "note", "", 7, OF_PLAIN, OC_LEFT | OC_TEXT },
};

static void block_cell(const void *p, int col, struct oval *v, void *arg)
{
	const struct block_info *b = p;
	const struct block_occupancy *o = arg; /* the pool's: items per block */

	switch (col) {
	case BC_ADDR:
		OV_FMT(v, "0x%llx", (unsigned long long)b->addr);
		break;
	case BC_KIND:
		OV_STR(v, b->dynamic ? "dynamic" : "prealloc");
		break;
	case BC_USED:
		OV_U64(v, b->used);
		break;
	case BC_IDLE:
		OV_U64(v, block_idle(b, o->items_per_block));
		break;
	case BC_UNISSUED:
		OV_U64(v, b->unissued);
		break;
	case BC_CURRENT:
		OV_BOOL(v, b->current);
		break;
	case BC_SPARSE:
		OV_BOOL(v, block_sparse(b, o->items_per_block));
		break;
	case BC_NOTE:
		OV_STR(v, b->current			      ? "current" :
			  block_sparse(b, o->items_per_block) ? "sparse" :
								"");
		break;
	}
}

struct oview block_oview(const struct block_occupancy *o)
{
	return (struct oview){ block_cols, BC_MAX, block_cell, (void *)o, NULL };
}

static void title(FILE *f, const struct pool_block_view *v)
{
	const struct block_occupancy *o = &v->pb->occ;
	char dev[64], b[16];

	fprintf(f,
		"pool %s %s (%s): %u pre-allocated + %u dynamic blocks of %u items; "
		"%u of %u items in use",
		v->row->ident, v->row->device[0] ? esc_str(v->row->device, dev, sizeof(dev)) : "-",
		row_state_name(v->row->state), o->prealloc, o->dynamic, o->items_per_block,
		occ_used(o), occ_items(o));
	if (o->sparse)
		fprintf(f, "; %u sparse dynamic %s (%s held for under a quarter of their items)",
			o->sparse, o->sparse == 1 ? "block" : "blocks",
			fmt_bytes(b, sizeof(b), (double)o->sparse * v->page_size));
	fputc('\n', f);
	if (o->truncated)
		fprintf(f, "  (more than %d blocks: the rest not walked)\n", PPW_MAX_BLOCKS);
	if (v->pb->blocks_cut)
		fprintf(f, "  (the first %zu blocks listed)\n", v->pb->nblocks);
}

void render_blocks_text(FILE *f, const struct pool_block_view *v, size_t n, bool wide)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct oview ov = block_oview(&v[i].pb->occ);

		if (i)
			fputc('\n', f);
		title(f, &v[i]);
		out_text(f, &ov, v[i].pb->blocks, v[i].pb->nblocks, sizeof(*v[i].pb->blocks), wide,
			 true);
	}
}

void render_blocks_json(struct json *j, const struct pool_block_view *v, size_t n)
{
	size_t i;

	json_key(j, "pools");
	json_arr_open(j);
	for (i = 0; i < n; i++) {
		const struct block_occupancy *o = &v[i].pb->occ;
		struct oview ov = block_oview(o);

		json_obj_open(j);
		render_pool_ref_json(j, v[i].row);
		json_kv_s64(j, "inflight", v[i].row->inflight);
		json_kv_u64(j, "items_per_block", o->items_per_block);
		json_kv_u64(j, "blocks_prealloc", o->prealloc);
		json_kv_u64(j, "blocks_dynamic", o->dynamic);
		json_kv_u64(j, "items", occ_items(o));
		json_kv_u64(j, "items_used", occ_used(o));
		json_kv_u64(j, "items_used_dynamic", o->used_dynamic);
		json_kv_u64(j, "items_unissued", o->unissued);
		json_kv_u64(j, "sparse_blocks", o->sparse);
		json_kv_bool(j, "truncated", o->truncated);
		json_kv_bool(j, "blocks_cut", v[i].pb->blocks_cut);
		json_key(j, "blocks");
		out_json_rows(j, &ov, v[i].pb->blocks, v[i].pb->nblocks, sizeof(*v[i].pb->blocks));
		json_obj_close(j);
	}
	json_arr_close(j);
}
