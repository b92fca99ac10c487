// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/pool_stats.h"
#include "model/snapshot.h"

static const char *const alloc_keys[PPW_ALLOC_MAX] = {
	[PPW_ALLOC_FAST] = "alloc_fast",
	[PPW_ALLOC_SLOW] = "alloc_slow",
	[PPW_ALLOC_SLOW_HIGH_ORDER] = "alloc_slow_high_order",
	[PPW_ALLOC_EMPTY] = "alloc_empty",
	[PPW_ALLOC_REFILL] = "alloc_refill",
	[PPW_ALLOC_WAIVE] = "alloc_waive",
};

static const char *const recycle_keys[PPW_RECYCLE_MAX] = {
	[PPW_RECYCLE_CACHED] = "recycle_cached",
	[PPW_RECYCLE_CACHE_FULL] = "recycle_cache_full",
	[PPW_RECYCLE_RING] = "recycle_ring",
	[PPW_RECYCLE_RING_FULL] = "recycle_ring_full",
	[PPW_RECYCLE_RELEASED_REFCNT] = "recycle_released_refcnt",
};

const char *pp_alloc_key(int i)
{
	return i >= 0 && i < PPW_ALLOC_MAX ? alloc_keys[i] : NULL;
}

const char *pp_recycle_key(int i)
{
	return i >= 0 && i < PPW_RECYCLE_MAX ? recycle_keys[i] : NULL;
}

const char *pp_stats_source_name(enum pp_stats_source s)
{
	switch (s) {
	case PPS_NETLINK:
		return "netlink";
	case PPS_BPF:
		return "bpf";
	default:
		return "none";
	}
}

__u64 pp_allocated(const struct pp_stats *s)
{
	return s->alloc[PPW_ALLOC_FAST] + s->alloc[PPW_ALLOC_REFILL] + s->alloc[PPW_ALLOC_SLOW];
}

__u64 pp_recycled(const struct pp_stats *s)
{
	return s->recycle[PPW_RECYCLE_RING] + s->recycle[PPW_RECYCLE_CACHED];
}

double pp_recycling_pct(const struct pp_stats *s)
{
	__u64 a = pp_allocated(s);

	if (s->source == PPS_NONE || !s->recycle_known || !a)
		return NAN;
	return (double)pp_recycled(s) / (double)a * 100;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct ppw_stats_rec *x = a, *y = b;

	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

int stats_parse(struct stats_scan *out, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	struct ppw_stats_rec *r;
	size_t off;

	for (off = 0; off + sizeof(*r) <= len; off += sizeof(*r)) {
		r = VEC_PUSH(out->v, out->n, out->cap);
		if (!r)
			return -ENOMEM;
		memcpy(r, b + off, sizeof(*r));
		if (!r->pool || !(r->flags & PPW_STATS_ALLOC)) {
			out->n--;
			return -EINVAL;
		}
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), rec_cmp);
	return off == len ? 0 : -EINVAL;
}

void stats_scan_free(struct stats_scan *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

const struct ppw_stats_rec *stats_find(const struct stats_scan *s, __u64 pool, __u32 gen)
{
	struct ppw_stats_rec k = { .pool = pool, .gen = gen };

	if (!s->n)
		return NULL;
	return bsearch(&k, s->v, s->n, sizeof(*s->v), rec_cmp);
}

void pp_stats_of_rec(struct pp_stats *out, const struct ppw_stats_rec *r)
{
	memset(out, 0, sizeof(*out));
	out->source = PPS_BPF;
	memcpy(out->alloc, r->alloc, sizeof(out->alloc));
	out->recycle_known = r->flags & PPW_STATS_RECYCLE;
	if (out->recycle_known)
		memcpy(out->recycle, r->recycle, sizeof(out->recycle));
}

/* (cur - prev) / dt of a counter that only grows; NAN when it went back or no time passed */
static double rate(__u64 cur, __u64 prev, double dt)
{
	return dt > 0 && cur >= prev ? (double)(cur - prev) / dt : NAN;
}

void pool_stats_row(struct pool_row *w, const struct pool_obs *o, const struct pool_row *prev,
		    double dt)
{
	memset(&w->stats, 0, sizeof(w->stats));
	if (o->has_nl && o->nl.stats.source != PPS_NONE)
		w->stats = o->nl.stats;
	else if (o->stats.source != PPS_NONE)
		w->stats = o->stats;
	w->recycling_pct = pp_recycling_pct(&w->stats);
	w->alloc_per_s = w->recycle_per_s = NAN;
	if (!prev || w->stats.source == PPS_NONE || prev->stats.source == PPS_NONE)
		return;
	w->alloc_per_s = rate(pp_allocated(&w->stats), pp_allocated(&prev->stats), dt);
	if (w->stats.recycle_known && prev->stats.recycle_known)
		w->recycle_per_s = rate(pp_recycled(&w->stats), pp_recycled(&prev->stats), dt);
}
