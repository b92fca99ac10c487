// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "model/life_feed.h"
#include "model/snapshot.h"

/* lifecycle events kept per pool (model/lifecycle.c) for this many freed pools */
#define FEED_MAX_FREED 256

void life_feed_init(struct life_feed *f, double stall_after_s,
		    bool (*deliver)(void *arg, const struct life_event *e), void *arg)
{
	memset(f, 0, sizeof(*f));
	life_init(&f->lc, stall_after_s, FEED_MAX_FREED);
	f->ec.stall_after_s = stall_after_s;
	f->deliver = deliver;
	f->arg = arg;
}

void life_feed_start(struct life_feed *f, const struct kernel_facts *k, double boot_to_real)
{
	f->ec.boot_to_real = boot_to_real;
	f->ec.page_size = k->page_size;
	f->ec.detach_time_is_ns = k->detach_time_is_ns;
	f->ec.regime = k->unmap;
}

bool life_feed_on_event(void *feed, const struct ppw_event *e)
{
	struct life_feed *f = feed;
	struct life_event le;
	double age = pool_detach_age(&e->rec, e->ts_ns, f->ec.detach_time_is_ns);

	return life_on_bpf(&f->lc, e, age, &le) == 1 && f->deliver(f->arg, &le);
}

bool life_feed_on_netlink(struct life_feed *f, int cmd, __u32 id, __u64 now_ns)
{
	struct life_event le;

	return life_on_netlink(&f->lc, cmd, id, now_ns, &le) == 1 && f->deliver(f->arg, &le);
}

struct tick_at {
	const struct life_feed *f;
	__u64 now_ns;
};

static double detach_age(const struct pool_life *p, void *arg)
{
	const struct tick_at *t = arg;

	return pool_detach_age(&p->rec, t->now_ns, t->f->ec.detach_time_is_ns);
}

void life_feed_tick(struct life_feed *f, __u64 now_ns)
{
	struct tick_at t = { f, now_ns };
	struct life_event ev[16];
	int n, i;

	do {
		n = life_tick(&f->lc, now_ns, detach_age, &t, ev, 16);
		for (i = 0; i < n; i++)
			f->deliver(f->arg, &ev[i]);
	} while (n == 16);
}

void life_feed_free(struct life_feed *f)
{
	life_free(&f->lc);
}
