/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The lifecycle feed: BPF events and netlink notifications go through the
 * lifecycle model (model/lifecycle.c), and every event it makes (new,
 * destroy, retry, stalled, freed, ...) is handed to one 'deliver'
 * callback. 'watch' prints them, the recorder writes them. Pure: the
 * caller gives the times and the kernel facts; a monitor feeds it through
 * LIFE_FEED_OPTS() (sources/monitor.h).
 *
 *	life_feed_init(&f, stall_after, deliver, arg);
 *	monitor_open(&m, &(struct monitor_opts){ LIFE_FEED_OPTS(&f), ... });
 *	life_feed_start(&f, &m.kernel, boot_to_real_s());
 *	loop: monitor_wait(&m, ...); life_feed_tick(&f, now_boot_ns());
 */
#ifndef __PPWATCH_MODEL_LIFE_FEED_H
#define __PPWATCH_MODEL_LIFE_FEED_H

#include "model/kernel.h"
#include "model/lifecycle.h"

/* what an event needs to become a row (output/event_table.h) */
struct event_ctx {
	double boot_to_real; /* add to CLOCK_BOOTTIME seconds for wall clock */
	__u32 page_size;
	bool detach_time_is_ns;
	enum unmap_regime regime;
	double stall_after_s;
};

struct life_feed {
	struct lifecycle lc;
	struct event_ctx ec; /* how to turn an event into a row (after start) */
	/* returns true to end the monitor_wait() in progress */
	bool (*deliver)(void *arg, const struct life_event *e);
	void *arg;
};

void life_feed_init(struct life_feed *f, double stall_after_s,
		    bool (*deliver)(void *arg, const struct life_event *e), void *arg);
/* once the kernel is known: its facts, and the wall clock at CLOCK_BOOTTIME 0 */
void life_feed_start(struct life_feed *f, const struct kernel_facts *k, double boot_to_real);
/* a BPF lifecycle event (a monitor_opts on_event handler): true to end the wait */
bool life_feed_on_event(void *feed, const struct ppw_event *e);
/* a netlink page-pool notification (cmd) for pool id, at now_ns (CLOCK_BOOTTIME) */
bool life_feed_on_netlink(struct life_feed *f, int cmd, __u32 id, __u64 now_ns);
/* time-driven events (stalled) up to now_ns: call after each wait */
void life_feed_tick(struct life_feed *f, __u64 now_ns);
void life_feed_free(struct life_feed *f);

#endif /* __PPWATCH_MODEL_LIFE_FEED_H */
