// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "model/counter_names.h"
#include "output/pool_table.h"
#include "output/recycle_table.h"

/* ---- the pool view ------------------------------------------------------- */

enum pool_col {
	PC_ID,
	PC_POOL,
	PC_DEVICE,
	PC_IFNAME,
	PC_IFINDEX,
	PC_NETNS,
	PC_NAPI,
	PC_STATE,
	PC_INFLIGHT,
	PC_BYTES,
	PC_HOLD_RATE,
	PC_REL_RATE,
	PC_OLDEST,
	PC_DETACH_AGE,
	PC_BEFORE,
	PC_LEDGER,
	PC_UNTRACKED,
	PC_RETRIES,
	PC_DRIVER,
	PC_DEVNAME,
	PC_DETACH_TIME,
	PC_FREED_AGE,
	PC_ZOMBIE_S,
	PC_NETLINK,
	PC_DMA_MAP,
	PC_ORDER,
	PC_POOL_SIZE,
	PC_NID,
	PC_HOLD_CNT,
	PC_REL_CNT,
	PC_DESTROY_CNT,
	PC_LAST_INFLIGHT,
	PC_SEEN_AGE,
	PC_NETNS_COOKIE,
	PC_ADDR,
	PC_GEN,
	PC_OLDEST_LB,
	PC_DMA,
	PC_DMA_LEFT,
	PC_DMA_UNMAPPED,
	PC_DMA_AGE,
	PC_FAST_EMPTY,
	PC_SLOW_FAILED,
	PC_BLOCKS,
	PC_BLK_ITEMS,
	PC_BLK_SPARSE,
	PC_AGES,
	PC_BEFORE_MIN,
	PC_BEFORE_MAX,
	PC_PHANTOM,
	PC_RECYCLE_PCT,
	PC_MAX
};

static const struct ocol pool_cols[PC_MAX] = {
	[PC_ID] = { "id", "ID", 4, OF_PLAIN, OC_JSON },
	/* the pool's name: its kernel id, else x<XDP mem id>, else @<address> */
	[PC_POOL] = { "pool", "POOL", 4, OF_PLAIN, 0 },
	[PC_DEVICE] = { "device", "DEVICE", 12, OF_PLAIN, OC_LEFT },
	[PC_IFNAME] = { "ifname", "IFNAME", 12, OF_PLAIN, OC_JSON },
	[PC_IFINDEX] = { "ifindex", "IFINDEX", 7, OF_PLAIN, OC_WIDE },
	[PC_NETNS] = { "netns", "NETNS", 10, OF_PLAIN, OC_WIDE },
	[PC_NAPI] = { "napi_id", "NAPI", 6, OF_PLAIN, OC_WIDE },
	[PC_STATE] = { "state", "STATE", 6, OF_PLAIN, OC_LEFT },
	[PC_INFLIGHT] = { "inflight", "INFLIGHT", 8, OF_PLAIN, 0 },
	[PC_BYTES] = { "inflight_bytes", "BYTES", 7, OF_BYTES, 0 },
	[PC_HOLD_RATE] = { "hold_per_s", "HOLD/s", 6, OF_RATE, 0 },
	[PC_REL_RATE] = { "release_per_s", "REL/s", 6, OF_RATE, 0 },
	[PC_OLDEST] = { "oldest_age_s", "OLDEST", 7, OF_AGE, 0 },
	[PC_DETACH_AGE] = { "detach_age_s", "DETACH", 7, OF_AGE, 0 },
	[PC_DMA] = { "dma", "DMA", 8, OF_PLAIN, OC_LEFT },
	[PC_BEFORE] = { "before_start", "BEFORE", 7, OF_PLAIN, OC_WIDE },
	[PC_LEDGER] = { "ledger_pages", "LEDGER", 7, OF_PLAIN, OC_WIDE },
	[PC_UNTRACKED] = { "untracked", "UNTRACKD", 8, OF_PLAIN, OC_WIDE },
	[PC_RETRIES] = { "retries", "RETRY", 5, OF_PLAIN, OC_WIDE },
	[PC_DRIVER] = { "driver", "DRIVER", 8, OF_PLAIN, OC_WIDE | OC_LEFT },
	[PC_DEVNAME] = { "dev_name", "DEVNAME", 12, OF_PLAIN, OC_JSON },
	[PC_DETACH_TIME] = { "detach_time", "DETACH_T", 8, OF_PLAIN, OC_JSON },
	[PC_FREED_AGE] = { "freed_age_s", "FREED", 7, OF_AGE, OC_JSON },
	[PC_ZOMBIE_S] = { "zombie_s", "ZOMBIE", 7, OF_AGE, OC_JSON },
	[PC_NETLINK] = { "netlink", "NL", 3, OF_PLAIN, OC_JSON },
	[PC_DMA_MAP] = { "dma_map", "DMA", 3, OF_PLAIN, OC_JSON },
	[PC_ORDER] = { "order", "ORDER", 5, OF_PLAIN, OC_JSON },
	[PC_POOL_SIZE] = { "pool_size", "SIZE", 5, OF_PLAIN, OC_JSON },
	[PC_NID] = { "nid", "NID", 4, OF_PLAIN, OC_JSON },
	[PC_HOLD_CNT] = { "hold_cnt", "HOLD", 10, OF_PLAIN, OC_JSON },
	[PC_REL_CNT] = { "release_cnt", "RELEASE", 10, OF_PLAIN, OC_JSON },
	[PC_DESTROY_CNT] = { "destroy_cnt", "DESTROY", 7, OF_PLAIN, OC_JSON },
	[PC_LAST_INFLIGHT] = { "last_release_inflight", "LASTINF", 7, OF_PLAIN, OC_JSON },
	[PC_SEEN_AGE] = { "seen_age_s", "SEEN", 7, OF_AGE, OC_JSON },
	[PC_NETNS_COOKIE] = { "netns_cookie", "COOKIE", 8, OF_PLAIN, OC_JSON },
	[PC_ADDR] = { "addr", "ADDR", 18, OF_PLAIN, OC_JSON },
	[PC_GEN] = { "gen", "GEN", 5, OF_PLAIN, OC_JSON },
	[PC_OLDEST_LB] = { "oldest_age_is_lower_bound", "LB", 2, OF_PLAIN, OC_JSON },
	[PC_DMA_LEFT] = { "dma_still_mapped", "MAPPED", 7, OF_PLAIN, OC_JSON },
	[PC_DMA_UNMAPPED] = { "dma_unmapped_at_destroy", "UNMAPPD", 7, OF_PLAIN, OC_JSON },
	[PC_DMA_AGE] = { "dma_unmap_age_s", "UNMAP_T", 7, OF_AGE, OC_JSON },
	/* text only: JSON has them in "items" (pool_json_extra) */
	[PC_FAST_EMPTY] = { "item_fast_empty", "FASTEMPTY", 9, OF_PLAIN, OC_WIDE | OC_TEXT },
	[PC_SLOW_FAILED] = { "item_slow_failed", "SLOWFAIL", 8, OF_PLAIN, OC_WIDE | OC_TEXT },
	[PC_BLOCKS] = { "item_blocks", "BLOCKS", 9, OF_PLAIN, OC_WIDE | OC_TEXT | OC_LEFT },
	/* text only: JSON has the walk's totals in "block_occupancy" */
	[PC_BLK_ITEMS] = { "block_items", "ITEMS", 11, OF_PLAIN, OC_WIDE | OC_TEXT },
	[PC_BLK_SPARSE] = { "sparse_blocks", "SPARSE", 6, OF_PLAIN, OC_WIDE | OC_TEXT },
	/* where the ages come from: exact, sampled (estimates), none (counters) */
	[PC_AGES] = { "ages", "AGES", 7, OF_PLAIN, OC_JSON },
	[PC_BEFORE_MIN] = { "before_start_at_least", "BEFMIN", 7, OF_PLAIN, OC_JSON },
	[PC_BEFORE_MAX] = { "before_start_at_most", "BEFMAX", 7, OF_PLAIN, OC_JSON },
	/* ledger pages the kernel's count says are gone (lost releases): out of ages */
	[PC_PHANTOM] = { "phantom_pages", "PHANTOM", 7, OF_PLAIN, OC_WIDE },
	/* text only: JSON has it in "stats" (render_pool_stats_json) */
	[PC_RECYCLE_PCT] = { "recycling_pct", "RECYC%", 6, OF_PLAIN, OC_WIDE | OC_TEXT },
};

/* the DMA state: its name, and in text a short form with the count of a hazard */
static void dma_cell(struct oval *v, const struct pool_row *r)
{
	OV_STR(v, dma_state_name(r->dma));
	switch (r->dma) {
	case DMA_NOT_MAPPED:
		v->text = "-";
		break;
	case DMA_UNMAP_PENDING:
		v->text = "pending";
		break;
	case DMA_HAZARD:
		if (r->dma_still_mapped > 0)
			snprintf(v->buf, sizeof(v->buf), "HAZ:%lld",
				 (long long)r->dma_still_mapped);
		else
			snprintf(v->buf, sizeof(v->buf), "HAZARD");
		v->text = v->buf;
		break;
	default:
		break;
	}
}

static void pool_cell(const void *p, int col, struct oval *v, void *arg)
{
	const struct pool_row *r = p;
	const struct snapshot *snap = arg; /* for the time it was taken */

	switch (col) {
	case PC_ID:
		OV_U64(v, r->id);
		v->null = !r->id;
		break;
	case PC_POOL:
		OV_STR(v, r->ident);
		break;
	case PC_DEVICE:
		OV_STR(v, r->device);
		break;
	case PC_IFNAME:
		OV_STR(v, r->ifname);
		v->null = !r->ifname[0];
		break;
	case PC_IFINDEX:
		OV_S64(v, r->ifindex);
		v->null = r->ifindex <= 0;
		break;
	case PC_NETNS:
		OV_U64(v, r->netns_ino);
		v->null = !r->netns_ino;
		break;
	case PC_NAPI:
		OV_U64(v, r->napi_id);
		v->null = !r->napi_id;
		break;
	case PC_STATE:
		OV_STR(v, row_state_name(r->state));
		break;
	case PC_INFLIGHT:
		OV_S64(v, r->inflight);
		break;
	case PC_BYTES:
		OV_U64(v, r->inflight_bytes);
		break;
	case PC_HOLD_RATE:
		OV_F64(v, r->hold_per_s);
		break;
	case PC_REL_RATE:
		OV_F64(v, r->release_per_s);
		break;
	case PC_OLDEST:
		OV_F64(v, r->oldest_age_s);
		v->at_least = r->oldest_at_least;
		v->estimate = r->sampled;
		break;
	case PC_DETACH_AGE:
		OV_F64(v, r->detach_age_s);
		break;
	case PC_BEFORE:
		OV_S64(v, r->before_start);
		v->null = r->before_start < 0;
		v->estimate = r->sampled;
		break;
	case PC_BEFORE_MIN:
		OV_S64(v, r->before_start_min);
		v->null = !r->has_record;
		break;
	case PC_BEFORE_MAX:
		OV_S64(v, r->before_start_max);
		v->null = !r->has_record || r->before_start_max < 0;
		break;
	case PC_PHANTOM:
		OV_S64(v, r->phantoms);
		v->null = !r->has_record || r->phantoms < 0;
		break;
	case PC_LEDGER:
		OV_S64(v, r->ledger_pages);
		v->null = !r->has_record || r->ledger_pages < 0;
		break;
	case PC_UNTRACKED:
		OV_S64(v, r->untracked);
		v->null = !r->has_record || r->untracked < 0;
		break;
	case PC_AGES:
		OV_STR(v, !r->has_record      ? "none" :
			  r->ledger_pages < 0 ? "counters" :
			  r->sampled	      ? "sampled" :
						"exact");
		break;
	case PC_RETRIES:
		OV_U64(v, r->retries);
		v->null = !r->has_record;
		break;
	case PC_DRIVER:
		OV_STR(v, r->driver);
		v->null = !r->driver[0];
		break;
	case PC_DEVNAME:
		OV_STR(v, r->devname);
		v->null = !r->devname[0];
		break;
	case PC_DETACH_TIME:
		/* netlink's detach-time: CLOCK_BOOTTIME seconds */
		OV_U64(v, isfinite(r->detach_age_s) ? (__u64)(snap->ts_ns / 1e9 - r->detach_age_s) :
						      0);
		v->null = !isfinite(r->detach_age_s);
		break;
	case PC_FREED_AGE:
		OV_F64(v, r->freed_age_s);
		break;
	case PC_ZOMBIE_S:
		OV_F64(v, r->zombie_s);
		break;
	case PC_NETLINK:
		OV_BOOL(v, r->netlink || (r->flags & PPW_PF_HAS_NETDEV));
		break;
	case PC_DMA_MAP:
		OV_BOOL(v, r->flags & PPW_PF_DMA_MAP);
		v->null = !r->has_record;
		break;
	case PC_ORDER:
		OV_U64(v, r->order);
		v->null = !r->has_record;
		break;
	case PC_POOL_SIZE:
		OV_U64(v, r->pool_size);
		v->null = !r->has_record;
		break;
	case PC_NID:
		OV_S64(v, r->nid);
		v->null = !r->has_record;
		break;
	case PC_HOLD_CNT:
		OV_U64(v, r->hold_cnt);
		v->null = !r->has_record;
		break;
	case PC_REL_CNT:
		OV_U64(v, r->release_cnt);
		v->null = !r->has_record;
		break;
	case PC_DESTROY_CNT:
		OV_U64(v, r->destroy_cnt);
		v->null = !r->has_record;
		break;
	case PC_LAST_INFLIGHT:
		OV_S64(v, r->last_inflight);
		v->null = !r->has_record || !r->destroy_cnt;
		break;
	case PC_SEEN_AGE:
		OV_F64(v, r->seen_age_s);
		break;
	case PC_NETNS_COOKIE:
		OV_U64(v, r->netns_cookie);
		v->null = !r->netns_cookie;
		break;
	case PC_ADDR:
		OV_FMT(v, "0x%llx", (unsigned long long)r->addr);
		v->null = !r->addr;
		break;
	case PC_GEN:
		OV_U64(v, r->gen);
		v->null = !r->has_record;
		break;
	case PC_OLDEST_LB:
		OV_BOOL(v, r->oldest_at_least);
		v->null = isnan(r->oldest_age_s);
		break;
	case PC_DMA:
		dma_cell(v, r);
		break;
	case PC_DMA_LEFT:
		OV_S64(v, r->dma_still_mapped);
		v->null = r->dma_still_mapped < 0;
		break;
	case PC_DMA_UNMAPPED:
		OV_S64(v, r->dma_unmapped_at_destroy);
		v->null = r->dma_unmapped_at_destroy < 0;
		break;
	case PC_DMA_AGE:
		OV_F64(v, r->dma_unmap_age_s);
		break;
	case PC_FAST_EMPTY:
		if (r->item_stats)
			OV_U64(v, r->item_fast_empty);
		else
			OV_STR(v, r->has_record ? "n/a" : "");
		break;
	case PC_SLOW_FAILED:
		if (r->item_stats)
			OV_U64(v, r->item_slow_failed);
		else
			OV_STR(v, r->has_record ? "n/a" : "");
		break;
	case PC_BLOCKS:
		if (r->occ_known) { /* the walk: pre-allocated+dynamic */
			OV_FMT(v, "%u+%u", r->occ.prealloc, r->occ.dynamic);
		} else if (r->item_blocks) {
			OV_FMT(v, "%llu+%llu", (unsigned long long)r->blocks_prealloc,
			       (unsigned long long)r->blocks_dyn);
		} else {
			OV_STR(v, r->has_record ? "n/a" : "");
		}
		break;
	case PC_BLK_ITEMS: /* items in use of the blocks' items */
		if (r->occ_known) {
			OV_FMT(v, "%u/%u", occ_used(&r->occ), occ_items(&r->occ));
		} else {
			OV_STR(v, r->has_record ? "n/a" : "");
		}
		break;
	case PC_RECYCLE_PCT:
		OV_F64(v, r->recycling_pct);
		break;
	case PC_BLK_SPARSE:
		if (r->occ_known)
			OV_U64(v, r->occ.sparse);
		else
			OV_STR(v, r->has_record ? "n/a" : "");
		break;
	}
}

/*
 * "items": the item-block counters, null on kernels without them ("not
 * available", never 0); "dma_index_failed", "dma_map_failed": the xarray
 * series' counters, null without it; "destroy_unmap": the item series'
 * page_pool_destroy_unmap, null until it fired.
 */
static void pool_json_extra(struct json *j, const void *p, void *arg)
{
	static const char *const age_keys[POOL_AGE_BUCKETS] = {
		"lt_1s", "lt_10s", "lt_1m", "lt_10m", "lt_1h", "ge_1h",
	};
	const struct pool_row *r = p;
	int b;

	/* the ledger's pages by age (the sample's, at the sampled level) */
	json_key(j, "page_ages");
	if (r->ledger_pages < 0 || !r->has_record) {
		json_put_null(j);
	} else {
		json_obj_open(j);
		for (b = 0; b < POOL_AGE_BUCKETS; b++)
			json_kv_u64(j, age_keys[b], r->age_hist[b]);
		json_obj_close(j);
	}

	/* the ledger's losses for this pool, by kind (render_losses_json() has the host's) */
	json_key(j, "ledger_losses");
	if (r->ledger_pages < 0 || !r->has_record) {
		json_put_null(j);
	} else {
		json_obj_open(j);
		json_kv_u64(j, "hold_lost", r->hold_lost);
		json_kv_u64(j, "release_lost", r->release_lost);
		json_kv_u64(j, "ties", r->ties);
		json_kv_u64(j, "lost", r->lost);
		json_obj_close(j);
	}

	json_key(j, "items");
	if (!r->item_stats && !r->item_blocks) {
		json_put_null(j);
	} else {
		json_obj_open(j);
		json_key(j, "fast_empty");
		r->item_stats ? json_u64(j, r->item_fast_empty) : json_put_null(j);
		json_key(j, "slow_failed");
		r->item_stats ? json_u64(j, r->item_slow_failed) : json_put_null(j);
		json_key(j, "blocks_prealloc");
		r->item_blocks ? json_u64(j, r->blocks_prealloc) : json_put_null(j);
		json_key(j, "blocks_dyn");
		r->item_blocks ? json_u64(j, r->blocks_dyn) : json_put_null(j);
		json_key(j, "blocks_dyn_alloc");
		r->item_blocks ? json_u64(j, r->blocks_dyn_alloc) : json_put_null(j);
		json_key(j, "blocks_dyn_free");
		r->item_blocks ? json_u64(j, r->blocks_dyn_free) : json_put_null(j);
		json_obj_close(j);
	}
	json_key(j, "dma_index_failed");
	r->dma_index_stats ? json_u64(j, r->dma_index_failed) : json_put_null(j);
	json_key(j, "dma_map_failed");
	r->dma_map_stats ? json_u64(j, r->dma_map_failed) : json_put_null(j);
	json_key(j, "block_occupancy");
	if (!r->occ_known) {
		json_put_null(j);
	} else {
		json_obj_open(j);
		json_kv_u64(j, "items_per_block", r->occ.items_per_block);
		json_kv_u64(j, "blocks_prealloc", r->occ.prealloc);
		json_kv_u64(j, "blocks_dynamic", r->occ.dynamic);
		json_kv_u64(j, "items", occ_items(&r->occ));
		json_kv_u64(j, "items_used", occ_used(&r->occ));
		json_kv_u64(j, "items_used_dynamic", r->occ.used_dynamic);
		json_kv_u64(j, "items_unissued", r->occ.unissued);
		json_kv_u64(j, "sparse_blocks", r->occ.sparse);
		json_kv_bool(j, "truncated", r->occ.truncated);
		json_obj_close(j);
	}
	render_pool_stats_json(j, r);
	json_key(j, "destroy_unmap");
	if (!r->unmap_seen) {
		json_put_null(j);
		return;
	}
	json_obj_open(j);
	json_kv_str(j, "event", "page_pool_destroy_unmap");
	json_kv_s64(j, "inflight", r->unmap_inflight);
	json_kv_u64(j, "unmapped", r->unmap_pages);
	json_kv_u64(j, "blocks", r->unmap_blocks);
	json_kv_u64(j, "duration_ns", r->unmap_took_ns);
	json_kv_f64(j, "age_s", r->dma_unmap_age_s);
	json_obj_close(j);
}

struct oview pool_oview(const struct snapshot *s)
{
	return (struct oview){ pool_cols, PC_MAX, pool_cell, (void *)s, pool_json_extra };
}

void render_pools_text(FILE *f, const struct snapshot *s, bool wide, bool header)
{
	struct oview ov = pool_oview(s);

	out_text(f, &ov, s->rows, s->n, sizeof(*s->rows), wide, header);
}

void render_pools_json(struct json *j, const struct snapshot *s)
{
	struct oview ov = pool_oview(s);

	json_key(j, "pools");
	out_json_rows(j, &ov, s->rows, s->n, sizeof(*s->rows));
}

/* ---- the per-device view (ynltool's group-by device) ------------------------ */

enum group_col {
	GC_DEVICE,
	GC_IFNAME,
	GC_IFINDEX,
	GC_NETNS,
	GC_POOLS,
	GC_ZOMBIES,
	GC_LIVE_REFS,
	GC_LIVE_BYTES,
	GC_ZOMBIE_REFS,
	GC_ZOMBIE_BYTES,
	GC_HOLD_RATE,
	GC_REL_RATE,
	GC_OLDEST,
	GC_OLDEST_LB,
	GC_MAX
};

static const struct ocol group_cols[GC_MAX] = {
	[GC_DEVICE] = { "device", "DEVICE", 12, OF_PLAIN, OC_LEFT },
	[GC_IFNAME] = { "ifname", "IFNAME", 12, OF_PLAIN, OC_JSON },
	[GC_IFINDEX] = { "ifindex", "IFINDEX", 7, OF_PLAIN, 0 },
	[GC_NETNS] = { "netns", "NETNS", 10, OF_PLAIN, OC_WIDE },
	[GC_POOLS] = { "page_pools", "POOLS", 5, OF_PLAIN, 0 },
	[GC_ZOMBIES] = { "zombies", "ZOMBIES", 7, OF_PLAIN, 0 },
	[GC_LIVE_REFS] = { "live.refs", "LIVE", 8, OF_PLAIN, 0 },
	[GC_LIVE_BYTES] = { "live.bytes", "LIVE_B", 7, OF_BYTES, 0 },
	[GC_ZOMBIE_REFS] = { "zombie.refs", "ZOMBIE", 8, OF_PLAIN, 0 },
	[GC_ZOMBIE_BYTES] = { "zombie.bytes", "ZOMBIE_B", 8, OF_BYTES, 0 },
	[GC_HOLD_RATE] = { "hold_per_s", "HOLD/s", 7, OF_RATE, OC_WIDE },
	[GC_REL_RATE] = { "release_per_s", "REL/s", 7, OF_RATE, OC_WIDE },
	[GC_OLDEST] = { "oldest_age_s", "OLDEST", 7, OF_AGE, OC_WIDE },
	[GC_OLDEST_LB] = { "oldest_age_is_lower_bound", "LB", 2, OF_PLAIN, OC_JSON },
};

static void group_cell(const void *p, int col, struct oval *v, void *arg)
{
	const struct group_row *g = p;

	switch (col) {
	case GC_DEVICE:
		OV_STR(v, g->device);
		break;
	case GC_IFNAME:
		OV_STR(v, g->ifname);
		v->null = !g->ifname[0];
		break;
	case GC_IFINDEX:
		OV_S64(v, g->ifindex);
		v->null = g->ifindex <= 0;
		break;
	case GC_NETNS:
		OV_U64(v, g->netns_ino);
		v->null = !g->netns_ino;
		break;
	case GC_POOLS:
		OV_U64(v, g->page_pools);
		break;
	case GC_ZOMBIES:
		OV_U64(v, g->zombies);
		break;
	case GC_LIVE_REFS:
		OV_S64(v, g->live_refs);
		break;
	case GC_LIVE_BYTES:
		OV_U64(v, g->live_bytes);
		break;
	case GC_ZOMBIE_REFS:
		OV_S64(v, g->zombie_refs);
		break;
	case GC_ZOMBIE_BYTES:
		OV_U64(v, g->zombie_bytes);
		break;
	case GC_HOLD_RATE:
		OV_F64(v, g->hold_per_s);
		break;
	case GC_REL_RATE:
		OV_F64(v, g->release_per_s);
		break;
	case GC_OLDEST:
		OV_F64(v, g->oldest_age_s);
		v->at_least = g->oldest_at_least;
		break;
	case GC_OLDEST_LB:
		OV_BOOL(v, g->oldest_at_least);
		v->null = isnan(g->oldest_age_s);
		break;
	}
}

struct oview group_oview(void)
{
	return (struct oview){ group_cols, GC_MAX, group_cell, NULL };
}

void render_groups_text(FILE *f, const struct group_row *g, size_t n, bool wide, bool header)
{
	struct oview ov = group_oview();

	out_text(f, &ov, g, n, sizeof(*g), wide, header);
}

void render_groups_json(struct json *j, const struct group_row *g, size_t n)
{
	struct oview ov = group_oview();

	json_key(j, "devices");
	out_json_rows(j, &ov, g, n, sizeof(*g));
}

/* ---- ledger use and losses ---------------------------------------------------- */

/* ledger_full by kind: "(hold 5 release 6 skipped 1)" */
static void render_full_kinds(FILE *f, const struct snapshot *s)
{
	const char *key;
	bool any = false;
	size_t i;
	int idx;

	for (i = 0; (key = loss_kind(i, &idx)); i++) {
		if (!s->counters[idx])
			continue;
		/* "ledger_hold_lost" -> "hold_lost" */
		fprintf(f, "%s%s %llu", any ? " " : " (", key + strlen("ledger_"),
			(unsigned long long)s->counters[idx]);
		any = true;
	}
	if (any)
		fputc(')', f);
}

void render_losses_text(FILE *f, const struct snapshot *s)
{
	const char *key;
	size_t i;
	int idx;

	if (s->level == PPW_LEVEL_COUNTERS)
		fprintf(f, "ledger off (counters: no page ages)");
	else if (s->level == PPW_LEVEL_SAMPLED)
		fprintf(f, "ledger sampled 1 in %u: %llu/%llu pages", s->sample_rate,
			(unsigned long long)s->pages_used, (unsigned long long)s->max_pages);
	else
		fprintf(f, "ledger %llu/%llu pages", (unsigned long long)s->pages_used,
			(unsigned long long)s->max_pages);
	fprintf(f, ", events hold %llu release %llu", (unsigned long long)s->counters[PPW_CNT_HOLD],
		(unsigned long long)s->counters[PPW_CNT_RELEASE]);
	/* what the fold decided or found (not losses: what it made of them) */
	for (i = 0; (key = ledger_note(i, &idx)); i++)
		if (s->counters[idx])
			fprintf(f, ", %s %llu", key, (unsigned long long)s->counters[idx]);
	fprintf(f, ", losses");
	if (!snapshot_losses(s)) {
		fprintf(f, " none\n");
		return;
	}
	for (i = 0; (key = loss_counter(i, &idx)); i++) {
		if (!s->counters[idx])
			continue;
		fprintf(f, " %s=%llu", key, (unsigned long long)s->counters[idx]);
		if (idx == PPW_CNT_LEDGER_FULL)
			render_full_kinds(f, s);
	}
	fputc('\n', f);
}

void render_losses_json(struct json *j, const struct snapshot *s)
{
	const char *key;
	size_t i;
	int idx;

	json_key(j, "ledger");
	json_obj_open(j);
	json_kv_str(j, "level", level_text(s->level));
	json_kv_u64(j, "sample_rate", s->level == PPW_LEVEL_SAMPLED ? s->sample_rate : 1);
	json_kv_u64(j, "pages", s->pages_used);
	json_kv_u64(j, "max_pages", s->max_pages);
	json_kv_u64(j, "memory_bytes", s->ledger_bytes);
	json_kv_u64(j, "hold_events", s->counters[PPW_CNT_HOLD]);
	json_kv_u64(j, "release_events", s->counters[PPW_CNT_RELEASE]);
	json_kv_u64(j, "pool_release_events", s->counters[PPW_CNT_POOL_RELEASE]);
	json_kv_u64(j, "unmatched_releases", s->counters[PPW_CNT_UNMATCHED]);
	json_kv_u64(j, "pool_reuses", s->counters[PPW_CNT_POOL_REUSE]);
	json_kv_u64(j, "overflowed", s->counters[PPW_CNT_LEDGER_SPILL]);
	json_kv_u64(j, "cpu_slot_evictions", s->counters[PPW_CNT_PCPU_EVICT]);
	for (i = 0; (key = ledger_note(i, &idx)); i++)
		json_kv_u64(j, key, s->counters[idx]);
	json_obj_close(j);
	json_key(j, "losses");
	json_obj_open(j);
	for (i = 0; (key = loss_counter(i, &idx)); i++)
		json_kv_u64(j, key, s->counters[idx]);
	/* ledger_full's kinds: in it, not beside it (snapshot_losses() sums the others) */
	for (i = 0; (key = loss_kind(i, &idx)); i++)
		json_kv_u64(j, key, s->counters[idx]);
	json_obj_close(j);
}

void render_kernel_json(struct json *j, const struct kernel_facts *k)
{
	const char *name, *what;
	int i;

	json_key(j, "kernel");
	json_obj_open(j);
	json_kv_str(j, "attach", k->attach);
	json_kv_str(j, "unmap_regime", unmap_regime_name(k->unmap));
	json_kv_bool(j, "netlink", k->netlink);
	json_kv_u64(j, "page_size", k->page_size);
	json_kv_bool(j, "pp_stats", k->pp_stats);
	json_kv_bool(j, "item_stats", k->item_stats);
	json_kv_bool(j, "item_blocks", k->item_blocks);
	json_kv_bool(j, "unmap_event", k->unmap_event);
	json_kv_bool(j, "dma_index_stats", k->dma_index_stats);
	json_kv_bool(j, "dma_map_stats", k->dma_map_stats);
	json_key(j, "unavailable");
	json_arr_open(j);
	for (i = 0; (name = kernel_gap(k, false, i, &what)); i++)
		json_str(j, name);
	json_arr_close(j);
	json_obj_close(j);
}

void render_pool_ref_json(struct json *j, const struct pool_row *r)
{
	char a[24];

	json_key(j, "id");
	r->id ? json_u64(j, r->id) : json_put_null(j);
	json_kv_str(j, "pool", r->ident);
	snprintf(a, sizeof(a), "0x%llx", (unsigned long long)r->addr);
	json_kv_str(j, "addr", a);
	json_kv_u64(j, "gen", r->gen);
	json_kv_str(j, "device", r->device);
	json_kv_str(j, "state", row_state_name(r->state));
}
