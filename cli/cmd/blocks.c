// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch blocks [POOL|DEVICE]...: each pool's item blocks and how many of
 * their items are in use, on kernels with the page_pool item-block series.
 *
 * A pool tracks each page it hands out with an item; items live in
 * page-sized blocks, some allocated with the pool, more (dynamic blocks)
 * when those run out. A dynamic block goes back only when its last item
 * does: the walk (sources/blocks.c) shows blocks held for few pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "main.h"
#include "output/doc.h"
#include "output/block_table.h"
#include "sources/blocks.h"
#include "sources/monitor.h"

static struct {
	struct view_opts view;
} opts;

static void blocks_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      only these pools: a pool id, or a device/driver name\n"
	       "  pool ID, dev NAME, ifindex N   the same, spelled out\n"
	       "  netns NAME|INODE   the pools of a network namespace\n\n");
}

/* one detail walk per pool; scans[i] belongs to views[i] */
static int walk(struct monitor *m, struct blocks_scan **scans, size_t *ns,
		struct pool_block_view **views, size_t *n)
{
	size_t i, cap = 0, capv = 0;
	struct pool_block_view *v;
	struct blocks_scan *bs;
	int err;

	*n = 0;
	for (i = 0; i < m->cur.n; i++) {
		const struct pool_row *r = &m->cur.rows[i];
		const struct pool_blocks *pb;

		if (!r->has_record || !r->addr || r->state == ROW_FREED ||
		    !view_matches(&opts.view, r))
			continue;
		bs = VEC_PUSH(*scans, *ns, cap);
		if (!bs) {
			p_err("item blocks: walking pool %s: %s", r->ident, strerror(ENOMEM));
			return -ENOMEM;
		}
		err = blocks_scan_run(&m->s, r->addr, bs); /* reports its failure */
		if (err)
			return err;
		pb = blocks_find(bs, r->addr, r->gen);
		if (!pb) /* freed, or another pool now, since the sample */
			continue;
		v = VEC_PUSH(*views, *n, capv);
		if (!v) {
			p_err("item blocks: listing pool %s: %s", r->ident, strerror(ENOMEM));
			return -ENOMEM;
		}
		*v = (struct pool_block_view){ r, pb, m->s.feat.page_size };
	}
	return 0;
}

static int blocks_run(int argc, char **argv)
{
	struct pool_block_view *views = NULL;
	struct blocks_scan *scans = NULL;
	struct monitor m;
	size_t n = 0, ns = 0, i;
	int err, rc = EXIT_OK;

	if (args_view(&opts.view, argc, argv, NULL))
		return EXIT_ERROR;
	if (monitor_open(&m, &(struct monitor_opts){ ENV_MONITOR_OPTS }))
		return EXIT_ERROR;
	if (!blocks_available(&m.s)) {
		p_err("item blocks: not available: this kernel has no struct page_pool_item_block "
		      "(the page_pool item-block series, \"page_pool: fix IOMMU crash when driver "
		      "has already unbound\" v7, which ppwatch's patches/ build on); 'ppwatch pools "
		      "-w' shows what this kernel has");
		monitor_close(&m);
		return EXIT_ERROR;
	}
	err = monitor_sample(&m);
	err = err ?: walk(&m, &scans, &ns, &views, &n);
	if (err) { /* reported */
		rc = EXIT_ERROR;
		goto out;
	}
	if (env.json) {
		doc_open(&stdout_json);
		json_kv_f64(&stdout_json, "time", now_real_s());
		render_blocks_json(&stdout_json, views, n);
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
	} else {
		render_blocks_text(stdout, views, n, env.wide);
		if (!n)
			printf("no page pools%s\n", opts.view.nfilters ? " match" : "");
	}
out:
	/* the views point into the scans */
	for (i = 0; i < ns; i++)
		blocks_scan_free(&scans[i]);
	free(scans);
	free(views);
	monitor_close(&m);
	return rc;
}

const struct command cmd_blocks = {
	.name = "blocks",
	.level = PPW_LEVEL_COUNTERS,
	.synopsis = "[POOL|DEVICE]...",
	.summary = "each pool's item blocks and the items in use in each (item-block kernels)",
	.run = blocks_run,
	.help = blocks_help,
};
