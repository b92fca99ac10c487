// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch pools: every page pool on the host, once.
 *
 * Pools come from three sources, merged by id: the discovery scan (pools
 * that exist now, even idle and invisible to netlink), the tracepoints
 * during a short observation window (destroyed pools are retried once a
 * second, so a window just over a second catches every zombie), and the
 * netlink page-pool-get dump. Rates are over the window.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/doc.h"
#include "output/pool_table.h"
#include "sources/monitor.h"

static struct {
	double window;
	struct view_opts view;
} opts = {
	.window = 1.2,
};

enum { OPT_WINDOW = 0x200 };

static const struct option pools_lopts[] = {
	{ "window", required_argument, NULL, OPT_WINDOW },
	ARGS_VIEW_LOPTS,
	{ 0 },
};

static int pools_opt(int o, const char *arg)
{
	if (o == OPT_WINDOW) {
		if (parse_duration(arg, &opts.window) || opts.window > 3600) {
			usage_error("--window '%s': expected a duration such as 1.5s", arg);
			return -EINVAL;
		}
		return 0;
	}
	return args_view_opt(&opts.view, o, arg);
}

static void pools_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      only these pools: a pool id, or a device/driver name\n"
	       "  pool ID, dev NAME, ifindex N   the same, spelled out\n"
	       "  netns NAME|INODE   the pools of a network namespace\n"
	       "  group-by device    one row per device (ynltool's view); 'group-by pool' is\n"
	       "                     the default\n"
	       "\n"
	       "  --window DUR       observe this long before printing (default 1.2s): a\n"
	       "                     destroyed pool shows up at its next once-a-second retry\n" ARGS_VIEW_HELP
	       "  -a, --all          include pools freed during the window\n\n",
	       "id");
}

static int pools_run(int argc, char **argv)
{
	struct group_row *groups = NULL;
	struct snapshot view = { 0 };
	struct monitor m;
	size_t ngroups = 0;
	int err;

	if (args_view(&opts.view, argc, argv, NULL))
		return EXIT_ERROR;
	if (monitor_open(&m, &(struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true,
						     .keep_freed_s = opts.window + 1 }))
		return EXIT_ERROR;
	/* the views with recycling columns say once that this kernel keeps none */
	if (!env.json && (opts.view.recycling || env.wide))
		monitor_say_gap(&m, "pp_stats");
	err = monitor_sample(&m);
	if (!err)
		err = monitor_wait(&m, now_mono_s() + opts.window, NULL, 0);
	if (err >= 0)
		err = monitor_sample(&m);
	if (err) { /* reported */
		monitor_close(&m);
		return EXIT_ERROR;
	}
	err = view_apply(&opts.view, &m.cur, &view, &groups, &ngroups);
	if (err) {
		p_err("sorting %zu pools for the view: %s", m.cur.n, strerror(-err));
		monitor_close(&m);
		return EXIT_ERROR;
	}

	if (env.json) {
		doc_open(&stdout_json);
		json_kv_f64(&stdout_json, "time", monitor_time_s(&m));
		json_kv_f64(&stdout_json, "window_s", view.interval_s);
		render_kernel_json(&stdout_json, &m.kernel);
		view_print_json(&stdout_json, &opts.view, &view, groups, ngroups);
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
	} else {
		view_print_text(stdout, &opts.view, &view, groups, ngroups, env.wide, true);
		if (snapshot_losses(&view) || log_get_level() >= LOG_INFO)
			render_losses_text(stderr, &view);
	}
	free(groups);
	snapshot_free(&view);
	monitor_close(&m);
	return EXIT_OK;
}

const struct command cmd_pools = {
	.name = "pools",
	.level = PPW_LEVEL_COUNTERS,
	.synopsis = "[POOL|DEVICE]... [group-by device] [--window DUR] [-s KEY] [-r] [-a]",
	.summary = "list every page pool with its inflight pages, bytes and state",
	.lopts = pools_lopts,
	.sopts = ARGS_VIEW_SOPTS,
	.opt = pools_opt,
	.run = pools_run,
	.help = pools_help,
};
