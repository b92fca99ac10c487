// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppvm-nl: dump the netdev family's page-pool objects, one line per pool,
 * for the VM tests. Built (statically) against the YNL library and the
 * netdev code generated from a kernel tree's netdev.yaml, so it also checks
 * that the spec, the uapi header and the generated code agree. kernel/rig.sh
 * builds one per kernel tree; an attribute is printed only if the tree's
 * uapi header has it (HAVE_NETDEV_A_..., see build_nl_helper in kernel/rig.sh);
 * PPVM_DUMP_REQ: the tree's dumps take a filter request (6.14 on).
 *
 *   ppvm-nl pools             page-pool-get dump
 *   ppvm-nl stats             page-pool-stats-get dump
 *   ppvm-nl monitor SECONDS   page-pool notifications for SECONDS
 *
 * Output: "pool id=N key=value ..." / "stats id=N key=value ..." /
 * "ntf add|change|del id=N key=value ..." (the pool's attributes), with the
 * attribute names of the spec; attributes the kernel did not send are not
 * printed. monitor prints "monitor ready" once subscribed, flushes every
 * line and stops after SECONDS or on SIGTERM. Exit status: 0 ok, 1 netlink
 * error, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ynl.h>
#include "netdev-user.h"

#define PUT(name, present, val)                                        \
	do {                                                           \
		if (present)                                           \
			printf(" %s=%" PRIu64, name, (uint64_t)(val)); \
	} while (0)

static void put_pool(const char *what, const struct netdev_page_pool_get_rsp *pp)
{
	printf("%s", what);
	PUT("id", pp->_present.id, pp->id);
	PUT("ifindex", pp->_present.ifindex, pp->ifindex);
	PUT("napi-id", pp->_present.napi_id, pp->napi_id);
	PUT("inflight", pp->_present.inflight, pp->inflight);
	PUT("inflight-mem", pp->_present.inflight_mem, pp->inflight_mem);
	PUT("detach-time", pp->_present.detach_time, pp->detach_time);
	PUT("dmabuf", pp->_present.dmabuf, pp->dmabuf);
#ifdef HAVE_NETDEV_A_PAGE_POOL_ITEM_MEM_PREALLOC
	PUT("item-mem-prealloc", pp->_present.item_mem_prealloc, pp->item_mem_prealloc);
	PUT("item-mem-dyn", pp->_present.item_mem_dyn, pp->item_mem_dyn);
#endif
	printf("\n");
}

static int dump_pools(struct ynl_sock *ys)
{
	struct netdev_page_pool_get_list *pools;
#ifdef PPVM_DUMP_REQ
	struct netdev_page_pool_get_req_dump req = {};

	pools = netdev_page_pool_get_dump(ys, &req);
#else
	pools = netdev_page_pool_get_dump(ys);
#endif
	if (!pools)
		return -1;

	ynl_dump_foreach(pools, pp)
		put_pool("pool", pp);
	netdev_page_pool_get_list_free(pools);
	return 0;
}

static int dump_stats(struct ynl_sock *ys)
{
	struct netdev_page_pool_stats_get_list *stats;
#ifdef PPVM_DUMP_REQ
	struct netdev_page_pool_stats_get_req_dump req = {};

	stats = netdev_page_pool_stats_get_dump(ys, &req);
#else
	stats = netdev_page_pool_stats_get_dump(ys);
#endif
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
		PUT("recycle-cached", s->_present.recycle_cached, s->recycle_cached);
		PUT("recycle-cache-full", s->_present.recycle_cache_full, s->recycle_cache_full);
		PUT("recycle-ring", s->_present.recycle_ring, s->recycle_ring);
		PUT("recycle-ring-full", s->_present.recycle_ring_full, s->recycle_ring_full);
		PUT("recycle-released-refcnt", s->_present.recycle_released_refcnt,
		    s->recycle_released_refcnt);
#ifdef HAVE_NETDEV_A_PAGE_POOL_STATS_ALLOC_DMA_MAP_FAILED
		PUT("alloc-dma-map-failed", s->_present.alloc_dma_map_failed,
		    s->alloc_dma_map_failed);
#endif
#ifdef HAVE_NETDEV_A_PAGE_POOL_STATS_ALLOC_DMA_INDEX_FAILED
		PUT("alloc-dma-index-failed", s->_present.alloc_dma_index_failed,
		    s->alloc_dma_index_failed);
#endif
#ifdef HAVE_NETDEV_A_PAGE_POOL_STATS_ALLOC_ITEM_FAST_EMPTY
		PUT("alloc-item-fast-empty", s->_present.alloc_item_fast_empty,
		    s->alloc_item_fast_empty);
		PUT("alloc-item-slow-failed", s->_present.alloc_item_slow_failed,
		    s->alloc_item_slow_failed);
#endif
#ifdef HAVE_NETDEV_A_PAGE_POOL_STATS_ITEM_BLOCKS_DYN_ALLOC
		PUT("item-blocks-dyn-alloc", s->_present.item_blocks_dyn_alloc,
		    s->item_blocks_dyn_alloc);
		PUT("item-blocks-dyn-free", s->_present.item_blocks_dyn_free,
		    s->item_blocks_dyn_free);
#endif
		printf("\n");
	}
	netdev_page_pool_stats_get_list_free(stats);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int monitor(struct ynl_sock *ys, int seconds)
{
	struct ynl_ntf_base_type *ntf;
	struct pollfd pfd;
	time_t end;

	if (ynl_subscribe(ys, "page-pool"))
		return -1;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	printf("monitor ready\n");
	fflush(stdout);

	pfd.fd = ynl_socket_get_fd(ys);
	pfd.events = POLLIN;
	end = time(NULL) + seconds;
	while (!stop && time(NULL) < end) {
		if (poll(&pfd, 1, 200) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!(pfd.revents & POLLIN))
			continue;
		if (ynl_ntf_check(ys) < 0)
			return -1;
		while ((ntf = ynl_ntf_dequeue(ys))) {
			struct netdev_page_pool_get_ntf *pn = (void *)ntf;
			const char *what = "ntf other";

			switch (ntf->cmd) {
			case NETDEV_CMD_PAGE_POOL_ADD_NTF:
				what = "ntf add";
				break;
			case NETDEV_CMD_PAGE_POOL_CHANGE_NTF:
				what = "ntf change";
				break;
			case NETDEV_CMD_PAGE_POOL_DEL_NTF:
				what = "ntf del";
				break;
			}
			put_pool(what, &pn->obj);
			fflush(stdout);
			ynl_ntf_free(ntf);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ynl_error yerr;
	struct ynl_sock *ys;
	int err;

	if (!((argc == 2 && (!strcmp(argv[1], "pools") || !strcmp(argv[1], "stats"))) ||
	      (argc == 3 && !strcmp(argv[1], "monitor")))) {
		fprintf(stderr, "usage: %s pools|stats|monitor SECONDS\n", argv[0]);
		return 2;
	}

	ys = ynl_sock_create(&ynl_netdev_family, &yerr);
	if (!ys) {
		fprintf(stderr, "ppvm-nl: netdev family: %s\n", yerr.msg);
		return 1;
	}

	if (!strcmp(argv[1], "pools"))
		err = dump_pools(ys);
	else if (!strcmp(argv[1], "stats"))
		err = dump_stats(ys);
	else
		err = monitor(ys, atoi(argv[2]));
	if (err)
		fprintf(stderr, "ppvm-nl: %s: %s\n", argv[1], ys->err.msg);
	ynl_sock_destroy(ys);
	return err ? 1 : 0;
}
