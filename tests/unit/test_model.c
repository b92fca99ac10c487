// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pure model without root: hand-made readings -> snapshots -> text and
 * JSON, each value checked against what the readings say.
 */
#include <errno.h>

#include <jansson.h>

#include "unit.h"

#include "lib/json.h"
#include "model/reading.h"
#include "model/reconcile.h"
#include "model/snapshot.h"
#include "output/pool_table.h"
#include "lib/util.h"

#define SEC 1000000000ULL
#define NOW (1000 * SEC)

static struct pool_obs obs[6];
static struct reading rd;

/* A veth pool seen for 10 s: 100 pages from before start, 40 in the ledger. */
static void live_veth(struct pool_obs *o)
{
	struct ppw_pool *r = &o->rec;

	memset(o, 0, sizeof(*o));
	r->addr = 0xffff888100001000ULL;
	r->gen = 1;
	r->id = 7;
	r->flags = PPW_PF_DEV_NETDEV | PPW_PF_HAS_ID;
	r->ifindex = 3;
	snprintf(r->ifname, sizeof(r->ifname), "vb");
	snprintf(r->devname, sizeof(r->devname), "vb");
	r->netns_ino = 4026532246U;
	r->pool_size = 256;
	r->first_seen_ns = NOW - 10 * SEC;
	r->base_hold = 1000;
	r->base_release = 900; /* 100 out when first seen */
	r->hold_cnt = 1000 + 60;
	r->release_cnt = 900 + 20; /* 20 releases since ... */
	r->ledger_holds = 60;
	o->ledger_pages = 40;
	o->oldest_hold_ns = NOW - 4 * SEC;
}

/* A destroyed pool still holding 500 pages, detached 75 s ago. */
static void zombie(struct pool_obs *o)
{
	struct ppw_pool *r = &o->rec;

	memset(o, 0, sizeof(*o));
	r->addr = 0xffff888100002000ULL;
	r->gen = 2;
	r->id = 8;
	r->flags = PPW_PF_DEV_NETDEV | PPW_PF_HAS_ID | PPW_PF_DMA_MAP;
	r->ifindex = 3;
	snprintf(r->ifname, sizeof(r->ifname), "vb");
	r->netns_ino = 4026532246U;
	r->order = 1; /* 8 KiB pages */
	r->state = PPW_POOL_DETACHED;
	r->first_seen_ns = NOW - 100 * SEC;
	r->detach_ns = NOW - 75 * SEC;
	r->destroy_cnt = 76;
	r->release_events = 76;
	r->last_inflight = 500;
	r->destroy_inflight = 620;
	/* an item-block kernel with ppwatch's series */
	r->flags |= PPW_PF_ITEM_STATS | PPW_PF_ITEM_BLOCKS;
	r->item_fast_empty = 1234;
	r->item_slow_failed = 2;
	r->blocks_prealloc = 5;
	r->blocks_dyn = 3;
	r->blocks_dyn_alloc = 7;
	r->blocks_dyn_free = 4;
	r->unmap_ns = NOW - 74 * SEC;
	r->unmapped_pages = 620;
	r->unmap_blocks = 8;
	r->unmap_took_ns = 41000;
	r->hold_cnt = 2000;
	r->release_cnt = 1500;
	r->ledger_holds = 2000;
	o->ledger_pages = 500;
	o->oldest_hold_ns = NOW - 90 * SEC;
}

/* Freed 3 s ago after 2 s as a zombie. */
static void freed(struct pool_obs *o)
{
	struct ppw_pool *r = &o->rec;

	memset(o, 0, sizeof(*o));
	r->addr = 0xffff888100003000ULL;
	r->gen = 3;
	r->id = 9;
	r->flags = PPW_PF_HAS_NETDEV | PPW_PF_HAS_ID | PPW_PF_HAS_NAPI;
	r->napi_id = 8193;
	r->ifindex = 2;
	snprintf(r->ifname, sizeof(r->ifname), "eth0");
	snprintf(r->driver, sizeof(r->driver), "vmxnet3");
	r->state = PPW_POOL_FREED;
	r->first_seen_ns = NOW - 50 * SEC;
	r->detach_ns = NOW - 5 * SEC;
	r->freed_ns = NOW - 3 * SEC;
	r->hold_cnt = 300;
	r->release_cnt = 300;
}

/* Listed by netlink only: a zombie detached at boottime second 900. */
static void netlink_only(struct pool_obs *o)
{
	memset(o, 0, sizeof(*o));
	o->has_nl = true;
	o->nl.id = 11;
	o->nl.present = NLP_IFINDEX | NLP_INFLIGHT | NLP_INFLIGHT_MEM | NLP_DETACH_TIME;
	o->nl.ifindex = 5;
	o->nl.inflight = 1;
	o->nl.inflight_mem = 4096;
	o->nl.detach_time = 900;
	o->nl.netns_ino = 4026531840U;
	snprintf(o->nl.ifname, sizeof(o->nl.ifname), "eni0");
}

/* Destroyed before ppwatch started: only the kernel's detach_time (ns). */
static void old_zombie_ktime(struct pool_obs *o)
{
	struct ppw_pool *r = &o->rec;

	memset(o, 0, sizeof(*o));
	r->addr = 0xffff888100005000ULL;
	r->gen = 5;
	r->id = 12;
	r->flags = PPW_PF_HAS_ID;
	snprintf(r->devname, sizeof(r->devname), "0000:03:00.0");
	snprintf(r->driver, sizeof(r->driver), "vmxnet3");
	r->state = PPW_POOL_DETACHED;
	r->destroy_cnt = 120;
	r->kernel_detach_time = NOW - 120 * SEC;
	r->first_seen_ns = NOW - 2 * SEC;
	r->base_hold = 64;
	r->base_release = 61;
	r->hold_cnt = 64;
	r->release_cnt = 61;
}

/* Ledger full: 10 holds not recorded. */
static void lossy(struct pool_obs *o)
{
	struct ppw_pool *r = &o->rec;

	memset(o, 0, sizeof(*o));
	r->addr = 0xffff888100006000ULL;
	r->gen = 6;
	r->id = 13;
	r->flags = PPW_PF_HAS_NETDEV | PPW_PF_HAS_ID;
	r->ifindex = 2;
	snprintf(r->ifname, sizeof(r->ifname), "eth0");
	r->first_seen_ns = NOW - 30 * SEC;
	r->hold_cnt = 110;
	r->release_cnt = 0;
	r->ledger_holds = 100;
	r->untracked_holds = 10;
	o->ledger_pages = 100;
	o->oldest_hold_ns = NOW - 29 * SEC;
}

static void make_reading(bool ns_detach)
{
	memset(&rd, 0, sizeof(rd));
	live_veth(&obs[0]);
	zombie(&obs[1]);
	freed(&obs[2]);
	netlink_only(&obs[3]);
	old_zombie_ktime(&obs[4]);
	lossy(&obs[5]);
	rd.pools = obs;
	rd.n = 6;
	rd.now_ns = NOW;
	rd.level = PPW_LEVEL_ALL;
	rd.page_size = 4096;
	rd.detach_time_is_ns = ns_detach;
	rd.max_pages = 1 << 20;
	rd.regime = UNMAP_XARRAY;
	rd.pages_used = 640;
	rd.counters[PPW_CNT_HOLD] = 2160;
	rd.counters[PPW_CNT_RELEASE] = 1520;
	rd.counters[PPW_CNT_LEDGER_FULL] = 10;
}

static const struct pool_row *row(const struct snapshot *s, __u32 id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->rows[i].id == id)
			return &s->rows[i];
	return NULL;
}

static void test_classify(void)
{
	make_reading(true);
	CHECK_INT(pool_classify(&obs[0]), ROW_LIVE);
	CHECK_INT(pool_classify(&obs[1]), ROW_ZOMBIE);
	CHECK_INT(pool_classify(&obs[2]), ROW_FREED);
	CHECK_INT(pool_classify(&obs[3]), ROW_ZOMBIE); /* netlink detach-time */
	CHECK_INT(pool_classify(&obs[4]), ROW_ZOMBIE); /* destroy_cnt */
	CHECK_STR(row_state_name(ROW_ZOMBIE), "zombie");
}

static void test_counts(void)
{
	struct snapshot s;
	const struct pool_row *r;

	make_reading(true);
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_INT(s.n, 6);

	r = row(&s, 7);
	CHECK_INT(r->inflight, 140);
	CHECK_INT(r->inflight_bytes, 140 * 4096);
	CHECK_INT(r->before_start, 100);
	CHECK_INT(r->ledger_pages, 40);
	CHECK_INT(r->untracked, 0);
	CHECK_STR(r->device, "vb");
	CHECK_NAN(r->hold_per_s); /* first snapshot: no rate */
	/* before-start pages are at least as old as first sight */
	CHECK_NEAR(r->oldest_age_s, 10, 1e-9);
	CHECK(r->oldest_at_least, "oldest is a lower bound");

	r = row(&s, 8);
	CHECK_INT(r->inflight, 500);
	CHECK_INT(r->inflight_bytes, 500 * 8192); /* order 1 */
	CHECK_NEAR(r->detach_age_s, 75, 1e-9);
	CHECK_NEAR(r->oldest_age_s, 90, 1e-9);
	CHECK(!r->oldest_at_least, "ledger age is exact");
	CHECK_INT(r->retries, 75);
	CHECK(r->item_stats && r->item_blocks, "item counters");
	CHECK_INT(r->item_fast_empty, 1234);
	CHECK_INT(r->blocks_dyn_alloc - r->blocks_dyn_free, r->blocks_dyn);
	CHECK(r->unmap_seen && r->unmap_pages == 620, "destroy_unmap");
	CHECK(!row(&s, 7)->item_stats, "not available is not 0");

	r = row(&s, 9);
	CHECK_INT(r->state, ROW_FREED);
	CHECK_INT(r->inflight, 0);
	CHECK_NAN(r->detach_age_s);
	CHECK_NEAR(r->freed_age_s, 3, 1e-9);
	CHECK_NEAR(r->zombie_s, 2, 1e-9);

	r = row(&s, 11);
	CHECK(!r->has_record, "netlink-only row");
	CHECK_INT(r->inflight, 1);
	CHECK_INT(r->inflight_bytes, 4096);
	CHECK_NEAR(r->detach_age_s, 100, 1e-9); /* 1000 s - 900 s */
	CHECK_STR(r->device, "eni0");

	r = row(&s, 12);
	CHECK_NEAR(r->detach_age_s, 120, 1e-9); /* ktime_t, ns */
	CHECK_STR(r->device, "0000:03:00.0");
	CHECK_INT(r->before_start, 3);

	r = row(&s, 13);
	CHECK_INT(r->untracked, 10); /* ledger full */
	snapshot_free(&s);

	/* the same kernel field in seconds (kernels before 28b225282d44) */
	make_reading(false);
	obs[4].rec.kernel_detach_time = 1000 - 120;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_NEAR(row(&s, 12)->detach_age_s, 120, 1e-9);
	snapshot_free(&s);
}

static void test_rates(void)
{
	struct snapshot a, b;
	const struct pool_row *r;

	make_reading(true);
	obs[5].rec.hold_cnt = 0xffffffe0U; /* near the u32 wrap */
	CHECK_INT(snapshot_build(&a, &rd, NULL), 0);
	rd.now_ns += 2 * SEC;
	obs[0].rec.hold_cnt += 500;
	obs[0].rec.release_cnt += 300;
	/* the u32 kernel counters wrap: rates must not */
	obs[5].rec.hold_cnt = 0xfffffff0U;
	CHECK_INT(snapshot_build(&b, &rd, &a), 0);
	CHECK_NEAR(b.interval_s, 2, 1e-9);
	r = row(&b, 7);
	CHECK_NEAR(r->hold_per_s, 250, 1e-9);
	CHECK_NEAR(r->release_per_s, 150, 1e-9);
	CHECK_NEAR(row(&b, 13)->hold_per_s, 8, 1e-9);
	snapshot_free(&a);
	a = b;
	rd.now_ns += SEC;
	obs[5].rec.hold_cnt = 0x10; /* wrapped: 0x20 holds */
	CHECK_INT(snapshot_build(&b, &rd, &a), 0);
	CHECK_NEAR(row(&b, 13)->hold_per_s, 32, 1e-9);
	/*
	 * a reading older than the last (a CPU slot gone, its record a few
	 * events behind): the row keeps the newest, the rate is 0, not 2^32 a
	 * second, and the next interval's rate counts from the newest, so the
	 * rates of all intervals add up to the counts
	 */
	snapshot_free(&a);
	a = b;
	rd.now_ns += SEC;
	obs[0].rec.hold_cnt -= 40;
	obs[0].rec.release_cnt -= 20;
	CHECK_INT(snapshot_build(&b, &rd, &a), 0);
	r = row(&b, 7);
	CHECK_NEAR(r->hold_per_s, 0, 1e-9);
	CHECK_NEAR(r->release_per_s, 0, 1e-9);
	CHECK_INT(r->hold_cnt, row(&a, 7)->hold_cnt);
	CHECK_INT(r->inflight, row(&a, 7)->inflight);
	snapshot_free(&a);
	a = b;
	rd.now_ns += SEC;
	obs[0].rec.hold_cnt += 100; /* 60 more than the newest before */
	obs[0].rec.release_cnt += 50;
	CHECK_INT(snapshot_build(&b, &rd, &a), 0);
	CHECK_NEAR(row(&b, 7)->hold_per_s, 60, 1e-9);
	CHECK_NEAR(row(&b, 7)->release_per_s, 30, 1e-9);
	snapshot_free(&a);
	snapshot_free(&b);
}

static int sort_pools(struct snapshot *s, const char *key, bool reverse)
{
	struct oview ov = pool_oview(s);

	return out_sort(s->rows, s->n, sizeof(*s->rows), &ov, key, reverse);
}

static int sort_groups(struct group_row *g, size_t n, const char *key, bool reverse)
{
	struct oview ov = group_oview();

	return out_sort(g, n, sizeof(*g), &ov, key, reverse);
}

/*
 * A refresh into the snapshot of the one before: its rows' memory reused,
 * each row matched to its previous one by a cursor over both sorted lists
 * (pools gone, pools new, a netlink-only pool after the rest), rates and
 * names as a fresh build gives them.
 */
static void test_rebuild(void)
{
	enum { N = 1000 };
	static struct pool_obs big[N + 1];
	struct reading r2 = { .pools = big, .page_size = 4096, .level = PPW_LEVEL_COUNTERS };
	struct snapshot a = { 0 }, b = { 0 }, fresh;
	const struct pool_row *last;
	struct pool_row *mem;
	size_t i, k = 0;

	for (i = 0; i < N; i++) {
		struct ppw_pool *p = &big[k++].rec;

		p->addr = 0xffff888100000000ULL + i * 4096;
		p->gen = i + 1;
		p->id = i + 1;
		p->hold_cnt = 1000;
		snprintf(p->ifname, sizeof(p->ifname), "p%zu", i);
	}
	r2.n = k;
	r2.now_ns = NOW;
	CHECK_INT(snapshot_rebuild(&a, &r2, NULL), 0);
	CHECK_INT(a.n, N);
	/* a second later: every third pool gone, one new at the end, a netlink-only one after */
	k = 0;
	for (i = 0; i < N; i++) {
		if (i % 3 == 1)
			continue;
		big[k] = big[i];
		big[k++].rec.hold_cnt += i; /* i holds a second */
	}
	memset(&big[k], 0, sizeof(big[k]));
	big[k].rec.addr = 0xffff888200000000ULL;
	big[k].rec.gen = 5000;
	big[k++].rec.id = 5000;
	memset(&big[k], 0, sizeof(big[k]));
	big[k].has_nl = true;
	big[k].nl.id = 6000;
	big[k++].nl.present = NLP_INFLIGHT;
	r2.n = k;
	r2.now_ns = NOW + SEC;
	CHECK_INT(snapshot_rebuild(&b, &r2, &a), 0);
	CHECK_INT(snapshot_build(&fresh, &r2, &a), 0);
	CHECK_INT(b.n, k);
	CHECK(!memcmp(b.rows, fresh.rows, k * sizeof(*b.rows)), "a rebuild is a build");
	for (i = 0; i + 2 < b.n; i++)
		CHECK_NEAR(b.rows[i].hold_per_s, (double)(b.rows[i].id - 1), 1e-9);
	CHECK(isnan(b.rows[b.n - 2].hold_per_s), "a new pool has no rate yet");
	last = row(&b, 1000);
	CHECK(last && !strcmp(last->ident, "1000") && !strcmp(last->device, "p999"),
	      "names as built");
	/* the refresh after: into a's memory, which holds N rows */
	mem = a.rows;
	r2.now_ns += SEC;
	CHECK_INT(snapshot_rebuild(&a, &r2, &b), 0);
	CHECK(a.rows == mem, "the rows' memory reused");
	CHECK_NEAR(row(&a, 7)->hold_per_s, 0, 1e-9);
	snapshot_free(&fresh);
	snapshot_free(&a);
	snapshot_free(&b);
}

static void test_filter_sort_group(void)
{
	struct group_row *g;
	struct snapshot s;
	struct pool_filter f1[1], f2[2], bad;
	size_t n;

	make_reading(true);
	snapshot_build(&s, &rd, NULL);
	CHECK_INT(pool_filter_parse(&f1[0], PF_ANY, "vb"), 0);
	CHECK_INT(pool_filter_parse(&f2[0], PF_POOL, "11"), 0);
	CHECK_INT(pool_filter_parse(&f2[1], PF_ANY, "vmxnet3"), 0);
	CHECK_INT(pool_filter_parse(&bad, PF_IFINDEX, "eth0"), -EINVAL);
	snapshot_filter(&s, f1, 1);
	CHECK_INT(s.n, 2);
	snapshot_free(&s);

	snapshot_build(&s, &rd, NULL);
	snapshot_filter(&s, f2, 2);
	CHECK_INT(s.n, 3); /* pool 11, and both vmxnet3 pools */
	snapshot_free(&s);

	snapshot_build(&s, &rd, NULL);
	CHECK_INT(sort_pools(&s, "inflight", false), 0);
	CHECK_INT(s.rows[0].id, 8); /* biggest first */
	CHECK_INT(sort_pools(&s, "detach_age_s", false), 0);
	CHECK_INT(s.rows[0].id, 12); /* unknowns last */
	CHECK_NAN(s.rows[s.n - 1].detach_age_s);
	CHECK_INT(sort_pools(&s, "device", false), 0);
	CHECK_STR(s.rows[0].device, "0000:03:00.0");
	CHECK_INT(sort_pools(&s, "no_such_column", false), -ENOENT);

	snapshot_drop_freed(&s);
	CHECK_INT(s.n, 5);
	CHECK_INT(snapshot_group_by_device(&s, &g, &n), 0);
	CHECK_INT(n, 4); /* vb, eni0, 0000:03:00.0, eth0 */
	CHECK_INT(sort_groups(g, n, "zombie.refs", false), 0);
	CHECK_STR(g[0].device, "vb");
	CHECK_INT(g[0].page_pools, 2);
	CHECK_INT(g[0].zombies, 1);
	CHECK_INT(g[0].live_refs, 140);
	CHECK_INT(g[0].zombie_refs, 500);
	CHECK_INT(g[0].zombie_bytes, 500 * 8192);
	free(g);
	snapshot_free(&s);
}

/* netlink's pools join the BPF records by id (not a freed one's); the rest are netlink-only */
static void test_reading_merge(void)
{
	struct nl_pool nl[3] = {
		{ .id = 5, .present = NLP_IFINDEX | NLP_INFLIGHT, .ifindex = 2, .inflight = 7 },
		{ .id = 6, .present = NLP_INFLIGHT, .inflight = 3 },
		{ .id = 9, .present = NLP_DETACH_TIME, .detach_time = 100 },
	};
	struct reading r = { 0 };
	struct pool_obs *o;

	o = calloc(2, sizeof(*o));
	r.pools = o;
	r.n = r.cap = 2;
	o[0].rec = (struct ppw_pool){ .addr = 0x1000, .gen = 1, .id = 5 };
	o[1].rec = (struct ppw_pool){ .addr = 0x2000, .gen = 1, .id = 6, .state = PPW_POOL_FREED };
	CHECK_INT(reading_add_netlink(&r, nl, 3), 2); /* two pools netlink only lists */
	CHECK_INT(r.n, 4);
	CHECK(r.pools[0].has_nl && r.pools[0].nl.inflight == 7, "pool 5 has netlink's view");
	CHECK(!r.pools[1].has_nl, "a freed record is not the live pool with its id");
	CHECK(!r.pools[2].rec.addr && r.pools[2].has_nl && r.pools[2].nl.id == 6,
	      "id 6: netlink only");
	CHECK(!r.pools[3].rec.addr && r.pools[3].nl.id == 9, "id 9: netlink only");
	CHECK_INT(pool_classify(&r.pools[3]), ROW_ZOMBIE);
	reading_reset(&r);
	CHECK_INT(r.n, 0);
	CHECK(r.pools && r.cap >= 4, "reset keeps the memory");
	reading_free(&r);
	CHECK(!r.pools && !r.cap, "freed");
}

static void test_dma(void)
{
	struct snapshot s;
	const struct pool_row *r;

	/* dma_mapped xarray: the first scrub unmapped everything */
	make_reading(true);
	rd.regime = UNMAP_XARRAY;
	obs[1].rec.unmap_ns = 0; /* a stock kernel: no event */
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_INT(row(&s, 7)->dma, DMA_NOT_MAPPED); /* veth never maps */
	r = row(&s, 8);
	CHECK_INT(r->dma, DMA_UNMAPPED);
	CHECK_INT(r->dma_unmapped_at_destroy, 620);
	CHECK_INT(r->dma_still_mapped, 0);
	CHECK_NEAR(r->dma_unmap_age_s, 75, 1e-9);
	CHECK(!r->unmap_seen, "no unmap event on a stock kernel");
	CHECK_INT(row(&s, 11)->dma, DMA_UNKNOWN); /* netlink only */
	snapshot_free(&s);
	/* ... with the xarray series: its DMA failure counters, no event */
	obs[1].rec.flags |= PPW_PF_DMA_INDEX_STATS | PPW_PF_DMA_MAP_STATS;
	obs[1].rec.dma_index_failed = 3;
	obs[1].rec.dma_map_failed = 5;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	r = row(&s, 8);
	CHECK_INT(r->dma, DMA_UNMAPPED);
	CHECK_INT(r->dma_unmapped_at_destroy, 620);
	CHECK(!r->unmap_seen, "the xarray series has no unmap event");
	CHECK(r->dma_index_stats && r->dma_index_failed == 3, "dma_index_failed");
	CHECK(r->dma_map_stats && r->dma_map_failed == 5, "dma_map_failed");
	CHECK(!row(&s, 7)->dma_index_stats, "not available is not 0");
	CHECK(!row(&s, 7)->dma_map_stats, "not available is not 0 (dma_map_failed)");
	snapshot_free(&s);
	make_reading(true);
	rd.regime = UNMAP_XARRAY;
	/* ... and a non-empty xarray after destroy is a hazard */
	obs[1].rec.dma_mapped_left = 1;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_INT(row(&s, 8)->dma, DMA_HAZARD);
	snapshot_free(&s);

	/* neither fix: mapped until each page comes back */
	make_reading(true);
	rd.regime = UNMAP_ON_RETURN;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	r = row(&s, 8);
	CHECK_INT(r->dma, DMA_HAZARD);
	CHECK_INT(r->dma_still_mapped, 500);
	snapshot_free(&s);

	/* item blocks: unmapped in destroy, right after the first release */
	make_reading(true);
	rd.regime = UNMAP_ITEM_BLOCKS;
	obs[1].rec.destroy_cnt = 1;
	obs[1].rec.unmap_ns = 0;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_INT(row(&s, 8)->dma, DMA_UNMAP_PENDING);
	snapshot_free(&s);
	obs[1].rec.destroy_cnt = 2; /* a retry: destroy returned */
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_INT(row(&s, 8)->dma, DMA_UNMAPPED);
	snapshot_free(&s);
	obs[1].rec.unmap_ns = NOW - 74 * SEC; /* the series' tracepoint */
	obs[1].rec.unmapped_pages = 615;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	r = row(&s, 8);
	CHECK_INT(r->dma_unmapped_at_destroy, 615);
	CHECK_NEAR(r->dma_unmap_age_s, 74, 1e-9);
	snapshot_free(&s);
}

/* the JSON object of pool 'id' in a pools document, or NULL */
static json_t *json_pool(json_t *doc, json_int_t id)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(doc, "pools"), i, p)
	{
		if (json_integer_value(json_object_get(p, "id")) == id)
			return p;
	}
	return NULL;
}

/*
 * Cells of a text table, a row at a time: the row whose first cell is
 * 'row', and "COLUMN=value ..." for the cells it must have.
 */
struct row_cells {
	const char *row, *cells;
};

static void check_cells(const char *text, const struct row_cells *c, size_t n)
{
	char col[32], want[64];
	const char *p, *got;
	size_t i;
	int len;

	for (i = 0; i < n; i++) {
		for (p = c[i].cells; sscanf(p, " %31[^=]=%63s%n", col, want, &len) == 2; p += len) {
			got = table_cell(text, c[i].row, col);
			CHECK(!strcmp(got, want), "%s %s: '%s', not '%s'", c[i].row, col, got,
			      want);
		}
		CHECK(!*p, "%s: '%s' is not COLUMN=value", c[i].row, p);
	}
}

/*
 * The fixture's pools as 'pools' shows them: 140 pages of 4 KiB, 500 of 8
 * KiB (order 1); no rate in the first snapshot; pool 7's 100 pages from
 * before start 10 s ago, an age that is a lower bound (>), pool 8's the
 * ledger's, exact; detached 75 s, 100 s (netlink's detach_time 900, now
 * 1000) and 120 s (the kernel's, in ns) ago, pool 12's 3 pages from
 * before start at least as old as its destroy (>2m00s, though ppwatch
 * first saw it 2 s ago); veth does not map, netlink
 * alone does not say. With -w: no item stats is n/a, not 0, and unknown
 * (netlink only) is -; BLOCKS is pre-allocated + dynamic.
 */
static const struct row_cells pool_cells[] = {
	{ "7", "DEVICE=vb STATE=live INFLIGHT=140 BYTES=560KiB HOLD/s=- OLDEST=>10.0s DETACH=- DMA=-" },
	{ "8", "STATE=zombie INFLIGHT=500 BYTES=3.9MiB OLDEST=1m30s DETACH=1m15s DMA=unmapped" },
	{ "9", "DEVICE=eth0 STATE=freed INFLIGHT=0 BYTES=0B" },
	{ "11", "DEVICE=eni0 BYTES=4.0KiB DETACH=1m40s DMA=unknown" },
	{ "12", "DEVICE=0000:03:00.0 OLDEST=>2m00s DETACH=2m00s" },
	{ "13", "INFLIGHT=110 OLDEST=29.0s" },
}, wide_cells[] = {
	{ "7", "IFINDEX=3 NETNS=4026532246 BEFORE=100 LEDGER=40 UNTRACKD=0 FASTEMPTY=n/a" },
	{ "8", "RETRY=75 FASTEMPTY=1234 SLOWFAIL=2 BLOCKS=5+3" },
	{ "9", "NAPI=8193 DRIVER=vmxnet3" },
	{ "11", "LEDGER=- FASTEMPTY=-" },
	{ "12", "BEFORE=3 RETRY=119" },
	{ "13", "LEDGER=100 UNTRACKD=10" },
};

/* 'pools group-by device' once the freed pool 9 is dropped: eth0 is pool 13 alone */
static const struct row_cells device_cells[] = {
	{ "eth0", "POOLS=1 ZOMBIES=0 LIVE=110 LIVE_B=440KiB" },
	{ "vb", "POOLS=2 ZOMBIES=1 LIVE=140 ZOMBIE=500 ZOMBIE_B=3.9MiB" },
	{ "eni0", "IFINDEX=5" },
	{ "0000:03:00.0", "IFINDEX=- ZOMBIE_B=12KiB" },
};

/*
 * The pool, device and loss views of the fixture's reading, each value as
 * the fixture makes it (not a copy of the renderers' own output): every
 * row's cells line up under the header; the cells and the JSON members say
 * what the pools above are (140 pages of 4 KiB are 560KiB, 75 s detached is
 * 1m15s, an age from before start is a lower bound, ">"); text and JSON
 * say the same.
 */
static void test_render(void)
{
	static const char *const ids[] = { "7", "8", "9", "11", "12", "13" };
	struct group_row *g;
	struct snapshot s;
	char *buf, want[160], *line;
	json_t *doc, *p, *d;
	struct json j;
	size_t n, i;

	make_reading(true);
	snapshot_build(&s, &rd, NULL);
	sort_pools(&s, "id", true);

	CAPTURE(buf, f, render_pools_text(f, &s, false, true));
	table_check(buf);
	/* one row per pool, by id */
	for (i = 0, line = strchr(buf, '\n'); i < ARRAY_SIZE(ids) && line; i++) {
		CHECK(!strncmp(line + 1 + strspn(line + 1, " "), ids[i], strlen(ids[i])),
		      "row %zu is not pool %s: %s", i, ids[i], line + 1);
		line = strchr(line + 1, '\n');
	}
	CHECK(line && !line[1], "6 rows: %s", buf);
	check_cells(buf, pool_cells, ARRAY_SIZE(pool_cells));
	free(buf);

	CAPTURE(buf, f, render_pools_text(f, &s, true, true));
	table_check(buf);
	check_cells(buf, wide_cells, ARRAY_SIZE(wide_cells));
	free(buf);

	CAPTURE(buf, f, {
		json_init(&j, f, true);
		json_obj_open(&j);
		render_pools_json(&j, &s);
		render_losses_json(&j, &s);
		json_obj_close(&j);
		json_end(&j);
	});
	doc = json_loads(buf, 0, NULL);
	CHECK(doc != NULL, "pools JSON: %s", buf);
	CHECK_INT(json_array_size(json_object_get(doc, "pools")), 6);
	/* 140 pages of 4 KiB, 500 of 8 KiB; pool 7's oldest a lower bound, from before start */
	CHECK_JSON(json_pool(doc, 7),
		   "device=\"vb\" state=\"live\" inflight=140 inflight_bytes=573440 ifindex=3 "
		   "netns=4026532246 before_start=100 ledger_pages=40 oldest_age_s=10 "
		   "oldest_age_is_lower_bound=true hold_per_s=null detach_age_s=null items=null "
		   "addr=\"0xffff888100001000\"");
	CHECK_JSON(json_pool(doc, 8),
		   "state=\"zombie\" inflight=500 inflight_bytes=4096000 order=1 detach_age_s=75 "
		   "oldest_age_s=90 oldest_age_is_lower_bound=false retries=75 destroy_cnt=76 "
		   "dma=\"unmapped\" dma_unmapped_at_destroy=620 dma_unmap_age_s=75 "
		   "items/fast_empty=1234 items/slow_failed=2 items/blocks_prealloc=5 "
		   "items/blocks_dyn=3 destroy_unmap/blocks=8 destroy_unmap/duration_ns=41000");
	CHECK_JSON(json_pool(doc, 9), "state=\"freed\" freed_age_s=3 zombie_s=2 napi_id=8193 "
				      "driver=\"vmxnet3\"");
	/* listed by netlink alone: no BPF record */
	CHECK_JSON(json_pool(doc, 11),
		   "netlink=true detach_age_s=100 inflight_bytes=4096 addr=null dma=\"unknown\"");
	CHECK_JSON(json_pool(doc, 12), "dev_name=\"0000:03:00.0\" detach_age_s=120");
	CHECK_JSON(json_pool(doc, 13), "untracked=10");
	/* the reading's own counters */
	CHECK_JSON(doc, "ledger/level=\"all\" ledger/pages=640 ledger/max_pages=1048576 "
			"ledger/hold_events=2160 ledger/release_events=1520 losses/ledger_full=10");
	free(buf);

	/* text and JSON from the same rows: state and inflight of each pool */
	CAPTURE(buf, f, render_pools_text(f, &s, false, true));
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		p = json_pool(doc, atoi(ids[i]));
		CHECK_STR(table_cell(buf, ids[i], "STATE"),
			  json_string_value(json_object_get(p, "state")) ?: "");
		snprintf(want, sizeof(want), "%lld",
			 (long long)json_integer_value(json_object_get(p, "inflight")));
		CHECK_STR(table_cell(buf, ids[i], "INFLIGHT"), want);
	}
	free(buf);
	json_decref(doc);

	CAPTURE(buf, f, render_losses_text(f, &s));
	snprintf(want, sizeof(want),
		 "ledger %d/%d pages, events hold %d release %d, losses ledger_full=%d\n", 640,
		 1 << 20, 2160, 1520, 10);
	CHECK_STR(buf, want);
	free(buf);

	snapshot_drop_freed(&s);
	snapshot_group_by_device(&s, &g, &n);
	sort_groups(g, n, "device", false);
	CAPTURE(buf, f, render_groups_text(f, g, n, false, true));
	table_check(buf);
	check_cells(buf, device_cells, ARRAY_SIZE(device_cells));
	free(buf);
	CAPTURE(buf, f, {
		json_init(&j, f, false);
		json_obj_open(&j);
		render_groups_json(&j, g, n);
		json_obj_close(&j);
		json_end(&j);
	});
	doc = json_loads(buf, 0, NULL);
	CHECK(doc != NULL, "devices JSON: %s", buf);
	CHECK_INT(json_array_size(json_object_get(doc, "devices")), 4);
	json_array_foreach(json_object_get(doc, "devices"), i, d)
	{
		if (strcmp(json_string_value(json_object_get(d, "device")) ?: "", "vb"))
			continue;
		CHECK_JSON(d,
			   "page_pools=2 zombies=1 live/refs=140 live/bytes=573440 zombie/refs=500 "
			   "zombie/bytes=4096000 ifindex=3");
	}
	json_decref(doc);
	free(buf);
	free(g);
	snapshot_free(&s);
}

/*
 * The same veth pool at each tracking level: 100 pages out at first sight,
 * 20 releases since, 40 pages in the ledger (all) or 3 in a 1-in-16 sample
 * with 1 sampled release that was a before-start page.
 */
static void test_levels(void)
{
	struct snapshot s;
	const struct pool_row *r;

	make_reading(true);
	rd.level = PPW_LEVEL_COUNTERS;
	rd.n = 1;
	CHECK(!snapshot_build(&s, &rd, NULL), "build");
	r = row(&s, 7);
	CHECK_INT(r->inflight, 140);	/* exact at every level */
	CHECK_INT(r->ledger_pages, -1); /* no ledger */
	CHECK_INT(r->before_start, -1);
	CHECK_INT(r->untracked, -1);
	CHECK_INT(r->before_start_min, 80); /* 100 minus 20 releases, surely */
	CHECK(r->oldest_at_least && r->oldest_age_s == 10, "a sure lower bound: seen 10 s ago");
	CHECK(!r->sampled, "not a sample");
	snapshot_free(&s);

	rd.level = PPW_LEVEL_SAMPLED;
	rd.sample_rate = 16;
	obs[0].ledger_pages = 3;
	obs[0].rec.unmatched_releases = 1;
	CHECK(!snapshot_build(&s, &rd, NULL), "build");
	r = row(&s, 7);
	CHECK_INT(r->ledger_pages, 3);
	CHECK(r->sampled, "sampled");
	CHECK_INT(r->before_start, 84); /* 100 - 1 x 16: an estimate */
	CHECK_INT(r->untracked, -1);
	CHECK_INT(s.sample_rate, 16);
	snapshot_free(&s);

	/* an estimate never goes below what is sure */
	obs[0].rec.unmatched_releases = 7;
	CHECK(!snapshot_build(&s, &rd, NULL), "build");
	CHECK_INT(row(&s, 7)->before_start, 80);
	snapshot_free(&s);
}

/*
 * The ledger's split of what it does not have, and its losses, per pool:
 * 100 pages out at first sight (base), 140 now, 40 in the ledger.
 */
static void test_ledger_split(void)
{
	struct snapshot s;
	const struct pool_row *r;

	/* a lost hold whose page came back (its release unmatched): the split is a range */
	make_reading(true);
	obs[0].rec.untracked_holds = 1;
	obs[0].rec.unmatched_releases = 1;
	obs[0].rec.hold_cnt += 1;
	obs[0].rec.release_cnt += 1;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	r = row(&s, 7);
	CHECK_INT(r->inflight, 140);
	CHECK_INT(r->before_start, 99);	     /* if the release was a page from before start */
	CHECK_INT(r->before_start_max, 100); /* if it was the lost hold's page */
	CHECK_INT(r->untracked, 1);	     /* at most */
	CHECK_INT(r->hold_lost, 1);
	snapshot_free(&s);

	/*
	 * Releases a full log lost leave phantoms: 60 pages in the ledger, 20
	 * of them marked by the collector; the ledger's count leaves them out,
	 * untracked is never below 0 (before: 140 - 60 - 100 = -20, shown null).
	 */
	make_reading(true);
	obs[0].ledger_pages = 40;
	obs[0].phantoms = 20;
	obs[0].ages_bound = true;
	obs[0].ties = 3;
	obs[0].lost = 2;
	obs[0].rec.lost_releases = 20;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	r = row(&s, 7);
	CHECK_INT(r->ledger_pages, 40);
	CHECK_INT(r->phantoms, 20);
	CHECK_INT(r->release_lost, 20);
	CHECK_INT(r->ties, 3);
	CHECK_INT(r->lost, 2);
	CHECK_INT(r->untracked, 0);
	CHECK(r->oldest_at_least, "ages with phantoms dropped are lower bounds");
	snapshot_free(&s);

	/* phantoms not all found yet: more ledger pages than out; still no negative count */
	make_reading(true);
	obs[0].ledger_pages = 60;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	r = row(&s, 7);
	CHECK_INT(r->before_start, 80);
	CHECK_INT(r->untracked, 0);
	snapshot_free(&s);
}

/*
 * Phantoms: the pages the kernel is asked about are those of pools that
 * lost releases (not marked yet); where it cannot tell, the excess over
 * the kernel's count, capped by the releases lost.
 */
static void test_phantom_suspects(void)
{
	struct page_ledger l;
	struct pl_excess *x = NULL;
	__u64 *nm = NULL, *pool = NULL;
	size_t n = 0, i;

	make_reading(true);
	/*
	 * pool 7: 140 out, 100 out at first sight, no release of one seen, 3
	 * releases lost: at least 97 from before start are out, so at most 43
	 * of the ledger's 50 pages are; 7 too many, of which 3 can be phantoms
	 */
	obs[0].rec.lost_releases = 3;
	obs[0].ledger_pages = 50;
	CHECK_INT(ledger_phantom_losses(&rd, 0), 3);
	CHECK_INT(ledger_excess(&rd, 0, 0, &x, &n), 0);
	CHECK_INT(n, 1);
	CHECK(n == 1 && x[0].gen == obs[0].rec.gen && x[0].n == 3, "capped by the 3 releases lost");
	free(x);
	/* what the logs still hold unread may explain it all */
	CHECK_INT(ledger_excess(&rd, 0, 7, &x, &n), 0);
	CHECK_INT(n, 0);
	free(x);

	pl_init(&l, 100);
	for (i = 0; i < 4; i++)
		pl_fold(&l, 0xffffea0000000000ULL + i * 64, false, obs[0].rec.gen, 10, 0);
	pl_fold(&l, 0xffffea0000001000ULL, false, obs[1].rec.gen, 10, 0);
	pl_mark(&l, 0xffffea0000000000ULL); /* marked already: not asked again */
	CHECK_INT(ledger_suspects(&l, &rd, 0, &nm, &pool, &n), 0);
	CHECK_INT(n, 3);
	for (i = 0; i < n; i++)
		CHECK(pool[i] == obs[0].rec.addr && nm[i] != 0xffffea0000000000ULL,
		      "a page of the pool that lost releases");
	free(nm);
	free(pool);
	/* a slot skipped names no pool: every pool's pages */
	CHECK_INT(ledger_suspects(&l, &rd, 1, &nm, &pool, &n), 0);
	CHECK_INT(n, 4);
	free(nm);
	free(pool);
	pl_free(&l);
}

int main(void)
{
	TEST(test_classify);
	TEST(test_counts);
	TEST(test_levels);
	TEST(test_ledger_split);
	TEST(test_phantom_suspects);
	TEST(test_rates);
	TEST(test_rebuild);
	TEST(test_filter_sort_group);
	TEST(test_reading_merge);
	TEST(test_dma);
	TEST(test_render);
	return unit_done();
}
