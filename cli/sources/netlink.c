// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "lib/log.h"
#include "lib/vec.h"
#include "sources/netlink.h"

#define NETDEV_FAMILY "netdev"
#define NETDEV_MCGRP_PAGE_POOL "page-pool"

struct nl_ns {
	unsigned long ino;
	struct mnl_socket *req;	/* requests and dumps */
	struct mnl_socket *ntf;	/* notifications, non-blocking */
	int ioctl_fd;		/* an AF_INET socket there, for ifindex -> name */
};

/* ---- generic helpers ------------------------------------------------------ */

static struct mnl_socket *genl_open(void)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

static struct nlmsghdr *genl_msg(char *buf, int family, int cmd, int flags, unsigned int seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

/* send a request and run cb on every reply until done */
static int genl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE * 2];
	unsigned int portid = mnl_socket_get_portid(nl), seq = nlh->nlmsg_seq;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	while ((ret = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		ret = mnl_cb_run(buf, ret, seq, portid, cb, data);
		if (ret <= MNL_CB_STOP)
			break;
	}
	return ret < 0 ? -errno : 0;
}

/* ---- family resolution --------------------------------------------------- */

struct family_info {
	int id;
	unsigned int mcgrp;
};

static int mcgrp_entry_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int t = mnl_attr_get_type(a);

	if (t <= CTRL_ATTR_MCAST_GRP_MAX)
		tb[t] = a;
	return MNL_CB_OK;
}

static void parse_mcgrps(const struct nlattr *groups, struct family_info *fi)
{
	const struct nlattr *grp;

	mnl_attr_for_each_nested(grp, groups) {
		const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};

		mnl_attr_parse_nested(grp, mcgrp_entry_cb, tb);
		if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]), NETDEV_MCGRP_PAGE_POOL))
			fi->mcgrp = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	}
}

static int family_attr_cb(const struct nlattr *a, void *data)
{
	struct family_info *fi = data;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		fi->id = mnl_attr_get_u16(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		parse_mcgrps(a, fi);
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, data);
	return MNL_CB_OK;
}

int nl_client_init(struct nl_client *c, bool subscribe)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct family_info fi = {};
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	int err;

	memset(c, 0, sizeof(*c));
	c->subscribe = subscribe;
	c->seq = time(NULL);
	nl = genl_open();
	if (!nl) {
		err = -errno;
		snprintf(c->why, sizeof(c->why), "generic netlink socket: %s", strerror(-err));
		return 0;
	}
	nlh = genl_msg(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, ++c->seq);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NETDEV_FAMILY);
	err = genl_talk(nl, nlh, family_cb, &fi);
	mnl_socket_close(nl);
	if (err || !fi.id) {
		snprintf(c->why, sizeof(c->why),
			 "generic netlink family '%s' not found (%s): kernel older than 6.8 or "
			 "without CONFIG_PAGE_POOL", NETDEV_FAMILY, err ? strerror(-err) : "no id");
		return 0;
	}
	c->family = fi.id;
	c->mcgrp = fi.mcgrp;
	c->available = true;
	p_dbg("netlink: family %s id %d, group %s id %u", NETDEV_FAMILY, fi.id,
	      NETDEV_MCGRP_PAGE_POOL, fi.mcgrp);
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
	unsigned int grp = a->c->mcgrp;

	ns->req = genl_open();
	if (!ns->req)
		return -errno;
	ns->ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!a->c->subscribe || !grp)
		return 0;
	ns->ntf = genl_open();
	if (!ns->ntf)
		return -errno;
	if (mnl_socket_setsockopt(ns->ntf, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
		return -errno;
	fcntl(mnl_socket_get_fd(ns->ntf), F_SETFL, O_NONBLOCK);
	return 0;
}

static void ns_close(struct nl_ns *ns)
{
	if (ns->req)
		mnl_socket_close(ns->req);
	if (ns->ntf)
		mnl_socket_close(ns->ntf);
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
		if (!a.ns)
			return -ENOMEM;
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
			pfd[n++] = (struct pollfd){ mnl_socket_get_fd(c->v[i].ntf), POLLIN };
	return n;
}

/* ---- page-pool messages -------------------------------------------------- */

static __u64 attr_uint(const struct nlattr *a)
{
	/* "uint" attributes are 4 or 8 bytes (NLA_UINT) */
	if (mnl_attr_get_payload_len(a) == 8)
		return mnl_attr_get_u64(a);
	return mnl_attr_get_u32(a);
}

static int pool_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int t = mnl_attr_get_type(a);

	if (t > 0 && t < PPW_NETDEV_A_PAGE_POOL_TABLE)
		tb[t] = a;
	return MNL_CB_OK;
}

static void parse_pool(const struct nlmsghdr *nlh, struct nl_pool *p)
{
	const struct nlattr *tb[PPW_NETDEV_A_PAGE_POOL_TABLE] = {};

	memset(p, 0, sizeof(*p));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), pool_attr_cb, tb);
	if (tb[PPW_NETDEV_A_PAGE_POOL_ID])
		p->id = attr_uint(tb[PPW_NETDEV_A_PAGE_POOL_ID]);
	if (tb[PPW_NETDEV_A_PAGE_POOL_IFINDEX]) {
		p->present |= NLP_IFINDEX;
		p->ifindex = mnl_attr_get_u32(tb[PPW_NETDEV_A_PAGE_POOL_IFINDEX]);
	}
	if (tb[PPW_NETDEV_A_PAGE_POOL_NAPI_ID]) {
		p->present |= NLP_NAPI_ID;
		p->napi_id = attr_uint(tb[PPW_NETDEV_A_PAGE_POOL_NAPI_ID]);
	}
	if (tb[PPW_NETDEV_A_PAGE_POOL_INFLIGHT]) {
		p->present |= NLP_INFLIGHT;
		p->inflight = attr_uint(tb[PPW_NETDEV_A_PAGE_POOL_INFLIGHT]);
	}
	if (tb[PPW_NETDEV_A_PAGE_POOL_INFLIGHT_MEM]) {
		p->present |= NLP_INFLIGHT_MEM;
		p->inflight_mem = attr_uint(tb[PPW_NETDEV_A_PAGE_POOL_INFLIGHT_MEM]);
	}
	if (tb[PPW_NETDEV_A_PAGE_POOL_DETACH_TIME]) {
		p->present |= NLP_DETACH_TIME;
		p->detach_time = attr_uint(tb[PPW_NETDEV_A_PAGE_POOL_DETACH_TIME]);
	}
	if (tb[PPW_NETDEV_A_PAGE_POOL_DMABUF]) {
		p->present |= NLP_DMABUF;
		p->dmabuf = mnl_attr_get_u32(tb[PPW_NETDEV_A_PAGE_POOL_DMABUF]);
	}
	if (tb[PPW_NETDEV_A_PAGE_POOL_IO_URING])
		p->present |= NLP_IO_URING;
}

static void resolve_ifname(const struct nl_ns *ns, struct nl_pool *p)
{
	struct ifreq ifr = {};

	if (!(p->present & NLP_IFINDEX) || ns->ioctl_fd <= 0)
		return;
	ifr.ifr_ifindex = p->ifindex;
	if (!ioctl(ns->ioctl_fd, SIOCGIFNAME, &ifr))
		snprintf(p->ifname, sizeof(p->ifname), "%s", ifr.ifr_name);
}

struct dump_arg {
	const struct nl_ns *ns;
	struct nl_pool *v;
	size_t n, cap;
	int err;
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_arg *d = data;
	struct nl_pool *p;

	p = VEC_NEXT(d->v, d->n, d->cap); /* kept if it parses as a pool */
	if (!p) {
		d->err = -ENOMEM;
		return MNL_CB_ERROR;
	}
	parse_pool(nlh, p);
	if (!p->id)
		return MNL_CB_OK;
	p->netns_ino = d->ns->ino;
	resolve_ifname(d->ns, p);
	d->n++;
	return MNL_CB_OK;
}

int nl_client_dump(struct nl_client *c, struct nl_pool **out, size_t *n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct dump_arg d = {};
	struct nlmsghdr *nlh;
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	if (!c->available)
		return 0;
	for (i = 0; i < c->n; i++) {
		d.ns = &c->v[i];
		nlh = genl_msg(buf, c->family, PPW_NETDEV_CMD_PAGE_POOL_GET,
			       NLM_F_DUMP | NLM_F_ACK, ++c->seq);
		err = genl_talk(c->v[i].req, nlh, dump_cb, &d);
		if (d.err) {
			free(d.v);
			return d.err;
		}
		if (err == -EOPNOTSUPP || err == -ENOENT) {
			/* CONFIG_PAGE_POOL without netlink support: nothing to list */
			p_dbg("netlink: page-pool-get: %s", strerror(-err));
			continue;
		}
		if (err)
			p_dbg("netlink: page-pool-get dump in netns %lu: %s", c->v[i].ino,
			      strerror(-err));
	}
	*out = d.v;
	*n = d.n;
	return 0;
}

struct ntf_arg {
	const struct nl_ns *ns;
	nl_ntf_fn cb;
	void *arg;
};

static int ntf_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct ntf_arg *a = data;
	struct nl_pool p;

	parse_pool(nlh, &p);
	p.netns_ino = a->ns->ino;
	resolve_ifname(a->ns, &p);
	a->cb(g->cmd, &p, a->arg);
	return MNL_CB_OK;
}

int nl_client_drain(struct nl_client *c, nl_ntf_fn cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ntf_arg a = { .cb = cb, .arg = arg };
	int ret, total = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (!c->v[i].ntf)
			continue;
		a.ns = &c->v[i];
		while ((ret = mnl_socket_recvfrom(c->v[i].ntf, buf, sizeof(buf))) > 0) {
			mnl_cb_run(buf, ret, 0, 0, ntf_cb, &a);
			total++;
		}
		if (ret < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			p_dbg("netlink: notifications in netns %lu: %s", c->v[i].ino,
			      strerror(errno));
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
