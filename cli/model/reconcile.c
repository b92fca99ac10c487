// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "lib/vec.h"
#include "lib/util.h"
#include "model/reconcile.h"

int ledger_excess(const struct reading *rd, __u64 skipped, __u64 slack, struct pl_excess **out,
		  size_t *n)
{
	struct pl_excess *x = NULL, *e;
	size_t cap = 0, i;

	*n = 0;
	for (i = 0; i < rd->n; i++) {
		const struct pool_obs *o = &rd->pools[i];
		const struct ppw_pool *r = &o->rec;
		bool freed = pool_classify(o) == ROW_FREED;
		__s64 inflight, base, pre_min, excess;
		__u64 may = r->lost_releases + skipped;

		if (!r->addr || !o->ledger_pages || may <= o->phantoms)
			continue;
		inflight = freed ? 0 : (__s32)(r->hold_cnt - r->release_cnt);
		if (inflight < 0)
			inflight = 0;
		/* pages out since before start the ledger cannot have (level all: none sampled) */
		base = freed ? 0 : (__s32)(r->base_hold - r->base_release);
		pre_min = base - (__s64)(r->unmatched_releases + may);
		if (pre_min < 0 || rd->level != PPW_LEVEL_ALL)
			pre_min = 0;
		excess = (__s64)o->ledger_pages - (inflight - pre_min) - (__s64)slack;
		if (excess <= 0)
			continue;
		e = VEC_PUSH(x, *n, cap);
		if (!e) {
			free(x);
			*n = 0;
			return -ENOMEM;
		}
		e->gen = r->gen;
		e->pad = 0;
		e->n = (__u64)excess < may - o->phantoms ? (__u64)excess : may - o->phantoms;
	}
	*out = x;
	return 0;
}

__u64 ledger_phantom_losses(const struct reading *rd, __u64 skipped)
{
	__u64 n = skipped;
	size_t i;

	for (i = 0; i < rd->n; i++)
		n += rd->pools[i].rec.lost_releases;
	return n;
}

struct gen_pool {
	__u32 gen;
	__u64 pool;
};

static int gen_pool_cmp(const void *a, const void *b)
{
	const struct gen_pool *x = a, *y = b;

	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

struct suspects {
	const struct gen_pool *g;
	size_t ng;
	__u64 *netmem, *pool;
	size_t n, cap, cap2;
};

static int suspect(void *arg, const struct pl_page *p)
{
	struct suspects *s = arg;
	struct gen_pool key = { .gen = p->gen }, *g;
	__u64 *a, *b;

	if (p->flags & PL_F_PHANTOM)
		return 0;
	g = bsearch(&key, s->g, s->ng, sizeof(*s->g), gen_pool_cmp);
	if (!g)
		return 0;
	a = VEC_PUSH(s->netmem, s->n, s->cap);
	if (!a)
		return -ENOMEM;
	s->n--; /* the same index in both */
	b = VEC_PUSH(s->pool, s->n, s->cap2);
	if (!b)
		return -ENOMEM;
	*a = p->netmem;
	*b = g->pool;
	return 0;
}

int ledger_suspects(struct page_ledger *l, const struct reading *rd, __u64 skipped, __u64 **netmem,
		    __u64 **pool, size_t *n)
{
	struct suspects s = { 0 };
	struct gen_pool *g;
	size_t i, ng = 0;
	int err;

	*netmem = *pool = NULL;
	*n = 0;
	g = calloc(rd->n ? rd->n : 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (i = 0; i < rd->n; i++) {
		const struct ppw_pool *r = &rd->pools[i].rec;

		if (r->addr && (r->lost_releases || skipped))
			g[ng++] = (struct gen_pool){ r->gen, r->addr };
	}
	if (ng) {
		qsort(g, ng, sizeof(*g), gen_pool_cmp);
		s.g = g;
		s.ng = ng;
		err = pl_collect(l, suspect, &s);
		if (err) {
			free(g);
			free(s.netmem);
			free(s.pool);
			return err;
		}
	}
	free(g);
	*netmem = s.netmem;
	*pool = s.pool;
	*n = s.n;
	return 0;
}
