// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Holder attribution without root: a hand-made scan (sockets, owners, pages,
 * the pool's own cache and ring, a defer list) against a snapshot.
 */
#include <arpa/inet.h>
#include <errno.h>

#include "unit.h"

#include "model/attrib.h"
#include "model/holder_desc.h"
#include "lib/json.h"
#include "output/holder_table.h"

#define SEC    1000000000ULL
#define NOW    (500 * SEC)
#define POOL_A 0xffff888100001000ULL
#define POOL_B 0xffff888100009000ULL
#define SK1    0xffff888200000100ULL
#define SK2    0xffff888200000200ULL
#define PG(n)  (0xffffea0004000000ULL + (n)*64)

static struct ppw_rec_sock socks[2];
static struct ppw_rec_owner owners[3];
static struct ppw_rec_page pages[16];
static struct ppw_rec_pool pools[1];
static struct ppw_rec_defer defer[2];
static struct scan_result scan;
static struct pool_row row;
static struct snapshot snap;

static void page(int i, __u64 holder, __u64 netmem, __u64 pool, __u32 where, bool ledger,
		 double age)
{
	pages[i] = (struct ppw_rec_page){
		.holder = holder,
		.netmem = netmem,
		.pool = pool,
		.where = where,
		.in_ledger = ledger,
		.gen = ledger ? 1 : 0,
		.stack_id = -1,
		.hold_ns = ledger ? NOW - (__u64)(age * SEC) : 0,
	};
}

static void setup(void)
{
	memset(&scan, 0, sizeof(scan));
	socks[0] = (struct ppw_rec_sock){ .sk = SK1,
					  .ino = 100,
					  .family = 2,
					  .type = 2,
					  .protocol = IPPROTO_UDP,
					  .state = 7, /* UNCONN */
					  .lport = 5001,
					  .netns_ino = 4026532246U,
					  .skbs = 3 };
	inet_pton(AF_INET, "192.0.2.2", socks[0].laddr);
	socks[1] = (struct ppw_rec_sock){ .sk = SK2,
					  .ino = 200,
					  .family = 17,
					  .type = 3,
					  .protocol = 0x0300,
					  .state = 7,
					  .flags = PPW_SF_VIA_FD,
					  .skbs = 2 };
	owners[0] = (struct ppw_rec_owner){
		.sk = SK1, .ino = 100, .pid = 42, .tgid = 42, .fd = 3, .comm = "ppgen"
	};
	owners[1] = (struct ppw_rec_owner){
		.sk = SK1, .ino = 100, .pid = 43, .tgid = 43, .fd = 5, .comm = "dup"
	};
	owners[2] = (struct ppw_rec_owner){
		.sk = SK2, .ino = 200, .pid = 50, .tgid = 50, .fd = 4, .comm = "tcpdump"
	};
	page(0, SK1, PG(1), POOL_A, PPW_IN_HEAD, true, 4);
	page(1, SK1, PG(2), POOL_A, PPW_IN_HEAD, false, 0);
	page(2, SK1, PG(3), POOL_A, PPW_IN_FRAG, true, 2);
	page(3, SK2, PG(1), POOL_A, PPW_IN_HEAD, true, 4); /* a clone: counted once */
	page(4, SK2, PG(4), POOL_A, PPW_IN_HEAD, true, 1);
	page(5, 1, PG(5), POOL_A, PPW_IN_DEFER, true, 0.5); /* cpu 1 */
	page(6, SK1, PG(6), POOL_B, PPW_IN_HEAD, false, 0); /* a pool we do not track */
	pools[0] = (struct ppw_rec_pool){ .pool = POOL_A,
					  .gen = 1,
					  .alloc_count = 3,
					  .ring_count = 2,
					  .frag_netmem = PG(3),
					  .hold = 100,
					  .release = 88 };
	defer[0] = (struct ppw_rec_defer){ .cpu = 0, .readable = 1 };
	defer[1] = (struct ppw_rec_defer){ .cpu = 1, .readable = 1, .skbs = 1 };
	scan.socks = socks;
	scan.nsocks = 2;
	scan.owners = owners;
	scan.nowners = 3;
	scan.pages = pages;
	scan.npages = 7;
	scan.pools = pools;
	scan.npools = 1;
	scan.defer = defer;
	scan.ndefer = 2;
	scan.layout_ok = 1;
	scan.netns_scanned = 3;
	scan.elapsed_s = 0.0015;

	memset(&row, 0, sizeof(row));
	row.addr = POOL_A;
	row.gen = 1;
	row.id = 7;
	pool_row_name(&row, 0);
	snprintf(row.device, sizeof(row.device), "vb");
	row.netns_ino = 4026532246U;
	row.seen_age_s = 10;
	row.unseen_age_s = 10;
	memset(&snap, 0, sizeof(snap));
	snap.rows = &row;
	snap.n = 1;
	snap.ts_ns = NOW;
}

static const struct holder *find(const struct pool_holders *ph, enum holder_kind k)
{
	size_t i;

	for (i = 0; i < ph->n; i++)
		if (ph->v[i].kind == k)
			return &ph->v[i];
	return NULL;
}

static void test_sums(void)
{
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	struct holders_report rep;
	const struct pool_holders *ph;
	const struct holder *h;
	__s64 sum = 0;
	size_t i;

	setup();
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	CHECK_INT(rep.n, 1);
	ph = &rep.pools[0];
	CHECK_INT(ph->inflight, 12);
	for (i = 0; i < ph->n; i++)
		sum += ph->v[i].pages;
	CHECK_INT(sum, 12); /* holders always sum to inflight */
	CHECK_INT(ph->unattributed, 2);
	CHECK_INT(rep.pages_seen, 6); /* PG(1) once */

	h = &ph->v[0]; /* biggest first */
	CHECK_INT(h->kind, HK_SOCKET);
	CHECK_INT(h->pages, 3);
	CHECK_INT(h->head_pages, 2);
	CHECK_INT(h->frag_pages, 1);
	CHECK_INT(h->nowners, 2);
	CHECK_STR(h->desc, "udp 192.0.2.2:5001 ino 100 pid 42 ppgen fd 3 (+1 more)");
	CHECK(strstr(h->remedy, "pid 42 (ppgen) fd 3 (and 1 more)") != NULL, "remedy: %s",
	      h->remedy);
	/* PG(2) was out before we looked: at least the pool's seen age */
	CHECK_NEAR(h->oldest_age_s, 10, 1e-9);
	CHECK(h->oldest_at_least, "lower bound");

	h = find(ph, HK_POOL_CACHE);
	CHECK(h && h->pages == 3, "cache");
	h = find(ph, HK_POOL_RING);
	CHECK(h && h->pages == 2, "ring");
	CHECK(find(ph, HK_POOL_FRAG) == NULL, "frag page is held by the socket: not twice");
	h = find(ph, HK_DEFER);
	CHECK(h && h->pages == 1 && h->cpu == 1, "defer list");
	CHECK_STR(h->desc, "skb defer list, cpu 1");
	CHECK_INT(ph->v[ph->n - 1].kind, HK_UNATTRIBUTED); /* last */

	CHECK(attrib_page_holder(&rep, PG(1))->holder == SK1, "first sighting wins");
	CHECK(attrib_page_holder(&rep, PG(9)) == NULL, "unknown page");
	attrib_free(&rep);
}

static void test_frag_page_of_pool(void)
{
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	struct holders_report rep;

	setup();
	pools[0].frag_netmem = PG(7); /* nobody else has it */
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	CHECK(find(&rep.pools[0], HK_POOL_FRAG) != NULL, "pool frag page");
	CHECK_INT(rep.pools[0].unattributed, 1);
	attrib_free(&rep);
}

/*
 * The walk is not an instant: the fds are walked after the sockets, the
 * pool's counts last. An fd of another socket made at a walked socket's
 * address (another inode) does not own it; nor does any fd own a socket
 * walked in an accept queue (no file: inode 0), whose address may be
 * another socket's by the fd walk; pages the walk found beyond the pool's
 * inflight were seen twice (moved).
 */
static void test_walk_is_not_an_instant(void)
{
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	struct holders_report rep;
	const struct holder *h;

	setup();
	owners[1].ino = 101; /* SK1's address, another socket by the fd walk's time */
	socks[1].ino = 0;    /* SK2 waited in an accept queue */
	socks[1].flags = 0;
	owners[2].ino = 300; /* an fd at its address by the fd walk's time */
	pools[0].hold = 96;  /* the pool took pages back and lent them again: 8 out */
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	h = find(&rep.pools[0], HK_SOCKET);
	CHECK(h && h->key == SK1, "biggest socket first");
	CHECK_INT(h->nowners, 1);
	CHECK_INT(h->owners[0].pid, 42);
	CHECK_STR(h->desc, "udp 192.0.2.2:5001 ino 100 pid 42 ppgen fd 3");
	for (h = rep.pools[0].v; h < rep.pools[0].v + rep.pools[0].n && h->key != SK2; h++)
		;
	CHECK(h < rep.pools[0].v + rep.pools[0].n, "SK2 holds pages");
	CHECK_INT(h->nowners, 0);
	CHECK_INT(rep.pools[0].inflight, 8);
	CHECK_INT(rep.pools[0].attributed, 10);
	CHECK_INT(rep.pools[0].moved, 2);
	CHECK(find(&rep.pools[0], HK_UNATTRIBUTED) == NULL, "nothing unattributed");
	attrib_free(&rep);
}

static void test_golden(void)
{
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	struct holders_report rep;
	struct json j;
	char *buf;

	setup();
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	CAPTURE(buf, f, {
		render_holders_text(f, &rep, false);
		render_scan_summary_text(f, &rep);
	});
	check_golden("holders.txt", buf);
	free(buf);
	CAPTURE(buf, f, {
		json_init(&j, f, true);
		json_obj_open(&j);
		render_holders_json(&j, &rep);
		json_obj_close(&j);
		json_end(&j);
	});
	check_golden("holders.json", buf);
	free(buf);
	attrib_free(&rep);
}

/*
 * Every kind of holder at once: a reset TCP socket a process still has, an
 * orphan, a socket whose only reference is an SCM_RIGHTS message, packets
 * in a pfifo under a tbf, fragments waiting for the rest, and an fq qdisc
 * whose private queues are not walked (named next to the residue).
 */
static void test_every_kind(void)
{
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	struct ppw_rec_sock ks[4] = { 0 };
	struct ppw_rec_owner ko[2] = { 0 };
	struct ppw_rec_inflight fl = { .carrier = 0xa3, .sk = 0xa4, .files = 1 };
	struct ppw_rec_qdisc qd[3] = { 0 };
	struct ppw_rec_fragq fq = { .fq = 0xf1, .family = 2, .id = 77, .meat = 1480, .skbs = 1 };
	struct ppw_rec_pool pl = { .pool = POOL_A, .gen = 1, .hold = 20, .release = 8 };
	struct holders_report rep;
	const struct pool_holders *ph;
	const struct holder *h;
	struct json j;
	char *buf;
	size_t i;
	int n = 0;

	setup();
	ks[0] = (struct ppw_rec_sock){ .sk = 0xa1,
				       .ino = 11,
				       .family = 2,
				       .type = 1,
				       .protocol = IPPROTO_TCP,
				       .state = 7,
				       .lport = 5001,
				       .rport = 40000,
				       .rmem = 409600,
				       .unread = 409600 };
	ks[1] = (struct ppw_rec_sock){ .sk = 0xa2,
				       .ino = 0,
				       .family = 2,
				       .type = 1,
				       .protocol = IPPROTO_TCP,
				       .state = 4,
				       .flags = PPW_SF_DEAD | PPW_SF_LOCKED,
				       .lport = 5002,
				       .rport = 40001 };
	ks[2] = (struct ppw_rec_sock){ .sk = 0xa3, .ino = 13, .family = 1, .type = 1, .state = 1 };
	ks[3] = (struct ppw_rec_sock){ .sk = 0xa4,
				       .ino = 14,
				       .family = 2,
				       .type = 2,
				       .protocol = IPPROTO_UDP,
				       .state = 7,
				       .lport = 5003,
				       .flags = PPW_SF_IN_FLIGHT };
	inet_pton(AF_INET, "192.0.2.2", ks[0].laddr);
	inet_pton(AF_INET, "198.51.100.1", ks[0].raddr);
	inet_pton(AF_INET, "192.0.2.2", ks[1].laddr);
	ko[0] = (struct ppw_rec_owner){
		.sk = 0xa1, .ino = 11, .tgid = 812, .fd = 4, .comm = "python3"
	};
	ko[1] = (struct ppw_rec_owner){
		.sk = 0xa3, .ino = 13, .tgid = 900, .fd = 6, .comm = "sender"
	};
	qd[0] = (struct ppw_rec_qdisc){ .qdisc = 0xb1,
					.handle = 0x80040000,
					.parent = 0xffffffff,
					.qlen = 3,
					.kind = "tbf",
					.dev = "bq",
					.flags = PPW_QF_ROOT };
	qd[1] = (struct ppw_rec_qdisc){ .qdisc = 0xb2,
					.handle = 0x100000,
					.parent = 0x80040001,
					.qlen = 3,
					.backlog = 4500,
					.skbs = 3,
					.kind = "pfifo",
					.dev = "bq" };
	qd[2] = (struct ppw_rec_qdisc){ .qdisc = 0xb3,
					.handle = 0x80050000,
					.qlen = 120,
					.backlog = 180000,
					.kind = "fq",
					.dev = "eth0" };
	inet_pton(AF_INET, "198.51.100.7", fq.saddr);
	inet_pton(AF_INET, "192.0.2.2", fq.daddr);
	for (i = 0; i < 4; i++) /* the reset socket: 4 pages */
		page(n++, 0xa1, PG(20 + i), POOL_A, PPW_IN_HEAD, true, 3);
	page(n++, 0xa2, PG(30), POOL_A, PPW_IN_HEAD, true, 3);
	page(n++, 0xa4, PG(31), POOL_A, PPW_IN_HEAD, true, 3);
	page(n++, 0xa4, PG(32), POOL_A, PPW_IN_FRAG, true, 3);
	for (i = 0; i < 3; i++)
		page(n++, 0xb2, PG(40 + i), POOL_A, PPW_IN_QDISC, true, 1);
	page(n++, 0xf1, PG(50), POOL_A, PPW_IN_FRAGQ, true, 2);
	scan.socks = ks;
	scan.nsocks = 4;
	scan.owners = ko;
	scan.nowners = 2;
	scan.pages = pages;
	scan.npages = n;
	scan.pools = &pl;
	scan.npools = 1;
	scan.inflight = &fl;
	scan.ninflight = 1;
	scan.qdiscs = qd;
	scan.nqdiscs = 3;
	scan.fragqs = &fq;
	scan.nfragqs = 1;
	scan.ndefer = 0;
	scan.gone = 2; /* listed, not found again by the run that was to walk them */
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	ph = &rep.pools[0];
	CHECK_INT(ph->inflight, 12);
	CHECK_INT(ph->unattributed, 1); /* 12 - 4 - 1 - 2 - 3 - 1 */
	CHECK_INT(rep.orphans, 1);
	CHECK_INT(rep.inflight_sockets, 1);

	h = &ph->v[0];
	CHECK_INT(h->pages, 4);
	CHECK_STR(h->desc, "tcp 192.0.2.2:5001 <- 198.51.100.1:40000 ino 11 pid 812 python3 fd 4");
	CHECK_STR(sock_state_name(h->sock), "CLOSE");
	CHECK_STR(h->remedy, "pid 812 (python3) fd 4 has not read 400KiB; the socket is CLOSE "
			     "(reset or closed by the peer): read or close it; ss -K cannot kill "
			     "a CLOSE socket");
	for (i = 0; i < ph->n; i++) {
		h = &ph->v[i];
		if (h->kind == HK_SOCKET && h->key == 0xa2) {
			CHECK(!strcmp(sock_state_name(h->sock), "FIN-WAIT-1") &&
				      strstr(h->desc, "(orphan)"),
			      "%s", h->desc);
			CHECK(strstr(h->remedy, "orphan (closed by its process), FIN-WAIT-1") &&
				      strstr(h->remedy, "ss -K src 192.0.2.2:5002"),
			      "%s", h->remedy);
		}
		if (h->kind == HK_SOCKET && h->key == 0xa4) {
			CHECK_INT(h->pages, 2);
			CHECK(strstr(h->desc, "(in flight)") != NULL, "%s", h->desc);
			CHECK(strstr(h->remedy,
				     "SCM_RIGHTS message waiting on unix socket ino 13 of "
				     "pid 900 (sender) fd 6") != NULL,
			      "%s", h->remedy);
		}
		if (h->kind == HK_QDISC) {
			CHECK_INT(h->pages, 3);
			CHECK_STR(h->desc, "qdisc pfifo 10: (under tbf 8004:) on bq (netns 0)");
			CHECK(strstr(h->remedy, "holds 3 packets (4.4KiB)") != NULL, "%s",
			      h->remedy);
		}
		if (h->kind == HK_FRAGQ) {
			CHECK_INT(h->pages, 1);
			CHECK_STR(h->desc,
				  "ipv4 fragments 198.51.100.7 -> 192.0.2.2 id 77 (netns 0)");
			CHECK(strstr(h->remedy, "ipfrag_time") != NULL, "%s", h->remedy);
		}
		if (h->kind == HK_UNATTRIBUTED)
			CHECK(strstr(h->remedy,
				     "not walked: qdisc fq 8005: on eth0 holds 120 packets, "
				     "180000 bytes (120 not walked)") != NULL,
			      "%s", h->remedy);
	}
	CHECK_INT(qdisc_unwalked(&qd[0]), 0); /* classful: its child has them */
	CHECK_INT(qdisc_unwalked(&qd[1]), 0);
	CHECK_INT(qdisc_unwalked(&qd[2]), 120);
	CAPTURE(buf, f, {
		json_init(&j, f, true);
		json_obj_open(&j);
		render_holders_json(&j, &rep);
		json_obj_close(&j);
		json_end(&j);
	});
	check_golden("holders-every-kind.json", buf);
	free(buf);
	CAPTURE(buf, f, {
		render_holders_text(f, &rep, false);
		render_scan_summary_text(f, &rep);
	});
	check_golden("holders-every-kind.txt", buf);
	free(buf);
	attrib_free(&rep);
}

/*
 * An htb with thousands of classes on two devices of two namespaces, each
 * class's qdisc holding a page: every holder and every page's holder names
 * the root of its own device as the qdisc above it (qdisc_dev_idx; the
 * search was once linear per holder and per page).
 */
static void test_qdisc_parents(void)
{
	enum { LEAVES = 3000, NQ = 2 * (LEAVES + 1) };
	struct attrib_params p = { .now_ns = NOW, .page_size = 4096 };
	struct ppw_rec_qdisc *qd = calloc(NQ, sizeof(*qd));
	struct ppw_rec_page *pg = calloc(NQ, sizeof(*pg));
	struct ppw_rec_pool pl = { .pool = POOL_A, .gen = 1, .hold = NQ, .release = 0 };
	struct holders_report rep;
	const struct pool_holders *ph;
	size_t i, n = 0, wrong = 0, named = 0;
	char desc[160];
	int d, k;

	setup();
	if (!qd || !pg) {
		CHECK(0, "out of memory");
		free(qd);
		free(pg);
		return;
	}
	for (d = 0; d < 2; d++) {
		/* the root 1: of each device, then its leaves (handle 0, parent 1:k) */
		qd[n++] = (struct ppw_rec_qdisc){ .qdisc = 0xc00000 + d,
						  .netns_ino = 4026531840U + d,
						  .ifindex = 3,
						  .handle = 0x10000,
						  .parent = 0xffffffff,
						  .kind = "htb",
						  .dev = "bq",
						  .flags = PPW_QF_ROOT };
		for (k = 1; k <= LEAVES; k++)
			qd[n++] = (struct ppw_rec_qdisc){ .qdisc = 0xd00000 + d * 0x10000 + k,
							  .netns_ino = 4026531840U + d,
							  .ifindex = 3,
							  .handle = 0,
							  .parent = 0x10000 + k,
							  .kind = "pfifo",
							  .dev = "bq" };
	}
	for (i = 0; i < n; i++)
		pg[i] = (struct ppw_rec_page){ .holder = qd[i].qdisc,
					       .netmem = PG(100 + i),
					       .pool = POOL_A,
					       .where = PPW_IN_QDISC,
					       .stack_id = -1 };
	scan.pages = pg;
	scan.npages = n;
	scan.pools = &pl;
	scan.npools = 1;
	scan.qdiscs = qd;
	scan.nqdiscs = n;
	CHECK_INT(attrib_build(&rep, &scan, &snap, &p), 0);
	ph = &rep.pools[0];
	for (i = 0; i < ph->n; i++) {
		const struct holder *h = &ph->v[i];

		if (h->kind != HK_QDISC || !h->qdisc)
			continue;
		named++;
		if (h->qdisc->flags & PPW_QF_ROOT)
			wrong += h->qdisc_parent != NULL;
		else
			wrong += !h->qdisc_parent ||
				 h->qdisc_parent->netns_ino != h->qdisc->netns_ino ||
				 !(h->qdisc_parent->flags & PPW_QF_ROOT);
	}
	CHECK_INT(named, n);
	CHECK_INT(wrong, 0);
	/* a listed page's holder ('pages'), from the other namespace's last leaf */
	holder_desc_of(desc, sizeof(desc), &rep, &pg[n - 1]);
	CHECK_STR(desc, "qdisc pfifo 0: (under htb 1:) on bq (netns 4026531841)");
	attrib_free(&rep);
	free(qd);
	free(pg);
}

int main(void)
{
	TEST(test_sums);
	TEST(test_every_kind);
	TEST(test_frag_page_of_pool);
	TEST(test_walk_is_not_an_instant);
	TEST(test_golden);
	TEST(test_qdisc_parents);
	return unit_done();
}
