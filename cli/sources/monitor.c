// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "lib/log.h"
#include "model/reading.h"
#include "lib/stop.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "sources/blocks.h"
#include "sources/discovered.h"
#include "sources/monitor.h"
#include "sources/pool_stats.h"

/* a lifecycle event from the ring buffer: the collector's graveyard, then the command */
static int on_event(void *ctx, void *data, size_t size)
{
	const struct ppw_event *e = data;
	struct monitor *m = ctx;
	int err;

	if (size < sizeof(*e))
		return 0;
	collector_note_event(&m->col, e);
	if (e->type == PPW_EV_POOL_RETIRED) {
		err = collector_retired(&m->col, e);
		if (err)
			return err; /* reported; ends the drain with it */
	}
	if (m->o.on_event && m->o.on_event(m->o.arg, e))
		m->woken = true;
	return 0;
}

static void on_ntf(int cmd, const struct nl_pool *p, void *arg)
{
	struct monitor *m = arg;

	p_dbg("netlink: notification %d for pool %u", cmd, p->id);
	m->next_discovery = 0; /* a pool came or went: look at the next sample */
	if (m->o.on_ntf && m->o.on_ntf(m->o.arg, cmd, p))
		m->woken = true;
}

static void kernel_facts_of(struct monitor *m)
{
	const struct features *f = &m->s.feat;

	m->kernel = (struct kernel_facts){
		.attach = attach_mode_name(m->s.mode),
		.unmap = f->unmap,
		.netlink = m->nl.available,
		.pool_ids = f->pool_user,
		.napi = f->pool_napi,
		.page_size = f->page_size,
		.detach_time_is_ns = f->detach_time_is_ns,
		.item_stats = f->item_stats,
		.item_blocks = f->item_blocks,
		/* what this session hooks, in whichever attach mode loaded */
		.unmap_event = session_hooks(&m->s, "page_pool_destroy_unmap"),
		.dma_index_stats = f->dma_index_stats,
		.dma_map_stats = f->dma_map_stats,
		.ledger = features_full_build(f) && f->jiffies,
		.discovery = f->bpf_loop,
		.pp_stats = f->pp_stats,
	};
}

/*
 * Once per run, one line on stderr: what this kernel cannot give and what
 * ppwatch does instead (JSON has the names in .kernel.unavailable).
 */
static void say_gaps(const struct monitor *m)
{
	const char *name, *what;
	char line[1024];
	size_t len = 0;
	int i;

	line[0] = 0;
	for (i = 0; (name = kernel_gap(&m->kernel, true, i, &what)); i++) {
		if (!strcmp(name, "netlink") && m->o.no_netlink)
			continue;
		len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0, "%s%s",
				len ? "; " : "", what);
		if (!strcmp(name, "netlink"))
			len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
					" (%s)", m->nl.why);
	}
	if (len)
		p_warn("this kernel cannot report %s", line);
}

void monitor_say_gap(const struct monitor *m, const char *name)
{
	const char *what = kernel_gap_named(&m->kernel, name);

	if (what)
		p_warn("this kernel cannot report %s", what);
}

/*
 * The namespace walk reads a record for every process of the host (on a
 * busy host more than the rest of a refresh: a sixth of top's CPU besides
 * the fold in the lab's flood), so it is not run every refresh: at the
 * start, at once when a pool the BPF side knows is in a namespace the list
 * lacks (a container's device and its pool appeared), and every
 * NETNS_RESCAN_S for what only netlink lists. A namespace the walk cannot
 * find (no process in it, no /run/netns mount) does not make it run again:
 * only more pools in unlisted namespaces than after the last walk do.
 */
#define NETNS_RESCAN_S 10.0

/* the last snapshot's pools in namespaces the list lacks */
static size_t netns_unlisted(const struct monitor *m)
{
	unsigned long last = 0;
	bool listed = true;
	size_t i, n = 0;

	for (i = 0; i < m->cur.n; i++) {
		unsigned long ino = m->cur.rows[i].netns_ino;

		if (!ino)
			continue;
		if (ino != last) {
			listed = netns_find(&m->nsl, ino) != NULL;
			last = ino;
		}
		n += !listed;
	}
	return n;
}

static int netns_rescan(struct monitor *m)
{
	double now = now_mono_s();
	int err;

	if (m->next_netns_scan && now < m->next_netns_scan &&
	    netns_unlisted(m) <= m->netns_unlisted)
		return 0;
	err = session_netns_scan(&m->s, &m->nsl);
	m->next_netns_scan = now + NETNS_RESCAN_S;
	m->netns_unlisted = netns_unlisted(m);
	return err;
}

int monitor_open(struct monitor *m, const struct monitor_opts *o)
{
	struct session_opts so = {
		.mode = o->mode,
		.level = o->level,
		.sample_shift = o->sample_shift,
		.max_pages = o->max_pages,
		.max_pools = o->max_pools,
		.on_event = on_event,
		.event_ctx = m,
		.holders = o->holders,
		.stack_every = o->stack_every,
	};
	int err;

	memset(m, 0, sizeof(*m));
	m->o = *o;
	err = session_open(&m->s, &so);
	if (err)
		return err;
	if (!o->no_netlink) {
		nl_client_init(&m->nl, o->subscribe);
		err = netns_rescan(m);
		err = err ?: nl_client_sync(&m->nl, &m->nsl);
	}
	err = err ?: collector_init(&m->col, &m->s, o->keep_freed_s);
	if (err) {
		monitor_close(m);
		return err;
	}
	m->walk_blocks = o->blocks && blocks_available(&m->s);
	m->walk_stats = stats_available(&m->s);
	kernel_facts_of(m);
	say_gaps(m);
	/* the session loop polls 'exiting' now: a signal asks it to finish */
	stop_graceful(true);
	return 0;
}

/* the ring buffer's events, to their handlers now: 0, or a handler's -errno (reported) */
static int drain_events(struct monitor *m)
{
	int n = session_poll(&m->s, 0);

	return n < 0 ? n : 0;
}

/*
 * Netlink's pools in every namespace (new namespaces get their sockets
 * first): *v is malloc'd. What a namespace's dump lacks it says itself.
 */
static int ask_netlink(struct monitor *m, struct nl_pool **v, size_t *n)
{
	int err;

	*v = NULL;
	*n = 0;
	if (m->o.no_netlink || !m->nl.available)
		return 0;
	err = netns_rescan(m);
	err = err ?: nl_client_sync(&m->nl, &m->nsl);
	/* a notification marks its namespace for a new dump */
	nl_client_drain(&m->nl, on_ntf, m);
	return err ?: nl_client_dump(&m->nl, m->nl_only > 0, v, n);
}

/*
 * The discovery scan walks every pool of the host (about 1 us each): at
 * most 1/DISCOVERY_SPACING of the time (0.1% of a core), so a host with
 * 10,000 idle pools runs it every ten seconds or so, a lab's every second.
 * Pools that make events are found by the hot path anyway; a netlink
 * notification brings the next scan forward.
 */
#define DISCOVERY_SPACING 1000

static void discover(struct monitor *m)
{
	double t0 = now_mono_s();

	if (m->samples && t0 < m->next_discovery)
		return;
	session_discover(&m->s); /* what it could not walk it says, once */
	m->discovery_s = now_mono_s() - t0;
	m->next_discovery = t0 + m->discovery_s * DISCOVERY_SPACING;
}

/*
 * The session step, in the order data flows: the kernel side (the
 * discovery iterator, the events it and the tracepoints queued, netlink in
 * every namespace, the item-block walk), then the maps (the collector),
 * then the model (the reading merged, a snapshot built from it and the
 * previous one). Each step reports its own failure.
 */
int monitor_sample(struct monitor *m)
{
	struct blocks_scan bs = { 0 };
	struct stats_scan ss = { 0 };
	struct nl_pool *nlv = NULL;
	bool have_blocks = false, have_stats = false;
	size_t nn = 0;
	int err;

	discover(m);
	/* what it found first, then what the ring holds (a destroy after the find) */
	err = collector_discovered(&m->col, on_event, m);
	err = err ?: drain_events(m);
	err = err ?: ask_netlink(m, &nlv, &nn);
	if (!err && m->walk_blocks) {
		/* a walk that fails (reported) leaves the occupancy unknown from now on */
		have_blocks = !blocks_scan_run(&m->s, 0, &bs);
		m->walk_blocks = have_blocks;
	}
	if (!err && m->walk_stats) {
		/* a walk that fails (reported) leaves the statistics of pools
		 * netlink does not list unknown from now on */
		have_stats = !stats_scan_run(&m->s, &ss);
		m->walk_stats = have_stats;
	}
	err = err ?: collector_collect(&m->col, &m->rd);
	m->rd.start_ns = m->s.start_ns;
	if (!err && nn) {
		err = reading_add_netlink(&m->rd, nlv, nn);
		if (err < 0)
			p_err("adding netlink's %zu pools to the reading: %s", nn, strerror(-err));
		m->nl_only = err > 0 ? err : 0;
		err = err < 0 ? err : 0;
	}
	if (!err && have_blocks)
		reading_add_blocks(&m->rd, &bs);
	if (!err && have_stats)
		reading_add_stats(&m->rd, &ss);
	blocks_scan_free(&bs);
	stats_scan_free(&ss);
	free(nlv);
	if (err)
		return err;
	/* cur becomes prev; the old prev's rows take the new snapshot (no new memory) */
	{
		struct snapshot old = m->prev;

		m->prev = m->cur;
		m->cur = old;
	}
	err = snapshot_rebuild(&m->cur, &m->rd, m->samples ? &m->prev : NULL);
	if (err) {
		p_err("building a snapshot of %zu pools: %s", m->rd.n, strerror(-err));
		return err;
	}
	m->samples++;
	return 0;
}

void monitor_close(struct monitor *m)
{
	stop_graceful(false);
	snapshot_free(&m->prev);
	snapshot_free(&m->cur);
	reading_free(&m->rd);
	collector_free(&m->col);
	nl_client_free(&m->nl);
	netns_free(&m->nsl);
	session_close(&m->s);
	free(m->pfd);
	m->pfd = NULL;
	m->npfd = m->cappfd = 0;
}

/* the poll set: ring buffer, netlink notification sockets, then 'extra' */
static int poll_set(struct monitor *m, const struct pollfd *extra, size_t nextra)
{
	size_t want = 1 + m->nl.n + nextra, i;

	if (want > m->cappfd) {
		struct pollfd *v = vec_grow(m->pfd, &m->cappfd, want, sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->pfd = v;
	}
	m->npfd = 0;
	m->pfd[m->npfd++] = (struct pollfd){ ring_buffer__epoll_fd(m->s.rb), POLLIN };
	m->npfd += nl_client_pollfds(&m->nl, m->pfd + m->npfd, m->nl.n);
	for (i = 0; i < nextra; i++) {
		m->pfd[m->npfd] = extra[i];
		m->pfd[m->npfd++].revents = 0;
	}
	return 0;
}

int monitor_wait(struct monitor *m, double until, struct pollfd *extra, size_t nextra)
{
	size_t first_extra, i;
	int r, err, ready, ms;
	double now, wake;

	m->woken = false;
	for (;;) {
		/* a SIGHUP is the caller's at once (a daemon re-reads its configuration) */
		if (exiting || hangup)
			return 0;
		r = poll_set(m, extra, nextra);
		if (r) {
			p_err("waiting for events: %s", strerror(-r));
			return r;
		}
		first_extra = m->npfd - nextra;
		now = now_mono_s();
		/* the page logs are drained on time, whatever the wait */
		wake = collector_due(&m->col) < until ? collector_due(&m->col) : until;
		ms = now >= wake		    ? 0 :
		     (wake - now) * 1000 >= INT_MAX ? INT_MAX :
						      (int)((wake - now) * 1000) + 1;
		r = poll(m->pfd, m->npfd, ms);
		if (r < 0 && errno != EINTR) {
			r = -errno;
			p_err("waiting for events (poll on %zu descriptors): %s", m->npfd,
			      strerror(-r));
			return r;
		}
		err = drain_events(m);
		err = err ?: collector_tick(&m->col);
		if (err)
			return err;
		if (m->nl.available)
			nl_client_drain(&m->nl, on_ntf, m);
		ready = 0;
		for (i = 0; i < nextra; i++) {
			extra[i].revents = r > 0 ? m->pfd[first_extra + i].revents : 0;
			ready += extra[i].revents != 0;
		}
		if (ready)
			return ready;
		if (m->woken || now_mono_s() >= until)
			return 0;
	}
}

bool monitor_feed_ntf(void *feed, int cmd, const struct nl_pool *p)
{
	return life_feed_on_netlink(feed, cmd, p->id, now_boot_ns());
}

double monitor_time_s(const struct monitor *m)
{
	return m->cur.ts_ns ? boot_to_real_s() + (double)m->cur.ts_ns / 1e9 : now_real_s();
}
