// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/attrib.h"

#define AF_UNIX_    1
#define AF_INET_    2
#define AF_PACKET_  17
#define AF_NETLINK_ 16
#define AF_INET6_   10

const char *holder_kind_name(enum holder_kind k)
{
	switch (k) {
	case HK_SOCKET:
		return "socket";
	case HK_POOL_CACHE:
		return "pool_cache";
	case HK_POOL_RING:
		return "pool_ring";
	case HK_POOL_FRAG:
		return "pool_frag_page";
	case HK_DEFER:
		return "defer_list";
	case HK_UNATTRIBUTED:
		return "unattributed";
	}
	return "?";
}

static const char *holder_kind_desc(enum holder_kind k)
{
	switch (k) {
	case HK_POOL_CACHE:
		return "pool alloc cache";
	case HK_POOL_RING:
		return "pool recycle ring";
	case HK_POOL_FRAG:
		return "pool frag page";
	case HK_UNATTRIBUTED:
		return "unattributed (driver rings, skbs in flight)";
	default:
		return holder_kind_name(k);
	}
}

const char *sock_proto_name(const struct ppw_rec_sock *s)
{
	bool v6 = s->family == AF_INET6_;

	switch (s->family) {
	case AF_INET_:
	case AF_INET6_:
		if (s->protocol == IPPROTO_TCP)
			return v6 ? "tcp6" : "tcp";
		if (s->protocol == IPPROTO_UDP)
			return v6 ? "udp6" : "udp";
		if (s->type == 3 /* SOCK_RAW */)
			return v6 ? "raw6" : "raw";
		return v6 ? "inet6" : "inet";
	case AF_UNIX_:
		return "unix";
	case AF_PACKET_:
		return "packet";
	case AF_NETLINK_:
		return "netlink";
	}
	return "socket";
}

const char *sock_addr_str(char *buf, size_t len, int family, const __u8 *addr, __u16 port)
{
	char a[INET6_ADDRSTRLEN] = "";

	if (family == AF_INET_) {
		inet_ntop(AF_INET, addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, port);
	} else if (family == AF_INET6_) {
		inet_ntop(AF_INET6, addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, port);
	} else {
		buf[0] = 0;
	}
	return buf;
}

/* ---- indexes ----------------------------------------------------------------- */

static int page_cmp(const void *a, const void *b)
{
	const struct ppw_rec_page *x = *(const struct ppw_rec_page **)a;
	const struct ppw_rec_page *y = *(const struct ppw_rec_page **)b;

	if (x->netmem != y->netmem)
		return x->netmem < y->netmem ? -1 : 1;
	return x < y ? -1 : x > y; /* record order: the first sighting wins */
}

static int sock_cmp(const void *a, const void *b)
{
	const struct ppw_rec_sock *x = *(const struct ppw_rec_sock **)a;
	const struct ppw_rec_sock *y = *(const struct ppw_rec_sock **)b;

	return x->sk < y->sk ? -1 : x->sk > y->sk;
}

static int owner_cmp(const void *a, const void *b)
{
	const struct ppw_rec_owner *x = *(const struct ppw_rec_owner **)a;
	const struct ppw_rec_owner *y = *(const struct ppw_rec_owner **)b;

	if (x->sk != y->sk)
		return x->sk < y->sk ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid ? 1 : (x->fd > y->fd) - (x->fd < y->fd);
}

#define INDEX(rep, field, arr, n, cmp)                                        \
	({                                                                    \
		size_t _i;                                                    \
		(rep)->field = calloc((n) ? (n) : 1, sizeof(*(rep)->field));  \
		if ((rep)->field) {                                           \
			for (_i = 0; _i < (n); _i++)                          \
				(rep)->field[_i] = &(arr)[_i];                \
			qsort((rep)->field, (n), sizeof(*(rep)->field), cmp); \
		}                                                             \
		(rep)->field ? 0 : -ENOMEM;                                   \
	})

static const struct ppw_rec_sock *find_sock(const struct holders_report *rep, __u64 sk)
{
	const struct scan_result *s = rep->scan;
	size_t lo = 0, hi = s->nsocks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rep->sock_idx[mid]->sk < sk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nsocks && rep->sock_idx[lo]->sk == sk ? rep->sock_idx[lo] : NULL;
}

/* index of the first owner record of sk, or nowners */
static size_t first_owner(const struct holders_report *rep, __u64 sk)
{
	size_t lo = 0, hi = rep->scan->nowners;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rep->owner_idx[mid]->sk < sk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct ppw_rec_page *attrib_page_holder(const struct holders_report *rep, __u64 netmem)
{
	size_t lo = 0, hi = rep->npage_idx;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rep->page_idx[mid]->netmem < netmem)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rep->npage_idx && rep->page_idx[lo]->netmem == netmem ? rep->page_idx[lo] :
									    NULL;
}

/* ---- descriptions ---------------------------------------------------------------- */

static void describe_socket(struct holder *h, const struct holders_report *rep, __u64 sk)
{
	const struct scan_result *s = rep->scan;
	char la[64], ra[64], own[96] = "";
	size_t i, len = 0;

	for (i = first_owner(rep, sk); i < s->nowners && rep->owner_idx[i]->sk == sk; i++) {
		const struct ppw_rec_owner *o = rep->owner_idx[i];

		if (h->nowners < HOLDER_MAX_OWNERS) {
			struct holder_owner *ho = &h->owners[h->nowners];

			ho->pid = o->tgid;
			ho->fd = o->fd;
			memcpy(ho->comm, o->comm, sizeof(ho->comm));
			ho->comm[sizeof(ho->comm) - 1] = 0;
			if (!len)
				len = snprintf(own, sizeof(own), " pid %u %s fd %u", o->tgid,
					       ho->comm, o->fd);
		}
		h->nowners++;
	}
	if (h->nowners > 1 && len < sizeof(own))
		snprintf(own + len, sizeof(own) - len, " (+%u more)", h->nowners - 1);
	if (!h->sock) {
		snprintf(h->desc, sizeof(h->desc), "socket %#llx (gone)", (unsigned long long)sk);
		return;
	}
	sock_addr_str(la, sizeof(la), h->sock->family, h->sock->laddr, h->sock->lport);
	sock_addr_str(ra, sizeof(ra), h->sock->family, h->sock->raddr, h->sock->rport);
	if (snprintf(h->desc, sizeof(h->desc), "%s%s%s%s%s ino %u%s", sock_proto_name(h->sock),
		     la[0] ? " " : "", la, h->sock->rport ? " <- " : "", h->sock->rport ? ra : "",
		     h->sock->ino, h->nowners ? own : " (no process)") >= (int)sizeof(h->desc))
		memcpy(h->desc + sizeof(h->desc) - 4, "...", 4); /* say it was cut */
}

const char *holder_desc_of(char *buf, size_t len, const struct holders_report *rep,
			   const struct ppw_rec_page *pg)
{
	struct holder h = { 0 };

	if (pg->where == PPW_IN_DEFER) {
		snprintf(buf, len, "defer list cpu %llu", (unsigned long long)pg->holder);
		return buf;
	}
	h.sock = find_sock(rep, pg->holder);
	describe_socket(&h, rep, pg->holder);
	snprintf(buf, len, "%s", h.desc);
	return buf;
}

/* ---- attribution -------------------------------------------------------------------- */

static struct holder *holder_get(struct pool_holders *ph, enum holder_kind kind, __u64 key)
{
	struct holder *h;
	size_t i;

	for (i = 0; i < ph->n; i++) {
		h = &ph->v[i];

		if (h->kind == kind && (kind == HK_SOCKET ? h->sock && h->sock->sk == key :
					kind == HK_DEFER  ? h->cpu == key :
							    true))
			return h;
	}
	h = VEC_PUSH(ph->v, ph->n, ph->cap);
	if (!h)
		return NULL;
	h->kind = kind;
	h->oldest_age_s = NAN;
	if (kind == HK_DEFER)
		h->cpu = key;
	return h;
}

static void age_into(struct holder *h, double age, bool at_least)
{
	if (isnan(age))
		return;
	if (isnan(h->oldest_age_s) || age > h->oldest_age_s) {
		h->oldest_age_s = age;
		h->oldest_at_least = at_least;
	}
}

static struct pool_holders *pool_of(struct holders_report *rep, __u64 pool)
{
	size_t i;

	for (i = 0; i < rep->n; i++)
		if (rep->pools[i].row->addr == pool)
			return &rep->pools[i];
	return NULL;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;

	/* biggest first; unattributed last */
	if ((x->kind == HK_UNATTRIBUTED) != (y->kind == HK_UNATTRIBUTED))
		return x->kind == HK_UNATTRIBUTED ? 1 : -1;
	return x->pages < y->pages ? 1 : x->pages > y->pages ? -1 : 0;
}

static int add_pool_holder(struct pool_holders *ph, enum holder_kind kind, __s64 pages,
			   __u64 page_bytes)
{
	struct holder *h;

	if (pages <= 0)
		return 0;
	h = holder_get(ph, kind, 0);
	if (!h)
		return -ENOMEM;
	h->pages += pages;
	h->bytes += pages * page_bytes;
	return 0;
}

/* the scan's records, sorted for lookups */
static int index_scan(struct holders_report *rep, const struct scan_result *scan)
{
	if (INDEX(rep, page_idx, scan->pages, scan->npages, page_cmp) ||
	    INDEX(rep, sock_idx, scan->socks, scan->nsocks, sock_cmp) ||
	    INDEX(rep, owner_idx, scan->owners, scan->nowners, owner_cmp))
		return -ENOMEM;
	rep->npage_idx = scan->npages;
	return 0;
}

/* the pools the scan saw, with their snapshot identity (pools it does not have are left out) */
static int add_scanned_pools(struct holders_report *rep, const struct scan_result *scan,
			     const struct snapshot *snap, const struct attrib_params *p)
{
	size_t i, j;

	rep->pools = calloc(scan->npools ? scan->npools : 1, sizeof(*rep->pools));
	if (!rep->pools)
		return -ENOMEM;
	for (i = 0; i < scan->npools; i++) {
		const struct ppw_rec_pool *rp = &scan->pools[i];

		for (j = 0; j < snap->n; j++)
			if (snap->rows[j].addr == rp->pool && snap->rows[j].gen == rp->gen)
				break;
		if (j == snap->n)
			continue;
		rep->pools[rep->n].row = &snap->rows[j];
		rep->pools[rep->n].inflight = (__s32)(rp->hold - rp->release);
		rep->pools[rep->n].page_bytes = (__u64)p->page_size << snap->rows[j].order;
		rep->n++;
	}
	return 0;
}

/* what the scan walked: sockets, skbs, other pages, cut queues, defer lists */
static void count_scan(struct holders_report *rep, const struct scan_result *scan)
{
	size_t i;

	for (i = 0; i < scan->nsocks; i++) {
		rep->sockets++;
		rep->skbs += scan->socks[i].skbs;
		rep->nonpp_pages += scan->socks[i].nonpp_pages;
		if (scan->socks[i].flags & PPW_SF_TRUNCATED)
			rep->truncated_sockets++;
	}
	for (i = 0; i < scan->ndefer; i++) {
		rep->defer_readable |= scan->defer[i].readable;
		rep->defer_skbs += scan->defer[i].skbs;
	}
}

/* every page once, to the first holder that has it, with its age */
static int attribute_pages(struct holders_report *rep, const struct attrib_params *p)
{
	size_t i;

	for (i = 0; i < rep->npage_idx; i++) {
		const struct ppw_rec_page *pg = rep->page_idx[i];
		struct pool_holders *ph;
		struct holder *h;
		bool exact;

		if (i && rep->page_idx[i - 1]->netmem == pg->netmem)
			continue;
		rep->pages_seen++;
		ph = pool_of(rep, pg->pool);
		if (!ph)
			continue; /* a pool we do not track (freed meanwhile) */
		if (pg->where == PPW_IN_DEFER) {
			h = holder_get(ph, HK_DEFER, pg->holder);
		} else {
			h = holder_get(ph, HK_SOCKET, pg->holder);
			if (h && !h->sock) {
				h->sock = find_sock(rep, pg->holder);
				describe_socket(h, rep, pg->holder);
			}
		}
		if (!h)
			return -ENOMEM;
		h->pages++;
		h->bytes += (__u64)p->page_size << ph->row->order;
		if (pg->where == PPW_IN_HEAD)
			h->head_pages++;
		else
			h->frag_pages++;
		exact = pg->in_ledger && pg->gen == ph->row->gen && pg->hold_ns &&
			p->now_ns >= pg->hold_ns;
		/* a page held before we looked is at least as old as our first sight of the pool */
		age_into(h, exact ? (p->now_ns - pg->hold_ns) / 1e9 : ph->row->seen_age_s,
			 !(pg->in_ledger && pg->gen == ph->row->gen));
	}
	return 0;
}

/* each pool's own pages (cache, ring, frag), then whatever nobody explains; biggest first */
static int add_pool_pages(struct holders_report *rep, const struct scan_result *scan,
			  const struct attrib_params *p)
{
	size_t i, k;
	int err;

	for (i = 0; i < scan->npools; i++) {
		const struct ppw_rec_pool *rp = &scan->pools[i];
		struct pool_holders *ph = pool_of(rep, rp->pool);
		__u64 pbytes;

		if (!ph)
			continue;
		pbytes = (__u64)p->page_size << ph->row->order;
		err = add_pool_holder(ph, HK_POOL_CACHE, rp->alloc_count, pbytes);
		err = err ?: add_pool_holder(ph, HK_POOL_RING, rp->ring_count, pbytes);
		if (!err && rp->frag_netmem && !attrib_page_holder(rep, rp->frag_netmem))
			err = add_pool_holder(ph, HK_POOL_FRAG, 1, pbytes);
		if (err)
			return err;
		for (k = 0; k < ph->n; k++)
			ph->attributed += ph->v[k].pages;
		ph->unattributed = ph->inflight - ph->attributed;
		if (ph->unattributed > 0 &&
		    add_pool_holder(ph, HK_UNATTRIBUTED, ph->unattributed, pbytes))
			return -ENOMEM;
		qsort(ph->v, ph->n, sizeof(*ph->v), holder_cmp);
		for (k = 0; k < ph->n; k++) {
			struct holder *h = &ph->v[k];

			if (h->kind == HK_DEFER)
				snprintf(h->desc, sizeof(h->desc), "skb defer list, cpu %u",
					 h->cpu);
			else if (h->kind != HK_SOCKET)
				snprintf(h->desc, sizeof(h->desc), "%s", holder_kind_desc(h->kind));
		}
	}
	return 0;
}

int attrib_build(struct holders_report *rep, const struct scan_result *scan,
		 const struct snapshot *snap, const struct attrib_params *p)
{
	int err;

	memset(rep, 0, sizeof(*rep));
	rep->scan = scan;
	err = index_scan(rep, scan);
	err = err ?: add_scanned_pools(rep, scan, snap, p);
	if (err)
		return err;
	count_scan(rep, scan);
	err = attribute_pages(rep, p);
	return err ?: add_pool_pages(rep, scan, p);
}

void attrib_free(struct holders_report *rep)
{
	size_t i;

	for (i = 0; i < rep->n; i++)
		free(rep->pools[i].v);
	free(rep->pools);
	free(rep->page_idx);
	free(rep->sock_idx);
	free(rep->owner_idx);
	memset(rep, 0, sizeof(*rep));
}

void scan_free(struct scan_result *r)
{
	free(r->socks);
	free(r->pages);
	free(r->owners);
	free(r->pools);
	free(r->defer);
	memset(r, 0, sizeof(*r));
}
