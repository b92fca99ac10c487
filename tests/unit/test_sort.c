// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sorting every view by every one of its columns (-s KEY takes any column
 * key): after out_sort(), each row compares in order with the next, the
 * values fetched one at a time and each kept before the next is fetched.
 * The rows start in an order no column has, so a sort that does nothing
 * fails here, whatever the column's type or how its getter formats it.
 */
#include <errno.h>
#include <math.h>

#include "unit.h"

#include "model/attrib.h"
#include "output/block_table.h"
#include "output/event_table.h"
#include "output/holder_table.h"
#include "output/pool_table.h"
#include "output/table.h"
#include "fixtures.h"

#define NROWS 5
/* the order the rows are made in: every column's values come from it */
static const int perm[NROWS] = { 3, 0, 4, 1, 2 };

/* a value as the sort sees it: a number, or a copy of the string */
struct seen {
	bool null;
	bool str;
	double num;
	char s[160];
};

static void see(const struct oview *ov, const void *row, int col, struct seen *out)
{
	struct oval v;

	memset(&v, 0, sizeof(v));
	ov->get(row, col, &v, ov->ctx);
	memset(out, 0, sizeof(*out));
	out->null = v.null || (v.t == OT_F64 && !isfinite(v.f));
	out->str = v.t == OT_STR;
	if (out->str)
		snprintf(out->s, sizeof(out->s), "%s", v.s ? v.s : "");
	else
		out->num = v.t == OT_U64  ? (double)v.u :
			   v.t == OT_S64  ? (double)v.i :
			   v.t == OT_BOOL ? v.b :
					    v.f;
}

/* table.h's order: numbers biggest first, strings A-Z (with numbers in order), unknown last */
static int in_order(const struct seen *a, const struct seen *b)
{
	if (a->null || b->null)
		return !a->null || b->null;
	if (a->str)
		return strverscmp(a->s, b->s) <= 0;
	return a->num >= b->num;
}

/* sort a copy of rows by each column in turn; every neighbour pair must be in order */
static void check_view(const char *name, const struct oview *ov, const void *rows, size_t size)
{
	char copy[NROWS * 1024];
	struct seen a, b;
	int col, r, bad;

	CHECK(size * NROWS <= sizeof(copy), "%s: rows of %zu bytes", name, size);
	if (size * NROWS > sizeof(copy))
		return;
	for (col = 0; col < ov->ncols; col++) {
		memcpy(copy, rows, size * NROWS);
		CHECK_INT(out_sort(copy, NROWS, size, ov, ov->cols[col].key, false), 0);
		bad = -1;
		for (r = 0; r + 1 < NROWS && bad < 0; r++) {
			see(ov, copy + r * size, col, &a);
			see(ov, copy + (r + 1) * size, col, &b);
			if (!in_order(&a, &b))
				bad = r;
		}
		CHECK(bad < 0, "%s sorted by '%s': rows %d and %d out of order ('%s' %g, '%s' %g)",
		      name, ov->cols[col].key, bad, bad + 1, a.s, a.num, b.s, b.num);
		/* and reversed: the other way round, unknown still last */
		memcpy(copy, rows, size * NROWS);
		CHECK_INT(out_sort(copy, NROWS, size, ov, ov->cols[col].key, true), 0);
		bad = -1;
		for (r = 0; r + 1 < NROWS && bad < 0; r++) {
			see(ov, copy + r * size, col, &a);
			see(ov, copy + (r + 1) * size, col, &b);
			if (!(a.null || b.null ? in_order(&a, &b) : in_order(&b, &a)))
				bad = r;
		}
		CHECK(bad < 0, "%s reverse-sorted by '%s': rows %d and %d out of order", name,
		      ov->cols[col].key, bad, bad + 1);
	}
}

static void test_sort_pools(void)
{
	struct pool_row rows[NROWS];
	struct snapshot s = { .rows = rows, .n = NROWS, .ts_ns = 1000ULL * 1000000000 };
	struct oview ov;
	int i, k;

	for (i = 0; i < NROWS; i++) {
		struct pool_row *r = &rows[i];
		char dev[16];

		k = perm[i];
		snprintf(dev, sizeof(dev), "dev%d", k);
		*r = fixture_row(10 + k, dev, (enum row_state)(k % 3), 100 * k + 1, k + 1.5);
		r->addr = 0xffff888100000000ULL + (__u64)k * 0x1000;
		r->gen = k + 1;
		r->ifindex = k + 2;
		r->netns_ino = 4026531840U + k;
		r->napi_id = 8192 + k;
		r->hold_per_s = k * 10.0;
		r->release_per_s = k * 9.0;
		r->detach_age_s = k + 0.25;
		r->freed_age_s = k + 0.5;
		r->zombie_s = k + 0.75;
		r->before_start = k;
		r->before_start_min = k;
		r->untracked = k;
		r->retries = k;
		snprintf(r->driver, sizeof(r->driver), "drv%d", k);
		snprintf(r->devname, sizeof(r->devname), "0000:00:0%d.0", k);
		r->netlink = k & 1;
		r->flags = k & 1 ? PPW_PF_DMA_MAP : 0;
		r->order = k;
		r->pool_size = 64 << k;
		r->nid = k;
		r->hold_cnt = 1000 + k;
		r->release_cnt = 500 + k;
		r->destroy_cnt = k;
		r->last_inflight = k;
		r->seen_age_s = k * 2.0;
		r->netns_cookie = 4096 + k;
		r->oldest_at_least = k & 1;
		r->dma = (enum dma_state)(k % 6);
		r->dma_still_mapped = k;
		r->dma_unmapped_at_destroy = k;
		r->dma_unmap_age_s = k + 0.125;
		r->item_stats = true;
		r->item_fast_empty = k;
		r->item_slow_failed = 4 - k;
		r->item_blocks = true;
		r->blocks_prealloc = k;
		r->blocks_dyn = 4 - k;
		r->occ_known = true;
		r->occ.items_per_block = 254;
		r->occ.prealloc = k + 1;
		r->occ.dynamic = 4 - k;
		r->occ.used_prealloc = 10 * k;
		r->occ.sparse = k;
	}
	ov = pool_oview(&s);
	check_view("pools", &ov, rows, sizeof(rows[0]));
}

static void test_sort_groups(void)
{
	struct group_row rows[NROWS];
	struct oview ov = group_oview();
	int i, k;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < NROWS; i++) {
		struct group_row *g = &rows[i];

		k = perm[i];
		snprintf(g->device, sizeof(g->device), "dev%d", k);
		snprintf(g->ifname, sizeof(g->ifname), "dev%d", k);
		g->ifindex = k + 1;
		g->netns_ino = 4026531840U + k;
		g->page_pools = k;
		g->zombies = 4 - k;
		g->live_refs = 10 * k;
		g->live_bytes = 40960 * k;
		g->zombie_refs = 7 * k;
		g->zombie_bytes = 28672 * k;
		g->hold_per_s = k;
		g->release_per_s = k ? k : NAN;
		g->oldest_age_s = k * 1.5;
	}
	check_view("groups", &ov, rows, sizeof(rows[0]));
}

static void test_sort_holders(void)
{
	struct ppw_rec_sock socks[NROWS];
	struct holder rows[NROWS];
	struct oview ov = holder_oview();
	int i, k;

	memset(socks, 0, sizeof(socks));
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < NROWS; i++) {
		struct holder *h = &rows[i];
		struct ppw_rec_sock *s = &socks[i];

		k = perm[i];
		s->family = 2; /* AF_INET */
		s->protocol = 17;
		s->type = 2;
		s->laddr[0] = 192, s->laddr[1] = 0, s->laddr[2] = 2, s->laddr[3] = 10 + k;
		s->raddr[0] = 198, s->raddr[1] = 51, s->raddr[2] = 100, s->raddr[3] = 10 + k;
		s->lport = 5000 + k;
		s->rport = 6000 + k;
		s->ino = 1000 + k;
		s->netns_ino = 4026531840U + k;
		h->kind = HK_SOCKET;
		h->sock = s;
		h->pages = 10 * k;
		h->bytes = 40960 * k;
		h->head_pages = k;
		h->frag_pages = 4 - k;
		h->cpu = k;
		h->oldest_age_s = k + 0.5;
		h->oldest_at_least = k & 1;
		snprintf(h->desc, sizeof(h->desc), "udp 192.0.2.%d:%d", 10 + k, 5000 + k);
	}
	check_view("holders", &ov, rows, sizeof(rows[0]));
}

static void test_sort_pages(void)
{
	struct page_row rows[NROWS];
	struct oview ov = page_oview();
	int i, k;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < NROWS; i++) {
		struct page_row *r = &rows[i];

		k = perm[i];
		r->netmem = 0xffffea0004000000ULL + (__u64)k * 0x40;
		r->pfn = 0x100000 + k;
		r->age_s = k + 0.5;
		r->age_at_least = k & 1;
		r->in_ledger = k & 1;
		r->cpu = k;
		r->stack_id = k;
		r->where = k & 1 ? "head" : "frag";
		snprintf(r->holder, sizeof(r->holder), "udp 192.0.2.%d:5001", 10 + k);
		snprintf(r->stack, sizeof(r->stack), "f%d <- g", k);
	}
	check_view("pages", &ov, rows, sizeof(rows[0]));
}

static void test_sort_blocks(void)
{
	struct block_occupancy occ = { .items_per_block = 254 };
	struct block_info rows[NROWS];
	struct oview ov = block_oview(&occ);
	int i, k;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < NROWS; i++) {
		k = perm[i];
		rows[i].addr = 0xffff888104000000ULL + (__u64)k * 0x1000;
		rows[i].used = 50 * k;
		rows[i].unissued = 4 - k;
		rows[i].dynamic = k & 1;
		rows[i].current = k == 2;
	}
	check_view("blocks", &ov, rows, sizeof(rows[0]));
}

static void test_sort_events(void)
{
	struct event_row rows[NROWS];
	struct oview ov = event_oview();
	int i, k;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < NROWS; i++) {
		char dev[16];

		k = perm[i];
		snprintf(dev, sizeof(dev), "dev%d", k);
		rows[i].row = fixture_row(10 + k, dev, ROW_ZOMBIE, 10 * k, NAN);
		/* seconds apart, and never across midnight: the text time sorts as the time */
		rows[i].time = 1700000000.0 + 3600 * 6 + k;
		rows[i].kind = (enum life_kind)(1 + k);
		snprintf(rows[i].detail, sizeof(rows[i].detail), "detail %d", k);
	}
	check_view("events", &ov, rows, sizeof(rows[0]));
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	TEST(test_sort_pools);
	TEST(test_sort_groups);
	TEST(test_sort_holders);
	TEST(test_sort_pages);
	TEST(test_sort_blocks);
	TEST(test_sort_events);
	return unit_done();
}
