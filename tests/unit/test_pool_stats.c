// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Allocation and recycling statistics without root: the records stats_walk
 * writes, parsed (whole, cut, malformed) and found; a row's counters from
 * netlink or the walk, ynltool's ratio and the rates; the JSON member and
 * the recycling view's text.
 */
#include <errno.h>
#include <math.h>

#include <jansson.h>

#include "unit.h"

#include "fixtures.h"
#include "lib/json.h"
#include "model/kernel.h"
#include "model/pool_stats.h"
#include "model/reading.h"
#include "output/pool_table.h"
#include "output/recycle_table.h"

#define POOL_A 0xffff888100007000ULL
#define POOL_B 0xffff888100009000ULL

static struct ppw_stats_rec rec(__u64 pool, __u32 gen, __u32 flags, __u64 fast)
{
	struct ppw_stats_rec r = { .pool = pool, .gen = gen, .flags = flags };
	int i;

	for (i = 0; i < PPW_ALLOC_MAX; i++)
		r.alloc[i] = fast * (i + 1);
	for (i = 0; i < PPW_RECYCLE_MAX; i++)
		r.recycle[i] = fast * (i + 10);
	return r;
}

static void test_parse(void)
{
	struct ppw_stats_rec v[3] = {
		rec(POOL_B, 2, PPW_STATS_ALLOC | PPW_STATS_RECYCLE, 7),
		rec(POOL_A, 1, PPW_STATS_ALLOC, 3),
		rec(POOL_A, 4, PPW_STATS_ALLOC | PPW_STATS_RECYCLE, 5),
	};
	struct stats_scan s = {};
	const struct ppw_stats_rec *r;
	struct pp_stats st;

	CHECK_INT(stats_parse(&s, v, sizeof(v)), 0);
	CHECK_INT(s.n, 3);
	r = stats_find(&s, POOL_A, 4);
	CHECK(r && r->alloc[PPW_ALLOC_FAST] == 5, "pool A gen 4");
	CHECK(stats_find(&s, POOL_A, 2) == NULL, "no pool A gen 2");
	r = stats_find(&s, POOL_A, 1);
	CHECK(r != NULL, "pool A gen 1");
	if (r) {
		/* the per-CPU counters unread: the recycle side unknown, never 0 */
		pp_stats_of_rec(&st, r);
		CHECK(st.source == PPS_BPF && !st.recycle_known, "bpf, recycle unknown");
		CHECK(st.recycle[PPW_RECYCLE_RING] == 0 && st.alloc[PPW_ALLOC_SLOW] == 6,
		      "alloc copied, recycle not");
		CHECK(isnan(pp_recycling_pct(&st)), "no ratio without the recycle side");
	}
	stats_scan_free(&s);
	/* a cut record, then a record without its allocation counters */
	CHECK_INT(stats_parse(&s, v, sizeof(v) - 1), -EINVAL);
	CHECK_INT(s.n, 2);
	stats_scan_free(&s);
	v[1].flags = 0;
	CHECK_INT(stats_parse(&s, v, sizeof(v)), -EINVAL);
	stats_scan_free(&s);
	CHECK(stats_find(&s, POOL_A, 1) == NULL, "an empty scan finds nothing");
}

/* ynltool's page-pool stats: (ring + cached) / (fast + refill + slow) * 100 */
static void test_ratio(void)
{
	struct pp_stats s = { .source = PPS_NETLINK, .recycle_known = true };

	CHECK(isnan(pp_recycling_pct(&s)), "nothing allocated: no ratio");
	s.alloc[PPW_ALLOC_FAST] = 600;
	s.alloc[PPW_ALLOC_REFILL] = 100;
	s.alloc[PPW_ALLOC_SLOW] = 300;
	s.alloc[PPW_ALLOC_SLOW_HIGH_ORDER] = 1000; /* not in the divisor */
	s.alloc[PPW_ALLOC_EMPTY] = 50;		   /* part of slow already */
	s.recycle[PPW_RECYCLE_RING] = 250;
	s.recycle[PPW_RECYCLE_CACHED] = 500;
	s.recycle[PPW_RECYCLE_RELEASED_REFCNT] = 99; /* released, not recycled */
	CHECK_INT(pp_allocated(&s), 1000);
	CHECK_INT(pp_recycled(&s), 750);
	CHECK(fabs(pp_recycling_pct(&s) - 75.0) < 1e-9, "75%%: %f", pp_recycling_pct(&s));
	s.source = PPS_NONE;
	CHECK(isnan(pp_recycling_pct(&s)), "unknown: no ratio");
	CHECK_STR(pp_alloc_key(PPW_ALLOC_SLOW_HIGH_ORDER), "alloc_slow_high_order");
	CHECK_STR(pp_recycle_key(PPW_RECYCLE_RELEASED_REFCNT), "recycle_released_refcnt");
	CHECK(pp_alloc_key(PPW_ALLOC_MAX) == NULL && pp_recycle_key(-1) == NULL, "out of range");
}

/* netlink's counters win where it lists the pool; the walk's elsewhere; rates between rows */
static void test_row(void)
{
	struct ppw_stats_rec v = rec(POOL_A, 1, PPW_STATS_ALLOC | PPW_STATS_RECYCLE, 10);
	struct stats_scan s = {};
	struct pool_obs o[2] = {};
	struct reading rd = { .pools = o, .n = 2 };
	struct pool_row w = {}, prev = {};

	o[0].rec.addr = POOL_A;
	o[0].rec.gen = 1;
	o[1].rec.addr = POOL_B; /* no record of it in the walk */
	o[1].rec.gen = 1;
	CHECK_INT(stats_parse(&s, &v, sizeof(v)), 0);
	reading_add_stats(&rd, &s);
	CHECK(o[0].stats.source == PPS_BPF && o[1].stats.source == PPS_NONE, "walk's pools only");
	stats_scan_free(&s);

	pool_stats_row(&w, &o[1], NULL, 0);
	CHECK(w.stats.source == PPS_NONE && isnan(w.recycling_pct) && isnan(w.alloc_per_s),
	      "unknown stays unknown");
	pool_stats_row(&prev, &o[0], NULL, 0);
	CHECK(prev.stats.source == PPS_BPF && isnan(prev.alloc_per_s),
	      "no rate without a previous");
	/* fast 10, refill 50, slow 20: 80 allocated; ring 120 + cached 100 */
	CHECK(fabs(prev.recycling_pct - 275.0) < 1e-9, "ratio %f", prev.recycling_pct);

	o[0].has_nl = true;
	o[0].nl.stats = o[0].stats;
	o[0].nl.stats.source = PPS_NETLINK;
	o[0].nl.stats.alloc[PPW_ALLOC_FAST] += 40;    /* 120 allocated */
	o[0].nl.stats.recycle[PPW_RECYCLE_RING] += 8; /* 228 recycled */
	pool_stats_row(&w, &o[0], &prev, 2.0);
	CHECK(w.stats.source == PPS_NETLINK, "netlink's where it lists the pool");
	CHECK(fabs(w.alloc_per_s - 20.0) < 1e-9, "alloc/s %f", w.alloc_per_s);
	CHECK(fabs(w.recycle_per_s - 4.0) < 1e-9, "recycle/s %f", w.recycle_per_s);
	/* a counter that went back (another pool behind the row): no rate */
	prev.stats.alloc[PPW_ALLOC_FAST] = 1000;
	pool_stats_row(&w, &o[0], &prev, 2.0);
	CHECK(isnan(w.alloc_per_s) && !isnan(w.recycle_per_s), "no rate backwards");
	/* the previous row's recycle side unknown: no recycle rate */
	prev.stats.recycle_known = false;
	pool_stats_row(&w, &o[0], &prev, 2.0);
	CHECK(isnan(w.recycle_per_s), "no recycle rate from an unknown");
}

static void test_render(void)
{
	struct pool_row rows[2] = { fixture_row(7, "eth0", ROW_LIVE, 10, 1.0),
				    fixture_row(8, "vb", ROW_LIVE, 5, 1.0) };
	struct snapshot snap = { .rows = rows, .n = 2 };
	char *buf = NULL;
	json_t *doc;
	struct json j;

	rows[0].stats = (struct pp_stats){ .source = PPS_NETLINK,
					   .recycle_known = true,
					   .alloc = { 600, 300, 0, 7, 100, 0 },
					   .recycle = { 500, 1, 250, 0, 3 } };
	rows[0].recycling_pct = pp_recycling_pct(&rows[0].stats);
	rows[0].alloc_per_s = 12.0;
	rows[0].recycle_per_s = NAN;
	rows[1].recycling_pct = rows[1].alloc_per_s = rows[1].recycle_per_s = NAN;
	CAPTURE(buf, f, {
		json_init(&j, f, false);
		json_obj_open(&j);
		render_pools_json(&j, &snap);
		json_obj_close(&j);
		json_end(&j);
	});
	doc = json_loads(buf, 0, NULL);
	CHECK(doc != NULL, "JSON: %s", buf);
	CHECK_JSON(doc, "pools/0/stats/source=\"netlink\" pools/0/stats/alloc_fast=600 "
			"pools/0/stats/alloc_empty=7 pools/0/stats/recycle_ring=250 "
			"pools/0/stats/recycle_released_refcnt=3 pools/0/stats/recycling_pct=75.0 "
			"pools/0/stats/alloc_per_s=12.0 pools/0/stats/recycle_per_s=null "
			"pools/1/stats=null");
	json_decref(doc);
	free(buf);
	/* the recycling view: its columns, unknown as '-' */
	CAPTURE(buf, f, render_recycle_text(f, &snap, false, true));
	CHECK(!strncmp(buf, "POOL DEVICE       STATE  ALLOC/s RECYC/s RECYC%", 47), "header: %s",
	      buf);
	CHECK(strstr(buf, " 75.0 ") != NULL && strstr(buf, " 600 ") != NULL, "pool 7: %s", buf);
	CHECK(strstr(buf, "\n   8 vb           live         -       -      -") != NULL,
	      "pool 8 unknown: %s", buf);
	free(buf);
}

/* the gap is in JSON always, in the text's one line never: only where asked for */
static void test_gap(void)
{
	struct kernel_facts k = { .netlink = true,
				  .pool_ids = true,
				  .napi = true,
				  .ledger = true,
				  .discovery = true,
				  .item_stats = true,
				  .item_blocks = true,
				  .unmap_event = true,
				  .unmap = UNMAP_XARRAY,
				  .dma_index_stats = true,
				  .dma_map_stats = true };
	const char *what;

	CHECK_STR(kernel_gap(&k, false, 0, &what), "pp_stats");
	CHECK(strstr(what, "CONFIG_PAGE_POOL_STATS") != NULL, "%s", what);
	CHECK(kernel_gap(&k, true, 0, &what) == NULL, "not in the core line");
	CHECK(kernel_gap_named(&k, "pp_stats") != NULL, "said on demand");
	k.pp_stats = true;
	CHECK(kernel_gap(&k, false, 0, &what) == NULL && !kernel_gap_named(&k, "pp_stats"),
	      "a kernel with them has no gap");
}

int main(void)
{
	TEST(test_gap);
	TEST(test_parse);
	TEST(test_ratio);
	TEST(test_row);
	TEST(test_render);
	return unit_done();
}
