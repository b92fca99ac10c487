// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch watch [POOL|DEVICE]... [-e EVENT[,EVENT]] [--stall-after DUR] [DURATION]
 *
 * The pool lifecycle as it happens, one line per event (JSON Lines with
 * -j): new (first seen, or found already destroyed), destroy, retry (the
 * kernel retries a destroyed pool about once a second), stalled (still not
 * freed after --stall-after, default 60 s like the kernel's warning),
 * unmap, freed, nid, and netlink's page-pool notifications.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "model/lifecycle.h"
#include "lib/log.h"
#include "main.h"
#include "sources/monitor.h"
#include "output/event_table.h"
#include "lib/util.h"

static struct {
	double stall_after;
	double duration;
	unsigned int kinds;	/* bit per enum life_kind; 0: all */
	struct view_opts view;
} opts = {
	.stall_after = 60,
};

enum { OPT_STALL = 0x400 };

static const struct option watch_lopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "stall-after", required_argument, NULL, OPT_STALL },
	{ 0 }
};

static int watch_opt(int o, const char *arg)
{
	char buf[256], *tok, *save = NULL;
	int k;

	switch (o) {
	case 'e':
		snprintf(buf, sizeof(buf), "%s", arg);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			k = life_kind_parse(tok);
			if (k < 0) {
				usage_error("-e '%s': events are new, destroy, retry, stalled, "
					    "unmap, freed, nid, netlink_add, netlink_change, "
					    "netlink_del, block_alloc, block_free, "
					    "item_slow_failed", tok);
				return -EINVAL;
			}
			opts.kinds |= 1U << k;
		}
		return 0;
	case OPT_STALL:
		if (parse_duration(arg, &opts.stall_after)) {
			usage_error("--stall-after '%s': expected a duration such as 60s", arg);
			return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

static void watch_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      only these pools (id, device or driver name)\n"
	       "  DURATION           stop after this long (default: Ctrl-C)\n"
	       "\n"
	       "  -e, --event LIST   only these events: new, destroy, retry, stalled, unmap,\n"
	       "                     freed, nid, netlink_add, netlink_change, netlink_del,\n"
	       "                     block_alloc, block_free, item_slow_failed (kernels with\n"
	       "                     ppwatch's item-block series)\n"
	       "  --stall-after DUR  when a destroyed pool counts as stalled (default 60s,\n"
	       "                     when the kernel warns)\n\n");
}

struct watch {
	struct monitor m;
	struct lifecycle lc;
	struct event_ctx ec;
	bool header_done;
};

static bool wanted(const struct event_row *er)
{
	int i;

	if (opts.kinds && !(opts.kinds & (1U << er->kind)))
		return false;
	if (!opts.view.nfilters)
		return true;
	for (i = 0; i < opts.view.nfilters; i++)
		if (row_matches(&er->row, opts.view.filters[i]))
			return true;
	return false;
}

static void emit(struct watch *w, const struct life_event *e)
{
	struct event_row er;

	event_row_of(&er, e, &w->ec);
	if (!wanted(&er))
		return;
	if (env.json) {
		render_event_json(&jw, &er);
		json_end(&jw);
		return;
	}
	render_event_text(stdout, &er, !w->header_done);
	w->header_done = true;
	fflush(stdout);
}

static void on_event(void *arg, const struct ppw_event *e)
{
	struct watch *w = arg;
	struct life_event le;
	double age = pool_detach_age(&e->rec, e->ts_ns, w->ec.detach_time_is_ns);

	if (life_on_bpf(&w->lc, e, age, &le) == 1)
		emit(w, &le);
}

static void on_ntf(int cmd, const struct nl_pool *p, void *arg)
{
	struct watch *w = arg;
	struct life_event le;

	if (life_on_netlink(&w->lc, cmd, p->id, now_boot_ns(), &le) == 1)
		emit(w, &le);
}

static double life_detach_age(const struct pool_life *p, void *arg)
{
	struct watch *w = arg;

	return pool_detach_age(&p->rec, now_boot_ns(), w->ec.detach_time_is_ns);
}

static struct watch W;

static int watch_loop(struct watch *w, double duration)
{
	struct life_event ev[16];
	struct pollfd pfd[17];
	double end = now_mono_ns() / 1e9 + (duration ? duration : 1e12), next_tick = 0, now;
	int fds[16], nfd, i, n, err = 0;
	size_t k, nn;

	while (!err && !exiting && (now = now_mono_ns() / 1e9) < end) {
		nfd = 0;
		pfd[nfd++] = (struct pollfd){ ring_buffer__epoll_fd(w->m.s.rb), POLLIN };
		nn = nl_client_fds(&w->m.nl, fds, 16);
		for (k = 0; k < nn; k++)
			pfd[nfd++] = (struct pollfd){ fds[k], POLLIN };
		if (poll(pfd, nfd, 200) < 0 && errno != EINTR)
			return -errno;
		session_poll(&w->m.s, 0);
		nl_client_drain(&w->m.nl, on_ntf, w);
		if (now >= next_tick) {
			/* new pools (discovery), then stalls */
			err = monitor_sample(&w->m);
			session_poll(&w->m.s, 0);
			n = life_tick(&w->lc, now_boot_ns(), life_detach_age, w, ev, 16);
			for (i = 0; i < n; i++)
				emit(w, &ev[i]);
			next_tick = now + 1;
		}
	}
	return err;
}

static int watch_run(int argc, char **argv)
{
	int err;

	if (view_parse_args(&opts.view, argc, argv, &opts.duration))
		return EXIT_ERROR;
	life_init(&W.lc, opts.stall_after, 256);
	if (monitor_open(&W.m, &(struct monitor_opts){ .subscribe = true, .on_event = on_event,
						      .event_arg = &W })) {
		life_free(&W.lc);
		return EXIT_ERROR;
	}
	W.ec = (struct event_ctx){
		.boot_to_real = now_real_s() - now_boot_ns() / 1e9,
		.page_size = W.m.s.feat.page_size,
		.detach_time_is_ns = W.m.s.feat.detach_time_is_ns,
		.regime = W.m.s.feat.unmap,
		.stall_after_s = opts.stall_after,
	};
	err = watch_loop(&W, opts.duration);
	monitor_close(&W.m);
	life_free(&W.lc);
	if (err) {
		p_err("watch: %s", strerror(-err));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

const struct command cmd_watch = {
	.name = "watch",
	.synopsis = "[POOL|DEVICE]... [-e EVENT,...] [--stall-after DUR] [DURATION]",
	.summary = "pool lifecycle events as they happen: destroy, retries, stalled, freed",
	.lopts = watch_lopts,
	.sopts = "e:",
	.opt = watch_opt,
	.run = watch_run,
	.help = watch_help,
};
