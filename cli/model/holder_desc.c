// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "model/holder_desc.h"

#define AF_UNIX_    1
#define AF_INET_    2
#define AF_INET6_   10
#define AF_NETLINK_ 16
#define AF_PACKET_  17

/* include/net/tcp_states.h */
enum {
	TCP_ESTABLISHED_ = 1,
	TCP_SYN_SENT_,
	TCP_SYN_RECV_,
	TCP_FIN_WAIT1_,
	TCP_FIN_WAIT2_,
	TCP_TIME_WAIT_,
	TCP_CLOSE_,
	TCP_CLOSE_WAIT_,
	TCP_LAST_ACK_,
	TCP_LISTEN_,
	TCP_CLOSING_,
	TCP_NEW_SYN_RECV_,
};

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
	case HK_QDISC:
		return "qdisc";
	case HK_FRAGQ:
		return "frag_queue";
	case HK_UNATTRIBUTED:
		return "unattributed";
	}
	return "?";
}

static bool is_tcp(const struct ppw_rec_sock *s)
{
	return (s->family == AF_INET_ || s->family == AF_INET6_) && s->protocol == IPPROTO_TCP;
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

const char *sock_state_name(const struct ppw_rec_sock *s)
{
	static const char *const names[] = {
		[TCP_ESTABLISHED_] = "ESTAB",	 [TCP_SYN_SENT_] = "SYN-SENT",
		[TCP_SYN_RECV_] = "SYN-RECV",	 [TCP_FIN_WAIT1_] = "FIN-WAIT-1",
		[TCP_FIN_WAIT2_] = "FIN-WAIT-2", [TCP_TIME_WAIT_] = "TIME-WAIT",
		[TCP_CLOSE_] = "UNCONN",	 [TCP_CLOSE_WAIT_] = "CLOSE-WAIT",
		[TCP_LAST_ACK_] = "LAST-ACK",	 [TCP_LISTEN_] = "LISTEN",
		[TCP_CLOSING_] = "CLOSING",	 [TCP_NEW_SYN_RECV_] = "NEW-SYN-RECV",
	};

	if (is_tcp(s) && s->state == TCP_CLOSE_)
		return "CLOSE";
	if (s->state < ARRAY_SIZE(names) && names[s->state])
		return names[s->state];
	return "UNKNOWN";
}

bool sock_is_orphan(const struct ppw_rec_sock *s)
{
	return s->flags & PPW_SF_DEAD;
}

const char *ip_addr_str(char *buf, size_t len, int family, const __u8 *addr)
{
	if (!inet_ntop(family == AF_INET6_ ? AF_INET6 : AF_INET, addr, buf, len))
		snprintf(buf, len, "?");
	return buf;
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

const char *qdisc_name(char *buf, size_t len, const struct ppw_rec_qdisc *q)
{
	char kind[sizeof(q->kind) + 1];
	__u32 maj = q->handle >> 16, min = q->handle & 0xffff;

	memcpy(kind, q->kind, sizeof(q->kind));
	kind[sizeof(q->kind)] = 0;
	if (min)
		snprintf(buf, len, "%s %x:%x", kind[0] ? kind : "?", maj, min);
	else
		snprintf(buf, len, "%s %x:", kind[0] ? kind : "?", maj);
	return buf;
}

/* classful kinds: their counts include their children's, walked as qdiscs of their own */
static bool qdisc_classful(const char *kind)
{
	static const char *const classful[] = {
		"mq",  "mqprio", "prio", "multiq", "tbf", "htb", "hfsc",   "drr",     "qfq",
		"ets", "red",	 "cbs",	 "taprio", "atm", "cbq", "dsmark", "ingress", "clsact",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(classful); i++)
		if (!strcmp(kind, classful[i]))
			return true;
	return false;
}

__u32 qdisc_unwalked(const struct ppw_rec_qdisc *q)
{
	char kind[sizeof(q->kind) + 1];

	memcpy(kind, q->kind, sizeof(q->kind));
	kind[sizeof(q->kind)] = 0;
	if (qdisc_classful(kind) || q->qlen <= q->skbs)
		return 0;
	return q->qlen - q->skbs;
}

/* ---- descriptions and remedies --------------------------------------------------- */

#define ADD(buf, len, ...)                                                                  \
	do {                                                                                \
		if ((len) < sizeof(buf))                                                    \
			(len) += snprintf((buf) + (len), sizeof(buf) - (len), __VA_ARGS__); \
	} while (0)

/* a long one ends in "..." so that a cut shows */
static void mark_cut(char *buf, size_t size, size_t len)
{
	if (len >= size)
		memcpy(buf + size - 4, "...", 4);
}

static void describe_socket(struct holder *h)
{
	const struct ppw_rec_sock *s = h->sock;
	char la[64], ra[64], ub[16];
	size_t n = 0;

	if (!s) {
		snprintf(h->desc, sizeof(h->desc), "socket %#llx (gone)",
			 (unsigned long long)h->key);
		snprintf(h->remedy, sizeof(h->remedy), "the socket went away during the scan");
		return;
	}
	sock_addr_str(la, sizeof(la), s->family, s->laddr, s->lport);
	sock_addr_str(ra, sizeof(ra), s->family, s->raddr, s->rport);
	ADD(h->desc, n, "%s%s%s%s%s ino %u", sock_proto_name(s), la[0] ? " " : "", la,
	    s->rport ? " <- " : "", s->rport ? ra : "", s->ino);
	if (h->nowners)
		ADD(h->desc, n, " pid %u %s fd %u", h->owners[0].pid, h->owners[0].comm,
		    h->owners[0].fd);
	if (h->nowners > 1)
		ADD(h->desc, n, " (+%u more)", h->nowners - 1);
	if (!h->nowners)
		ADD(h->desc, n, "%s",
		    h->carrier	      ? " (in flight)" :
		    sock_is_orphan(s) ? " (orphan)" :
					" (no process)");
	mark_cut(h->desc, sizeof(h->desc), n);

	n = 0;
	fmt_bytes(ub, sizeof(ub), s->unread);
	if (h->nowners) {
		ADD(h->remedy, n, "pid %u (%s) fd %u", h->owners[0].pid, h->owners[0].comm,
		    h->owners[0].fd);
		if (h->nowners > 1)
			ADD(h->remedy, n, " (and %u more)", h->nowners - 1);
		if (s->unread)
			ADD(h->remedy, n, " has not read %s", ub);
		else
			ADD(h->remedy, n, " holds them unread");
		if (is_tcp(s) && s->state == TCP_CLOSE_)
			ADD(h->remedy, n,
			    "; the socket is CLOSE (reset or closed by the peer): read "
			    "or close it; ss -K cannot kill a CLOSE socket");
		else if (is_tcp(s) && s->state == TCP_CLOSE_WAIT_)
			ADD(h->remedy, n,
			    "; the peer closed (CLOSE-WAIT): read the rest and close it");
		else
			ADD(h->remedy, n, "; the socket is %s: read from it or close it",
			    sock_state_name(s));
	} else if (h->carrier) {
		ADD(h->remedy, n,
		    "its only reference is an SCM_RIGHTS message waiting on unix socket ino %u",
		    h->carrier->ino);
		if (h->carrier_owners)
			ADD(h->remedy, n,
			    " of pid %u (%s) fd %u: that process must receive or close it",
			    h->carrier_owner.pid, h->carrier_owner.comm, h->carrier_owner.fd);
		else
			ADD(h->remedy, n,
			    ", itself held by no process (a garbage cycle for unix_gc)");
	} else if (sock_is_orphan(s)) {
		ADD(h->remedy, n,
		    "orphan (closed by its process), %s: TCP frees it when the connection ends or "
		    "times out (net.ipv4.tcp_orphan_retries, tcp_fin_timeout); ss -K %s%s ends it "
		    "now",
		    sock_state_name(s), la[0] ? "src " : "", la);
	} else if (is_tcp(s) && s->state == TCP_ESTABLISHED_) {
		ADD(h->remedy, n,
		    "not accepted yet: it waits in a listener's accept queue for "
		    "the server to accept() it");
	} else {
		ADD(h->remedy, n,
		    "no process holds it (a kernel socket?): it frees them when it "
		    "reads or closes");
	}
	mark_cut(h->remedy, sizeof(h->remedy), n);
}

static void describe_qdisc(struct holder *h)
{
	const struct ppw_rec_qdisc *q = h->qdisc, *up = h->qdisc_parent;
	char qn[40], pn[40], bb[16], rate[96] = "";
	size_t n;

	if (!q) {
		snprintf(h->desc, sizeof(h->desc), "qdisc %#llx (gone)",
			 (unsigned long long)h->key);
		snprintf(h->remedy, sizeof(h->remedy), "the qdisc went away during the scan");
		return;
	}
	qdisc_name(qn, sizeof(qn), q);
	if (up)
		qdisc_name(pn, sizeof(pn), up);
	snprintf(h->desc, sizeof(h->desc), "qdisc %s%s%s%s on %.16s (netns %u)", qn,
		 up ? " (under " : "", up ? pn : "", up ? ")" : "", q->dev, q->netns_ino);
	fmt_bytes(bb, sizeof(bb), q->backlog);
	if (up && up->rate_bytes_ps)
		snprintf(rate, sizeof(rate), " at %s's %llu kbit/s", pn,
			 (unsigned long long)(up->rate_bytes_ps * 8 / 1000));
	else if (q->rate_bytes_ps)
		snprintf(rate, sizeof(rate), " at %llu kbit/s",
			 (unsigned long long)(q->rate_bytes_ps * 8 / 1000));
	n = 0;
	ADD(h->remedy, n,
	    "qdisc %s on %.16s holds %u packets (%s)%s: they leave as it sends them; a slow "
	    "shaper or a stopped queue keeps them (tc -s qdisc show dev %.16s); deleting the "
	    "qdisc frees them",
	    up ? pn : qn, q->dev, q->qlen > q->skbs ? q->qlen : q->skbs, bb, rate, q->dev);
	mark_cut(h->remedy, sizeof(h->remedy), n);
}

static void describe_fragq(struct holder *h)
{
	const struct ppw_rec_fragq *q = h->fragq;
	char sa[INET6_ADDRSTRLEN] = "?", da[INET6_ADDRSTRLEN] = "?";
	int af;

	if (!q) {
		snprintf(h->desc, sizeof(h->desc), "fragment queue %#llx (gone)",
			 (unsigned long long)h->key);
		snprintf(h->remedy, sizeof(h->remedy),
			 "the datagram completed or expired meanwhile");
		return;
	}
	af = q->family == AF_INET6_ ? AF_INET6 : AF_INET;
	ip_addr_str(sa, sizeof(sa), q->family, q->saddr);
	ip_addr_str(da, sizeof(da), q->family, q->daddr);
	snprintf(h->desc, sizeof(h->desc), "%s fragments %s -> %s id %u (netns %u)",
		 af == AF_INET6 ? "ipv6" : "ipv4", sa, da, q->id, q->netns_ino);
	snprintf(h->remedy, sizeof(h->remedy),
		 "%u fragment%s (%u bytes so far) of a datagram wait%s for the rest: freed "
		 "when reassembly times out (net.%s.%s, 30 s by default)",
		 q->skbs, q->skbs == 1 ? "" : "s", q->meat, q->skbs == 1 ? "s" : "",
		 af == AF_INET6 ? "ipv6" : "ipv4", af == AF_INET6 ? "ip6frag_time" : "ipfrag_time");
}

void holder_describe(struct holder *h, const struct pool_row *pool, const char *unwalked)
{
	bool zombie = pool && pool->state == ROW_ZOMBIE;
	size_t n = 0;

	h->remedy[0] = 0;
	switch (h->kind) {
	case HK_SOCKET:
		describe_socket(h);
		return;
	case HK_QDISC:
		describe_qdisc(h);
		return;
	case HK_FRAGQ:
		describe_fragq(h);
		return;
	case HK_DEFER:
		snprintf(h->desc, sizeof(h->desc), "skb defer list, cpu %u", h->cpu);
		snprintf(
			h->remedy, sizeof(h->remedy),
			"freed by cpu %u at its next NET_RX softirq (at most net.core.skb_defer_max "
			"skbs wait there)",
			h->cpu);
		return;
	case HK_UNATTRIBUTED:
		snprintf(h->desc, sizeof(h->desc), "unattributed (driver rings, skbs in flight)");
		ADD(h->remedy, n,
		    "in no socket, queue or cache the scan reaches: the driver's "
		    "RX/TX rings, skbs between layers");
		if (unwalked && unwalked[0])
			ADD(h->remedy, n, "; not walked: %s", unwalked);
		mark_cut(h->remedy, sizeof(h->remedy), n);
		return;
	case HK_POOL_CACHE:
		snprintf(h->desc, sizeof(h->desc), "pool alloc cache");
		break;
	case HK_POOL_RING:
		snprintf(h->desc, sizeof(h->desc), "pool recycle ring");
		break;
	case HK_POOL_FRAG:
		snprintf(h->desc, sizeof(h->desc), "pool frag page");
		break;
	}
	snprintf(h->remedy, sizeof(h->remedy), "%s",
		 zombie ? "pool-internal: returned to the page allocator as the destroyed pool "
			  "empties its caches" :
			  "pool-internal: reused for new packets; returned when the pool is freed");
}
