// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ages ppwatch cannot measure, as lower bounds (model/ages.h): HZ
 * from jiffies_64 and CLOCK_MONOTONIC, a destroy dated by the kernel's
 * detach time or its jiffies, and a snapshot's oldest page of a pool
 * destroyed (or out) before ppwatch started, in pools, group-by device
 * and a check rule.
 */
#include "unit.h"

#include "model/ages.h"
#include "model/rules.h"
#include "model/rules_eval.h"
#include "model/snapshot.h"

#define SEC   1000000000ULL
#define NOW   (5000 * SEC)
#define J2_32 (1ULL << 32)

/* jiffies_64 of a kernel of 'hz' up for mono_s, off by off_s of CLOCK_MONOTONIC */
static __u64 jiffies_at(unsigned int hz, double mono_s, double off_s)
{
	return J2_32 - 300ULL * hz + (__u64)((mono_s + off_s) * hz);
}

static void test_kclock_hz(void)
{
	static const unsigned int hz[] = { 100, 250, 300, 1000 };
	static const double up[] = { 20, 742, 3600, 30 * 86400.0 };
	size_t i, k;

	for (i = 0; i < sizeof(hz) / sizeof(hz[0]); i++)
		for (k = 0; k < sizeof(up) / sizeof(up[0]); k++) {
			/* the 0.18 s this host's jiffies trail CLOCK_MONOTONIC by */
			__u64 j = jiffies_at(hz[i], up[k], -0.18);

			CHECK(kclock_hz(j, (__u64)(up[k] * SEC)) == hz[i], "HZ %u up %g s: %u",
			      hz[i], up[k], kclock_hz(j, (__u64)(up[k] * SEC)));
			CHECK(kclock_hz_sure(j, (__u64)(up[k] * SEC)) == hz[i],
			      "sure: HZ %u up %g s", hz[i], up[k]);
		}
	/* 300 s up, every HZ lines up: the highest, the shortest tick (the youngest age) */
	CHECK_INT(kclock_hz(jiffies_at(250, 300.5, 0), (__u64)(300.5 * SEC)), 1000);
	/* and no sure HZ there: the ledger's clock measures it instead */
	CHECK_INT(kclock_hz_sure(jiffies_at(250, 300.5, 0), (__u64)(300.5 * SEC)), 0);
	/* nothing lines up (not jiffies_64): no HZ, no date */
	CHECK_INT(kclock_hz(123456789, 742 * SEC), 0);
	CHECK_INT(kclock_hz_sure(123456789, 742 * SEC), 0);
}

/* a pool destroyed 12 s before 'read', on a kernel of HZ 250 with no detach time */
static struct ppw_pool defer_pool(__u64 read_boot_ns)
{
	struct ppw_pool r = { .addr = 0xffff888012345000ULL, .gen = 1, .destroy_cnt = 13 };
	double up = 742;

	r.defer_jiffies = jiffies_at(250, up, -0.18);
	r.defer_start = r.defer_jiffies - 12 * 250;
	r.defer_mono_ns = (__u64)(up * SEC);
	r.defer_boot_ns = read_boot_ns;
	return r;
}

static void test_destroy_dated(void)
{
	struct ppw_pool r = defer_pool(NOW - 1 * SEC);
	double a;

	/* by the jiffies: 12 s before the read less a tick at most, 13 s before NOW */
	a = pool_detach_age(&r, NOW, false);
	CHECK(a <= 13.0 && a >= 13.0 - 0.0041, "defer_start: %.4f s", a);
	CHECK_INT(pool_destroyed_by(&r, false), NOW - 1 * SEC - (12 * 250 - 1) * (SEC / 250));
	/* a record whose jiffies are not jiffies_64 dates nothing */
	r.defer_mono_ns = 5 * SEC;
	CHECK_INT(pool_destroyed_by(&r, false), 0);
	CHECK_NAN(pool_detach_age(&r, NOW, false));

	/* the kernel's detach time in seconds: the destroy was before the next second */
	r = (struct ppw_pool){ .addr = 1, .kernel_detach_time = 4988 };
	CHECK_INT(pool_destroyed_by(&r, false), 4989 * SEC);
	/* in ns (v7.0): exact */
	r.kernel_detach_time = NOW - 12 * SEC;
	CHECK_INT(pool_destroyed_by(&r, true), NOW - 12 * SEC);
	/* seconds and the jiffies: each a latest time, the earlier says more */
	r = defer_pool(NOW - 1 * SEC);
	r.kernel_detach_time = 4988;
	CHECK_INT(pool_destroyed_by(&r, false), NOW - 1 * SEC - (12 * 250 - 1) * (SEC / 250));
	/* ppwatch saw it */
	r.detach_ns = NOW - 20 * SEC;
	CHECK_INT(pool_destroyed_by(&r, false), NOW - 20 * SEC);
	CHECK_NEAR(pool_detach_age(&r, NOW, false), 20, 1e-9);
	/* netlink's seconds */
	CHECK_INT(secs_destroyed_by(4988), 4989 * SEC);
	CHECK_INT(secs_destroyed_by(0), 0);
}

/*
 * The case: a pool destroyed 12 s before a ppwatch that started
 * (and read it) 0.3 s ago, 200 pages out since; the kernel's destroy time
 * only in its jiffies (5.10 to 6.7) or in its detach time.
 */
static void zombie_reading(struct reading *rd, struct pool_obs *o, bool by_defer)
{
	memset(rd, 0, sizeof(*rd));
	memset(o, 0, sizeof(*o));
	o->rec = defer_pool(NOW - 0.3 * SEC);
	if (!by_defer) {
		o->rec.defer_start = o->rec.defer_jiffies = 0;
		o->rec.kernel_detach_time = NOW - 12.3 * SEC;
	}
	o->rec.state = PPW_POOL_DETACHED;
	o->rec.first_seen_ns = NOW - 0.3 * SEC;
	o->rec.hold_cnt = o->rec.base_hold = 1200;
	o->rec.release_cnt = o->rec.base_release = 1000;
	rd->pools = o;
	rd->n = 1;
	rd->now_ns = NOW;
	rd->start_ns = NOW - 0.3 * SEC;
	rd->page_size = 4096;
	rd->detach_time_is_ns = true;
	rd->level = PPW_LEVEL_ALL;
}

static void test_zombie_oldest(void)
{
	struct snapshot s = { 0 };
	struct group_row *g = NULL;
	struct pool_obs o;
	struct reading rd;
	size_t n = 0;
	int by_defer;

	for (by_defer = 0; by_defer < 2; by_defer++) {
		const struct pool_row *w;

		zombie_reading(&rd, &o, by_defer);
		CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
		w = &s.rows[0];
		CHECK_INT(w->state, ROW_ZOMBIE);
		CHECK_INT(w->inflight, 200);
		CHECK_INT(w->before_start, 200);
		/* before: 0.3 s, ppwatch's first sight; now the destroy's 12.3 s */
		CHECK(w->oldest_age_s >= 12.3 - 0.005 && w->oldest_age_s <= 12.3, "%s: oldest %g s",
		      by_defer ? "jiffies" : "detach time", w->oldest_age_s);
		CHECK(w->oldest_at_least, "a lower bound");
		CHECK_NEAR(w->unseen_age_s, w->oldest_age_s, 1e-9);
		CHECK(w->destroyed_age_s >= 12.3 - 0.005, "destroyed %g s ago", w->destroyed_age_s);
		CHECK(w->detach_age_s >= 12.3 - 0.005, "detach age %g s", w->detach_age_s);
		CHECK_INT(snapshot_group_by_device(&s, &g, &n), 0);
		CHECK(n == 1 && g[0].oldest_at_least && g[0].oldest_age_s == w->oldest_age_s,
		      "the device's oldest: the pool's bound");
		free(g);
		snapshot_free(&s);
	}
}

/* a zombie whose pages ppwatch saw taken: exact ages, not the start's bound */
static void test_zombie_ledger_exact(void)
{
	struct snapshot s = { 0 };
	struct pool_obs o;
	struct reading rd;

	zombie_reading(&rd, &o, false);
	/* ppwatch started 60 s ago, saw the pool made and its 200 holds */
	rd.start_ns = NOW - 60 * SEC;
	o.rec.first_seen_ns = NOW - 50 * SEC;
	o.rec.base_hold = o.rec.base_release = 0;
	o.ledger_pages = 200;
	o.oldest_hold_ns = NOW - 30 * SEC;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_NEAR(s.rows[0].oldest_age_s, 30, 1e-9);
	CHECK(!s.rows[0].oldest_at_least, "exact");
	snapshot_free(&s);
}

/*
 * A live pool first seen at its first event 5 s ago (a kernel without
 * discovery), by a ppwatch attached 8 s ago: its 100 pages from before
 * were taken before the attach. With the pool table full meanwhile, a
 * hold may have gone unseen: only since the first sight.
 */
static void test_live_start_bound(void)
{
	struct snapshot s = { 0 };
	struct pool_obs o = { 0 };
	struct reading rd = { 0 };

	o.rec = (struct ppw_pool){ .addr = 0x1000,
				   .gen = 3,
				   .first_seen_ns = NOW - 5 * SEC,
				   .hold_cnt = 400,
				   .base_hold = 300,
				   .release_cnt = 200,
				   .base_release = 200 };
	o.ledger_pages = 100;
	o.oldest_hold_ns = NOW - 4 * SEC;
	rd.pools = &o;
	rd.n = 1;
	rd.now_ns = NOW;
	rd.start_ns = NOW - 8 * SEC;
	rd.page_size = 4096;
	rd.level = PPW_LEVEL_ALL;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_INT(s.rows[0].before_start, 100);
	CHECK_NEAR(s.rows[0].oldest_age_s, 8, 1e-9);
	CHECK(s.rows[0].oldest_at_least, "a lower bound");
	CHECK_NAN(s.rows[0].destroyed_age_s);
	snapshot_free(&s);
	rd.counters[PPW_CNT_POOLS_FULL] = 1;
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_NEAR(s.rows[0].oldest_age_s, 5, 1e-9);
	snapshot_free(&s);
}

/* check's max_oldest_age: a lower bound over the limit fails */
static void test_rule_on_bound(void)
{
	static const char rules[] = "version: 1\nrules:\n  - name: old\n    max_oldest_age: 10s\n";
	struct check_report rep = { 0 };
	struct ruleset rs = { 0 };
	struct snapshot s = { 0 };
	struct pool_obs o;
	struct reading rd;

	zombie_reading(&rd, &o, true);
	CHECK_INT(snapshot_build(&s, &rd, NULL), 0);
	CHECK_INT(rules_parse(&rs, "rules.yaml", rules, sizeof(rules) - 1, NULL), 0);
	CHECK_INT(rules_eval(&rs, &s, &rep), 0);
	CHECK_INT(report_exit_code(&rep), 1);
	CHECK(rep.n == 1 && rep.r[0].nfindings == 1 && rep.r[0].findings[0].at_least,
	      "the zombie, over the limit by its bound");
	CHECK(rep.n == 1 && strstr(rep.r[0].summary, ">12") != NULL, "summary: %s",
	      rep.n ? rep.r[0].summary : "");
	report_free(&rep);
	rules_free(&rs);
	snapshot_free(&s);
}

int main(void)
{
	TEST(test_kclock_hz);
	TEST(test_destroy_dated);
	TEST(test_zombie_oldest);
	TEST(test_zombie_ledger_exact);
	TEST(test_live_start_bound);
	TEST(test_rule_on_bound);
	return unit_done();
}
