// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The netdev family through the kernel's YNL library: the request, reply and
 * notification layouts come from the code ynl-gen-c.py generates from the
 * netdev spec (see the Makefile), so no attribute id is kept by hand here.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netdev-user.h>
#include <ynl.h>

#include "lib/log.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "sources/netlink.h"

#define NETDEV_MCGRP_PAGE_POOL "page-pool"

/*
 * A dump takes rtnl_lock for as long as it walks the namespace's pools:
 * one is reused while the namespace's notification socket says nothing
 * changed (page-pool add, del and change: a pool listed, destroyed,
 * re-parented or gone), for NL_REDUMP_S at most.
 */
#define NL_REDUMP_S 30

struct nl_ns {
	unsigned long ino;
	struct ynl_sock *req; /* requests and dumps */
	struct ynl_sock *ntf; /* page-pool notifications */
	int ioctl_fd;	      /* an AF_INET socket there, for ifindex -> name */
	bool dump_warned;     /* a failed dump here was reported */
	bool dirty;	      /* a notification since the last dump */
	bool dumped;	      /* cache holds its last dump */
	double dumped_at;     /* now_mono_s() of it */
	struct nl_pool *cache;
	size_t ncache, capcache;
};

/* a netdev socket in the caller's namespace, not inherited by children */
static struct ynl_sock *sock_open(struct ynl_error *e)
{
	struct ynl_sock *ys = ynl_sock_create(&ynl_netdev_family, e);

	if (ys)
		fcntl(ynl_socket_get_fd(ys), F_SETFD, FD_CLOEXEC);
	return ys;
}

/* YNL's error: an errno, or YNL's own code with a message */
static const char *ynl_why(const struct ynl_error *e)
{
	if (e->msg[0])
		return e->msg;
	return e->code && e->code < __YNL_ERRNO_END ? strerror(e->code) : "unknown error";
}

int nl_client_init(struct nl_client *c, bool subscribe)
{
	struct ynl_error e = {};
	struct ynl_sock *ys;

	memset(c, 0, sizeof(*c));
	c->subscribe = subscribe;
	ys = sock_open(&e);
	if (!ys) {
		snprintf(
			c->why, sizeof(c->why),
			"generic netlink family 'netdev' not found (%.64s): kernel older than 6.8 or "
			"without CONFIG_PAGE_POOL",
			ynl_why(&e));
		return 0;
	}
	ynl_sock_destroy(ys);
	c->available = true;
	p_dbg("netlink: family netdev found");
	return 0;
}

/* ---- per-namespace sockets -------------------------------------------------- */

struct open_arg {
	struct nl_client *c;
	struct nl_ns *ns;
};

static int open_in_ns(void *p)
{
	struct open_arg *a = p;
	struct nl_ns *ns = a->ns;
	struct ynl_error e = {};

	ns->req = sock_open(&e);
	if (!ns->req)
		return e.code && e.code < __YNL_ERRNO_END ? -(int)e.code : -ENOENT;
	ns->ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!a->c->subscribe)
		return 0;
	ns->ntf = sock_open(&e);
	if (!ns->ntf)
		return 0;
	/* 6.3 to 6.7 have the family but no page-pool group: no notifications */
	if (ynl_subscribe(ns->ntf, NETDEV_MCGRP_PAGE_POOL) < 0) {
		p_dbg("netlink: %s", ynl_why(&ns->ntf->err));
		ynl_sock_destroy(ns->ntf);
		ns->ntf = NULL;
	}
	return 0;
}

static void ns_close(struct nl_ns *ns)
{
	free(ns->cache);
	if (ns->req)
		ynl_sock_destroy(ns->req);
	if (ns->ntf)
		ynl_sock_destroy(ns->ntf);
	if (ns->ioctl_fd > 0)
		close(ns->ioctl_fd);
	memset(ns, 0, sizeof(*ns));
}

int nl_client_sync(struct nl_client *c, const struct netns_list *l)
{
	struct open_arg a = { c };
	size_t i, j, k = 0;
	int err;

	if (!c->available)
		return 0;
	/* namespaces the list closed: their sockets too (a socket keeps its namespace alive) */
	for (j = 0; j < c->n; j++) {
		if (netns_find(l, c->v[j].ino))
			c->v[k++] = c->v[j];
		else
			ns_close(&c->v[j]);
	}
	c->n = k;
	for (i = 0; i < l->n; i++) {
		for (j = 0; j < c->n; j++)
			if (c->v[j].ino == l->v[i].ino)
				break;
		if (j < c->n)
			continue;
		a.ns = VEC_NEXT(c->v, c->n, c->cap); /* kept once its sockets are open */
		if (!a.ns) {
			p_err("netlink: a socket for network namespace %s: %s", l->v[i].name,
			      strerror(ENOMEM));
			return -ENOMEM;
		}
		memset(a.ns, 0, sizeof(*a.ns));
		a.ns->ino = l->v[i].ino;
		err = netns_run(l, &l->v[i], open_in_ns, &a);
		if (err) {
			p_dbg("netlink: namespace %s: %s", l->v[i].name, strerror(-err));
			ns_close(a.ns);
			continue;
		}
		c->n++;
	}
	return 0;
}

size_t nl_client_pollfds(const struct nl_client *c, struct pollfd *pfd, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < c->n && n < max; i++)
		if (c->v[i].ntf)
			pfd[n++] = (struct pollfd){ ynl_socket_get_fd(c->v[i].ntf), POLLIN };
	return n;
}

/* ---- page-pool objects ------------------------------------------------------ */

static void to_pool(const struct netdev_page_pool_get_rsp *r, const struct nl_ns *ns,
		    struct nl_pool *p)
{
	struct ifreq ifr = {};

	memset(p, 0, sizeof(*p));
	p->netns_ino = ns->ino;
	if (r->_present.id)
		p->id = r->id;
	if (r->_present.ifindex) {
		p->present |= NLP_IFINDEX;
		p->ifindex = r->ifindex;
	}
	if (r->_present.napi_id) {
		p->present |= NLP_NAPI_ID;
		p->napi_id = r->napi_id;
	}
	if (r->_present.inflight) {
		p->present |= NLP_INFLIGHT;
		p->inflight = r->inflight;
	}
	if (r->_present.inflight_mem) {
		p->present |= NLP_INFLIGHT_MEM;
		p->inflight_mem = r->inflight_mem;
	}
	if (r->_present.detach_time) {
		p->present |= NLP_DETACH_TIME;
		p->detach_time = r->detach_time;
	}
	if (r->_present.dmabuf) {
		p->present |= NLP_DMABUF;
		p->dmabuf = r->dmabuf;
	}
	if (!(p->present & NLP_IFINDEX) || ns->ioctl_fd <= 0)
		return;
	ifr.ifr_ifindex = p->ifindex;
	if (!ioctl(ns->ioctl_fd, SIOCGIFNAME, &ifr))
		snprintf(p->ifname, sizeof(p->ifname), "%s", ifr.ifr_name);
}

/* one namespace's page-pool-get dump into its cache: 0, or -ENOMEM (reported) */
static int dump_ns(struct nl_ns *ns)
{
	struct netdev_page_pool_get_list *l;
	struct nl_pool *p;

	ns->ncache = 0;
	ns->dumped = false;
	l = netdev_page_pool_get_dump(ns->req);
	if (!l) {
		/* EOPNOTSUPP: the family without page-pool-get (6.3 to 6.7) */
		if (ns->req->err.code == EOPNOTSUPP || ns->dump_warned)
			p_dbg("netlink: page-pool-get dump in netns %lu: %s", ns->ino,
			      ynl_why(&ns->req->err));
		else
			p_warn("netlink: page-pool-get dump in netns %lu: %s; its pools are "
			       "listed from BPF only",
			       ns->ino, ynl_why(&ns->req->err));
		ns->dump_warned = true;
		return 0;
	}
	ynl_dump_foreach(l, pp) {
		if (!pp->_present.id || !pp->id)
			continue;
		p = VEC_NEXT(ns->cache, ns->ncache, ns->capcache);
		if (!p) {
			p_err("netlink: page-pool-get dump in netns %lu: %s", ns->ino,
			      strerror(ENOMEM));
			netdev_page_pool_get_list_free(l);
			ns->ncache = 0;
			return -ENOMEM;
		}
		to_pool(pp, ns, p);
		ns->ncache++;
	}
	netdev_page_pool_get_list_free(l);
	ns->dumped = true;
	ns->dirty = false;
	ns->dumped_at = now_mono_s();
	return 0;
}

/* ---- page-pool-stats ---------------------------------------------------------- */

static void to_stats(const struct netdev_page_pool_stats_get_rsp *r, struct pp_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->source = PPS_NETLINK;
	s->alloc[PPW_ALLOC_FAST] = r->alloc_fast;
	s->alloc[PPW_ALLOC_SLOW] = r->alloc_slow;
	s->alloc[PPW_ALLOC_SLOW_HIGH_ORDER] = r->alloc_slow_high_order;
	s->alloc[PPW_ALLOC_EMPTY] = r->alloc_empty;
	s->alloc[PPW_ALLOC_REFILL] = r->alloc_refill;
	s->alloc[PPW_ALLOC_WAIVE] = r->alloc_waive;
	s->recycle[PPW_RECYCLE_CACHED] = r->recycle_cached;
	s->recycle[PPW_RECYCLE_CACHE_FULL] = r->recycle_cache_full;
	s->recycle[PPW_RECYCLE_RING] = r->recycle_ring;
	s->recycle[PPW_RECYCLE_RING_FULL] = r->recycle_ring_full;
	s->recycle[PPW_RECYCLE_RELEASED_REFCNT] = r->recycle_released_refcnt;
	/* the kernel puts all eleven or fails the message */
	s->recycle_known = r->_present.recycle_cached && r->_present.recycle_ring;
}

/*
 * One namespace's page-pool-stats dump onto its cached pools, by id. Both
 * dumps walk the same per-device lists in the same order: the search
 * starts after the last hit, so a namespace of n pools costs n steps.
 */
static void stats_ns(struct nl_client *c, struct nl_ns *ns)
{
	struct netdev_page_pool_stats_get_list *l;
	size_t i, at = 0, k;

	for (i = 0; i < ns->ncache; i++)
		memset(&ns->cache[i].stats, 0, sizeof(ns->cache[i].stats));
	if (c->no_stats || !ns->ncache)
		return;
	l = netdev_page_pool_stats_get_dump(ns->req);
	if (!l) {
		/* "kernel built without CONFIG_PAGE_POOL_STATS": said once, as a gap */
		if (ns->req->err.code == EOPNOTSUPP)
			c->no_stats = true;
		p_dbg("netlink: page-pool-stats-get dump in netns %lu: %s", ns->ino,
		      ynl_why(&ns->req->err));
		return;
	}
	ynl_dump_foreach(l, st) {
		if (!st->_present.info || !st->info._present.id)
			continue;
		for (k = 0; k < ns->ncache; k++) {
			i = (at + k) % ns->ncache;
			if (ns->cache[i].id == st->info.id) {
				to_stats(st, &ns->cache[i].stats);
				at = i + 1;
				break;
			}
		}
	}
	netdev_page_pool_stats_get_list_free(l);
}

int nl_client_dump(struct nl_client *c, bool fresh, struct nl_pool **out, size_t *n)
{
	struct nl_pool *v = NULL;
	size_t nv = 0, i, dumped = 0;
	double t0 = now_mono_s();
	struct nl_ns *ns;
	int err;

	*out = NULL;
	*n = 0;
	if (!c->available)
		return 0;
	for (i = 0; i < c->n; i++) {
		ns = &c->v[i];
		/* without a notification socket nothing says when a dump is stale */
		if (fresh || !ns->dumped || ns->dirty || !ns->ntf ||
		    now_mono_s() - ns->dumped_at >= NL_REDUMP_S) {
			err = dump_ns(ns);
			if (err) {
				free(v);
				return err;
			}
			dumped++;
		}
		stats_ns(c, ns);
		nv += ns->ncache;
	}
	c->dump_s = now_mono_s() - t0;
	c->dumped_ns = dumped;
	if (dumped)
		p_dbg("netlink: dumped %zu of %zu namespaces in %.3f ms", dumped, c->n,
		      c->dump_s * 1e3);
	if (!nv)
		return 0;
	v = malloc(nv * sizeof(*v));
	if (!v) {
		p_err("netlink: the pools of %zu namespaces: %s", c->n, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0, nv = 0; i < c->n; i++) {
		if (c->v[i].ncache)
			memcpy(v + nv, c->v[i].cache, c->v[i].ncache * sizeof(*v));
		nv += c->v[i].ncache;
	}
	*out = v;
	*n = nv;
	return 0;
}

int nl_client_drain(struct nl_client *c, nl_ntf_fn cb, void *arg)
{
	struct netdev_page_pool_get_ntf *ntf;
	struct nl_pool p;
	int total = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (!c->v[i].ntf)
			continue;
		if (ynl_ntf_check(c->v[i].ntf) < 0) {
			/* ENOBUFS: some were lost, so the cached dump may be stale */
			c->v[i].dirty = true;
			p_dbg("netlink: notifications in netns %lu: %s", c->v[i].ino,
			      ynl_why(&c->v[i].ntf->err));
		}
		/* the page-pool group carries page-pool-{add,del,change}-ntf only */
		while ((ntf = (void *)ynl_ntf_dequeue(c->v[i].ntf))) {
			c->v[i].dirty = true; /* the next dump asks again */
			to_pool(&ntf->obj, &c->v[i], &p);
			cb(ntf->cmd, &p, arg);
			netdev_page_pool_get_ntf_free(ntf);
			total++;
		}
	}
	return total;
}

void nl_client_free(struct nl_client *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		ns_close(&c->v[i]);
	free(c->v);
	memset(c, 0, sizeof(*c));
}
