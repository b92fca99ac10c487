/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A monitor: the loaded BPF session, the netlink client, the collector and
 * the last two snapshots, and the session loop's one wait. Every command
 * that watches the kernel runs on one.
 */
#ifndef __PPWATCH_SOURCES_MONITOR_H
#define __PPWATCH_SOURCES_MONITOR_H

#include <poll.h>

#include "model/kernel.h"
#include "model/life_feed.h"
#include "model/snapshot.h"
#include "sources/collector.h"
#include "sources/loader.h"
#include "sources/netlink.h"
#include "sources/netns.h"

struct monitor_opts {
	/* the session: attach type and table sizes (0: defaults) */
	enum attach_mode mode;
	enum ppw_level level;  /* what the hot path records */
	uint32_t sample_shift; /* sampled level: 1 page in 2^sample_shift */
	uint64_t max_pages;
	uint32_t max_pools;
	bool no_netlink;      /* do not ask the netdev family */
	bool subscribe;	      /* netlink page-pool notifications */
	bool holders;	      /* load the holder-scan iterators */
	bool blocks;	      /* walk the item blocks at each sample (item-block kernels) */
	uint32_t stack_every; /* --stacks sampling: 1 in N, 0 off */
	double keep_freed_s;  /* freed pools stay listed this long */
	/*
	 * Every lifecycle event from the ring buffer and every netlink
	 * page-pool notification, as they arrive; returning true ends the
	 * monitor_wait() in progress (a view that redraws on a change).
	 */
	bool (*on_event)(void *arg, const struct ppw_event *e);
	bool (*on_ntf)(void *arg, int cmd, const struct nl_pool *p);
	void *arg;
};

struct monitor {
	struct session s;
	struct nl_client nl;
	struct netns_list nsl;
	struct collector col;
	struct reading rd; /* the last reading, its memory reused */
	struct snapshot prev;
	struct snapshot cur;
	struct kernel_facts kernel;
	int samples;
	struct monitor_opts o;
	struct pollfd *pfd; /* monitor_wait()'s poll set */
	size_t npfd, cappfd;
	bool woken;	    /* a handler asked to end the wait */
	bool walk_blocks;   /* walk the item blocks at each sample (o.blocks, where they exist) */
	bool walk_stats;    /* read the pools' statistics at each sample (where they exist) */
	double discovery_s; /* the last discovery scan took this long */
	double next_discovery;	/* now_mono_s() of the next one */
	int nl_only;		/* pools only netlink lists: each dump anew, for their inflight */
	double next_netns_scan; /* now_mono_s() of the next namespace walk at the latest */
	size_t netns_unlisted;	/* pools in namespaces the last walk did not find */
};

/*
 * Every function here reports its own failure once (the object, the errno,
 * what to do) and returns -errno: callers pass it on and print nothing.
 */
int monitor_open(struct monitor *m, const struct monitor_opts *o);
/*
 * The session step: cur becomes prev and a new cur is built from the
 * kernel side (discovery, queued events, netlink, the item-block walk),
 * the maps and the model, in that order.
 */
int monitor_sample(struct monitor *m);
/*
 * The instant of cur (its reading's CLOCK_BOOTTIME) as Unix time: a
 * document's "time", the one every age and count in it is of.
 */
double monitor_time_s(const struct monitor *m);
void monitor_close(struct monitor *m);
/* one line on stderr, once, if this kernel lacks the gap 'name' (a view that shows it) */
void monitor_say_gap(const struct monitor *m, const char *name);

/*
 * The session loop's one wait: until 'until' (now_mono_s()), feeding BPF
 * events and netlink notifications to their handlers as they arrive. The
 * 'extra' descriptors (a terminal, a listener, clients) end the wait early
 * when one is ready; their revents are set. Returns how many extra
 * descriptors are ready, 0 at 'until', when a handler asked for it or
 * when asked to stop (exiting), or -errno.
 */
int monitor_wait(struct monitor *m, double until, struct pollfd *extra, size_t nextra);

/*
 * A lifecycle feed (model/life_feed.h) on a monitor: its BPF events as
 * they come, and its netlink notifications at the time they arrive.
 */
bool monitor_feed_ntf(void *feed, int cmd, const struct nl_pool *p);
#define LIFE_FEED_OPTS(f) .on_event = life_feed_on_event, .on_ntf = monitor_feed_ntf, .arg = (f)

#endif /* __PPWATCH_SOURCES_MONITOR_H */
