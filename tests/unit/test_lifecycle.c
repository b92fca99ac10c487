// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Lifecycle timelines without root. */
#include <errno.h>

#include "unit.h"

#include "model/life_feed.h"
#include "model/lifecycle.h"

#define SEC 1000000000ULL

static struct ppw_event ev(__u32 type, __u64 t, __s32 inflight, __u64 cnt)
{
	struct ppw_event e = { .type = type, .ts_ns = t * SEC, .inflight = inflight };

	e.rec.destroy_cnt = cnt;
	e.rec.addr = 0x1000;
	e.rec.gen = 3;
	e.rec.id = 9;
	e.rec.detach_ns = type >= PPW_EV_DESTROY ? 100 * SEC : 0;
	return e;
}

static double age_from_100(const struct pool_life *p, void *arg)
{
	__u64 now = *(__u64 *)arg;

	return p->rec.detach_ns ? (now - p->rec.detach_ns) / 1e9 : NAN;
}

static void test_timeline(void)
{
	struct lifecycle lc;
	struct life_event out[4];
	struct pool_life *p;
	struct ppw_event e;
	__u64 now;
	int i;

	life_init(&lc, 60, 2);
	e = ev(PPW_EV_POOL_NEW, 90, 10, 0);
	CHECK_INT(life_on_bpf(&lc, &e, NAN, out), 1);
	CHECK_INT(out[0].kind, LE_NEW);
	e = ev(PPW_EV_DESTROY, 100, 500, 1);
	CHECK_INT(life_on_bpf(&lc, &e, 0, out), 1);
	CHECK_INT(out[0].kind, LE_DESTROY);
	for (i = 2; i <= 100; i++) {
		e = ev(PPW_EV_RETRY, 100 + i - 1, 500, i);
		life_on_bpf(&lc, &e, i - 1, out);
	}
	CHECK_INT(out[0].retry, 99); /* destroy_cnt - 1 */
	p = life_find(&lc, 0x1000, 3);
	CHECK(p != NULL, "pool");
	CHECK_INT(p->retries, 99);
	CHECK_INT(p->nevents, LIFE_MAX_EVENTS); /* bounded ... */
	CHECK_INT(p->dropped_events, 101 - LIFE_MAX_EVENTS);
	CHECK_INT(p->events[LIFE_MAX_EVENTS - 1].retry, 99); /* ... keeping the latest */
	CHECK_INT(p->nsamples, 3);			     /* 10, then a flat stretch of 500 */

	now = 150 * SEC;
	CHECK_INT(life_tick(&lc, now, age_from_100, &now, out, 4), 0); /* 50 s: not yet */
	now = 161 * SEC;
	CHECK_INT(life_tick(&lc, now, age_from_100, &now, out, 4), 1);
	CHECK_INT(out[0].kind, LE_STALLED);
	CHECK_NEAR(out[0].detach_age_s, 61, 1e-9);
	CHECK_INT(life_tick(&lc, now, age_from_100, &now, out, 4), 0); /* once */

	e = ev(PPW_EV_FREED, 170, 0, 71);
	CHECK_INT(life_on_bpf(&lc, &e, 70, out), 1);
	CHECK_INT(out[0].kind, LE_FREED);
	CHECK(p->freed_ns == 170 * SEC, "freed time");
	CHECK_INT(life_on_netlink(&lc, 7, 9, 171 * SEC, out), 1);
	CHECK_INT(out[0].kind, LE_NL_DEL);
	CHECK(out[0].pool == 0x1000, "netlink event matched by id");
	CHECK_STR(life_kind_name(LE_STALLED), "stalled");
	CHECK_INT(life_kind_parse("retry"), LE_RETRY);
	CHECK_INT(life_kind_parse("nope"), -EINVAL);
	life_free(&lc);
}

static void test_freed_history_bounded(void)
{
	struct lifecycle lc;
	struct life_event out;
	struct ppw_event e;
	int i;

	life_init(&lc, 60, 2);
	for (i = 0; i < 3; i++) {
		e = ev(PPW_EV_DESTROY, 10 + i, 1, 1);
		e.rec.addr = 0x2000 + i;
		life_on_bpf(&lc, &e, 0, &out);
		e.type = PPW_EV_FREED;
		life_on_bpf(&lc, &e, 0, &out);
	}
	CHECK_INT(lc.n, 2);
	CHECK(life_find(&lc, 0x2000, 3) == NULL, "the oldest freed pool went first");
	life_free(&lc);
}

/* what a feed delivered */
struct got {
	enum life_kind kind[8];
	double detach_age_s[8];
	int n;
	int stop_at; /* deliver returns true for this event (ends a wait) */
};

static bool deliver(void *arg, const struct life_event *e)
{
	struct got *g = arg;

	if (g->n < 8) {
		g->kind[g->n] = e->kind;
		g->detach_age_s[g->n] = e->detach_age_s;
	}
	return ++g->n == g->stop_at;
}

/*
 * The feed, as watch and the recorder run it: BPF events and a netlink
 * notification become lifecycle events, delivered in order; a stall comes
 * from the time alone, once; what deliver returns ends the wait.
 */
static void test_feed(void)
{
	struct kernel_facts k = { .page_size = 4096, .detach_time_is_ns = true };
	struct got g = { .stop_at = 2 };
	struct life_feed f;
	struct ppw_event e;

	life_feed_init(&f, 60, deliver, &g);
	life_feed_start(&f, &k, 1.7e9);
	CHECK(f.ec.boot_to_real == 1.7e9 && f.ec.page_size == 4096 && f.ec.stall_after_s == 60,
	      "the event context");
	e = ev(PPW_EV_POOL_NEW, 90, 10, 0);
	CHECK(!life_feed_on_event(&f, &e), "new: the wait goes on");
	e = ev(PPW_EV_DESTROY, 100, 500, 1);
	CHECK(life_feed_on_event(&f, &e), "destroy: deliver ended the wait");
	e = ev(PPW_EV_RETRY, 101, 500, 2);
	life_feed_on_event(&f, &e);
	life_feed_tick(&f, 150 * SEC); /* 50 s after destroy: not stalled */
	CHECK_INT(g.n, 3);
	life_feed_tick(&f, 161 * SEC);
	life_feed_tick(&f, 162 * SEC); /* once */
	CHECK(!life_feed_on_netlink(&f, 7, 9, 170 * SEC), "netlink del");
	CHECK_INT(g.n, 5);
	CHECK(g.kind[0] == LE_NEW && g.kind[1] == LE_DESTROY && g.kind[2] == LE_RETRY &&
		      g.kind[3] == LE_STALLED && g.kind[4] == LE_NL_DEL,
	      "the events in order");
	CHECK_NEAR(g.detach_age_s[3], 61, 1e-9); /* detach_ns 100 s, ticked at 161 s */
	life_feed_free(&f);
}

int main(void)
{
	TEST(test_timeline);
	TEST(test_freed_history_bounded);
	TEST(test_feed);
	return unit_done();
}
