// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch pages POOL|DEVICE [--older-than DUR] [--limit N] [-S[N]]
 *               [--window DUR] [INTERVAL [COUNT]]
 *
 * Every inflight page of a pool: netmem, pfn, age, the CPU that took it,
 * who holds it now and, with --stacks, the sampled stack that took it from
 * the page allocator. Oldest first.
 *
 * Ages come from the ledger, so they are exact for pages that entered the
 * pool while ppwatch was watching. Pages already out when it started are
 * listed with a lower bound (model/ages.h): at least as old as ppwatch's
 * start, or as the pool's destroy; --older-than lists such a page when its
 * bound is over the limit, and counts the others. Run with INTERVAL
 * [COUNT] (or --window) to keep watching: ages then grow from one listing
 * to the next.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/doc.h"
#include "model/attrib.h"
#include "output/holder_table.h"
#include "output/pool_table.h"
#include "sources/collector.h"
#include "sources/holder_scan.h"
#include "sources/page_list.h"
#include "sources/stacks.h"

static struct {
	double older_than; /* NAN: no filter */
	uint64_t limit;
	uint32_t stack_every;
	double window;
	double interval;
	uint64_t count;
	struct view_opts view;
} opts = {
	.older_than = NAN,
};

enum { OPT_OLDER = 0x300, OPT_LIMIT, OPT_WINDOW };

static const struct option pages_lopts[] = {
	{ "older-than", required_argument, NULL, OPT_OLDER },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "stacks", optional_argument, NULL, 'S' },
	{ 0 },
};

static int pages_opt(int o, const char *arg)
{
	switch (o) {
	case OPT_OLDER:
		if (parse_duration(arg, &opts.older_than)) {
			usage_error("--older-than '%s': expected a duration such as 30s", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_LIMIT:
		if (parse_u64(arg, 1, UINT64_MAX, &opts.limit)) {
			usage_error("--limit '%s': expected a positive number", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_WINDOW:
		if (parse_duration(arg, &opts.window)) {
			usage_error("--window '%s': expected a duration", arg);
			return -EINVAL;
		}
		return 0;
	case 'S':
		return args_stack_every(arg, &opts.stack_every);
	}
	return -ENOENT;
}

static void pages_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      the pool(s): a pool id, or a device/driver name\n"
	       "  INTERVAL [COUNT]   keep watching, list every INTERVAL, COUNT times\n"
	       "\n"
	       "  --older-than DUR   only pages at least this old (30s, 2m)\n"
	       "  --limit N          at most N pages per pool\n"
	       "  --window DUR       watch this long before the (single) listing\n"
	       "  -S, --stacks[=N]   sample the hold stack of 1 in N pages (default %d)\n\n",
	       STACKS_DEFAULT_EVERY);
}

static bool listed(const struct pool_row *row, void *arg)
{
	return view_matches(arg, row) && row->state != ROW_FREED;
}

static int list_once(struct monitor *m, const struct ksyms *k)
{
	struct holders_report rep;
	struct scan_result scan;
	struct page_set ps;
	struct page_list l;
	size_t r, shown = 0;
	int err;

	err = holders_take(m, &scan, &rep);
	if (err)
		return err;
	/* the listed pools' ledger pages, of the sample's instant, in one walk */
	err = page_set_build(&ps, m, listed, &opts.view, k != NULL);
	if (err) {
		holders_release(&scan, &rep);
		return err;
	}
	if (env.json) {
		doc_open(&stdout_json);
		/* the instant every age below is of (the sample holders_take made) */
		json_kv_f64(&stdout_json, "time", monitor_time_s(m));
		if (!isnan(opts.older_than))
			json_kv_f64(&stdout_json, "older_than_s", opts.older_than);
		json_key(&stdout_json, "pools");
		json_arr_open(&stdout_json);
	}
	for (r = 0; r < m->cur.n && !err; r++) {
		const struct pool_row *row = &m->cur.rows[r];

		if (!listed(row, &opts.view))
			continue;
		err = page_list_build(&l, m, &ps, row, &rep, k, opts.older_than, opts.limit);
		if (err)
			break;
		shown++;
		if (env.json) {
			json_obj_open(&stdout_json);
			render_pool_ref_json(&stdout_json, row);
			json_kv_u64(&stdout_json, "netns", row->netns_ino);
			json_kv_s64(&stdout_json, "inflight", row->inflight);
			json_kv_u64(&stdout_json, "unknown_age_pages", l.unknown_age);
			json_kv_u64(&stdout_json, "unseen_pages", l.unseen);
			render_pages_json(&stdout_json, l.rows, l.n);
			json_obj_close(&stdout_json);
		} else {
			char dev[3 * sizeof(row->device)];

			printf("pool %s %s (%s): %lld pages inflight, %zu listed", row->ident,
			       esc_str(row->device, dev, sizeof(dev)), row_state_name(row->state),
			       (long long)row->inflight, l.n);
			if (l.unknown_age)
				printf(", %zu taken before ppwatch saw them and not known to be "
				       "that old (not listed)",
				       l.unknown_age);
			if (l.unseen)
				printf(", %zu out before ppwatch started and in no socket (not listed)",
				       l.unseen);
			putchar('\n');
			render_pages_text(stdout, l.rows, l.n, env.wide);
		}
		page_list_free(&l);
	}
	if (env.json) {
		json_arr_close(&stdout_json);
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
	} else if (!shown) {
		printf("no pool matches\n");
	}
	page_set_free(&ps);
	holders_release(&scan, &rep);
	return err;
}

static int pages_run(int argc, char **argv)
{
	struct ksyms k = { 0 };
	struct monitor m;
	uint64_t done = 0;
	double next;
	int err;

	if (args_view_interval(&opts.view, argc, argv, true, 0.05, &opts.interval, &opts.count))
		return EXIT_ERROR;
	if (!opts.view.nfilters) {
		usage_error("which pool? give a pool id or a device name");
		return EXIT_ERROR;
	}
	if (opts.stack_every && (err = ksyms_load(&k, NULL))) {
		p_err("reading /proc/kallsyms for --stacks: %s", strerror(-err));
		return EXIT_ERROR;
	}
	if (monitor_open(&m, &(struct monitor_opts){ ENV_MONITOR_OPTS, .holders = true,
						     .stack_every = opts.stack_every })) {
		ksyms_free(&k);
		return EXIT_ERROR;
	}
	err = monitor_sample(&m);
	next = now_mono_s() + (opts.interval ? opts.interval : opts.window);
	while (!err && !exiting) {
		err = monitor_wait(&m, next, NULL, 0);
		if (err || exiting)
			break;
		err = list_once(&m, opts.stack_every ? &k : NULL);
		done++;
		next += opts.interval;
		if (!opts.interval || (opts.count && done >= opts.count))
			break;
	}
	monitor_close(&m);
	ksyms_free(&k);
	return err ? EXIT_ERROR : EXIT_OK; /* a failure is reported where it happened */
}

const struct command cmd_pages = {
	.name = "pages",
	.level = PPW_LEVEL_ALL,
	.synopsis = "POOL|DEVICE [--older-than DUR] [--limit N] [-S[N]] [--window DUR] "
		    "[INTERVAL [COUNT]]",
	.summary = "every inflight page of a pool: age, CPU, holder, sampled stack",
	.lopts = pages_lopts,
	.sopts = "S::",
	.opt = pages_opt,
	.run = pages_run,
	.help = pages_help,
};
