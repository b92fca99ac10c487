// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>

#include "output/recycle_table.h"

enum recycle_col {
	RC_ID,
	RC_POOL,
	RC_DEVICE,
	RC_STATE,
	RC_INFLIGHT,
	RC_ALLOC_RATE,
	RC_RECYCLE_RATE,
	RC_PCT,
	RC_FAST,
	RC_SLOW,
	RC_SLOW_HIGH,
	RC_EMPTY,
	RC_REFILL,
	RC_WAIVE,
	RC_CACHED,
	RC_CACHE_FULL,
	RC_RING,
	RC_RING_FULL,
	RC_RELEASED,
	RC_SOURCE,
	RC_MAX
};

/* the counters' keys are the JSON's ("stats" members): -s takes them */
static const struct ocol recycle_cols[RC_MAX] = {
	/* the pools view's default sort key, not shown */
	[RC_ID] = { "id", "ID", 4, OF_PLAIN, OC_JSON },
	[RC_POOL] = { "pool", "POOL", 4, OF_PLAIN, 0 },
	[RC_DEVICE] = { "device", "DEVICE", 12, OF_PLAIN, OC_LEFT },
	[RC_STATE] = { "state", "STATE", 6, OF_PLAIN, OC_LEFT },
	[RC_INFLIGHT] = { "inflight", "INFLIGHT", 8, OF_PLAIN, OC_WIDE },
	[RC_ALLOC_RATE] = { "alloc_per_s", "ALLOC/s", 7, OF_RATE, 0 },
	[RC_RECYCLE_RATE] = { "recycle_per_s", "RECYC/s", 7, OF_RATE, 0 },
	[RC_PCT] = { "recycling_pct", "RECYC%", 6, OF_PLAIN, 0 },
	[RC_FAST] = { "alloc_fast", "FAST", 10, OF_PLAIN, 0 },
	[RC_SLOW] = { "alloc_slow", "SLOW", 8, OF_PLAIN, 0 },
	[RC_SLOW_HIGH] = { "alloc_slow_high_order", "SLOW_HO", 7, OF_PLAIN, OC_WIDE },
	[RC_EMPTY] = { "alloc_empty", "EMPTY", 8, OF_PLAIN, 0 },
	[RC_REFILL] = { "alloc_refill", "REFILL", 8, OF_PLAIN, 0 },
	[RC_WAIVE] = { "alloc_waive", "WAIVE", 6, OF_PLAIN, OC_WIDE },
	[RC_CACHED] = { "recycle_cached", "CACHED", 10, OF_PLAIN, 0 },
	[RC_CACHE_FULL] = { "recycle_cache_full", "C_FULL", 8, OF_PLAIN, OC_WIDE },
	[RC_RING] = { "recycle_ring", "RING", 10, OF_PLAIN, 0 },
	[RC_RING_FULL] = { "recycle_ring_full", "R_FULL", 8, OF_PLAIN, OC_WIDE },
	[RC_RELEASED] = { "recycle_released_refcnt", "RELEASED", 8, OF_PLAIN, 0 },
	[RC_SOURCE] = { "source", "SOURCE", 7, OF_PLAIN, OC_WIDE | OC_LEFT },
};

static void recycle_cell(const void *p, int col, struct oval *v, void *arg)
{
	const struct pool_row *r = p;
	bool known = r->stats.source != PPS_NONE;

	(void)arg;
	switch (col) {
	case RC_ID:
		OV_U64(v, r->id);
		v->null = !r->id;
		return;
	case RC_POOL:
		OV_STR(v, r->ident);
		return;
	case RC_DEVICE:
		OV_STR(v, r->device);
		return;
	case RC_STATE:
		OV_STR(v, row_state_name(r->state));
		return;
	case RC_INFLIGHT:
		OV_S64(v, r->inflight);
		return;
	case RC_ALLOC_RATE:
		OV_F64(v, r->alloc_per_s);
		return;
	case RC_RECYCLE_RATE:
		OV_F64(v, r->recycle_per_s);
		return;
	case RC_PCT:
		OV_F64(v, r->recycling_pct);
		return;
	case RC_SOURCE:
		OV_STR(v, pp_stats_source_name(r->stats.source));
		v->null = !known;
		return;
	}
	if (col >= RC_FAST && col <= RC_WAIVE) {
		OV_U64(v, r->stats.alloc[col - RC_FAST]);
		v->null = !known;
	} else {
		OV_U64(v, r->stats.recycle[col - RC_CACHED]);
		v->null = !known || !r->stats.recycle_known;
	}
}

struct oview recycle_oview(void)
{
	return (struct oview){ recycle_cols, RC_MAX, recycle_cell, NULL };
}

void render_recycle_text(FILE *f, const struct snapshot *s, bool wide, bool header)
{
	struct oview ov = recycle_oview();

	out_text(f, &ov, s->rows, s->n, sizeof(*s->rows), wide, header);
}

void render_pool_stats_json(struct json *j, const struct pool_row *r)
{
	const struct pp_stats *s = &r->stats;
	int i;

	json_key(j, "stats");
	if (s->source == PPS_NONE) {
		json_put_null(j);
		return;
	}
	json_obj_open(j);
	json_kv_str(j, "source", pp_stats_source_name(s->source));
	for (i = 0; i < PPW_ALLOC_MAX; i++)
		json_kv_u64(j, pp_alloc_key(i), s->alloc[i]);
	for (i = 0; i < PPW_RECYCLE_MAX; i++) {
		json_key(j, pp_recycle_key(i));
		s->recycle_known ? json_u64(j, s->recycle[i]) : json_put_null(j);
	}
	json_kv_f64(j, "recycling_pct", r->recycling_pct);
	json_kv_f64(j, "alloc_per_s", r->alloc_per_s);
	json_kv_f64(j, "recycle_per_s", r->recycle_per_s);
	json_obj_close(j);
}

bool pool_stats_known(const void *pool_row)
{
	return ((const struct pool_row *)pool_row)->stats.source != PPS_NONE;
}

void record_pool_stats(struct json *j, const char *key, const void *pool_row)
{
	const struct pool_row *r = pool_row;
	const struct pp_stats *s = &r->stats;
	int i;

	json_key(j, key);
	json_obj_open(j);
	json_kv_str(j, "source", pp_stats_source_name(s->source));
	for (i = 0; i < PPW_ALLOC_MAX; i++)
		json_kv_u64(j, pp_alloc_key(i), s->alloc[i]);
	for (i = 0; s->recycle_known && i < PPW_RECYCLE_MAX; i++)
		json_kv_u64(j, pp_recycle_key(i), s->recycle[i]);
	if (isfinite(r->recycling_pct))
		json_kv_f64(j, "recycling_pct", r->recycling_pct);
	if (isfinite(r->alloc_per_s))
		json_kv_f64(j, "alloc_per_s", r->alloc_per_s);
	if (isfinite(r->recycle_per_s))
		json_kv_f64(j, "recycle_per_s", r->recycle_per_s);
	json_obj_close(j);
}
