// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "model/counter_names.h"
#include "model/page_ledger.h"
#include "model/snapshot.h"

enum row_state pool_classify(const struct pool_obs *o)
{
	if (o->rec.addr) {
		if (o->rec.state == PPW_POOL_FREED)
			return ROW_FREED;
		if (o->rec.state == PPW_POOL_DETACHED || o->rec.destroy_cnt)
			return ROW_ZOMBIE;
	}
	if (o->has_nl && (o->nl.present & NLP_DETACH_TIME))
		return ROW_ZOMBIE;
	return ROW_LIVE;
}

const char *row_state_name(enum row_state s)
{
	switch (s) {
	case ROW_LIVE:
		return "live";
	case ROW_ZOMBIE:
		return "zombie";
	case ROW_FREED:
		return "freed";
	}
	return "?";
}

const char *dma_state_name(enum dma_state s)
{
	switch (s) {
	case DMA_UNKNOWN:
		return "unknown";
	case DMA_NOT_MAPPED:
		return "not_mapped";
	case DMA_MAPPED:
		return "mapped";
	case DMA_UNMAP_PENDING:
		return "unmap_pending";
	case DMA_UNMAPPED:
		return "unmapped";
	case DMA_HAZARD:
		return "hazard";
	}
	return "?";
}

/* When the pool was detached, in seconds before 'now'; NAN if not known. */
static double detach_age(const struct reading *rd, const struct pool_obs *o)
{
	double a = pool_detach_age(&o->rec, rd->now_ns, rd->detach_time_is_ns);

	if (isnan(a) && o->has_nl && (o->nl.present & NLP_DETACH_TIME))
		return rd->now_ns / 1e9 - (double)o->nl.detach_time;
	return a;
}

/* a pool's identity across snapshots: (address, generation), or the id of a netlink-only pool */
static int row_key_cmp(const void *a, const void *b)
{
	const struct pool_row *x = *(const struct pool_row *const *)a;
	const struct pool_row *y = *(const struct pool_row *const *)b;
	__u32 kx = x->addr ? x->gen : x->id, ky = y->addr ? y->gen : y->id;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return kx < ky ? -1 : kx > ky;
}

/* the previous snapshot's rows by identity, for find_prev(): n log n, not n^2 */
static const struct pool_row **index_prev(const struct snapshot *prev)
{
	const struct pool_row **v;
	size_t i;

	if (!prev || !prev->n)
		return NULL;
	v = malloc(prev->n * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < prev->n; i++)
		v[i] = &prev->rows[i];
	/* the rows come in the reading's order, already sorted unless netlink added some */
	for (i = 1; i < prev->n && row_key_cmp(&v[i - 1], &v[i]) <= 0; i++)
		;
	if (i < prev->n)
		qsort(v, prev->n, sizeof(*v), row_key_cmp);
	return v;
}

static const struct pool_row *find_prev(const struct pool_row **idx, size_t n, __u64 addr,
					__u32 gen, __u32 id)
{
	struct pool_row k = { .addr = addr, .gen = gen, .id = id };
	const struct pool_row *kp = &k, **p;

	if (!idx)
		return NULL;
	p = bsearch(&kp, idx, n, sizeof(*idx), row_key_cmp);
	return p ? *p : NULL;
}

void pool_row_name(struct pool_row *w, __u32 xdp_mem_id)
{
	if (w->id)
		snprintf(w->ident, sizeof(w->ident), "%u", w->id);
	else if (xdp_mem_id)
		snprintf(w->ident, sizeof(w->ident), "x%u", xdp_mem_id);
	else
		snprintf(w->ident, sizeof(w->ident), "@%08x", (__u32)w->addr);
}

/*
 * The row's identity; its names (ident, device) are the previous row's when
 * what they are made of is the same: two snprintf()s a row were a tenth of
 * a refresh at 10,000 pools.
 */
static void fill_identity(struct pool_row *w, const struct pool_obs *o, const struct pool_row *p)
{
	const struct ppw_pool *r = &o->rec;

	w->addr = r->addr;
	w->gen = r->gen;
	w->id = r->id ? r->id : (o->has_nl ? o->nl.id : 0);
	memcpy(w->ifname, r->ifname, sizeof(w->ifname));
	memcpy(w->devname, r->devname, sizeof(w->devname));
	memcpy(w->driver, r->driver, sizeof(w->driver));
	w->ifindex = r->ifindex;
	w->netns_ino = r->netns_ino;
	w->netns_cookie = r->netns_cookie;
	w->napi_id = r->napi_id;
	w->flags = r->flags;
	w->order = r->order;
	w->pool_size = r->pool_size;
	w->nid = r->nid;
	if (o->has_nl) {
		w->netlink = true;
		if (!w->ifname[0])
			memcpy(w->ifname, o->nl.ifname, sizeof(w->ifname));
		if (!w->ifindex && (o->nl.present & NLP_IFINDEX))
			w->ifindex = o->nl.ifindex;
		if (!w->napi_id && (o->nl.present & NLP_NAPI_ID))
			w->napi_id = o->nl.napi_id;
		if (!w->netns_ino)
			w->netns_ino = o->nl.netns_ino;
	}
	if (p && w->id && p->id == w->id && p->addr == w->addr &&
	    !((w->flags ^ p->flags) & PPW_PF_ORPHANED) &&
	    !memcmp(w->ifname, p->ifname, sizeof(w->ifname)) &&
	    !memcmp(w->devname, p->devname, sizeof(w->devname))) {
		memcpy(w->ident, p->ident, sizeof(w->ident));
		memcpy(w->device, p->device, sizeof(w->device));
		return;
	}
	pool_row_name(w, r->xdp_mem_id);
	if (w->flags & PPW_PF_ORPHANED)
		snprintf(w->device, sizeof(w->device), "<orphan>");
	else if (w->ifname[0])
		snprintf(w->device, sizeof(w->device), "%s", w->ifname);
	else if (w->devname[0])
		snprintf(w->device, sizeof(w->device), "%s", w->devname);
	else if (w->flags & PPW_PF_DEV_GONE)
		snprintf(w->device, sizeof(w->device), "<gone>");
}

static void fill_counts(struct pool_row *w, const struct reading *rd, const struct pool_obs *o,
			const struct pool_row *p, double dt)
{
	const struct ppw_pool *r = &o->rec;
	__s64 base;

	w->hold_per_s = w->release_per_s = NAN;
	if (!r->addr) {
		/* netlink only: its inflight is all we know */
		w->inflight = (o->nl.present & NLP_INFLIGHT) ? (__s64)o->nl.inflight : 0;
		w->inflight_bytes = (o->nl.present & NLP_INFLIGHT_MEM) ?
					    o->nl.inflight_mem :
					    (__u64)w->inflight * rd->page_size;
		w->before_start = w->inflight;
		return;
	}
	w->has_record = true;
	w->hold_cnt = r->hold_cnt;
	w->release_cnt = r->release_cnt;
	/*
	 * A reading can be older than the last (a CPU slot given back after
	 * its pool's record was read): the row keeps the newest, so no rate
	 * wraps to 2^32 a second (CI's t/55, 2026-12-06) and rates add up.
	 */
	if (p && p->has_record) {
		w->hold_cnt = u32_newer(w->hold_cnt, p->hold_cnt);
		w->release_cnt = u32_newer(w->release_cnt, p->release_cnt);
	}
	w->inflight = (__s32)(w->hold_cnt - w->release_cnt);
	if (w->state == ROW_FREED)
		w->inflight = 0;
	w->inflight_bytes =
		w->inflight > 0 ? (__u64)w->inflight * ((__u64)rd->page_size << r->order) : 0;
	w->ledger_pages = o->ledger_pages;
	w->item_stats = r->flags & PPW_PF_ITEM_STATS;
	w->item_fast_empty = r->item_fast_empty;
	w->item_slow_failed = r->item_slow_failed;
	w->item_blocks = r->flags & PPW_PF_ITEM_BLOCKS;
	w->blocks_prealloc = r->blocks_prealloc;
	w->blocks_dyn = r->blocks_dyn;
	w->blocks_dyn_alloc = r->blocks_dyn_alloc;
	w->blocks_dyn_free = r->blocks_dyn_free;
	w->dma_index_stats = r->flags & PPW_PF_DMA_INDEX_STATS;
	w->dma_index_failed = r->dma_index_failed;
	w->dma_map_stats = r->flags & PPW_PF_DMA_MAP_STATS;
	w->dma_map_failed = r->dma_map_failed;
	w->occ_known = o->has_occ && w->state != ROW_FREED;
	w->occ = o->occ;
	if (r->unmap_ns) {
		w->unmap_seen = true;
		w->unmap_pages = r->unmapped_pages;
		w->unmap_blocks = r->unmap_blocks;
		w->unmap_took_ns = r->unmap_took_ns;
		w->unmap_inflight = r->destroy_inflight;
	}
	base = (__s32)(r->base_hold - r->base_release);
	if (base < 0 || w->state == ROW_FREED)
		base = 0;
	/* each release since first sight could have been one of them */
	w->before_start_min = base - (__s64)(__u32)(w->release_cnt - r->base_release);
	if (w->before_start_min < 0)
		w->before_start_min = 0;
	w->ledger_pages = w->before_start = w->before_start_max = w->untracked = w->phantoms = -1;
	w->hold_lost = r->untracked_holds;
	w->release_lost = r->lost_releases;
	w->ties = o->ties;
	w->lost = o->lost;
	switch (rd->level) {
	case PPW_LEVEL_ALL:
		w->ledger_pages = o->ledger_pages;
		w->phantoms = o->phantoms;
		pl_split(w->inflight, w->ledger_pages, base, r->unmatched_releases,
			 r->untracked_holds, &w->before_start, &w->before_start_max, &w->untracked);
		break;
	case PPW_LEVEL_SAMPLED:
		/* the sample is 1 page in sample_rate: estimates */
		w->sampled = true;
		w->ledger_pages = o->ledger_pages;
		w->phantoms = o->phantoms;
		w->before_start = base - (__s64)r->unmatched_releases * rd->sample_rate;
		if (w->before_start < w->before_start_min)
			w->before_start = w->before_start_min;
		break;
	case PPW_LEVEL_COUNTERS:
		break;
	}
	w->destroy_cnt = r->destroy_cnt;
	/* page_pool_release() ran destroy_cnt times: once in destroy, then retries */
	w->retries = r->destroy_cnt > 1 ? r->destroy_cnt - 1 : 0;
	w->last_inflight = r->last_inflight;
	if (p && p->has_record && dt > 0) {
		w->hold_per_s = (__u32)(w->hold_cnt - p->hold_cnt) / dt;
		w->release_per_s = (__u32)(w->release_cnt - p->release_cnt) / dt;
	}
}

/*
 * A page ppwatch did not see taken is at least as old as its start (it
 * saw every hold since it attached, unless the pool table was full then:
 * since it first saw the pool), and a destroyed pool's at least as old
 * as the destroy (model/ages.h): the older of the two, NAN if neither.
 */
static double unseen_age(const struct reading *rd, const struct pool_obs *o, enum row_state st,
			 double *destroyed)
{
	const struct ppw_pool *r = &o->rec;
	double a = NAN;
	__u64 since, by = 0;

	*destroyed = NAN;
	if (r->addr) {
		since = r->first_seen_ns;
		if (rd->start_ns && rd->start_ns < since && !rd->counters[PPW_CNT_POOLS_FULL])
			since = rd->start_ns;
		a = age_since(rd->now_ns, since);
	}
	if (st == ROW_LIVE)
		return a;
	by = pool_destroyed_by(r, rd->detach_time_is_ns);
	if (!by && o->has_nl && (o->nl.present & NLP_DETACH_TIME))
		by = secs_destroyed_by(o->nl.detach_time);
	if (by)
		*destroyed = age_since(rd->now_ns, by);
	return isnan(*destroyed) || *destroyed < a ? a : *destroyed;
}

static void fill_ages(struct pool_row *w, const struct reading *rd, const struct pool_obs *o)
{
	const struct ppw_pool *r = &o->rec;
	double destroyed, bound = NAN;

	w->oldest_age_s = w->detach_age_s = w->freed_age_s = w->zombie_s = NAN;
	w->seen_age_s = r->addr ? age_since(rd->now_ns, r->first_seen_ns) : NAN;
	memcpy(w->age_hist, o->age_hist, sizeof(w->age_hist));
	if (o->ledger_pages && o->oldest_hold_ns) {
		w->oldest_age_s = age_since(rd->now_ns, o->oldest_hold_ns);
		/* the clock not known yet, or phantoms dropped (collector.c) */
		w->oldest_at_least = o->ages_bound;
	}
	w->unseen_age_s = unseen_age(rd, o, w->state, &destroyed);
	w->destroyed_age_s = destroyed;
	/* any page of a destroyed pool is at least as old as the destroy */
	if (w->state == ROW_ZOMBIE && w->inflight > 0)
		bound = destroyed;
	/* pages from before start still out (the exact count, or the sure minimum) */
	if ((w->before_start > 0 || w->before_start_min > 0) && r->addr)
		bound = w->unseen_age_s;
	if (!isnan(bound) && (isnan(w->oldest_age_s) || bound > w->oldest_age_s)) {
		w->oldest_age_s = bound;
		w->oldest_at_least = true;
	}
	if (w->state != ROW_LIVE)
		w->detach_age_s = detach_age(rd, o);
	if (w->state == ROW_FREED && r->freed_ns) {
		w->freed_age_s = age_since(rd->now_ns, r->freed_ns);
		if (!isnan(w->detach_age_s))
			w->zombie_s = w->detach_age_s - w->freed_age_s;
		w->detach_age_s = NAN; /* a freed pool has no detach age */
	}
}

/*
 * The DMA-unmap state, by the kernel's regime (sources/kfeatures.c):
 *  - dma_mapped xarray: page_pool_scrub() unmaps every mapped page on the
 *    first release, so from the destroy on nothing is mapped; the xarray
 *    being non-empty afterwards would be a kernel bug and is a hazard;
 *  - item blocks: page_pool_destroy() unmaps every item right after the
 *    first release (the series' tracepoint reports it; without it, the
 *    first retry proves it done);
 *  - neither: an inflight page stays mapped until it comes back.
 */
static void fill_dma(struct pool_row *w, const struct reading *rd, const struct pool_obs *o)
{
	const struct ppw_pool *r = &o->rec;

	w->dma_still_mapped = w->dma_unmapped_at_destroy = -1;
	w->dma_unmap_age_s = NAN;
	if (!r->addr) {
		w->dma = DMA_UNKNOWN;
		return;
	}
	if (!(r->flags & PPW_PF_DMA_MAP)) {
		w->dma = DMA_NOT_MAPPED;
		w->dma_still_mapped = 0;
		if (w->state != ROW_LIVE)
			w->dma_unmapped_at_destroy = 0; /* nothing was mapped */
		return;
	}
	if (w->state == ROW_LIVE) {
		w->dma = DMA_MAPPED;
		w->dma_still_mapped = w->inflight;
		return;
	}
	if (r->detach_ns)
		w->dma_unmapped_at_destroy = r->destroy_inflight;
	switch (rd->regime) {
	case UNMAP_XARRAY:
		w->dma = r->dma_mapped_left ? DMA_HAZARD : DMA_UNMAPPED;
		w->dma_still_mapped = r->dma_mapped_left ? -1 : 0;
		w->dma_unmap_age_s = w->detach_age_s; /* the first scrub */
		break;
	case UNMAP_ITEM_BLOCKS:
		if (r->unmap_ns) {
			w->dma = DMA_UNMAPPED;
			w->dma_unmapped_at_destroy = r->unmapped_pages;
			w->dma_unmap_age_s = age_since(rd->now_ns, r->unmap_ns);
		} else {
			w->dma = r->destroy_cnt > 1 ? DMA_UNMAPPED : DMA_UNMAP_PENDING;
		}
		w->dma_still_mapped = w->dma == DMA_UNMAPPED ? 0 : -1;
		break;
	default:
		w->dma = w->inflight > 0 ? DMA_HAZARD : DMA_UNMAPPED;
		w->dma_still_mapped = w->inflight > 0 ? w->inflight : 0;
		w->dma_unmapped_at_destroy = 0;
	}
	if (w->state == ROW_FREED) {
		w->dma = DMA_UNMAPPED;
		w->dma_still_mapped = 0;
	}
}

/* the previous snapshot's rows in key order, walked alongside the reading's */
struct prev_walk {
	const struct pool_row **idx;
	size_t n, at;
};

/*
 * The previous row of (addr, gen | id): the reading comes sorted by address
 * and generation (netlink's own pools after them), so a cursor that only
 * moves forward finds each in one pass; a key behind the cursor is looked
 * up (n log n at worst, not n^2).
 */
static const struct pool_row *prev_of(struct prev_walk *pw, __u64 addr, __u32 gen, __u32 id)
{
	struct pool_row k = { .addr = addr, .gen = gen, .id = id };
	const struct pool_row *kp = &k;
	int c;

	if (!pw->idx)
		return NULL;
	while (pw->at < pw->n && (c = row_key_cmp(&pw->idx[pw->at], &kp)) < 0)
		pw->at++;
	if (pw->at < pw->n && !row_key_cmp(&pw->idx[pw->at], &kp))
		return pw->idx[pw->at];
	if (pw->at && row_key_cmp(&pw->idx[pw->at - 1], &kp) >= 0)
		return find_prev(pw->idx, pw->n, addr, gen, id);
	return NULL;
}

static int build(struct snapshot *out, const struct reading *rd, const struct snapshot *prev)
{
	struct prev_walk pw = { 0 };
	double dt = 0;
	size_t i;

	out->n = 0;
	out->ts_ns = rd->now_ns;
	if (prev && prev->ts_ns && rd->now_ns > prev->ts_ns)
		dt = (rd->now_ns - prev->ts_ns) / 1e9;
	out->interval_s = dt;
	memcpy(out->counters, rd->counters, sizeof(out->counters));
	out->max_pages = rd->max_pages;
	out->pages_used = rd->pages_used;
	out->ledger_bytes = rd->ledger_bytes;
	out->level = rd->level;
	out->sample_rate = rd->sample_rate ? rd->sample_rate : 1;
	if (!rd->n)
		return 0;
	if (rd->n > out->cap) {
		free(out->rows);
		out->cap = 0;
		out->rows = malloc(rd->n * sizeof(*out->rows));
		if (!out->rows)
			return -ENOMEM;
		out->cap = rd->n;
	}
	pw.idx = index_prev(prev);
	pw.n = prev ? prev->n : 0;
	if (prev && prev->n && !pw.idx)
		return -ENOMEM;
	for (i = 0; i < rd->n; i++) {
		const struct pool_obs *o = &rd->pools[i];
		struct pool_row *w = &out->rows[out->n++];
		const struct pool_row *p;
		__u32 id = o->rec.id ? o->rec.id : (o->has_nl ? o->nl.id : 0);

		memset(w, 0, sizeof(*w));
		p = prev_of(&pw, o->rec.addr, o->rec.gen, id);
		w->state = pool_classify(o);
		fill_identity(w, o, p);
		fill_counts(w, rd, o, p, dt);
		fill_ages(w, rd, o);
		fill_dma(w, rd, o);
		pool_stats_row(w, o, p, dt);
	}
	free(pw.idx);
	return 0;
}

int snapshot_build(struct snapshot *out, const struct reading *rd, const struct snapshot *prev)
{
	memset(out, 0, sizeof(*out));
	return snapshot_rebuild(out, rd, prev);
}

int snapshot_rebuild(struct snapshot *out, const struct reading *rd, const struct snapshot *prev)
{
	int err = build(out, rd, prev);

	if (err) {
		free(out->rows);
		out->rows = NULL;
		out->n = out->cap = 0;
	}
	return err;
}

void pool_row_of(struct pool_row *w, const struct ppw_pool *r, __u64 now_ns, __u32 page_size,
		 bool detach_time_is_ns, enum unmap_regime regime)
{
	struct pool_obs o = { .rec = *r };
	struct reading rd = {
		.pools = &o,
		.n = 1,
		.now_ns = now_ns,
		.page_size = page_size,
		.detach_time_is_ns = detach_time_is_ns,
		.regime = regime,
	};
	struct snapshot s = { 0 };

	memset(w, 0, sizeof(*w));
	if (snapshot_build(&s, &rd, NULL) || !s.n)
		return;
	*w = s.rows[0];
	snapshot_free(&s);
}

void snapshot_free(struct snapshot *s)
{
	free(s->rows);
	s->rows = NULL;
	s->n = s->cap = 0;
}

int pool_filter_parse(struct pool_filter *f, enum pool_filter_kind kind, const char *word)
{
	uint64_t v;

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->word = word;
	f->is_num = !parse_u64(word, 0, kind == PF_IFINDEX ? INT32_MAX : UINT32_MAX, &v);
	f->num = f->is_num ? v : 0;
	return (kind == PF_IFINDEX || kind == PF_NETNS) && !f->is_num ? -EINVAL : 0;
}

static bool name_matches(const struct pool_row *r, const char *w)
{
	return !strcmp(w, r->ifname) || !strcmp(w, r->devname) || !strcmp(w, r->device) ||
	       (r->driver[0] && !strcmp(w, r->driver));
}

bool row_matches(const struct pool_row *r, const struct pool_filter *f)
{
	bool pool = (f->is_num && r->id == f->num) || !strcmp(f->word, r->ident);

	switch (f->kind) {
	case PF_POOL:
		return pool;
	case PF_DEVICE:
		return name_matches(r, f->word);
	case PF_IFINDEX:
		return r->ifindex == (__s32)f->num;
	case PF_NETNS:
		return r->netns_ino == f->num;
	case PF_ANY:
		break;
	}
	return pool || (!f->is_num && name_matches(r, f->word));
}

static void snapshot_keep(struct snapshot *s, bool (*keep)(const struct pool_row *, void *),
			  void *arg)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		if (keep(&s->rows[i], arg)) {
			if (n != i) /* a row moves only when one before it went */
				s->rows[n] = s->rows[i];
			n++;
		}
	s->n = n;
}

struct filter_arg {
	const struct pool_filter *f;
	int n;
};

static bool keep_matching(const struct pool_row *r, void *arg)
{
	struct filter_arg *fa = arg;
	int i;

	for (i = 0; i < fa->n; i++)
		if (row_matches(r, &fa->f[i]))
			return true;
	return false;
}

void snapshot_filter(struct snapshot *s, const struct pool_filter *f, int n)
{
	struct filter_arg fa = { f, n };

	if (n > 0)
		snapshot_keep(s, keep_matching, &fa);
}

int snapshot_copy(struct snapshot *out, const struct snapshot *src)
{
	memset(out, 0, sizeof(*out));
	return snapshot_copy_into(out, src);
}

int snapshot_copy_into(struct snapshot *out, const struct snapshot *src)
{
	struct pool_row *rows = out->rows;
	size_t cap = out->cap;

	*out = *src;
	out->rows = rows;
	out->cap = cap;
	if (!src->n)
		return 0;
	if (src->n > out->cap) {
		free(out->rows);
		out->cap = 0;
		out->rows = malloc(src->n * sizeof(*src->rows));
		if (!out->rows) {
			out->n = 0;
			return -ENOMEM;
		}
		out->cap = src->n;
	}
	memcpy(out->rows, src->rows, src->n * sizeof(*src->rows));
	return 0;
}

static bool keep_unfreed(const struct pool_row *r, void *arg)
{
	return r->state != ROW_FREED;
}

void snapshot_drop_freed(struct snapshot *s)
{
	snapshot_keep(s, keep_unfreed, NULL);
}

static double nan_add(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

struct dev_of {
	const struct pool_row *r;
	size_t i; /* the row's place: groups keep the order of their first row */
};

static int dev_cmp(const void *a, const void *b)
{
	const struct dev_of *x = a, *y = b;
	int c;

	if (x->r->netns_ino != y->r->netns_ino)
		return x->r->netns_ino < y->r->netns_ino ? -1 : 1;
	if (x->r->ifindex != y->r->ifindex)
		return x->r->ifindex < y->r->ifindex ? -1 : 1;
	c = strcmp(x->r->device, y->r->device);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

static int first_cmp(const void *a, const void *b)
{
	const struct group_row *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

static void group_add(struct group_row *row, const struct pool_row *r)
{
	row->page_pools++;
	if (r->state == ROW_ZOMBIE) {
		row->zombies++;
		row->zombie_refs += r->inflight;
		row->zombie_bytes += r->inflight_bytes;
	} else {
		row->live_refs += r->inflight;
		row->live_bytes += r->inflight_bytes;
	}
	row->hold_per_s = nan_add(row->hold_per_s, r->hold_per_s);
	row->release_per_s = nan_add(row->release_per_s, r->release_per_s);
	/* the oldest of them: a bound if the pool that has it gives a bound */
	if (!isnan(r->oldest_age_s) && !(r->oldest_age_s <= row->oldest_age_s)) {
		row->oldest_age_s = r->oldest_age_s;
		row->oldest_at_least = r->oldest_at_least;
	}
}

/*
 * ynltool's 'group-by device': one row per (netns, device), in the order
 * of each device's first pool. Sorted, not searched: a node with a veth
 * per pod has as many devices as pools.
 */
int snapshot_group_by_device(const struct snapshot *s, struct group_row **out, size_t *n)
{
	struct group_row *g = NULL, *row = NULL;
	struct dev_of *v = NULL;
	size_t i, nv = 0, ng = 0;

	if (s->n) {
		g = calloc(s->n, sizeof(*g));
		v = calloc(s->n, sizeof(*v));
		if (!g || !v) {
			free(g);
			free(v);
			return -ENOMEM;
		}
	}
	for (i = 0; i < s->n; i++)
		if (s->rows[i].state != ROW_FREED)
			v[nv++] = (struct dev_of){ &s->rows[i], i };
	if (nv)
		qsort(v, nv, sizeof(*v), dev_cmp);
	for (i = 0; i < nv; i++) {
		const struct pool_row *r = v[i].r;

		if (!row || row->netns_ino != r->netns_ino || row->ifindex != r->ifindex ||
		    strcmp(row->device, r->device)) {
			row = &g[ng++];
			snprintf(row->device, sizeof(row->device), "%s", r->device);
			memcpy(row->ifname, r->ifname, sizeof(row->ifname));
			row->ifindex = r->ifindex;
			row->netns_ino = r->netns_ino;
			row->hold_per_s = row->release_per_s = row->oldest_age_s = NAN;
			row->first = v[i].i;
		}
		group_add(row, r);
	}
	free(v);
	if (ng)
		qsort(g, ng, sizeof(*g), first_cmp);
	*out = g;
	*n = ng;
	return 0;
}

void snapshot_totals(const struct snapshot *s, struct snapshot_totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < s->n; i++) {
		const struct pool_row *r = &s->rows[i];

		if (r->state == ROW_FREED)
			continue;
		t->live += r->state == ROW_LIVE;
		t->zombies += r->state == ROW_ZOMBIE;
		t->inflight += r->inflight;
		t->inflight_bytes += r->inflight_bytes;
	}
}

const char *level_text(enum ppw_level l)
{
	switch (l) {
	case PPW_LEVEL_COUNTERS:
		return "counters";
	case PPW_LEVEL_SAMPLED:
		return "sampled";
	case PPW_LEVEL_ALL:
		return "all";
	}
	return "?";
}

/* ---- losses --------------------------------------------------------------- */

__u64 snapshot_losses(const struct snapshot *s)
{
	__u64 sum = 0;
	size_t i;
	int idx;

	for (i = 0; loss_counter(i, &idx); i++)
		sum += s->counters[idx];
	return sum;
}

int level_parse(const char *s, enum ppw_level *l)
{
	static const enum ppw_level all[] = { PPW_LEVEL_COUNTERS, PPW_LEVEL_SAMPLED,
					      PPW_LEVEL_ALL };
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!strcmp(s, level_text(all[i]))) {
			*l = all[i];
			return 0;
		}
	}
	return -EINVAL;
}
