/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The lifecycle feed: BPF events and netlink notifications from a monitor
 * go through the pure lifecycle model (model/lifecycle.c), and every event
 * it makes (new, destroy, retry, stalled, freed, ...) is handed to one
 * 'deliver' callback. 'watch' prints them, the recording writer writes them.
 *
 *	life_feed_init(&f, stall_after, deliver, arg);
 *	monitor_open(&m, &(struct monitor_opts){ LIFE_FEED_OPTS(&f), ... });
 *	life_feed_start(&f, &m);
 *	loop: monitor_wait(&m, ...); life_feed_tick(&f);
 */
#ifndef __PPWATCH_SOURCES_LIFE_FEED_H
#define __PPWATCH_SOURCES_LIFE_FEED_H

#include "model/lifecycle.h"
#include "output/event_table.h"
#include "sources/monitor.h"

struct life_feed {
	struct lifecycle lc;
	struct event_ctx ec; /* how to turn an event into a row (after start) */
	/* returns true to end the monitor_wait() in progress */
	bool (*deliver)(void *arg, const struct life_event *e);
	void *arg;
};

void life_feed_init(struct life_feed *f, double stall_after_s,
		    bool (*deliver)(void *arg, const struct life_event *e), void *arg);
/* the monitor_opts handlers that feed it */
bool life_feed_on_event(void *feed, const struct ppw_event *e);
bool life_feed_on_ntf(void *feed, int cmd, const struct nl_pool *p);
#define LIFE_FEED_OPTS(f) .on_event = life_feed_on_event, .on_ntf = life_feed_on_ntf, .arg = (f)
/* once the monitor is open: the kernel facts the event rows need */
void life_feed_start(struct life_feed *f, const struct monitor *m);
/* time-driven events (stalled): call after each wait */
void life_feed_tick(struct life_feed *f);
void life_feed_free(struct life_feed *f);

#endif /* __PPWATCH_SOURCES_LIFE_FEED_H */
