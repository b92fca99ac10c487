// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Item-block occupancy without root: the records blocks_walk writes, parsed
 * (whole, cut, malformed), classified (idle, sparse) and rendered.
 */
#include <errno.h>

#include <jansson.h>

#include "unit.h"

#include "fixtures.h"
#include "lib/json.h"
#include "lib/util.h"
#include "model/blocks.h"
#include "output/block_table.h"
#include "output/pool_table.h"

#define POOL_A 0xffff888100007000ULL
#define POOL_B 0xffff888100009000ULL
#define BLK(n) (0xffff888104000000ULL + 0x1000ULL * (n))

static struct ppw_blk_rec recs[8];

static void block(int i, __u64 pool, __u64 addr, __u32 used, __u32 unissued, bool dyn, bool cur)
{
	memset(&recs[i], 0, sizeof(recs[i]));
	recs[i].type = PPW_BLK_BLOCK;
	recs[i].gen = 1;
	recs[i].pool = pool;
	recs[i].blk.addr = addr;
	recs[i].blk.used = used;
	recs[i].blk.unissued = unissued;
	recs[i].blk.dynamic = dyn;
	recs[i].blk.current = cur;
}

static void totals(int i, __u64 pool, __u32 pre, __u32 dyn, __u32 used_pre, __u32 used_dyn,
		   __u32 sparse, __u32 unissued)
{
	memset(&recs[i], 0, sizeof(recs[i]));
	recs[i].type = PPW_BLK_POOL;
	recs[i].gen = 1;
	recs[i].pool = pool;
	recs[i].tot.items_per_block = 254;
	recs[i].tot.prealloc = pre;
	recs[i].tot.dynamic = dyn;
	recs[i].tot.used_prealloc = used_pre;
	recs[i].tot.used_dynamic = used_dyn;
	recs[i].tot.sparse = sparse;
	recs[i].tot.unissued = unissued;
}

/* a detail walk of pool A: 2 pre-allocated blocks, a sparse and a current dynamic one */
static int detail_walk(void)
{
	block(0, POOL_A, BLK(1), 254, 0, false, false);
	block(1, POOL_A, BLK(2), 100, 0, false, false);
	block(2, POOL_A, BLK(3), 3, 0, true, false);
	block(3, POOL_A, BLK(4), 50, 154, true, true);
	totals(4, POOL_A, 2, 2, 354, 53, 1, 154);
	return 5;
}

static void test_parse(void)
{
	struct blocks_scan s = {};
	const struct pool_blocks *p;
	int n = detail_walk();

	CHECK_INT(blocks_parse(&s, recs, n * sizeof(recs[0])), 0);
	CHECK_INT(s.n, 1);
	p = blocks_find(&s, POOL_A, 1);
	CHECK(p != NULL, "pool A found");
	if (!p)
		return;
	CHECK(!blocks_find(&s, POOL_A, 2), "another generation is another pool");
	CHECK_INT(p->nblocks, 4);
	CHECK_INT(occ_used(&p->occ), 407);
	CHECK_INT(occ_items(&p->occ), 4 * 254);
	CHECK(!p->blocks_cut, "every block listed");
	/* idle: free pre-allocated items, spent dynamic ones */
	CHECK_INT(block_idle(&p->blocks[1], 254), 154);
	CHECK_INT(block_idle(&p->blocks[2], 254), 251);
	CHECK_INT(block_idle(&p->blocks[3], 254), 50);
	CHECK(block_sparse(&p->blocks[2], 254), "3 of 254 in a dynamic block: sparse");
	CHECK(!block_sparse(&p->blocks[3], 254), "the current block is never sparse");
	CHECK(!block_sparse(&p->blocks[1], 254), "a pre-allocated block is never sparse");
	blocks_scan_free(&s);

	/* totals of two pools, no detail */
	totals(0, POOL_A, 5, 0, 64, 0, 0, 0);
	totals(1, POOL_B, 5, 3, 1270, 700, 2, 62);
	CHECK_INT(blocks_parse(&s, recs, 2 * sizeof(recs[0])), 0);
	CHECK_INT(s.n, 2);
	p = blocks_find(&s, POOL_B, 1);
	CHECK(p && p->nblocks == 0 && p->occ.sparse == 2 && occ_used(&p->occ) == 1970, "pool B");
	blocks_scan_free(&s);
}

static void test_parse_bad(void)
{
	struct blocks_scan s = {};
	int n = detail_walk();

	/* blocks whose totals never came: dropped, an error */
	CHECK_INT(blocks_parse(&s, recs, (n - 1) * sizeof(recs[0])), -EINVAL);
	CHECK_INT(s.n, 0);
	blocks_scan_free(&s);
	/* a partial record */
	CHECK_INT(blocks_parse(&s, recs, n * sizeof(recs[0]) - 3), -EINVAL);
	blocks_scan_free(&s);
	/* an unknown record type */
	recs[1].type = 77;
	CHECK_INT(blocks_parse(&s, recs, n * sizeof(recs[0])), -EINVAL);
	blocks_scan_free(&s);
	/* totals with no pool */
	n = detail_walk();
	recs[4].pool = 0;
	CHECK_INT(blocks_parse(&s, recs, n * sizeof(recs[0])), -EINVAL);
	blocks_scan_free(&s);
	/* more blocks than listed: cut */
	n = detail_walk();
	recs[4].tot.dynamic = 40;
	CHECK_INT(blocks_parse(&s, recs, n * sizeof(recs[0])), 0);
	CHECK(s.n == 1 && s.pools[0].blocks_cut, "blocks_cut when the walk listed fewer");
	blocks_scan_free(&s);
}

/*
 * The blocks view of the detail walk, each value from the walk's records:
 * the title's totals, one row per block in the walk's order with its kind,
 * used, idle and unissued items and its flag, and the same in JSON.
 */
static void test_render(void)
{
	static const struct {
		__u64 addr;
		const char *kind;
		unsigned used, idle, unissued;
		const char *flag;
	} want[] = {
		/* idle: a pre-allocated block's free items, a spent dynamic block's */
		{ BLK(1), "prealloc", 254, 0, 0, "-" },
		{ BLK(2), "prealloc", 100, 154, 0, "-" },
		{ BLK(3), "dynamic", 3, 251, 0, "sparse" }, /* 3 of 254: under a quarter */
		{ BLK(4), "dynamic", 50, 50, 154, "current" },
	};
	struct pool_row row = fixture_row(7, "vb", ROW_ZOMBIE, 407, 4.0);
	struct blocks_scan s = {};
	struct pool_block_view v;
	struct snapshot snap = { .rows = &row, .n = 1 };
	struct json j;
	char *buf = NULL, kind[16], flag[16];
	const char *line;
	unsigned long long addr;
	unsigned used, idle, unissued;
	json_t *doc, *p, *b;
	size_t i;
	int n = detail_walk();

	row.addr = POOL_A;
	CHECK_INT(blocks_parse(&s, recs, n * sizeof(recs[0])), 0);
	v = (struct pool_block_view){ &row, &s.pools[0], 4096 };
	CAPTURE(buf, f, render_blocks_text(f, &v, 1, false));
	/* 2 + 2 blocks of 254: 1016 items, 354 + 53 used; one sparse block of a page */
	CHECK(!strncmp(buf,
		       "pool 7 vb (zombie): 2 pre-allocated + 2 dynamic blocks of 254 items; 407 of "
		       "1016 items in use; 1 sparse dynamic block (4.0KiB held for under a quarter "
		       "of their items)\n",
		       strcspn(buf, "\n") + 1),
	      "the title: %s", buf);
	line = strchr(buf, '\n');
	CHECK(line && !strncmp(line + 1, "BLOCK ", 6), "the header: %s", buf);
	for (i = 0; line && i < ARRAY_SIZE(want); i++) {
		line = strchr(line + 1, '\n');
		CHECK(line && sscanf(line + 1, "%llx %15s %u %u %u %15s", &addr, kind, &used, &idle,
				     &unissued, flag) == 6,
		      "row %zu: %s", i, line ? line + 1 : "missing");
		if (!line)
			break;
		CHECK(addr == want[i].addr && !strcmp(kind, want[i].kind) && used == want[i].used &&
			      idle == want[i].idle && unissued == want[i].unissued &&
			      !strcmp(flag, want[i].flag),
		      "row %zu: %.*s", i, (int)strcspn(line + 1, "\n"), line + 1);
	}
	CHECK(line && (line = strchr(line + 1, '\n')) && !line[1], "4 rows: %s", buf);
	free(buf);
	CAPTURE(buf, f, {
		json_init(&j, f, true);
		json_obj_open(&j);
		render_blocks_json(&j, &v, 1);
		json_obj_close(&j);
		json_end(&j);
	});
	doc = json_loads(buf, 0, NULL);
	CHECK(doc != NULL, "JSON: %s", buf);
	/* 2 + 2 blocks of 254 items: 1016, 354 + 53 used, 154 never issued */
	CHECK_JSON(doc, "pools/0/id=7 pools/0/addr=\"0xffff888100007000\" pools/0/gen=1 "
			"pools/0/items_per_block=254 pools/0/blocks_prealloc=2 "
			"pools/0/blocks_dynamic=2 pools/0/items=1016 pools/0/items_used=407 "
			"pools/0/items_used_dynamic=53 pools/0/items_unissued=154 "
			"pools/0/sparse_blocks=1 pools/0/blocks_cut=false");
	p = json_array_get(json_object_get(doc, "pools"), 0);
	CHECK_INT(json_array_size(json_object_get(p, "blocks")), ARRAY_SIZE(want));
	json_array_foreach(json_object_get(p, "blocks"), i, b)
	{
		char spec[256];

		if (i >= ARRAY_SIZE(want))
			break;
		snprintf(spec, sizeof(spec),
			 "addr=\"0x%llx\" kind=\"%s\" used=%u idle=%u unissued=%u sparse=%s "
			 "current=%s",
			 (unsigned long long)want[i].addr, want[i].kind, want[i].used, want[i].idle,
			 want[i].unissued, strcmp(want[i].flag, "sparse") ? "false" : "true",
			 strcmp(want[i].flag, "current") ? "false" : "true");
		CHECK_JSON(b, spec);
	}
	json_decref(doc);
	free(buf);

	/* the pool view's compact summary */
	row.occ_known = true;
	row.occ = s.pools[0].occ;
	CAPTURE(buf, f, render_pools_text(f, &snap, true, true));
	CHECK(strstr(buf, "2+2") && strstr(buf, "407/1016"),
	      "pools -w: BLOCKS 2+2, ITEMS 407/1016");
	free(buf);
	CAPTURE(buf, f, {
		json_init(&j, f, false);
		render_pools_json(&j, &snap);
		json_end(&j);
	});
	CHECK(strstr(buf, "\"block_occupancy\":{\"items_per_block\":254,\"blocks_prealloc\":2,"
			  "\"blocks_dynamic\":2,\"items\":1016,\"items_used\":407"),
	      "pools -j: block_occupancy");
	free(buf);
	row.occ_known = false;
	CAPTURE(buf, f, {
		json_init(&j, f, false);
		render_pools_json(&j, &snap);
		json_end(&j);
	});
	CHECK(strstr(buf, "\"block_occupancy\":null"), "pools -j: null without the walk");
	free(buf);
	blocks_scan_free(&s);
}

int main(void)
{
	TEST(test_parse);
	TEST(test_parse_bad);
	TEST(test_render);
	return unit_done();
}
