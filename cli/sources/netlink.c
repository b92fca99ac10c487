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
#include "lib/vec.h"
#include "sources/netlink.h"

#define NETDEV_MCGRP_PAGE_POOL "page-pool"

struct nl_ns {
	unsigned long ino;
	struct ynl_sock *req; /* requests and dumps */
	struct ynl_sock *ntf; /* page-pool notifications */
	int ioctl_fd;	      /* an AF_INET socket there, for ifindex -> name */
	bool dump_warned;     /* a failed dump here was reported */
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
	size_t i, j;
	int err;

	if (!c->available)
		return 0;
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

int nl_client_dump(struct nl_client *c, struct nl_pool **out, size_t *n)
{
	struct netdev_page_pool_get_list *l;
	struct nl_pool *v = NULL, *p;
	size_t nv = 0, cap = 0, i;

	*out = NULL;
	*n = 0;
	if (!c->available)
		return 0;
	for (i = 0; i < c->n; i++) {
		l = netdev_page_pool_get_dump(c->v[i].req);
		if (!l) {
			struct nl_ns *ns = &c->v[i];

			/* EOPNOTSUPP: the family without page-pool-get (6.3 to 6.7) */
			if (ns->req->err.code == EOPNOTSUPP || ns->dump_warned)
				p_dbg("netlink: page-pool-get dump in netns %lu: %s", ns->ino,
				      ynl_why(&ns->req->err));
			else
				p_warn("netlink: page-pool-get dump in netns %lu: %s; its pools are "
				       "listed from BPF only",
				       ns->ino, ynl_why(&ns->req->err));
			ns->dump_warned = true;
			continue;
		}
		ynl_dump_foreach(l, pp) {
			if (!pp->_present.id || !pp->id)
				continue;
			p = VEC_NEXT(v, nv, cap);
			if (!p) {
				p_err("netlink: page-pool-get dump in netns %lu: %s", c->v[i].ino,
				      strerror(ENOMEM));
				netdev_page_pool_get_list_free(l);
				free(v);
				return -ENOMEM;
			}
			to_pool(pp, &c->v[i], p);
			nv++;
		}
		netdev_page_pool_get_list_free(l);
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
		if (ynl_ntf_check(c->v[i].ntf) < 0)
			p_dbg("netlink: notifications in netns %lu: %s", c->v[i].ino,
			      ynl_why(&c->v[i].ntf->err));
		/* the page-pool group carries page-pool-{add,del,change}-ntf only */
		while ((ntf = (void *)ynl_ntf_dequeue(c->v[i].ntf))) {
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
