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
static void random_orders(bool ties)
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
			/*
			 * A page's events on two CPUs are a tick apart (jiffies order
			 * them), or with 'ties' in the same tick now and then: the
			 * count decides those, unambiguously for a page not out
			 * before start (whose count never reads 0 while held).
			 */
			if (last_cpu[pg] != NCPU && last_cpu[pg] != cpu && last_t[pg] >= t &&
			    !(ties && !pre[pg] && rnd(2)))
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
		if (!ties)
			CHECK_INT(l.ties, 0);
		else
			CHECK(l.ties > 0, "round %d: no tie made", round);
		pl_free(&l);
	}
}

static void test_random_orders(void)
{
	random_orders(false);
}

/* the same with a page's events in one tick on two CPUs: the count decides */
static void test_random_orders_ties(void)
{
	random_orders(true);
}

/* fold the logs of ncpu CPUs, reading them in the order 'order' (CPU numbers) */
struct lrec {
	__u64 netmem, t;
	__u32 gen;
	bool release;
};

static void fold_logs(struct page_ledger *l, struct lrec logs[][4], const int *nlog,
		      const int *order, int ncpu)
{
	int c, k;

	for (c = 0; c < ncpu; c++)
		for (k = 0; k < nlog[order[c]]; k++)
			pl_fold(l, logs[order[c]][k].netmem, logs[order[c]][k].release,
				logs[order[c]][k].gen, logs[order[c]][k].t, (__u32)order[c]);
}

/*
 * The tie: a page held on CPU 0 (tick 100), released on CPU 1 and
 * held again on CPU 2 in one tick (110): inflight, in all six orders the
 * logs can be read in, and its later release (CPU 1, tick 120) an ordinary
 * one: no loss, no unmatched release, one tie (of its pool).
 */
static void test_tie_drain_orders(void)
{
	static const int orders[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
					  { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
	struct lrec logs[3][4] = {
		{ { PAGE(7), 100, 4, false } },
		{ { PAGE(7), 110, 4, true } },
		{ { PAGE(7), 110, 4, false } },
	};
	int nlog[3] = { 1, 1, 1 }, o;
	__u64 ties, lost, u, t;

	for (o = 0; o < 6; o++) {
		struct page_ledger l;
		const struct pl_page *p;

		pl_init(&l, 100);
		fold_logs(&l, logs, nlog, orders[o], 3);
		p = pl_find(&l, PAGE(7));
		CHECK(p && (p->flags & PL_F_HOLD), "order %d: the page is held", o);
		CHECK_INT(l.inflight, 1);
		CHECK_INT(collect_at(&l, 110, NULL), 1);
		CHECK_INT(l.inflight, 1);
		pl_fold(&l, PAGE(7), true, 4, 120, 1);
		CHECK_INT(collect_at(&l, 120, NULL), 0);
		CHECK_INT(l.used, 0);
		CHECK_INT(l.lost, 0);
		CHECK_INT(l.unmatched, 0);
		CHECK_INT(l.ties, 1);
		pl_gen_losses(&l, 4, &ties, &lost);
		CHECK_INT(ties, 1);
		CHECK_INT(lost, 0);
		pl_gen_counts(&l, 4, &u, &t);
		CHECK_INT(u, 0);
		pl_free(&l);
	}
}

/* held and freed in one tick on two CPUs: released, in both orders */
static void test_tie_held_and_freed(void)
{
	static const int orders[2][2] = { { 0, 1 }, { 1, 0 } };
	struct lrec logs[2][4] = {
		{ { PAGE(8), 200, 2, false } },
		{ { PAGE(8), 200, 2, true } },
	};
	int nlog[2] = { 1, 1 }, o;

	for (o = 0; o < 2; o++) {
		struct page_ledger l;

		pl_init(&l, 100);
		fold_logs(&l, logs, nlog, orders[o], 2);
		CHECK_INT(l.inflight, 0);
		CHECK_INT(collect_at(&l, 200, NULL), 0);
		CHECK_INT(l.used, 0);
		CHECK_INT(l.lost, 0);
		CHECK_INT(l.unmatched, 0);
		CHECK_INT(l.ties, 1);
		pl_free(&l);
	}
}

/*
 * A hold a full log dropped (the BPF side counts it untracked): its
 * release, logged, finds no entry and settles as a release of a page out
 * before start; nothing is left in the ledger.
 */
static void test_hold_lost(void)
{
	struct page_ledger l;
	__u64 u, t;

	pl_init(&l, 100);
	pl_fold(&l, PAGE(9), true, 6, 300, 0);
	CHECK_INT(l.inflight, 0);
	collect_at(&l, 300, NULL);
	CHECK_INT(l.used, 0);
	pl_gen_counts(&l, 6, &u, &t);
	CHECK_INT(u, 1);
	CHECK_INT(l.lost, 0);
	pl_free(&l);
}

static int count_phantoms(void *arg, const struct pl_page *p)
{
	size_t *n = arg;

	n[(p->flags & PL_F_PHANTOM) ? 1 : 0]++;
	return 0;
}

/*
 * Releases a full log dropped: their pages stay held here (phantoms).
 * Marked as the collector marks them (the excess over the kernel's
 * count), the oldest pages of the pool go, the pool's other pages and
 * other pools' stay; a page a holder scan found is never marked.
 */
static void test_release_lost_phantom(void)
{
	struct pl_excess x[2] = { { .gen = 1, .n = 3 }, { .gen = 3, .n = 0 } };
	size_t n[2] = { 0, 0 }, i;
	struct page_ledger l;

	pl_init(&l, 100);
	for (i = 0; i < 10; i++)
		pl_fold(&l, PAGE(i), false, 1, 400 + i, 0);
	for (i = 10; i < 14; i++)
		pl_fold(&l, PAGE(i), false, 3, 400, 0);
	/* PAGE(0..3)'s releases were lost; a holder scan found PAGE(1) */
	pl_confirm(&l, PAGE(1));
	CHECK_INT(pl_mark_phantoms(&l, x, 2), 3);
	for (i = 0; i < 14; i++) {
		const struct pl_page *p = pl_find(&l, PAGE(i));
		bool want = i == 0 || i == 2 || i == 3;

		CHECK(p && !!(p->flags & PL_F_PHANTOM) == want, "page %zu phantom %d", i, want);
	}
	collect_at(&l, 420, NULL);
	pl_collect(&l, count_phantoms, n);
	CHECK_INT(n[0], 11);
	CHECK_INT(n[1], 3);
	CHECK_INT(l.lost, 0);
	/* marked already: the same excess again marks none more */
	x[0].n = 0;
	CHECK_INT(pl_mark_phantoms(&l, x, 2), 0);
	pl_free(&l);
}

/* a phantom held again (the page came back to the pool): the new hold clears the mark */
static void test_phantom_cleared(void)
{
	struct pl_excess x = { .gen = 5, .n = 1 };
	const struct pl_page *p;
	struct page_ledger l;

	pl_init(&l, 100);
	pl_fold(&l, PAGE(20), false, 5, 500, 0);
	CHECK_INT(pl_mark_phantoms(&l, &x, 1), 1);
	pl_fold(&l, PAGE(20), false, 5, 600, 1);
	p = pl_find(&l, PAGE(20));
	CHECK(p && p->flags == PL_F_HOLD, "held again, unmarked (flags %u)", p ? p->flags : 0);
	collect_at(&l, 600, NULL);
	CHECK_INT(l.lost, 1); /* the release between the two holds */
	pl_free(&l);
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
	TEST(test_random_orders_ties);
	TEST(test_tie_drain_orders);
	TEST(test_tie_held_and_freed);
	TEST(test_hold_lost);
	TEST(test_release_lost_phantom);
	TEST(test_phantom_cleared);
	return unit_done();
}
