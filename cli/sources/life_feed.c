// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "lib/util.h"
#include "sources/life_feed.h"

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

void life_feed_start(struct life_feed *f, const struct monitor *m)
{
	f->ec.boot_to_real = now_real_s() - now_boot_ns() / 1e9;
	f->ec.page_size = m->kernel.page_size;
	f->ec.detach_time_is_ns = m->kernel.detach_time_is_ns;
	f->ec.regime = m->kernel.unmap;
}

bool life_feed_on_event(void *feed, const struct ppw_event *e)
{
	struct life_feed *f = feed;
	struct life_event le;
	double age = pool_detach_age(&e->rec, e->ts_ns, f->ec.detach_time_is_ns);

	return life_on_bpf(&f->lc, e, age, &le) == 1 && f->deliver(f->arg, &le);
}

bool life_feed_on_ntf(void *feed, int cmd, const struct nl_pool *p)
{
	struct life_feed *f = feed;
	struct life_event le;

	return life_on_netlink(&f->lc, cmd, p->id, now_boot_ns(), &le) == 1 &&
	       f->deliver(f->arg, &le);
}

static double detach_age(const struct pool_life *p, void *arg)
{
	const struct life_feed *f = arg;

	return pool_detach_age(&p->rec, now_boot_ns(), f->ec.detach_time_is_ns);
}

void life_feed_tick(struct life_feed *f)
{
	struct life_event ev[16];
	int n, i;

	do {
		n = life_tick(&f->lc, now_boot_ns(), detach_age, f, ev, 16);
		for (i = 0; i < n; i++)
			f->deliver(f->arg, &ev[i]);
	} while (n == 16);
}

void life_feed_free(struct life_feed *f)
{
	life_free(&f->lc);
}
