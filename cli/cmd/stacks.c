// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch stacks [POOL|DEVICE]... [-e N] [-n TOP] [DURATION]
 *
 * Samples kernel stacks at page hold and release (1 in N events, default
 * 64: a stack costs microseconds, so sampling is the default) for
 * DURATION or until Ctrl-C, then prints the top stacks per pool. Every
 * release of a destroyed pool's pages is taken, not sampled: those are few
 * and they answer "who returned the last pages?".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/doc.h"
#include "sources/monitor.h"
#include "sources/stacks.h"

static struct {
	uint64_t every;
	uint64_t top;
	double duration;
	struct view_opts view;
} opts = {
	.every = STACKS_DEFAULT_EVERY,
	.top = 5,
};

static const struct option stacks_lopts[] = {
	{ "every", required_argument, NULL, 'e' },
	{ "top", required_argument, NULL, 'n' },
	{ 0 },
};

static int stacks_opt(int o, const char *arg)
{
	switch (o) {
	case 'e':
		if (parse_u64(arg, 1, 1 << 20, &opts.every)) {
			usage_error("--every '%s': expected 1 (every event) .. 1048576", arg);
			return -EINVAL;
		}
		return 0;
	case 'n':
		if (parse_u64(arg, 1, 1000, &opts.top)) {
			usage_error("--top '%s': expected 1..1000", arg);
			return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

static void stacks_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      only these pools\n"
	       "  DURATION           sample this long (default: until Ctrl-C)\n"
	       "\n"
	       "  -e, --every N      take 1 stack in N hold/release events (default %d);\n"
	       "                     releases of destroyed pools are always taken\n"
	       "  -n, --top N        stacks shown per pool and kind (default 5)\n\n"
	       "OVERHEAD: a stack costs about 4-5 us; at 1 in 64, about 70 ns per event.\n\n",
	       STACKS_DEFAULT_EVERY);
}

static int stacks_run(int argc, char **argv)
{
	struct stack_agg *v = NULL;
	struct snapshot view;
	struct monitor m;
	struct ksyms k;
	size_t n = 0;
	int err;

	if (args_view(&opts.view, argc, argv, &opts.duration))
		return EXIT_ERROR;
	err = ksyms_load(&k, NULL);
	if (err) {
		p_err("reading /proc/kallsyms: %s%s", strerror(-err),
		      err == -EPERM ? ": addresses are hidden (kernel.kptr_restrict), run as root" :
				      "");
		return EXIT_ERROR;
	}
	if (monitor_open(&m, &(struct monitor_opts){ ENV_MONITOR_OPTS, .stack_every = opts.every,
						     .keep_freed_s = 3600 })) {
		ksyms_free(&k);
		return EXIT_ERROR;
	}
	err = monitor_sample(&m);
	if (!opts.duration)
		p_info("sampling stacks, 1 in %llu events; Ctrl-C to stop",
		       (unsigned long long)opts.every);
	err = err   ?:
		      monitor_wait(&m, now_mono_s() + (opts.duration ? opts.duration : 1e12), NULL,
				   0);
	err = err ?: monitor_sample(&m);
	err = err ?: stacks_read(&m.s, &k, &v, &n);
	if (!err) { /* the pools the stacks are named by: the filtered ones, a copy */
		err = snapshot_copy(&view, &m.cur);
		if (err)
			p_err("copying %zu pools for the view: %s", m.cur.n, strerror(-err));
	}
	if (!err) {
		snapshot_filter(&view, opts.view.filters, opts.view.nfilters);
		if (env.json) {
			doc_open(&stdout_json);
			stacks_write_json(&stdout_json, &k, &view, v, n, opts.every);
			json_obj_close(&stdout_json);
			json_end(&stdout_json);
		} else {
			stacks_print_text(stdout, &k, &view, v, n, opts.top, opts.every);
		}
		snapshot_free(&view);
	}
	free(v);
	monitor_close(&m);
	ksyms_free(&k);
	return err ? EXIT_ERROR : EXIT_OK;
}

const struct command cmd_stacks = {
	.name = "stacks",
	.level = PPW_LEVEL_COUNTERS,
	.synopsis = "[POOL|DEVICE]... [-e N] [-n TOP] [DURATION]",
	.summary = "sampled kernel stacks that hold and release each pool's pages",
	.lopts = stacks_lopts,
	.sopts = "e:n:",
	.opt = stacks_opt,
	.run = stacks_run,
	.help = stacks_help,
};
