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

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "model/lifecycle.h"
#include "output/event_table.h"
#include "sources/monitor.h"

static struct {
	double stall_after;
	double duration;
	unsigned int kinds; /* bit per enum life_kind; 0: all */
	struct view_opts view;
} opts = {
	.stall_after = 60,
};

enum { OPT_STALL = 0x400 };

static const struct option watch_lopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "stall-after", required_argument, NULL, OPT_STALL },
	{ 0 },
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
					    "item_slow_failed",
					    tok);
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
	struct life_feed feed;
	bool header_done;
};

static bool wanted(const struct event_row *er)
{
	if (opts.kinds && !(opts.kinds & (1U << er->kind)))
		return false;
	return view_matches(&opts.view, &er->row);
}

static bool print_event(void *arg, const struct life_event *e)
{
	struct watch *w = arg;
	struct event_row er;

	event_row_of(&er, e, &w->feed.ec);
	if (!wanted(&er))
		return false;
	if (env.json) {
		render_event_json(&stdout_json, &er);
		json_end(&stdout_json);
		return false;
	}
	render_event_text(stdout, &er, !w->header_done);
	w->header_done = true;
	fflush(stdout);
	return false;
}

static int watch_run(int argc, char **argv)
{
	struct watch w = { 0 };
	struct monitor m;
	double end, now, next_tick = 0;
	int err = 0;

	if (args_view(&opts.view, argc, argv, &opts.duration))
		return EXIT_ERROR;
	life_feed_init(&w.feed, opts.stall_after, print_event, &w);
	if (monitor_open(&m, &(struct monitor_opts){ ENV_MONITOR_OPTS, .subscribe = true,
						     LIFE_FEED_OPTS(&w.feed) })) {
		life_feed_free(&w.feed);
		return EXIT_ERROR;
	}
	life_feed_start(&w.feed, &m.kernel, boot_to_real_s());
	end = now_mono_s() + (opts.duration ? opts.duration : 1e12);
	while (!err && !exiting && (now = now_mono_s()) < end) {
		if (now >= next_tick) {
			/* new pools (discovery), then stalls */
			err = monitor_sample(&m);
			if (err)
				break;
			life_feed_tick(&w.feed, now_boot_ns());
			next_tick = now + 1;
		}
		err = monitor_wait(&m, next_tick < end ? next_tick : end, NULL, 0);
	}
	monitor_close(&m);
	life_feed_free(&w.feed);
	return err ? EXIT_ERROR : EXIT_OK; /* a failure is reported where it happened */
}

const struct command cmd_watch = {
	.name = "watch",
	.level = PPW_LEVEL_COUNTERS,
	.synopsis = "[POOL|DEVICE]... [-e EVENT,...] [--stall-after DUR] [DURATION]",
	.summary = "pool lifecycle events as they happen: destroy, retries, stalled, freed",
	.lopts = watch_lopts,
	.sopts = "e:",
	.opt = watch_opt,
	.run = watch_run,
	.help = watch_help,
};
