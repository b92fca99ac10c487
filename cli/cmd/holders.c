// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch holders [POOL|DEVICE]...: who holds each pool's inflight pages.
 *
 * An on-demand scan (sources/holder_scan.c): every socket in every network namespace,
 * every process's socket fds, each pool's own cache and ring, the skb defer
 * lists. Holders are sorted biggest first and always sum to the pool's
 * inflight: what nothing explains is listed as unattributed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/doc.h"
#include "model/attrib.h"
#include "output/holder_table.h"
#include "output/pool_table.h"
#include "sources/holder_scan.h"
#include "sources/monitor.h"

static struct {
	struct view_opts view;
} opts;

static void holders_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      only these pools: a pool id, or a device/driver name\n"
	       "  pool ID, dev NAME, ifindex N   the same, spelled out\n"
	       "  netns NAME|INODE   the pools of a network namespace\n\n");
}

/* keep the report's pools that match the filters */
static void filter_report(struct holders_report *rep)
{
	size_t i, n = 0;

	for (i = 0; i < rep->n; i++) {
		if (view_matches(&opts.view, rep->pools[i].row))
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

	if (args_view(&opts.view, argc, argv, NULL))
		return EXIT_ERROR;
	if (monitor_open(&m, &(struct monitor_opts){ ENV_MONITOR_OPTS, .holders = true }))
		return EXIT_ERROR;
	err = monitor_sample(&m);
	err = err ?: holders_take(&m, &scan, &rep);
	if (err) {
		monitor_close(&m);
		return EXIT_ERROR;
	}
	filter_report(&rep);
	if (rep.n)
		qsort(rep.pools, rep.n, sizeof(*rep.pools), by_inflight);
	if (scan.layout_ok == 0)
		p_warn("virt_to_page() self-check failed: the %s memory layout does not map "
		       "this kernel's memmap (%s); pages in skb heads are counted as unattributed",
		       scan.layout_from_kallsyms ? "exported" : "default x86_64",
		       scan.layout_from_kallsyms ?
			       "it is not virtual: CONFIG_SPARSEMEM_VMEMMAP is off" :
			       "CONFIG_SPARSEMEM_VMEMMAP is off, or the layout is randomised "
			       "(CONFIG_RANDOMIZE_MEMORY) without CONFIG_KALLSYMS_ALL to say where");
	if (env.json) {
		doc_open(&stdout_json);
		json_kv_f64(&stdout_json, "time", monitor_time_s(&m));
		render_holders_json(&stdout_json, &rep);
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
	} else {
		render_holders_text(stdout, &rep, env.wide);
		if (!rep.n)
			printf("no page pools%s\n", opts.view.nfilters ? " match" : "");
		putchar('\n');
		render_scan_summary_text(stdout, &rep);
	}
	holders_release(&scan, &rep);
	monitor_close(&m);
	return EXIT_OK;
}

const struct command cmd_holders = {
	.name = "holders",
	.level = PPW_LEVEL_ALL,
	.synopsis = "[POOL|DEVICE]...",
	.summary = "who holds each pool's inflight pages: sockets and processes, the pool",
	.run = holders_run,
	.help = holders_help,
};
