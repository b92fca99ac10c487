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

const char *sock_held_by_name(enum sock_held_by b)
{
	switch (b) {
	case SH_PROCESS:
		return "process";
	case SH_IN_FLIGHT:
		return "scm_rights";
	case SH_ORPHAN:
		return "orphan";
	case SH_ACCEPT_QUEUE:
		return "accept_queue";
	case SH_KERNEL:
		return "kernel";
	case SH_IO_URING:
		return "io_uring";
	case SH_NO_FD:
		return "no_fd";
	case SH_UNKNOWN:
		return "unknown";
	}
	return "unknown";
}

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

/* an orphan's remedy: what ends it in its TCP state */
static size_t remedy_orphan(struct holder *h, const char *la)
{
	const struct ppw_rec_sock *s = h->sock;
	size_t n = 0;

	ADD(h->remedy, n, "orphan (closed by its process), %s: ", sock_state_name(s));
	if (!is_tcp(s))
		ADD(h->remedy, n, "the kernel frees it when its last reference goes");
	else if (s->state == TCP_CLOSE_)
		ADD(h->remedy, n,
		    "TCP frees it when its last reference goes; it is in no hash table, so ss -K "
		    "cannot reach it");
	else if (s->state == TCP_FIN_WAIT2_)
		ADD(h->remedy, n, "TCP frees it after net.ipv4.tcp_fin_timeout");
	else if (s->state == TCP_FIN_WAIT1_ || s->state == TCP_CLOSING_ ||
		 s->state == TCP_LAST_ACK_)
		ADD(h->remedy, n,
		    "TCP frees it when the peer acknowledges its FIN or it gives up resending it "
		    "(net.ipv4.tcp_orphan_retries)");
	else
		ADD(h->remedy, n, "TCP frees it when the connection ends or times out");
	if (is_tcp(s) && s->state != TCP_CLOSE_)
		ADD(h->remedy, n, "; ss -K %s%s ends it now", la[0] ? "src " : "", la);
	return n;
}

/*
 * The kernel users a kernel socket's receive hook (sk_data_ready, or a UDP
 * tunnel's encap_rcv) names, and what ends each: where the hook is not
 * here, the remedy names the usual users.
 */
static const struct kernel_user {
	const char *hook, *user, *end;
} kernel_users[] = {
	{ "xs_data_ready", "an NFS mount's transport, or another SunRPC client's (sunrpc)",
	  "unmount the NFS mount of that server (umount -f if the server is gone); a mount "
	  "still waiting for it never completed: kill that mount" },
	{ "svc_data_ready", "a connection to this host's SunRPC service (nfsd, ...)",
	  "its client closes it, or stop the service (nfsd: rpc.nfsd 0)" },
	{ "nvme_tcp_data_ready", "an NVMe/TCP host queue (nvme-tcp)",
	  "disconnect its controller (nvme disconnect -n NQN)" },
	{ "nvmet_tcp_data_ready", "an NVMe/TCP target queue (nvmet-tcp)",
	  "remove that host's access or the port in the target's configfs" },
	{ "iscsi_sw_tcp_data_ready", "an iSCSI session (iscsi_tcp)",
	  "log out of the session (iscsiadm -m node -u)" },
	{ "ceph_sock_data_ready", "a Ceph client connection (libceph: RBD or CephFS)",
	  "unmap the RBD device or unmount the CephFS mount" },
	{ "rds_tcp_data_ready", "an RDS connection over TCP (rds_tcp)",
	  "close the RDS sockets using it, then remove rds_tcp" },
	{ "l2tp_udp_encap_recv", "an L2TP tunnel's socket (l2tp_core)",
	  "delete the tunnel (ip l2tp del tunnel)" },
};

static const struct kernel_user *kernel_user(const char *hook)
{
	size_t i;

	for (i = 0; hook[0] && i < ARRAY_SIZE(kernel_users); i++)
		if (!strcmp(hook, kernel_users[i].hook))
			return &kernel_users[i];
	return NULL;
}

/* the remedy of a socket no process has an fd for (model/attrib.c: held_by) */
static size_t remedy_unowned(struct holder *h, const char *la, const char *ra)
{
	const struct kernel_user *u;
	const struct ppw_rec_sock *s = h->sock;
	size_t n = 0;

	switch (h->held_by) {
	case SH_ORPHAN:
		return remedy_orphan(h, la);
	case SH_ACCEPT_QUEUE:
		ADD(h->remedy, n, "not accepted yet%s: it waits in the accept queue of ",
		    is_tcp(s) && s->state == TCP_CLOSE_ ? ", and reset by its peer" : "");
		if (!h->listener)
			ADD(h->remedy, n, "a listener on port %u (not found in the scan)",
			    s->lport);
		else if (h->listener_owners)
			ADD(h->remedy, n, "the listener on port %u, ino %u of pid %u (%s) fd %u",
			    s->lport, h->listener->ino, h->listener_owner.pid,
			    h->listener_owner.comm, h->listener_owner.fd);
		else
			ADD(h->remedy, n, "the listener on port %u, ino %u (no process has its fd)",
			    s->lport, h->listener->ino);
		if (h->listeners > 1)
			ADD(h->remedy, n, ", one of %u (SO_REUSEPORT)", h->listeners);
		ADD(h->remedy, n,
		    ": the server's accept() takes it (then read or close it); closing the "
		    "listener frees it");
		break;
	case SH_KERNEL:
		u = kernel_user(h->hook);
		if (u)
			ADD(h->remedy, n, "a kernel socket (no process: %s; read by %s", u->user,
			    u->hook);
		else
			ADD(h->remedy, n,
			    "a kernel socket (no process: made by a kernel user such as NFS, "
			    "iSCSI, nvme-tcp or a tunnel%s%s",
			    h->hook[0] ? "; read by " : "", h->hook);
		ADD(h->remedy, n, "%s%s): it frees them when that user reads or closes it; %s",
		    ra[0] ? "; peer " : "", ra,
		    u ? u->end :
			"end what opened it (unmount, log out of the session, delete the tunnel)");
		break;
	case SH_IO_URING:
		ADD(h->remedy, n,
		    "no fd: slot %u of the io_uring of pid %u (%s) fd %u holds it; that process "
		    "must unregister it (io_uring_register IORING_UNREGISTER_FILES or a slot "
		    "update) or close the ring",
		    h->ring_slot, h->ring.pid, h->ring.comm, h->ring.fd);
		break;
	case SH_NO_FD:
		ADD(h->remedy, n, "an open file no process has an fd for: ");
		if (h->ring_candidates)
			ADD(h->remedy, n,
			    "perhaps an io_uring's registered file (%u %s slots this kernel does not "
			    "name; the first: pid %u (%s) ring fd %u), else a kernel user that took "
			    "it; close that ring or stop that service",
			    h->ring_candidates, sock_proto_name(s), h->ring_candidate.pid,
			    h->ring_candidate.comm, h->ring_candidate.fd);
		else
			ADD(h->remedy, n,
			    "a kernel user took the file (nfsd's sockets from rpc.nfsd, ...); no "
			    "io_uring lists it; stop that service");
		break;
	default:
		ADD(h->remedy, n,
		    "no process holds it and the scan did not find what does: it frees them when "
		    "its holder reads or closes it");
		break;
	}
	return n;
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
	switch (h->nowners ? SH_PROCESS : h->held_by) {
	case SH_PROCESS:
		break;
	case SH_IN_FLIGHT:
		ADD(h->desc, n, " (in flight)");
		break;
	case SH_ORPHAN:
		ADD(h->desc, n, " (orphan)");
		break;
	case SH_ACCEPT_QUEUE:
		ADD(h->desc, n, " (not accepted)");
		break;
	case SH_KERNEL:
		ADD(h->desc, n, " (kernel socket%s%s)", h->hook[0] ? ", read by " : "", h->hook);
		break;
	case SH_IO_URING:
		ADD(h->desc, n, " io_uring of pid %u %s fd %u slot %u", h->ring.pid, h->ring.comm,
		    h->ring.fd, h->ring_slot);
		break;
	case SH_NO_FD:
		ADD(h->desc, n, " (no fd)");
		break;
	case SH_UNKNOWN:
		ADD(h->desc, n, " (no process)");
		break;
	}
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
	} else {
		n = remedy_unowned(h, la, s->rport ? ra : "");
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
		snprintf(rate, sizeof(rate), " at %llu kbit/s",
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
