// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What holds a socket no process has an fd for, and what to do about it
 * (model/attrib.c socket_held_by, model/holder_desc.c): from the walk's
 * flags (SOCK_DEAD, sk_kern_sock, no struct socket, no file) and the
 * rings' lists of their registered files (model/ring_files.c, from the
 * fdinfo texts 6.12 and 7.3 write).
 */
#include <arpa/inet.h>
#include <errno.h>

#include "unit.h"

#include "model/attrib.h"
#include "model/holder_desc.h"
#include "model/ring_files.h"

#define NOW    (500 * 1000000000ULL)
#define POOL_A 0xffff888100001000ULL
#define PG(n)  (0xffffea0004000000ULL + (n)*64)

/* 7.3: the file's path */
static const char fdinfo_73[] = "pos:\t0\nflags:\t02000002\nmnt_id:\t16\nino:\t1045\n"
				"SqMask:\t0x7\nSqHead:\t0\nCachedCqTail:\t0\n"
				"UserFiles:\t3\n    0: socket:[5301]\n    2: /tmp/data.bin\n"
				"UserBufs:\t0\nPollList:\n";
/* 6.12: the dentry's own name (a socket's protocol), "<none>" for an empty slot */
static const char fdinfo_612[] = "SqThread:\t-1\nUserFiles:\t4\n    0: UDP\n    1: <none>\n"
				 "    2: TCPv6\n    3: data.bin\nUserBufs:\t0\n";

static void test_ring_fdinfo(void)
{
	struct ring_slot s[8];
	size_t n;
	__u32 files;

	CHECK_INT(ring_fdinfo_parse(fdinfo_73, s, 8, &n, &files), 0);
	CHECK_INT(files, 3);
	CHECK_INT(n, 1); /* the regular file is no socket */
	CHECK_INT(s[0].slot, 0);
	CHECK_INT(s[0].ino, 5301);

	CHECK_INT(ring_fdinfo_parse(fdinfo_612, s, 8, &n, &files), 0);
	CHECK_INT(files, 4);
	CHECK_INT(n, 3); /* UDP, TCPv6 and a name that may be a socket's: kept as names */
	CHECK_INT(s[0].ino, 0);
	CHECK_STR(s[0].name, "UDP");
	CHECK_INT(s[1].slot, 2);
	CHECK_STR(s[1].name, "TCPv6");

	/* a busy ring lists no slot; text that is no ring's; bounds */
	CHECK_INT(ring_fdinfo_parse("UserFiles:\t2\nUserBufs:\t0\n", s, 8, &n, &files), 0);
	CHECK_INT(n, 0);
	CHECK_INT(files, 2);
	CHECK_INT(ring_fdinfo_parse("pos:\t0\nflags:\t0\n", s, 8, &n, &files), -EINVAL);
	CHECK_INT(ring_fdinfo_parse("UserFiles:\tx\n", s, 8, &n, &files), -EINVAL);
	CHECK_INT(ring_fdinfo_parse("UserFiles:\t9\n    0: socket:[1]\n    1: socket:[2]\n", s, 1,
				    &n, &files),
		  0);
	CHECK_INT(n, 1);
	CHECK_INT(ring_fdinfo_parse("UserFiles:\t1\n    7: socket:[]\n    8: socket:[0]\n", s, 8,
				    &n, &files),
		  0);
	CHECK_INT(n, 0);
}

/* one socket holding one page, no owner, the given flags; its holder */
static const struct holder *one(struct holders_report *rep, struct scan_result *scan,
				struct ppw_rec_sock *sk, __u32 flags, __u16 proto, __u16 state)
{
	static struct ppw_rec_page pg;
	static struct ppw_rec_pool pl;
	static struct snapshot snap;
	static struct pool_row row;
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	size_t i;

	*sk = (struct ppw_rec_sock){ .sk = 0xa1,
				     .ino = 77,
				     .family = 2,
				     .type = proto == IPPROTO_TCP ? 1 : 2,
				     .protocol = proto,
				     .state = state,
				     .lport = 5001,
				     .flags = flags,
				     .hook = 0xffffffff81234560ULL };
	inet_pton(AF_INET, "192.0.2.2", sk->laddr);
	pg = (struct ppw_rec_page){ .holder = 0xa1,
				    .netmem = PG(1),
				    .pool = POOL_A,
				    .where = PPW_IN_HEAD,
				    .stack_id = -1 };
	pl = (struct ppw_rec_pool){ .pool = POOL_A, .gen = 1, .hold = 1, .release = 0 };
	memset(&row, 0, sizeof(row));
	row.addr = POOL_A;
	row.gen = 1;
	row.id = 7;
	memset(&snap, 0, sizeof(snap));
	snap.rows = &row;
	snap.n = 1;
	snap.ts_ns = NOW;
	scan->socks = sk;
	scan->nsocks = 1;
	scan->pages = &pg;
	scan->npages = 1;
	scan->pools = &pl;
	scan->npools = 1;
	if (attrib_build(rep, scan, &snap, &p))
		return NULL;
	for (i = 0; i < rep->pools[0].n; i++)
		if (rep->pools[0].v[i].kind == HK_SOCKET)
			return &rep->pools[0].v[i];
	return NULL;
}

static void test_held_by(void)
{
	struct scan_hook hook = { .addr = 0xffffffff81234560ULL, .name = "xs_data_ready" };
	struct scan_ring_file rf[3] = {
		{ .pid = 900, .fd = 7, .comm = "server", .slot = 1, .name = "UDP" },
		{ .pid = 901, .fd = 5, .comm = "ringer", .slot = 3, .ino = 78 },
		{ .pid = 902, .fd = 4, .comm = "other", .slot = 0, .ino = 77 },
	};
	struct holders_report rep;
	struct scan_result scan;
	struct ppw_rec_sock sk;
	const struct holder *h;

	/* a kernel socket, named by its reader */
	memset(&scan, 0, sizeof(scan));
	scan.hooks = &hook;
	scan.nhooks = 1;
	h = one(&rep, &scan, &sk, PPW_SF_KERNEL | PPW_SF_NO_FILE | PPW_SF_LOCKED, IPPROTO_TCP, 1);
	CHECK(h != NULL, "no socket holder");
	if (!h)
		return;
	CHECK_STR(sock_held_by_name(h->held_by), "kernel");
	CHECK_STR(h->desc, "tcp 192.0.2.2:5001 ino 77 (kernel socket, read by xs_data_ready)");
	CHECK(strstr(h->remedy, "a kernel socket (no process") &&
		      strstr(h->remedy, "xs_data_ready") && !strstr(h->remedy, "accept"),
	      "%s", h->remedy);
	/* its reader says whose it is (sunrpc: an NFS mount) and what ends it */
	CHECK(strstr(h->remedy, "an NFS mount's transport") &&
		      strstr(h->remedy, "unmount the NFS mount of that server") &&
		      strstr(h->remedy, "kill that mount") && !strstr(h->remedy, "tunnel"),
	      "%s", h->remedy);
	attrib_free(&rep);

	/* a socket without a file is the kernel's too, whatever sk_kern_sock says */
	memset(&scan, 0, sizeof(scan));
	h = one(&rep, &scan, &sk, PPW_SF_NO_FILE, IPPROTO_UDP, 7);
	CHECK_STR(sock_held_by_name(h->held_by), "kernel");
	CHECK_STR(h->desc, "udp 192.0.2.2:5001 ino 77 (kernel socket)");
	/* a reader not known (none here): the usual users, and what ends each */
	CHECK(strstr(h->remedy, "such as NFS, iSCSI, nvme-tcp or a tunnel") &&
		      strstr(h->remedy, "end what opened it"),
	      "%s", h->remedy);
	attrib_free(&rep);

	/* no struct socket: a TCP child not accepted yet (ESTABLISHED, not an orphan) */
	h = one(&rep, &scan, &sk, PPW_SF_NO_SOCKET, IPPROTO_TCP, 1);
	CHECK_STR(sock_held_by_name(h->held_by), "accept_queue");
	CHECK(strstr(h->remedy,
		     "accept queue of a listener on port 5001 (not found in the scan)") != NULL,
	      "%s", h->remedy);
	attrib_free(&rep);

	/* orphans, by their TCP state */
	h = one(&rep, &scan, &sk, PPW_SF_DEAD | PPW_SF_NO_SOCKET, IPPROTO_TCP, 5 /* FIN-WAIT-2 */);
	CHECK_STR(sock_held_by_name(h->held_by), "orphan");
	CHECK(strstr(h->remedy, "FIN-WAIT-2: TCP frees it after net.ipv4.tcp_fin_timeout; ss -K "
				"src 192.0.2.2:5001 ends it now") != NULL,
	      "%s", h->remedy);
	attrib_free(&rep);
	h = one(&rep, &scan, &sk, PPW_SF_DEAD | PPW_SF_NO_SOCKET, IPPROTO_TCP, 7 /* CLOSE */);
	CHECK(strstr(h->remedy, "in no hash table, so ss -K cannot reach it") &&
		      !strstr(h->remedy, "ends it now"),
	      "%s", h->remedy);
	attrib_free(&rep);
	h = one(&rep, &scan, &sk, PPW_SF_DEAD | PPW_SF_NO_SOCKET, IPPROTO_TCP, 9 /* LAST-ACK */);
	CHECK(strstr(h->remedy, "net.ipv4.tcp_orphan_retries") != NULL, "%s", h->remedy);
	attrib_free(&rep);

	/* a file without an fd that a ring names (7.3) */
	scan.ring_files = rf;
	scan.nring_files = 3;
	h = one(&rep, &scan, &sk, 0, IPPROTO_UDP, 7);
	CHECK_STR(sock_held_by_name(h->held_by), "io_uring");
	CHECK_STR(h->desc, "udp 192.0.2.2:5001 ino 77 io_uring of pid 902 other fd 4 slot 0");
	CHECK(strstr(h->remedy, "slot 0 of the io_uring of pid 902 (other) fd 4") != NULL, "%s",
	      h->remedy);
	attrib_free(&rep);

	/* one no ring names, where a ring has an unnamed UDP slot (6.12): a candidate, said so */
	scan.nring_files = 2;
	h = one(&rep, &scan, &sk, 0, IPPROTO_UDP, 7);
	CHECK_STR(sock_held_by_name(h->held_by), "no_fd");
	CHECK_STR(h->desc, "udp 192.0.2.2:5001 ino 77 (no fd)");
	CHECK(strstr(h->remedy, "perhaps an io_uring's registered file (1 udp slots this kernel "
				"does not name; the first: pid 900 (server) ring fd 7)") != NULL,
	      "%s", h->remedy);
	attrib_free(&rep);
	/* a TCP one: that UDP slot is not a candidate */
	h = one(&rep, &scan, &sk, 0, IPPROTO_TCP, 1);
	CHECK_STR(sock_held_by_name(h->held_by), "no_fd");
	CHECK(strstr(h->remedy, "no io_uring lists it") != NULL, "%s", h->remedy);
	attrib_free(&rep);
}

/*
 * A child in an accept queue names its listener: a TCP listener of its
 * namespace on its port, on its address or on any, and who holds it; not
 * one in another namespace, on another address, or a child of the same
 * port; SO_REUSEPORT's several are counted.
 */
static void test_accept_queue_listener(void)
{
	struct ppw_rec_sock socks[6] = {
		/* the child: reset before accept() (CLOSE), reached through the queue */
		{ .sk = 0xa1,
		  .protocol = IPPROTO_TCP,
		  .state = 7,
		  .lport = 5001,
		  .flags = PPW_SF_NO_SOCKET | PPW_SF_ACCEPTQ },
		{ .sk = 0xb1, .ino = 61, .protocol = IPPROTO_TCP, .state = 10, .lport = 5001 },
		{ .sk = 0xb2, .ino = 62, .protocol = IPPROTO_TCP, .state = 10, .lport = 5001 },
		{ .sk = 0xb3, .ino = 63, .protocol = IPPROTO_TCP, .state = 10, .lport = 5002 },
		{ .sk = 0xb4, .ino = 64, .protocol = IPPROTO_TCP, .state = 1, .lport = 5001 },
		{ .sk = 0xb5, .ino = 65, .protocol = IPPROTO_TCP, .state = 10, .lport = 5001 },
	};
	struct ppw_rec_owner own = {
		.sk = 0xb2, .ino = 62, .pid = 301, .tgid = 300, .fd = 3, .comm = "server"
	};
	struct ppw_rec_page pg = { .holder = 0xa1,
				   .netmem = PG(1),
				   .pool = POOL_A,
				   .where = PPW_IN_HEAD,
				   .stack_id = -1 };
	struct ppw_rec_pool pl = { .pool = POOL_A, .gen = 1, .hold = 1 };
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	struct pool_row row = { .addr = POOL_A, .gen = 1, .id = 7 };
	struct snapshot snap = { .rows = &row, .n = 1, .ts_ns = NOW };
	struct holders_report rep;
	struct scan_result scan;
	const struct holder *h = NULL;
	size_t i;

	for (i = 0; i < 6; i++) {
		socks[i].family = 2;
		socks[i].type = 1;
		socks[i].netns_ino = i == 5 ? 4026532999u : 4026531840u; /* 0xb5: another netns */
		inet_pton(AF_INET, "192.0.2.2", socks[i].laddr);
	}
	memset(socks[2].laddr, 0, 4);			 /* 0xb2 on any address */
	inet_pton(AF_INET, "192.0.2.9", socks[1].laddr); /* 0xb1 on another */
	memset(&scan, 0, sizeof(scan));
	scan.socks = socks;
	scan.nsocks = 6;
	scan.owners = &own;
	scan.nowners = 1;
	scan.pages = &pg;
	scan.npages = 1;
	scan.pools = &pl;
	scan.npools = 1;
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	for (i = 0; i < rep.pools[0].n; i++)
		if (rep.pools[0].v[i].kind == HK_SOCKET)
			h = &rep.pools[0].v[i];
	CHECK(h != NULL, "no socket holder");
	if (!h)
		return;
	CHECK_STR(sock_held_by_name(h->held_by), "accept_queue");
	CHECK(h->listener == &socks[2], "listener %p", (const void *)h->listener);
	CHECK_INT(h->listeners, 1);
	CHECK_INT(h->listener_owners, 1);
	CHECK_INT(h->listener_owner.pid, 300);
	CHECK(strstr(h->remedy,
		     "not accepted yet, and reset by its peer: it waits in the accept "
		     "queue of the listener on port 5001, ino 62 of pid 300 (server) fd 3") &&
		      strstr(h->remedy, "closing the listener frees it"),
	      "%s", h->remedy);
	attrib_free(&rep);

	/* SO_REUSEPORT: two listeners on the child's address and port */
	socks[1].sk = 0xb0; /* first in address order */
	inet_pton(AF_INET, "192.0.2.2", socks[1].laddr);
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	for (i = 0; i < rep.pools[0].n; i++)
		if (rep.pools[0].v[i].kind == HK_SOCKET)
			h = &rep.pools[0].v[i];
	CHECK_INT(h->listeners, 2);
	CHECK(h->listener == &socks[1], "listener %p", (const void *)h->listener);
	CHECK(strstr(h->remedy, "ino 61 (no process has its fd), one of 2 (SO_REUSEPORT)") != NULL,
	      "%s", h->remedy);
	attrib_free(&rep);
}

int main(void)
{
	TEST(test_ring_fdinfo);
	TEST(test_held_by);
	TEST(test_accept_queue_listener);
	return unit_done();
}
