// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppvm-nl: dump the netdev family's page-pool objects, one line per pool,
 * for the VM tests. Built (statically) against the YNL library and the
 * netdev code generated from the patched kernel tree's netdev.yaml, so it
 * also checks that the spec, the uapi header and the generated code agree.
 *
 *   ppvm-nl pools        page-pool-get dump
 *   ppvm-nl stats        page-pool-stats-get dump
 *
 * Output: "pool id=N key=value ..." / "stats id=N key=value ...", with the
 * attribute names of the spec; attributes the kernel did not send are not
 * printed. Exit status: 0 ok, 1 netlink error, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ynl.h>
#include "netdev-user.h"

#define PUT(name, present, val)						\
	do {								\
		if (present)						\
			printf(" %s=%" PRIu64, name, (uint64_t)(val));	\
	} while (0)

static int dump_pools(struct ynl_sock *ys)
{
	struct netdev_page_pool_get_list *pools;

	pools = netdev_page_pool_get_dump(ys);
	if (!pools)
		return -1;

	ynl_dump_foreach(pools, pp) {
		printf("pool");
		PUT("id", pp->_present.id, pp->id);
		PUT("ifindex", pp->_present.ifindex, pp->ifindex);
		PUT("napi-id", pp->_present.napi_id, pp->napi_id);
		PUT("inflight", pp->_present.inflight, pp->inflight);
		PUT("inflight-mem", pp->_present.inflight_mem, pp->inflight_mem);
		PUT("detach-time", pp->_present.detach_time, pp->detach_time);
		PUT("dmabuf", pp->_present.dmabuf, pp->dmabuf);
		PUT("item-blocks-prealloc", pp->_present.item_blocks_prealloc,
		    pp->item_blocks_prealloc);
		PUT("item-blocks-dyn", pp->_present.item_blocks_dyn,
		    pp->item_blocks_dyn);
		PUT("item-blocks-dyn-alloc", pp->_present.item_blocks_dyn_alloc,
		    pp->item_blocks_dyn_alloc);
		PUT("item-blocks-dyn-free", pp->_present.item_blocks_dyn_free,
		    pp->item_blocks_dyn_free);
		printf("\n");
	}
	netdev_page_pool_get_list_free(pools);
	return 0;
}

static int dump_stats(struct ynl_sock *ys)
{
	struct netdev_page_pool_stats_get_list *stats;

	stats = netdev_page_pool_stats_get_dump(ys);
	if (!stats)
		return -1;

	ynl_dump_foreach(stats, s) {
		printf("stats");
		PUT("id", s->info._present.id, s->info.id);
		PUT("ifindex", s->info._present.ifindex, s->info.ifindex);
		PUT("alloc-fast", s->_present.alloc_fast, s->alloc_fast);
		PUT("alloc-slow", s->_present.alloc_slow, s->alloc_slow);
		PUT("alloc-slow-high-order", s->_present.alloc_slow_high_order,
		    s->alloc_slow_high_order);
		PUT("alloc-empty", s->_present.alloc_empty, s->alloc_empty);
		PUT("alloc-refill", s->_present.alloc_refill, s->alloc_refill);
		PUT("alloc-waive", s->_present.alloc_waive, s->alloc_waive);
		PUT("recycle-cached", s->_present.recycle_cached,
		    s->recycle_cached);
		PUT("recycle-cache-full", s->_present.recycle_cache_full,
		    s->recycle_cache_full);
		PUT("recycle-ring", s->_present.recycle_ring, s->recycle_ring);
		PUT("recycle-ring-full", s->_present.recycle_ring_full,
		    s->recycle_ring_full);
		PUT("recycle-released-refcnt", s->_present.recycle_released_refcnt,
		    s->recycle_released_refcnt);
		PUT("alloc-item-fast-empty", s->_present.alloc_item_fast_empty,
		    s->alloc_item_fast_empty);
		PUT("alloc-item-slow-failed", s->_present.alloc_item_slow_failed,
		    s->alloc_item_slow_failed);
		printf("\n");
	}
	netdev_page_pool_stats_get_list_free(stats);
	return 0;
}

int main(int argc, char **argv)
{
	struct ynl_error yerr;
	struct ynl_sock *ys;
	int err;

	if (argc != 2 || (strcmp(argv[1], "pools") && strcmp(argv[1], "stats"))) {
		fprintf(stderr, "usage: %s pools|stats\n", argv[0]);
		return 2;
	}

	ys = ynl_sock_create(&ynl_netdev_family, &yerr);
	if (!ys) {
		fprintf(stderr, "ppvm-nl: netdev family: %s\n", yerr.msg);
		return 1;
	}

	err = !strcmp(argv[1], "pools") ? dump_pools(ys) : dump_stats(ys);
	if (err)
		fprintf(stderr, "ppvm-nl: %s dump: %s\n", argv[1], ys->err.msg);
	ynl_sock_destroy(ys);
	return err ? 1 : 0;
}
