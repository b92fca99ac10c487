// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/vec.h"
#include "model/page_ledger.h"

#define MIN_BITS 10

/* the most a count goes either way (only lost events push it past 1 or -1) */
#define C_MAX 64

/* the slot of netmem, or the free slot where it would go */
static size_t slot_of(const struct page_ledger *l, __u64 netmem)
{
	size_t mask = l->cap - 1, i = pl_home(l, netmem);

	while (l->v[i].netmem && l->v[i].netmem != netmem)
		i = (i + 1) & mask;
	return i;
}

/*
 * The table's memory: past 2 MiB in huge pages where the kernel gives
 * them (a fold at 1M random pages is a TLB miss per event in 4 KiB pages).
 */
#define HUGE (2UL << 20)

static void *table_alloc(size_t bytes)
{
	void *p;

	if (bytes < HUGE)
		return calloc(1, bytes);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
	return p;
}

static void table_free(void *p, size_t bytes)
{
	if (bytes < HUGE)
		free(p);
	else if (p)
		munmap(p, bytes);
}

static int resize(struct page_ledger *l, unsigned int bits)
{
	struct pl_page *old = l->v, *v;
	size_t oldcap = l->cap, i, j;

	v = table_alloc(((size_t)1 << bits) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->cap = (size_t)1 << bits;
	l->bits = bits;
	for (i = 0; i < oldcap; i++) {
		if (!old[i].netmem)
			continue;
		j = slot_of(l, old[i].netmem);
		v[j] = old[i];
	}
	table_free(old, oldcap * sizeof(*old));
	return 0;
}

int pl_init(struct page_ledger *l, size_t max_pages)
{
	unsigned int bits = MIN_BITS;

	memset(l, 0, sizeof(*l));
	l->max_pages = max_pages;
	/*
	 * Room for every page it keeps at 3/4 full, and for as many released
	 * ones not swept yet (between two passes, at most a log's worth per
	 * CPU: they are swept as soon as every log is read past them)
	 */
	while (((size_t)1 << bits) / 4 * 3 < 2 * max_pages + 65536 && bits < 40)
		bits++;
	l->cap_max = (size_t)1 << bits;
	return resize(l, MIN_BITS);
}

void pl_free(struct page_ledger *l)
{
	table_free(l->v, l->cap * sizeof(*l->v));
	free(l->g);
	memset(l, 0, sizeof(*l));
}

/* remove slot i, moving later entries of its run back (no tombstones) */
static void remove_at(struct page_ledger *l, size_t i)
{
	size_t mask = l->cap - 1, j = i, h;

	if (l->v[i].flags & PL_F_HOLD)
		l->inflight--;
	for (;;) {
		j = (j + 1) & mask;
		if (!l->v[j].netmem)
			break;
		h = pl_home(l, l->v[j].netmem);
		/* j's entry may fill the hole at i unless its home lies in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		l->v[i] = l->v[j];
		i = j;
	}
	memset(&l->v[i], 0, sizeof(l->v[i]));
	l->used--;
}

/* ---- per pool generation counts --------------------------------------------- */

static size_t gen_slot(const struct page_ledger *l, __u32 gen)
{
	size_t mask = l->gcap - 1, i = (size_t)(((__u64)gen * PL_HASH_MUL) >> 40) & mask;

	while (l->g[i].gen && l->g[i].gen != gen)
		i = (i + 1) & mask;
	return i;
}

static struct pl_gen *gen_get(struct page_ledger *l, __u32 gen)
{
	size_t i;

	if (!gen)
		return NULL;
	if ((l->gused + 1) * 2 > l->gcap) {
		struct pl_gen *old = l->g, *v;
		size_t oldcap = l->gcap, ncap = l->gcap ? l->gcap * 2 : 64, k;

		v = calloc(ncap, sizeof(*v));
		if (!v)
			return NULL;
		l->g = v;
		l->gcap = ncap;
		for (k = 0; k < oldcap; k++)
			if (old[k].gen)
				v[gen_slot(l, old[k].gen)] = old[k];
		free(old);
	}
	i = gen_slot(l, gen);
	if (!l->g[i].gen) {
		l->g[i].gen = gen;
		l->gused++;
	}
	return &l->g[i];
}

static const struct pl_gen *gen_find(const struct page_ledger *l, __u32 gen)
{
	size_t i;

	if (!gen || !l->gcap)
		return NULL;
	i = gen_slot(l, gen);
	return l->g[i].gen ? &l->g[i] : NULL;
}

/* ---- the fold --------------------------------------------------------------------- */

/* a tie's state: held when holds outnumber releases (c = 0 is ambiguous: released) */
static bool tie_held(const struct pl_page *e)
{
	return e->c >= 1;
}

/* e's newest event becomes a hold (held) or a release, its flags otherwise kept */
static void set_held(struct pl_page *e, bool held)
{
	e->flags = (e->flags & ~PL_F_HOLD) | (held ? PL_F_HOLD : 0);
}

/*
 * Fold (release, t, cpu, gen) into e's newest event, its count already
 * updated: a later tick, or later in one CPU's log, is newer (and clears
 * the marks of the older event); one tick on two CPUs is a tie the count
 * decides; an older event read late changes only the count, which still
 * decides a tie.
 */
static void newest(struct page_ledger *l, struct pl_page *e, bool release, __u64 t, __u32 cpu,
		   __u32 gen)
{
	bool tie = e->flags & PL_F_TIE;
	struct pl_gen *g;

	if (t != e->t ? (__s64)(t - e->t) > 0 : (__u16)cpu == e->cpu && !tie) {
		e->t = t;
		e->gen = gen;
		e->cpu = (__u16)cpu;
		e->flags = release ? 0 : PL_F_HOLD;
		return;
	}
	if (t == e->t) {
		/* one tick, two CPUs: a hold and a release there is a tie */
		if (!tie && release == !!(e->flags & PL_F_HOLD)) {
			l->ties++;
			g = gen_get(l, gen);
			if (g)
				g->ties++;
		}
		e->flags |= PL_F_TIE;
		if (release != tie_held(e)) { /* this event's kind is the state: it is the newest */
			e->gen = gen;
			e->cpu = (__u16)cpu;
		}
	}
	if (e->flags & PL_F_TIE)
		set_held(e, tie_held(e));
}

/* the count the newest event says it should be */
static int want(const struct pl_page *e)
{
	return (e->flags & PL_F_HOLD) ? 1 : 0;
}

static int sweep(struct page_ledger *l);

/* a new entry at free slot *i; false when there is no room */
static bool insert_at(struct page_ledger *l, size_t *i, __u64 netmem)
{
	if ((l->used + 1) * 4 > l->cap * 3) {
		if (l->cap < l->cap_max && !resize(l, l->bits + 1))
			*i = slot_of(l, netmem);
		else if ((l->used + 1) * 8 > l->cap * 7) {
			/* the released pages the logs are read past make room */
			sweep(l);
			if ((l->used + 1) * 8 > l->cap * 7)
				return false;
			*i = slot_of(l, netmem);
		}
	}
	l->v[*i].netmem = netmem;
	l->used++;
	return true;
}

int pl_fold(struct page_ledger *l, __u64 netmem, bool release, __u32 gen, __u64 t, __u32 cpu)
{
	struct pl_gen *g;
	struct pl_page *e;
	bool was, is;
	size_t i;

	if (release)
		l->releases++;
	else
		l->holds++;
	if (!netmem)
		return 0;
	i = slot_of(l, netmem);
	e = &l->v[i];
	if (!e->netmem) {
		if (!release && l->inflight >= l->max_pages)
			goto full;
		if (!insert_at(l, &i, netmem))
			goto full;
		e = &l->v[i];
		e->t = t;
		e->gen = gen;
		e->cpu = (__u16)cpu;
		e->flags = release ? 0 : PL_F_HOLD;
		/* a release first: out before start, or its hold is in a log not read yet */
		e->c = release ? -1 : 1;
		l->inflight += !release;
		return 0;
	}
	was = e->flags & PL_F_HOLD;
	if (release ? e->c > -C_MAX : e->c < C_MAX)
		e->c += release ? -1 : 1;
	newest(l, e, release, t, cpu, gen);
	is = e->flags & PL_F_HOLD;
	if (is && !was) {
		if (l->inflight >= l->max_pages) {
			/* back, but no room: forget it */
			e->flags &= ~PL_F_HOLD;
			remove_at(l, i);
			goto full;
		}
		l->inflight++;
	} else if (was && !is) {
		l->inflight--;
	}
	return 0;
full:
	l->full++;
	l->full_releases += release;
	g = gen_get(l, gen);
	if (!release && g)
		g->untracked++;
	else if (release && g) /* its hold is one it had no room for, or before start */
		g->unmatched++;
	return g ? 0 : -ENOMEM;
}

/*
 * The walk: settle and remove what is final, count the pending, hand
 * inflight pages to fn. It starts after a free slot, so no run of
 * entries wraps past its start and a removal (which moves later entries
 * of the run back) never moves a visited entry ahead of the walk.
 */
int pl_collect(struct page_ledger *l, int (*fn)(void *arg, const struct pl_page *p), void *arg)
{
	size_t mask = l->cap - 1, start = 0, k, i;
	struct pl_gen *g;
	int r, p;

	for (i = 0; i < l->gcap; i++)
		l->g[i].pending = 0;
	while (start < l->cap && l->v[start].netmem)
		start++;
	for (k = 0; k < l->cap;) {
		struct pl_page *e = &l->v[i = (start + 1 + k) & mask];
		bool final;

		if (!e->netmem) {
			k++;
			continue;
		}
		final = l->j_known && (__s64)(e->t - l->j_safe) <= 0;
		if (final && (e->flags & PL_F_TIE)) {
			/* every event of its tick is in: the count decides for good */
			bool held = tie_held(e);

			if (held != !!(e->flags & PL_F_HOLD))
				l->inflight += held ? 1 : -1;
			set_held(e, held);
			e->flags &= ~PL_F_TIE;
		}
		p = want(e) - e->c;
		if (p && final) {
			g = gen_get(l, e->gen);
			if (p == 1) {
				/* its first event was a release: the page was out before we looked */
				l->unmatched++;
				if (g)
					g->unmatched++;
			} else {
				l->lost++;
				if (g)
					g->lost++;
			}
			e->c = (__s8)want(e);
		} else if (p == 1 && (g = gen_get(l, e->gen))) {
			g->pending++;
		}
		if (final && !(e->flags & PL_F_HOLD)) {
			remove_at(l, i);
			continue; /* a later entry of the run may be in slot i now */
		}
		if (fn && (e->flags & PL_F_HOLD)) {
			r = fn(arg, e);
			if (r)
				return r;
		}
		k++;
	}
	return 0;
}

static int sweep(struct page_ledger *l)
{
	return pl_collect(l, NULL, NULL);
}

void pl_pass(struct page_ledger *l, __u64 j_safe)
{
	l->j_safe = j_safe;
	l->j_known = true;
	/*
	 * Released entries past a quarter of the inflight ones: sweep. A sweep
	 * visits every slot (in order, ~1 ns each), at most 4 per release
	 * here; the table stays within 1.25 times what is inflight.
	 */
	if (l->used - l->inflight > l->inflight / 4 + 16384)
		sweep(l);
}

const struct pl_page *pl_find(const struct page_ledger *l, __u64 netmem)
{
	size_t i;

	if (!netmem || !l->cap)
		return NULL;
	i = slot_of(l, netmem);
	return l->v[i].netmem ? &l->v[i] : NULL;
}

void pl_gen_counts(const struct page_ledger *l, __u32 gen, __u64 *unmatched, __u64 *untracked)
{
	const struct pl_gen *g = gen_find(l, gen);

	*unmatched = g ? g->unmatched + g->pending : 0;
	*untracked = g ? g->untracked : 0;
}

void pl_gen_losses(const struct page_ledger *l, __u32 gen, __u64 *ties, __u64 *lost)
{
	const struct pl_gen *g = gen_find(l, gen);

	*ties = g ? g->ties : 0;
	*lost = g ? g->lost : 0;
}

struct suspect {
	__u32 gen;
	__u32 slot;
	__u64 t;
};

static int excess_cmp(const void *a, const void *b)
{
	const struct pl_excess *x = a, *y = b;

	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

static int suspect_cmp(const void *a, const void *b)
{
	const struct suspect *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->t != y->t)
		return (__s64)(x->t - y->t) < 0 ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

long pl_mark_phantoms(struct page_ledger *l, struct pl_excess *x, size_t n)
{
	struct suspect *v = NULL, *sp;
	size_t nv = 0, capv = 0, i, k;
	struct pl_excess key, *want;
	long marked = 0;
	__u64 left = 0;
	__u32 gen = 0;

	if (!n)
		return 0;
	qsort(x, n, sizeof(*x), excess_cmp);
	for (i = 0; i < l->cap; i++) {
		const struct pl_page *e = &l->v[i];

		if (!e->netmem || (e->flags & (PL_F_HOLD | PL_F_PHANTOM | PL_F_SEEN)) != PL_F_HOLD)
			continue;
		key.gen = e->gen;
		if (!bsearch(&key, x, n, sizeof(*x), excess_cmp))
			continue;
		sp = VEC_PUSH(v, nv, capv);
		if (!sp) {
			free(v);
			return -ENOMEM;
		}
		*sp = (struct suspect){ e->gen, (__u32)i, e->t };
	}
	if (nv)
		qsort(v, nv, sizeof(*v), suspect_cmp);
	/* the oldest of each pool first (collector.c says why) */
	for (k = 0; k < nv; k++) {
		if (!k || v[k].gen != gen) {
			gen = v[k].gen;
			key.gen = gen;
			want = bsearch(&key, x, n, sizeof(*x), excess_cmp);
			left = want ? want->n : 0;
		}
		if (!left)
			continue;
		l->v[v[k].slot].flags |= PL_F_PHANTOM;
		left--;
		marked++;
	}
	free(v);
	return marked;
}

void pl_confirm(struct page_ledger *l, __u64 netmem)
{
	size_t i;

	if (!netmem || !l->cap)
		return;
	i = slot_of(l, netmem);
	if (l->v[i].netmem && (l->v[i].flags & PL_F_HOLD))
		l->v[i].flags = (l->v[i].flags & ~PL_F_PHANTOM) | PL_F_SEEN;
}

void pl_mark(struct page_ledger *l, __u64 netmem)
{
	size_t i;

	if (!netmem || !l->cap)
		return;
	i = slot_of(l, netmem);
	if (l->v[i].netmem && (l->v[i].flags & PL_F_HOLD))
		l->v[i].flags = (l->v[i].flags & ~PL_F_SEEN) | PL_F_PHANTOM;
}

void pl_prune(struct page_ledger *l, bool (*keep)(void *arg, __u32 gen), void *arg)
{
	__u64 *gone = NULL;
	size_t n = 0, cap = 0, i;
	bool any = false;

	for (i = 0; i < l->gcap; i++) {
		if (l->g[i].gen && !keep(arg, l->g[i].gen)) {
			l->g[i].gen = 0;
			any = true;
		}
	}
	if (any) { /* rebuild the generation table without them */
		struct pl_gen *old = l->g;
		size_t oldcap = l->gcap;

		l->g = NULL;
		l->gcap = l->gused = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i].gen) {
				struct pl_gen *g = gen_get(l, old[i].gen);

				if (g)
					*g = old[i];
			}
		free(old);
	}
	/* pages of pools that are gone: their releases were lost (remove after the walk) */
	for (i = 0; i < l->cap; i++) {
		__u64 *p;

		if (!l->v[i].netmem || keep(arg, l->v[i].gen))
			continue;
		p = VEC_PUSH(gone, n, cap);
		if (!p)
			break;
		*p = l->v[i].netmem;
	}
	for (i = 0; i < n; i++) {
		size_t j = slot_of(l, gone[i]);

		if (l->v[j].netmem) {
			if (l->v[j].flags & PL_F_HOLD)
				l->lost++;
			remove_at(l, j);
		}
	}
	free(gone);
}

size_t pl_bytes(const struct page_ledger *l)
{
	return l->cap * sizeof(*l->v) + l->gcap * sizeof(*l->g);
}

void pl_split(__s64 inflight, __s64 ledger_pages, __s64 base, __u64 unmatched, __u64 lost_holds,
	      __s64 *lo, __s64 *hi, __s64 *untracked)
{
	__s64 rest = inflight - ledger_pages, u = (__s64)unmatched, t = (__s64)lost_holds;
	__s64 l, h;

	if (rest < 0)
		rest = 0;
	l = base - u;
	/* as if every unmatched release was a lost hold's page, as far as there were any */
	h = base - u + (u < t ? u : t);
	if (h > base)
		h = base;
	l = l < 0 ? 0 : l > rest ? rest : l;
	h = h < l ? l : h > rest ? rest : h;
	*lo = l;
	*hi = h;
	*untracked = rest - l;
}
