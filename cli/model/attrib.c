// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/attrib.h"
#include "model/holder_desc.h"

/* ---- indexes ----------------------------------------------------------------- */

#define CMP(a, b)	 ((a) < (b) ? -1 : (a) > (b))
#define TCP_LISTEN_STATE 10 /* include/net/tcp_states.h */

static int page_cmp(const void *a, const void *b)
{
	const struct ppw_rec_page *x = *(const struct ppw_rec_page **)a;
	const struct ppw_rec_page *y = *(const struct ppw_rec_page **)b;

	if (x->netmem != y->netmem)
		return CMP(x->netmem, y->netmem);
	return CMP(x, y); /* record order: the first sighting wins */
}

static int sock_cmp(const void *a, const void *b)
{
	return CMP((*(const struct ppw_rec_sock **)a)->sk, (*(const struct ppw_rec_sock **)b)->sk);
}

static int owner_cmp(const void *a, const void *b)
{
	const struct ppw_rec_owner *x = *(const struct ppw_rec_owner **)a;
	const struct ppw_rec_owner *y = *(const struct ppw_rec_owner **)b;

	if (x->sk != y->sk)
		return CMP(x->sk, y->sk);
	return x->tgid != y->tgid ? CMP(x->tgid, y->tgid) : CMP(x->fd, y->fd);
}

static int inflight_cmp(const void *a, const void *b)
{
	return CMP((*(const struct ppw_rec_inflight **)a)->sk,
		   (*(const struct ppw_rec_inflight **)b)->sk);
}

static int qdisc_cmp(const void *a, const void *b)
{
	return CMP((*(const struct ppw_rec_qdisc **)a)->qdisc,
		   (*(const struct ppw_rec_qdisc **)b)->qdisc);
}

/* a qdisc's device and handle major: where a class's qdisc finds its parent */
static int qdisc_dev_key_cmp(const struct ppw_rec_qdisc *x, __u32 netns, __s32 ifindex, __u32 major)
{
	if (x->netns_ino != netns)
		return CMP(x->netns_ino, netns);
	if (x->ifindex != ifindex)
		return CMP(x->ifindex, ifindex);
	return CMP(x->handle >> 16, major);
}

/* by device and handle major, then in the scan's order */
static int qdisc_dev_cmp(const void *a, const void *b)
{
	const struct ppw_rec_qdisc *x = *(const struct ppw_rec_qdisc **)a;
	const struct ppw_rec_qdisc *y = *(const struct ppw_rec_qdisc **)b;
	int c = qdisc_dev_key_cmp(x, y->netns_ino, y->ifindex, y->handle >> 16);

	return c ? c : CMP((uintptr_t)x, (uintptr_t)y);
}

/* a TCP listener's namespace and port: where its accept queue's children are */
static int listen_key_cmp(const struct ppw_rec_sock *x, __u32 netns, __u16 port)
{
	return x->netns_ino != netns ? CMP(x->netns_ino, netns) : CMP(x->lport, port);
}

static int listen_cmp(const void *a, const void *b)
{
	const struct ppw_rec_sock *x = *(const struct ppw_rec_sock **)a;
	const struct ppw_rec_sock *y = *(const struct ppw_rec_sock **)b;
	int c = listen_key_cmp(x, y->netns_ino, y->lport);

	return c ? c : CMP(x->sk, y->sk);
}

static int fragq_cmp(const void *a, const void *b)
{
	return CMP((*(const struct ppw_rec_fragq **)a)->fq,
		   (*(const struct ppw_rec_fragq **)b)->fq);
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

/* the first index of a sorted pointer array whose key is >= key */
#define LOWER(idx, n, member, key)                       \
	({                                               \
		size_t _lo = 0, _hi = (n);               \
		while (_lo < _hi) {                      \
			size_t _mid = (_lo + _hi) / 2;   \
			if ((idx)[_mid]->member < (key)) \
				_lo = _mid + 1;          \
			else                             \
				_hi = _mid;              \
		}                                        \
		_lo;                                     \
	})

#define FIND(idx, n, member, key)                                             \
	({                                                                    \
		size_t _at = LOWER(idx, n, member, key);                      \
		_at < (n) && (idx)[_at]->member == (key) ? (idx)[_at] : NULL; \
	})

const struct ppw_rec_sock *attrib_sock(const struct holders_report *rep, __u64 sk)
{
	return FIND(rep->sock_idx, rep->scan->nsocks, sk, sk);
}

const struct ppw_rec_inflight *attrib_inflight(const struct holders_report *rep, __u64 sk)
{
	return FIND(rep->inflight_idx, rep->scan->ninflight, sk, sk);
}

const struct ppw_rec_qdisc *attrib_qdisc(const struct holders_report *rep, __u64 qdisc)
{
	return FIND(rep->qdisc_idx, rep->scan->nqdiscs, qdisc, qdisc);
}

const struct ppw_rec_fragq *attrib_fragq(const struct holders_report *rep, __u64 fq)
{
	return FIND(rep->fragq_idx, rep->scan->nfragqs, fq, fq);
}

size_t attrib_owners(const struct holders_report *rep, __u64 sk, size_t *n)
{
	size_t first = LOWER(rep->owner_idx, rep->scan->nowners, sk, sk), i = first;

	while (i < rep->scan->nowners && rep->owner_idx[i]->sk == sk)
		i++;
	*n = i - first;
	return first;
}

const struct ppw_rec_page *attrib_page_holder(const struct holders_report *rep, __u64 netmem)
{
	return FIND(rep->page_idx, rep->npage_idx, netmem, netmem);
}

/* ---- filling a holder from its records ------------------------------------------ */

/*
 * The qdisc whose class q hangs under (same device, its handle's major), or
 * NULL at the root: the first such qdisc in the scan's order, found in
 * qdisc_dev_idx (a search per holder and per listed page: an htb with
 * tens of thousands of classes has as many qdiscs).
 */
static const struct ppw_rec_qdisc *qdisc_parent(const struct holders_report *rep,
						const struct ppw_rec_qdisc *q)
{
	const struct ppw_rec_qdisc *const *idx = rep->qdisc_dev_idx;
	size_t lo = 0, hi = rep->scan->nqdiscs, mid;

	if (q->parent == 0xffffffff || !q->parent || !idx) /* TC_H_ROOT, unspecified */
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (qdisc_dev_key_cmp(idx[mid], q->netns_ino, q->ifindex, q->parent >> 16) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < rep->scan->nqdiscs &&
	       !qdisc_dev_key_cmp(idx[lo], q->netns_ino, q->ifindex, q->parent >> 16);
	     lo++)
		if (idx[lo] != q)
			return idx[lo];
	return NULL;
}

/*
 * The fds of socket sk whose inode is ino: the fd walk runs after the
 * protocol walks, so an address may be another socket's by then (one
 * closed, another made at the same address: another inode). A socket with
 * no file when it was walked (ino 0: it waited in an accept queue) has no
 * owner: an fd found at its address later may be its own, accepted
 * meanwhile, or another socket's, and nothing here tells them apart.
 */
static void fill_owners(struct holder_owner *out, __u32 *n, __u32 max,
			const struct holders_report *rep, __u64 sk, __u32 ino)
{
	size_t cnt, first = attrib_owners(rep, sk, &cnt), i;

	*n = 0;
	for (i = 0; i < cnt; i++) {
		const struct ppw_rec_owner *o = rep->owner_idx[first + i];

		if (!ino || o->ino != ino)
			continue;
		if (*n < max) {
			out[*n].pid = o->tgid;
			out[*n].fd = o->fd;
			memcpy(out[*n].comm, o->comm, sizeof(out[*n].comm));
			out[*n].comm[sizeof(out[*n].comm) - 1] = 0;
		}
		(*n)++;
	}
}

static bool addr_any(const struct ppw_rec_sock *s)
{
	static const __u8 zero[16];

	return !memcmp(s->laddr, zero, s->family == 10 ? 16 : 4);
}

/*
 * The listener a child not accepted yet waits for: a TCP listener of its
 * namespace on its port, on its address or on any (one search in
 * listen_idx; SO_REUSEPORT can give several: they are counted, the first
 * named), and who holds that listener.
 */
static void accept_queue_listener(struct holder *h, const struct holders_report *rep)
{
	const struct ppw_rec_sock *s = h->sock, *l;
	size_t lo = 0, hi = rep->nlisten_idx, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (listen_key_cmp(rep->listen_idx[mid], s->netns_ino, s->lport) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (;
	     lo < rep->nlisten_idx && !listen_key_cmp(rep->listen_idx[lo], s->netns_ino, s->lport);
	     lo++) {
		l = rep->listen_idx[lo];
		if (l->family != s->family ||
		    (!addr_any(l) && memcmp(l->laddr, s->laddr, sizeof(l->laddr))))
			continue;
		if (!h->listeners++)
			h->listener = l;
	}
	if (h->listener)
		fill_owners(&h->listener_owner, &h->listener_owners, 1, rep, h->listener->sk,
			    h->listener->ino);
}

/* a ring's owner as a holder's */
static void ring_owner(struct holder_owner *o, const struct scan_ring_file *f)
{
	o->pid = f->pid;
	o->fd = f->fd;
	memcpy(o->comm, f->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = 0;
}

/* the name a ring's fdinfo gives a socket of s's protocol where it names no file (6.12) */
static const char *ring_proto_name(const struct ppw_rec_sock *s)
{
	bool v6 = s->family == 10;

	if (s->protocol == IPPROTO_TCP)
		return v6 ? "TCPv6" : "TCP";
	if (s->protocol == IPPROTO_UDP)
		return v6 ? "UDPv6" : "UDP";
	return s->family == 1 ? "UNIX" : NULL;
}

/*
 * A socket no process has an fd for: what holds it, from the walk's flags
 * (SOCK_DEAD, sk_kern_sock, no struct socket, a socket without a file)
 * and the rings' lists of their registered files.
 */
static void socket_held_by(struct holder *h, const struct holders_report *rep)
{
	const struct scan_result *scan = rep->scan;
	const struct ppw_rec_sock *s = h->sock;
	const char *proto;
	size_t i;

	if (!s) {
		h->held_by = SH_UNKNOWN;
		return;
	}
	if (h->nowners) {
		h->held_by = SH_PROCESS;
		return;
	}
	if (h->carrier) {
		h->held_by = SH_IN_FLIGHT;
		return;
	}
	if (s->flags & PPW_SF_DEAD) {
		h->held_by = SH_ORPHAN;
		return;
	}
	if (s->flags & (PPW_SF_KERNEL | PPW_SF_NO_FILE)) {
		h->held_by = SH_KERNEL;
		for (i = 0; i < scan->nhooks; i++)
			if (scan->hooks[i].addr == s->hook)
				snprintf(h->hook, sizeof(h->hook), "%s", scan->hooks[i].name);
		return;
	}
	if (s->flags & PPW_SF_NO_SOCKET) {
		h->held_by = s->protocol == IPPROTO_TCP ? SH_ACCEPT_QUEUE : SH_UNKNOWN;
		if (h->held_by == SH_ACCEPT_QUEUE)
			accept_queue_listener(h, rep);
		return;
	}
	/* an open file without an fd: a ring that names it, else the rings that may hold it */
	h->held_by = SH_NO_FD;
	proto = ring_proto_name(s);
	for (i = 0; i < scan->nring_files; i++) {
		const struct scan_ring_file *f = &scan->ring_files[i];

		if (f->ino && f->ino == s->ino) {
			h->held_by = SH_IO_URING;
			ring_owner(&h->ring, f);
			h->ring_slot = f->slot;
			return;
		}
		if (!f->ino && proto && !strcmp(f->name, proto)) {
			if (!h->ring_candidates)
				ring_owner(&h->ring_candidate, f);
			h->ring_candidates++;
		}
	}
}

/* the records behind a holder of this kind and key (a socket, a queue, a CPU) */
static void holder_fill(struct holder *h, const struct holders_report *rep)
{
	const struct ppw_rec_inflight *fl;

	switch (h->kind) {
	case HK_SOCKET:
		h->sock = attrib_sock(rep, h->key);
		fill_owners(h->owners, &h->nowners, HOLDER_MAX_OWNERS, rep, h->key,
			    h->sock ? h->sock->ino : 0);
		fl = h->nowners ? NULL : attrib_inflight(rep, h->key);
		if (fl) {
			h->carrier = attrib_sock(rep, fl->carrier);
			fill_owners(&h->carrier_owner, &h->carrier_owners, 1, rep, fl->carrier,
				    h->carrier ? h->carrier->ino : 0);
		}
		socket_held_by(h, rep);
		break;
	case HK_DEFER:
		h->cpu = h->key;
		break;
	case HK_QDISC:
		h->qdisc = attrib_qdisc(rep, h->key);
		h->qdisc_parent = h->qdisc ? qdisc_parent(rep, h->qdisc) : NULL;
		break;
	case HK_FRAGQ:
		h->fragq = attrib_fragq(rep, h->key);
		break;
	default:
		break;
	}
}

static enum holder_kind kind_of(const struct ppw_rec_page *pg)
{
	switch (pg->where) {
	case PPW_IN_DEFER:
		return HK_DEFER;
	case PPW_IN_QDISC:
		return HK_QDISC;
	case PPW_IN_FRAGQ:
		return HK_FRAGQ;
	default:
		return HK_SOCKET;
	}
}

const char *holder_desc_of(char *buf, size_t len, const struct holders_report *rep,
			   const struct ppw_rec_page *pg)
{
	struct holder h = { .kind = kind_of(pg), .key = pg->holder };

	holder_fill(&h, rep);
	holder_describe(&h, NULL, NULL);
	snprintf(buf, len, "%s", h.desc);
	return buf;
}

/* ---- attribution -------------------------------------------------------------------- */

static void age_into(struct holder *h, double age, bool at_least)
{
	if (isnan(age))
		return;
	if (isnan(h->oldest_age_s) || age > h->oldest_age_s) {
		h->oldest_age_s = age;
		h->oldest_at_least = at_least;
	}
}

/* the report's pools by address, for the pages' lookups */
static int pool_ref_cmp(const void *a, const void *b)
{
	return CMP((*(const struct pool_holders **)a)->row->addr,
		   (*(const struct pool_holders **)b)->row->addr);
}

struct pool_index {
	struct pool_holders **v;
	size_t n;
};

static struct pool_holders *pool_of(const struct pool_index *pi, __u64 pool)
{
	size_t lo = 0, hi = pi->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pi->v[mid]->row->addr < pool)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pi->n && pi->v[lo]->row->addr == pool ? pi->v[lo] : NULL;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;

	/* biggest first; unattributed last */
	if ((x->kind == HK_UNATTRIBUTED) != (y->kind == HK_UNATTRIBUTED))
		return x->kind == HK_UNATTRIBUTED ? 1 : -1;
	return x->pages < y->pages ? 1 : x->pages > y->pages ? -1 : 0;
}

static struct holder *new_holder(struct pool_holders *ph, enum holder_kind kind, __u64 key)
{
	struct holder *h = VEC_PUSH(ph->v, ph->n, ph->cap);

	if (!h)
		return NULL;
	h->kind = kind;
	h->key = key;
	h->oldest_age_s = NAN;
	return h;
}

static int add_pool_holder(struct pool_holders *ph, enum holder_kind kind, __s64 pages,
			   __u64 page_bytes)
{
	struct holder *h;

	if (pages <= 0)
		return 0;
	h = new_holder(ph, kind, 0);
	if (!h)
		return -ENOMEM;
	h->pages = pages;
	h->bytes = pages * page_bytes;
	return 0;
}

/* the scan's records, sorted for lookups */
static int index_scan(struct holders_report *rep, const struct scan_result *scan)
{
	size_t i;

	if (INDEX(rep, page_idx, scan->pages, scan->npages, page_cmp) ||
	    INDEX(rep, sock_idx, scan->socks, scan->nsocks, sock_cmp) ||
	    INDEX(rep, owner_idx, scan->owners, scan->nowners, owner_cmp) ||
	    INDEX(rep, inflight_idx, scan->inflight, scan->ninflight, inflight_cmp) ||
	    INDEX(rep, qdisc_idx, scan->qdiscs, scan->nqdiscs, qdisc_cmp) ||
	    INDEX(rep, qdisc_dev_idx, scan->qdiscs, scan->nqdiscs, qdisc_dev_cmp) ||
	    INDEX(rep, fragq_idx, scan->fragqs, scan->nfragqs, fragq_cmp))
		return -ENOMEM;
	rep->npage_idx = scan->npages;
	/* the TCP listeners alone: a busy port has many children beside its listener */
	rep->listen_idx = calloc(scan->nsocks ? scan->nsocks : 1, sizeof(*rep->listen_idx));
	if (!rep->listen_idx)
		return -ENOMEM;
	for (i = 0; i < scan->nsocks; i++)
		if (scan->socks[i].protocol == IPPROTO_TCP &&
		    scan->socks[i].state == TCP_LISTEN_STATE)
			rep->listen_idx[rep->nlisten_idx++] = &scan->socks[i];
	qsort(rep->listen_idx, rep->nlisten_idx, sizeof(*rep->listen_idx), listen_cmp);
	return 0;
}

static int row_ref_cmp(const void *a, const void *b)
{
	const struct pool_row *x = *(const struct pool_row **)a, *y = *(const struct pool_row **)b;

	return x->addr != y->addr ? CMP(x->addr, y->addr) : CMP(x->gen, y->gen);
}

/* the pools the scan saw, with their snapshot identity (pools it does not have are left out) */
static int add_scanned_pools(struct holders_report *rep, const struct scan_result *scan,
			     const struct snapshot *snap, const struct attrib_params *p)
{
	const struct pool_row **rows;
	size_t i, at;

	rep->pools = calloc(scan->npools ? scan->npools : 1, sizeof(*rep->pools));
	rows = calloc(snap->n ? snap->n : 1, sizeof(*rows));
	if (!rep->pools || !rows) {
		free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < snap->n; i++)
		rows[i] = &snap->rows[i];
	qsort(rows, snap->n, sizeof(*rows), row_ref_cmp);
	for (i = 0; i < scan->npools; i++) {
		const struct ppw_rec_pool *rp = &scan->pools[i];
		struct pool_row key = { .addr = rp->pool, .gen = rp->gen };
		const struct pool_row *kp = &key, **hit;

		hit = snap->n ? bsearch(&kp, rows, snap->n, sizeof(*rows), row_ref_cmp) : NULL;
		if (!hit)
			continue;
		at = rep->n++;
		rep->pools[at].row = *hit;
		rep->pools[at].inflight = (__s32)(rp->hold - rp->release);
		rep->pools[at].page_bytes = (__u64)p->page_size << (*hit)->order;
	}
	free(rows);
	return 0;
}

/* what the scan walked: sockets, skbs, other pages, cut queues, defer lists, queues */
static void count_scan(struct holders_report *rep, const struct scan_result *scan)
{
	size_t i, n;

	for (i = 0; i < scan->nsocks; i++) {
		rep->sockets++;
		rep->skbs += scan->socks[i].skbs;
		rep->nonpp_pages += scan->socks[i].nonpp_pages;
		if (scan->socks[i].flags & PPW_SF_TRUNCATED)
			rep->truncated_sockets++;
		attrib_owners(rep, scan->socks[i].sk, &n);
		if (n)
			continue;
		/* no process holds it: an SCM_RIGHTS message in flight does, or none */
		if (attrib_inflight(rep, scan->socks[i].sk))
			rep->inflight_sockets++;
		else if (sock_is_orphan(&scan->socks[i]))
			rep->orphans++;
	}
	for (i = 0; i < scan->ndefer; i++) {
		rep->defer_readable |= scan->defer[i].readable;
		rep->defer_skbs += scan->defer[i].skbs;
	}
	for (i = 0; i < scan->nqdiscs; i++)
		rep->qdisc_packets += scan->qdiscs[i].skbs;
	rep->frag_queues = scan->nfragqs;
}

/* one unique page, as attribution sorts them: its pool, its holder */
struct page_ref {
	struct pool_holders *ph;
	enum holder_kind kind;
	__u64 key;
	const struct ppw_rec_page *pg;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct page_ref *x = a, *y = b;

	if (x->ph != y->ph)
		return CMP(x->ph, y->ph);
	if (x->kind != y->kind)
		return CMP(x->kind, y->kind);
	return CMP(x->key, y->key);
}

/*
 * Every page once, to the first holder that has it, with its age: the
 * unique pages sorted by (pool, holder), then each run is one holder, so
 * that a hundred thousand sockets cost a sort, not a search per page.
 */
static int attribute_pages(struct holders_report *rep, const struct attrib_params *p,
			   const struct pool_index *pi)
{
	struct page_ref *refs;
	struct holder *h = NULL;
	size_t i, n = 0;

	refs = calloc(rep->npage_idx ? rep->npage_idx : 1, sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (i = 0; i < rep->npage_idx; i++) {
		const struct ppw_rec_page *pg = rep->page_idx[i];
		struct pool_holders *ph;

		if (i && rep->page_idx[i - 1]->netmem == pg->netmem)
			continue;
		rep->pages_seen++;
		ph = pool_of(pi, pg->pool);
		if (!ph)
			continue; /* a pool we do not track (freed meanwhile) */
		refs[n++] = (struct page_ref){ ph, kind_of(pg), pg->holder, pg };
	}
	qsort(refs, n, sizeof(*refs), ref_cmp);
	for (i = 0; i < n; i++) {
		const struct ppw_rec_page *pg = refs[i].pg;
		struct pool_holders *ph = refs[i].ph;
		bool exact;

		if (!i || ref_cmp(&refs[i - 1], &refs[i])) {
			h = new_holder(ph, refs[i].kind, refs[i].key);
			if (!h) {
				free(refs);
				return -ENOMEM;
			}
			holder_fill(h, rep);
		}
		h->pages++;
		h->bytes += (__u64)p->page_size << ph->row->order;
		if (pg->where == PPW_IN_HEAD)
			h->head_pages++;
		else
			h->frag_pages++;
		exact = pg->in_ledger && pg->gen == ph->row->gen && pg->hold_ns &&
			p->now_ns >= pg->hold_ns;
		/*
		 * a page held before we looked is at least as old as our start,
		 * or the pool's destroy (model/ages.h)
		 */
		age_into(h, exact ? (p->now_ns - pg->hold_ns) / 1e9 : ph->row->unseen_age_s,
			 !exact);
	}
	free(refs);
	return 0;
}

/* each pool's own pages (cache, ring, frag), then whatever nobody explains; biggest first */
static int add_pool_pages(struct holders_report *rep, const struct scan_result *scan,
			  const struct attrib_params *p, const struct pool_index *pi)
{
	size_t i, k;
	int err;

	for (i = 0; i < scan->npools; i++) {
		const struct ppw_rec_pool *rp = &scan->pools[i];
		struct pool_holders *ph = pool_of(pi, rp->pool);
		__u64 pbytes;

		if (!ph || ph->row->gen != rp->gen)
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
		ph->moved = ph->unattributed < 0 ? -ph->unattributed : 0;
		if (ph->unattributed > 0 &&
		    add_pool_holder(ph, HK_UNATTRIBUTED, ph->unattributed, pbytes))
			return -ENOMEM;
		/* a destroyed pool's pages, wherever they are, are older than the destroy */
		if (ph->unattributed > 0 && ph->row->state == ROW_ZOMBIE)
			age_into(&ph->v[ph->n - 1], ph->row->destroyed_age_s, true);
		qsort(ph->v, ph->n, sizeof(*ph->v), holder_cmp);
		for (k = 0; k < ph->n; k++)
			holder_describe(&ph->v[k], ph->row, rep->unwalked);
	}
	return 0;
}

/*
 * Queues that hold packets the scan could not walk (a qdisc kind with
 * private queues, NFQUEUE, a kernel whose defer lists are out of reach),
 * named with what the kernel counts: where unattributed pages may be.
 */
static void note_unwalked(struct holders_report *rep, const struct scan_result *scan)
{
	size_t i, len = 0, cap = sizeof(rep->unwalked);
	char qn[40];

#define NOTE(...)                                                                               \
	do {                                                                                    \
		if (len < cap)                                                                  \
			len += snprintf(rep->unwalked + len, cap - len, "%s", len ? "; " : ""); \
		if (len < cap)                                                                  \
			len += snprintf(rep->unwalked + len, cap - len, __VA_ARGS__);           \
	} while (0)

	for (i = 0; i < scan->nqdiscs; i++) {
		const struct ppw_rec_qdisc *q = &scan->qdiscs[i];
		__u32 left = qdisc_unwalked(q);

		if (left)
			NOTE("qdisc %s on %.16s holds %u packets, %u bytes (%u not walked)",
			     qdisc_name(qn, sizeof(qn), q), q->dev, q->qlen, q->backlog, left);
	}
	for (i = 0; i < scan->nunwalked; i++)
		if (scan->unwalked[i].nfqueue_packets)
			NOTE("NFQUEUE holds %llu packets in netns %u (not walked)",
			     (unsigned long long)scan->unwalked[i].nfqueue_packets,
			     scan->unwalked[i].netns_ino);
	if (!rep->defer_readable && scan->skb_defer_max && scan->ncpus)
		NOTE("skb defer lists, up to %u skbs per CPU (not readable here)",
		     scan->skb_defer_max);
#undef NOTE
}

int attrib_build(struct holders_report *rep, const struct scan_result *scan,
		 const struct snapshot *snap, const struct attrib_params *p)
{
	struct pool_index pi = { 0 };
	size_t i;
	int err;

	memset(rep, 0, sizeof(*rep));
	rep->scan = scan;
	err = index_scan(rep, scan);
	err = err ?: add_scanned_pools(rep, scan, snap, p);
	if (err)
		return err;
	pi.v = calloc(rep->n ? rep->n : 1, sizeof(*pi.v));
	if (!pi.v)
		return -ENOMEM;
	for (i = 0; i < rep->n; i++)
		pi.v[pi.n++] = &rep->pools[i];
	qsort(pi.v, pi.n, sizeof(*pi.v), pool_ref_cmp);
	count_scan(rep, scan);
	note_unwalked(rep, scan);
	err = attribute_pages(rep, p, &pi);
	err = err ?: add_pool_pages(rep, scan, p, &pi);
	free(pi.v);
	return err;
}

void attrib_free(struct holders_report *rep)
{
	size_t i;

	for (i = 0; i < rep->n; i++)
		free(rep->pools[i].v);
	free(rep->pools);
	free(rep->page_idx);
	free(rep->sock_idx);
	free(rep->listen_idx);
	free(rep->owner_idx);
	free(rep->inflight_idx);
	free(rep->qdisc_idx);
	free(rep->qdisc_dev_idx);
	free(rep->fragq_idx);
	memset(rep, 0, sizeof(*rep));
}

void scan_free(struct scan_result *r)
{
	free(r->socks);
	free(r->pages);
	free(r->owners);
	free(r->pools);
	free(r->defer);
	free(r->inflight);
	free(r->qdiscs);
	free(r->fragqs);
	free(r->unwalked);
	free(r->ring_files);
	free(r->hooks);
	memset(r, 0, sizeof(*r));
}
