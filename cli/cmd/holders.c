// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch holders [POOL|DEVICE]...: who holds each pool's inflight pages.
 *
 * An on-demand scan (cli/scan.c): every socket in every network namespace,
 * every process's socket fds, each pool's own cache and ring, the skb defer
 * lists. Holders are sorted biggest first and always sum to the pool's
 * inflight: what nothing explains is listed as unattributed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/attrib.h"
#include "lib/log.h"
#include "main.h"
#include "sources/monitor.h"
#include "output/pool_table.h"
#include "output/holder_table.h"
#include "sources/holder_scan.h"
#include "lib/util.h"

static struct {
	struct view_opts view;
} opts;

static void holders_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      only these pools: a pool id, or a device/driver name\n"
	       "  pool ID, dev NAME, ifindex N   the same, spelled out\n\n");
}

/* keep the report's pools that match the filters */
static void filter_report(struct holders_report *rep)
{
	size_t i, n = 0;
	int k;

	for (i = 0; i < rep->n; i++) {
		bool keep = !opts.view.nfilters;

		for (k = 0; k < opts.view.nfilters && !keep; k++)
			keep = row_matches(rep->pools[i].row, opts.view.filters[k]);
		if (keep)
			rep->pools[n++] = rep->pools[i];
		else
			free(rep->pools[i].v);
	}
	rep->n = n;
}

static int by_inflight(const void *a, const void *b)
{
	const struct pool_holders *x = a, *y = b;

	return x->inflight < y->inflight ? 1 : x->inflight > y->inflight ? -1 : 0;
}

static int holders_run(int argc, char **argv)
{
	struct holders_report rep;
	struct scan_result scan;
	struct monitor m;
	int err;

	if (view_parse_args(&opts.view, argc, argv, NULL))
		return EXIT_ERROR;
	if (monitor_open(&m, &(struct monitor_opts){ .holders = true }))
		return EXIT_ERROR;
	err = monitor_sample(&m);
	if (!err)
		err = scan_run(&m.s, &m.nsl, &scan);
	/* again: the scan finds destroyed pools through their pages */
	if (!err)
		err = monitor_sample(&m);
	if (err) {
		monitor_close(&m);
		return EXIT_ERROR;
	}
	err = attrib_build(&rep, &scan, &m.cur,
			   &(struct attrib_params){ .now_ns = m.cur.ts_ns,
						    .page_size = m.s.feat.page_size });
	if (err) {
		p_err("attributing pages to holders: %s", strerror(-err));
		goto out;
	}
	filter_report(&rep);
	qsort(rep.pools, rep.n, sizeof(*rep.pools), by_inflight);
	if (scan.layout_ok == 0)
		p_warn("virt_to_page() self-check failed: this kernel's memory layout is not the "
		       "default and its symbols are not exported (CONFIG_KALLSYMS_ALL); pages in "
		       "skb heads are counted as unattributed");
	if (env.json) {
		json_obj_open(&jw);
		json_kv_str(&jw, "version", PPWATCH_VERSION);
		json_kv_f64(&jw, "time", now_real_s());
		render_holders_json(&jw, &rep);
		json_obj_close(&jw);
		json_end(&jw);
	} else {
		render_holders_text(stdout, &rep, env.wide);
		if (!rep.n)
			printf("no page pools%s\n", opts.view.nfilters ? " match" : "");
		putchar('\n');
		render_scan_summary_text(stdout, &rep);
	}
	attrib_free(&rep);
out:
	scan_free(&scan);
	monitor_close(&m);
	return err ? EXIT_ERROR : EXIT_OK;
}

const struct command cmd_holders = {
	.name = "holders",
	.synopsis = "[POOL|DEVICE]...",
	.summary = "who holds each pool's inflight pages: sockets and processes, the pool",
	.run = holders_run,
	.help = holders_help,
};
