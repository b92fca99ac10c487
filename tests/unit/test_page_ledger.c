// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The page ledger's fold without root: per-CPU logs made up from true
 * page histories, read in passes the way sources/page_log.c reads them
 * (each CPU's log up to where it stood when the pass came to it), in
 * every order; the ledger must end as the histories did.
 */
#include <errno.h>

#include "unit.h"

#include "model/page_ledger.h"

#define PAGE(i) (0xffffea0000000000ULL + (__u64)(i)*64)

struct seen {
	__u64 netmem[8192];
	__u64 t[8192];
	size_t n;
};

static int seen_cb(void *arg, const struct pl_page *p)
{
	struct seen *s = arg;

	if (s->n < 8192) {
		s->netmem[s->n] = p->netmem;
		s->t[s->n] = p->t;
	}
	s->n++;
	return 0;
}

/* every log read past jiffies j: collect */
static size_t collect_at(struct page_ledger *l, __u64 j, struct seen *s)
{
	static struct seen scratch;

	if (!s)
		s = &scratch;
	s->n = 0;
	pl_pass(l, j);
	pl_collect(l, seen_cb, s);
	return s->n;
}

static void test_in_order(void)
{
	static struct seen sn;
	struct page_ledger l;
	__u64 u, t;
	size_t i = 0;

	CHECK_INT(pl_init(&l, 1000), 0);
	for (i = 0; i < 100; i++)
		pl_fold(&l, PAGE(i), false, 7, 1000 + i, 0);
	CHECK_INT(l.inflight, 100);
	for (i = 0; i < 60; i++)
		pl_fold(&l, PAGE(i), true, 7, 2000, 1);
	CHECK_INT(l.inflight, 40);
	CHECK_INT(collect_at(&l, 1999, &sn), 40);
	CHECK_INT(l.used, 100); /* released pages wait until the logs are read past them */
	for (i = 0; i < sn.n; i++) {
		CHECK(sn.netmem[i] >= PAGE(60), "page %llx should be released",
		      (unsigned long long)sn.netmem[i]);
		CHECK_INT(sn.t[i], 1000 + (sn.netmem[i] - PAGE(0)) / 64);
	}
	CHECK_INT(collect_at(&l, 2000, NULL), 40);
	CHECK_INT(l.used, 40); /* then they leave no entry */
	pl_gen_counts(&l, 7, &u, &t);
	CHECK_INT(u, 0);
	CHECK_INT(t, 0);
	CHECK_INT(l.ties, 0);
	pl_free(&l);
}

/* the release comes first (another CPU's log was read first): no trace left */
static void test_release_before_hold(void)
{
	struct page_ledger l;
	__u64 u, t;

	pl_init(&l, 1000);
	pl_fold(&l, PAGE(1), true, 3, 10, 1);
	CHECK_INT(l.inflight, 0);
	collect_at(&l, 8, NULL);
	pl_gen_counts(&l, 3, &u, &t);
	CHECK_INT(u, 1); /* pending: it may be a page from before start */
	pl_fold(&l, PAGE(1), false, 3, 9, 0);
	CHECK_INT(l.inflight, 0);
	collect_at(&l, 10, NULL);
	CHECK(pl_find(&l, PAGE(1)) == NULL, "a matched pair leaves nothing");
	pl_gen_counts(&l, 3, &u, &t);
	CHECK_INT(u, 0);
	CHECK_INT(l.unmatched, 0);
	pl_free(&l);
}

/* a page out before start: released, then held again (a later tick, another CPU) */
static void test_before_start(void)
{
	struct page_ledger l;
	__u64 u, t;

	pl_init(&l, 1000);
	/* the re-hold read first, then the release that came before it */
	pl_fold(&l, PAGE(2), false, 5, 20, 0);
	pl_fold(&l, PAGE(2), true, 5, 18, 1);
	CHECK_INT(l.inflight, 1);
	/* and one only released */
	pl_fold(&l, PAGE(3), true, 5, 18, 1);
	collect_at(&l, 17, NULL);
	pl_gen_counts(&l, 5, &u, &t);
	CHECK_INT(u, 2);
	CHECK_INT(l.unmatched, 0);
	collect_at(&l, 20, NULL);
	CHECK_INT(l.unmatched, 2);
	pl_gen_counts(&l, 5, &u, &t);
	CHECK_INT(u, 2); /* settled now */
	CHECK_INT(l.inflight, 1);
	CHECK(pl_find(&l, PAGE(3)) == NULL, "a settled release leaves nothing");
	CHECK(pl_find(&l, PAGE(2)) && pl_find(&l, PAGE(2))->c == 1, "the held page counts 1");
	/* its release now is an ordinary one */
	pl_fold(&l, PAGE(2), true, 5, 30, 1);
	CHECK_INT(l.inflight, 0);
	collect_at(&l, 30, NULL);
	CHECK_INT(l.used, 0);
	CHECK_INT(l.unmatched, 2);
	pl_free(&l);
}

/* one tick, two CPUs: held and freed in the tick, read release first */
static void test_tie(void)
{
	struct page_ledger l;

	pl_init(&l, 1000);
	pl_fold(&l, PAGE(4), true, 1, 50, 1);
	pl_fold(&l, PAGE(4), false, 1, 50, 0);
	CHECK_INT(l.inflight, 0);
	CHECK_INT(l.ties, 1);
	/* on one CPU the log's order decides: release then hold is held */
	pl_fold(&l, PAGE(5), true, 1, 50, 1);
	pl_fold(&l, PAGE(5), false, 1, 50, 1);
	CHECK_INT(l.inflight, 1);
	collect_at(&l, 50, NULL);
	CHECK_INT(l.unmatched, 1);
	pl_free(&l);
}

/* full: the holds it has no room for are untracked, their pool's */
static void test_full(void)
{
	struct page_ledger l;
	__u64 u, t;
	size_t i;

	pl_init(&l, 10);
	for (i = 0; i < 15; i++)
		pl_fold(&l, PAGE(i), false, 9, 1, 0);
	CHECK_INT(l.inflight, 10);
	CHECK_INT(l.full, 5);
	pl_gen_counts(&l, 9, &u, &t);
	CHECK_INT(t, 5);
	pl_free(&l);
}

/* a lost release (a full log): the page held again settles to one hold */
static void test_lost_release(void)
{
	struct page_ledger l;
	const struct pl_page *p;

	pl_init(&l, 100);
	pl_fold(&l, PAGE(6), false, 2, 5, 0);
	pl_fold(&l, PAGE(6), false, 2, 9, 0);
	CHECK_INT(l.inflight, 1);
	collect_at(&l, 9, NULL);
	p = pl_find(&l, PAGE(6));
	CHECK(p && p->c == 1 && p->t == 9, "settled to the newer hold");
	CHECK_INT(l.lost, 1);
	pl_fold(&l, PAGE(6), true, 2, 12, 0);
	collect_at(&l, 12, NULL);
	CHECK_INT(l.used, 0);
	pl_free(&l);
}

static bool keep_odd(void *arg, __u32 gen)
{
	(void)arg;
	return gen & 1;
}

static void test_prune(void)
{
	struct page_ledger l;
	size_t i;

	pl_init(&l, 100);
	for (i = 0; i < 20; i++)
		pl_fold(&l, PAGE(i), false, 1 + (i & 1), 1, 0);
	pl_fold(&l, PAGE(100), false, 2, 1, 0);
	pl_fold(&l, PAGE(101), false, 2, 1, 0);
	pl_prune(&l, keep_odd, NULL);
	CHECK_INT(l.inflight, 10);
	for (i = 0; i < 20; i++)
		CHECK((pl_find(&l, PAGE(i)) != NULL) == !(i & 1), "page %zu", i);
	pl_free(&l);
}

/* ---- random histories ---------------------------------------------------------- */

#define NCPU  3
#define NPAGE 3000
#define NEV   60000

struct ev {
	__u64 netmem;
	__u64 t;
	__u32 gen, cpu;
	bool release;
};

static unsigned long long rng = 88172645463325252ULL;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

/*
 * The true order of NEV events of NPAGE pages, each page alternating hold
 * and release from its own start (a third of them out before the session:
 * their first event is a release), jiffies advancing every few events; a
 * page's next event on another CPU is at least a tick later when 'no_ties'.
 */
static void test_random_orders(void)
{
	static struct ev evs[NEV];
	static bool held[NPAGE], pre[NPAGE], seen[NPAGE];
	static __u64 last_t[NPAGE];
	static __u32 last_cpu[NPAGE], pre_gen[NPAGE];
	static int cpu_evs[NCPU][NEV];
	static int ncpu_ev[NCPU];
	__u64 t = 1000, want_unmatched[4] = { 0 };
	int round, i, c;

	for (round = 0; round < 20; round++) {
		static struct seen sn;
		struct page_ledger l;
		size_t pos[NCPU] = { 0 }, inflight = 0, k;
		__u64 u, un;
		bool ok = true;

		memset(ncpu_ev, 0, sizeof(ncpu_ev));
		memset(want_unmatched, 0, sizeof(want_unmatched));
		for (i = 0; i < NPAGE; i++) {
			pre[i] = rnd(3) == 0;
			held[i] = pre[i];
			seen[i] = false;
			last_t[i] = 0;
			last_cpu[i] = NCPU;
			pre_gen[i] = 1 + (i % 3); /* a page keeps its pool */
		}
		for (i = 0; i < NEV; i++) {
			int pg = rnd(NPAGE);
			__u32 cpu = rnd(NCPU);

			if (!rnd(4))
				t++;
			/* a page's events on two CPUs are a tick apart: jiffies order them */
			if (last_cpu[pg] != NCPU && last_cpu[pg] != cpu && last_t[pg] >= t)
				t = last_t[pg] + 1;
			evs[i].netmem = PAGE(pg);
			evs[i].release = held[pg];
			evs[i].gen = held[pg] && pre[pg] && !seen[pg] ? pre_gen[pg] :
									1 + (__u32)(pg % 3);
			evs[i].t = t;
			evs[i].cpu = cpu;
			if (evs[i].release && pre[pg] && !seen[pg])
				want_unmatched[evs[i].gen]++;
			seen[pg] = true;
			held[pg] = !held[pg];
			last_t[pg] = t;
			last_cpu[pg] = cpu;
			cpu_evs[cpu][ncpu_ev[cpu]++] = i;
		}
		/*
		 * Passes: the reader comes to CPU 0, 1, 2 in turn (a random order
		 * each pass) and reads what its log holds then: the events before
		 * the moment it came, a moment that only moves on.
		 */
		pl_init(&l, NPAGE);
		{
			int now = 0, order[NCPU] = { 0, 1, 2 };

			while (now < NEV) {
				/* every event before this moment is read by the end of the pass */
				__u64 j_start = evs[now].t;

				for (c = NCPU - 1; c > 0; c--) {
					int j = rnd(c + 1), x = order[c];

					order[c] = order[j];
					order[j] = x;
				}
				for (c = 0; c < NCPU; c++) {
					int cpu = order[c];

					now += rnd(400);
					if (now > NEV)
						now = NEV;
					while (pos[cpu] < (size_t)ncpu_ev[cpu] &&
					       cpu_evs[cpu][pos[cpu]] < now) {
						const struct ev *e = &evs[cpu_evs[cpu][pos[cpu]++]];

						pl_fold(&l, e->netmem, e->release, e->gen, e->t,
							e->cpu);
					}
				}
				pl_pass(&l, j_start - 1);
				if (!rnd(8)) /* a reading now and then, as the collector takes them */
					collect_at(&l, j_start - 1, NULL);
			}
			for (c = 0; c < NCPU; c++)
				while (pos[c] < (size_t)ncpu_ev[c]) {
					const struct ev *e = &evs[cpu_evs[c][pos[c]++]];

					pl_fold(&l, e->netmem, e->release, e->gen, e->t, e->cpu);
				}
		}
		collect_at(&l, t, &sn);
		for (i = 0; i < NPAGE; i++)
			inflight += held[i];
		for (k = 0; k < sn.n; k++) {
			int pg = (int)((sn.netmem[k] - PAGE(0)) / 64);

			if (!held[pg] || sn.t[k] != last_t[pg])
				ok = false;
		}
		CHECK(ok, "round %d: an inflight page the histories do not have, or its time",
		      round);
		CHECK(sn.n == inflight, "round %d: %zu inflight, want %zu", round, sn.n, inflight);
		CHECK(l.inflight == inflight, "round %d: count %zu, want %zu", round, l.inflight,
		      inflight);
		CHECK(l.used == inflight, "round %d: %zu entries, want %zu", round, l.used,
		      inflight);
		for (c = 1; c <= 3; c++) {
			pl_gen_counts(&l, (__u32)c, &u, &un);
			CHECK(u == want_unmatched[c], "round %d gen %d: unmatched %llu, want %llu",
			      round, c, (unsigned long long)u,
			      (unsigned long long)want_unmatched[c]);
		}
		CHECK_INT(l.lost, 0);
		CHECK_INT(l.ties, 0);
		pl_free(&l);
	}
}

int main(void)
{
	TEST(test_in_order);
	TEST(test_release_before_hold);
	TEST(test_before_start);
	TEST(test_tie);
	TEST(test_full);
	TEST(test_lost_release);
	TEST(test_prune);
	TEST(test_random_orders);
	return unit_done();
}
