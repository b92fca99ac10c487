// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "output/prom.h"
#include "output/prom_device.h"

static int key_cmp(__u32 ns, __s32 ifindex, const char *dev, const struct prom_dev *y)
{
	if (ns != y->netns_ino)
		return ns < y->netns_ino ? -1 : 1;
	if (ifindex != y->ifindex)
		return ifindex < y->ifindex ? -1 : 1;
	return strcmp(dev, y->device);
}

static int dev_cmp(const void *a, const void *b)
{
	const struct prom_dev *x = a;

	return key_cmp(x->netns_ino, x->ifindex, x->device, b);
}

static struct prom_dev *find_in(const struct prom_dev *v, size_t n, const struct pool_row *r)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = key_cmp(r->netns_ino, r->ifindex, r->device, &v[mid]);
		if (!c)
			return (struct prom_dev *)&v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

struct prom_dev *prom_devs_find(const struct prom_devs *d, const struct pool_row *r)
{
	return find_in(d->v, d->n, r);
}

int prom_devs_index(struct prom_devs *d, const struct snapshot *s)
{
	size_t i, nold = d->n, n = 0;
	struct prom_dev *x;

	for (i = 0; i < d->n; i++)
		d->v[i].seen = false;
	for (i = 0; i < s->n; i++) {
		const struct pool_row *r = &s->rows[i];

		if (r->state == ROW_FREED)
			continue;
		x = find_in(d->v, nold, r);
		if (!x) /* new this time: appended, sorted in below */
			for (x = d->v + nold; x < d->v + d->n; x++)
				if (!key_cmp(r->netns_ino, r->ifindex, r->device, x))
					break;
		if (x == d->v + d->n) {
			x = VEC_PUSH(d->v, d->n, d->cap);
			if (!x)
				return -ENOMEM;
			x->netns_ino = r->netns_ino;
			x->ifindex = r->ifindex;
			snprintf(x->device, sizeof(x->device), "%s", r->device);
			memcpy(x->driver, r->driver, sizeof(x->driver));
		}
		x->seen = true;
	}
	for (i = 0; i < d->n; i++)
		if (d->v[i].seen)
			d->v[n++] = d->v[i];
	d->n = n;
	if (n)
		qsort(d->v, n, sizeof(*d->v), dev_cmp);
	return 0;
}

static __s64 add_known(__s64 sum, __s64 v)
{
	if (v < 0)
		return sum;
	return sum < 0 ? v : sum + v;
}

void prom_devs_gauges(struct prom_devs *d, const struct snapshot *s)
{
	struct prom_dev *x;
	size_t i;

	for (i = 0; i < d->n; i++) {
		x = &d->v[i];
		x->live = x->zombies = x->bytes = x->blocks_prealloc = x->blocks_dyn = 0;
		x->inflight = 0;
		x->oldest_s = NAN;
		x->oldest_lower = false;
		x->ledger = x->before_start = x->untracked = -1;
		x->item_stats = x->item_blocks = false;
	}
	for (i = 0; i < s->n; i++) {
		const struct pool_row *r = &s->rows[i];

		if (r->state == ROW_FREED || !(x = prom_devs_find(d, r)))
			continue;
		x->live += r->state == ROW_LIVE;
		x->zombies += r->state == ROW_ZOMBIE;
		x->inflight += r->inflight > 0 ? r->inflight : 0;
		x->bytes += r->inflight_bytes;
		if (isfinite(r->oldest_age_s) && !(r->oldest_age_s <= x->oldest_s)) {
			x->oldest_s = r->oldest_age_s;
			x->oldest_lower = r->oldest_at_least;
		}
		if (r->has_record) {
			x->ledger = add_known(x->ledger, r->ledger_pages);
			x->before_start = add_known(x->before_start, r->before_start);
			x->untracked = add_known(x->untracked, r->untracked);
		}
		x->item_stats |= r->item_stats;
		if (r->occ_known || r->item_blocks) {
			x->item_blocks = true;
			x->blocks_prealloc += r->occ_known ? r->occ.prealloc : r->blocks_prealloc;
			x->blocks_dyn += r->occ_known ? r->occ.dynamic : r->blocks_dyn;
		}
	}
}

void prom_devs_free(struct prom_devs *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

static bool informative(const struct pool_row *r)
{
	return r->state == ROW_ZOMBIE || r->dma == DMA_HAZARD ||
	       (isfinite(r->oldest_age_s) && r->oldest_age_s >= PROM_OLD_PAGE_S) ||
	       (r->item_stats && r->item_slow_failed);
}

struct by_inflight {
	__s64 inflight;
	size_t i;
};

static int inflight_cmp(const void *a, const void *b)
{
	const struct by_inflight *x = a, *y = b;

	if (x->inflight != y->inflight)
		return x->inflight > y->inflight ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int prom_pools_shown(const struct snapshot *s, size_t top, bool *shown)
{
	struct by_inflight *v;
	size_t i, n = 0;

	v = calloc(s->n ? s->n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		const struct pool_row *r = &s->rows[i];

		shown[i] = r->state != ROW_FREED && informative(r);
		if (r->state != ROW_FREED && !shown[i] && r->inflight > 0)
			v[n++] = (struct by_inflight){ r->inflight, i };
	}
	qsort(v, n, sizeof(*v), inflight_cmp);
	for (i = 0; i < n && i < top; i++)
		shown[v[i].i] = true;
	free(v);
	return 0;
}

bool prom_auto_per_device(bool was, size_t pools)
{
	return was ? pools > PROM_AUTO_POOLS_BACK : pools > PROM_AUTO_POOLS;
}

int prom_devsel_set(struct prom_devsel *d, bool include, const char *re, char *why, size_t len)
{
	regex_t *r = include ? &d->include : &d->exclude;
	bool *set = include ? &d->include_set : &d->exclude_set;
	int err;

	if (*set) {
		regfree(r);
		*set = false;
	}
	err = regcomp(r, re, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, r, why, len);
		regfree(r);
		return -EINVAL;
	}
	*set = true;
	return 0;
}

bool prom_devsel_any(const struct prom_devsel *d)
{
	return d->include_set || d->exclude_set;
}

bool prom_devsel_match(const struct prom_devsel *d, const char *device)
{
	if (d->include_set && regexec(&d->include, device, 0, NULL, 0))
		return false;
	return !d->exclude_set || regexec(&d->exclude, device, 0, NULL, 0);
}

void prom_devsel_filter(const struct prom_devsel *d, struct snapshot *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		if (prom_devsel_match(d, s->rows[i].device))
			s->rows[n++] = s->rows[i];
	s->n = n;
}

void prom_devsel_free(struct prom_devsel *d)
{
	if (d->include_set)
		regfree(&d->include);
	if (d->exclude_set)
		regfree(&d->exclude);
	memset(d, 0, sizeof(*d));
}

/* ---- 64-bit totals ----------------------------------------------------------------- */

static int total_cmp(const void *a, const void *b)
{
	const struct prom_total *x = a, *y = b;
	__u32 kx = x->addr ? x->gen : x->id, ky = y->addr ? y->gen : y->id;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return kx < ky ? -1 : kx > ky;
}

static struct prom_total *totals_in(const struct prom_total *v, size_t n, const struct pool_row *r)
{
	struct prom_total key = { .addr = r->addr, .gen = r->gen, .id = r->id };

	return n ? bsearch(&key, v, n, sizeof(*v), total_cmp) : NULL;
}

const struct prom_total *prom_totals_find(const struct prom_totals *t, const struct pool_row *r)
{
	return totals_in(t->t, t->n, r);
}

/* a pool's counts the device sums take: 64-bit, never wrapping */
static void pool_counts(const struct prom_total *x, const struct pool_row *r, __u64 *c)
{
	c[PD_HELD] = x->hold;
	c[PD_RELEASED] = x->release;
	c[PD_RETRIES] = r->retries;
	c[PD_ITEM_FAST_EMPTY] = r->item_fast_empty;
	c[PD_ITEM_SLOW_FAILED] = r->item_slow_failed;
	c[PD_BLOCKS_ALLOC] = r->blocks_dyn_alloc;
	c[PD_BLOCKS_FREE] = r->blocks_dyn_free;
}

int prom_totals_update(struct prom_totals *t, const struct snapshot *s)
{
	size_t i, n = 0, nold = t->n;
	struct prom_total *x;
	struct prom_dev *d;
	__u64 c[PD_NR];
	int k, err;

	err = prom_devs_index(&t->devs, s);
	if (err)
		return err;
	for (i = 0; i < t->n; i++)
		t->t[i].seen = false;
	for (i = 0; i < s->n; i++) {
		const struct pool_row *r = &s->rows[i];

		if (!r->has_record)
			continue;
		x = totals_in(t->t, nold, r); /* the new ones are sorted in below */
		if (!x) {
			x = VEC_PUSH(t->t, t->n, t->cap);
			if (!x)
				return -ENOMEM;
			*x = (struct prom_total){ r->addr,	 r->gen,	 r->id,
						  r->hold_cnt,	 r->release_cnt, r->hold_cnt,
						  r->release_cnt };
		} else {
			/* modulo 2^32: a wrap is a step forward, never back */
			x->hold += (__u32)(r->hold_cnt - x->last_hold);
			x->release += (__u32)(r->release_cnt - x->last_release);
			x->last_hold = r->hold_cnt;
			x->last_release = r->release_cnt;
		}
		x->seen = true;
		/* the device takes what grew (a new pool: all of it; a reset: the new count) */
		pool_counts(x, r, c);
		d = r->state == ROW_FREED ? NULL : prom_devs_find(&t->devs, r);
		for (k = 0; k < PD_NR; k++) {
			if (d)
				d->c[k] += c[k] >= x->last_c[k] ? c[k] - x->last_c[k] : c[k];
			x->last_c[k] = c[k];
		}
	}
	for (i = 0; i < t->n; i++)
		if (t->t[i].seen)
			t->t[n++] = t->t[i];
	t->n = n;
	if (n)
		qsort(t->t, n, sizeof(*t->t), total_cmp);
	prom_devs_gauges(&t->devs, s);
	return 0;
}

void prom_totals_free(struct prom_totals *t)
{
	prom_devs_free(&t->devs);
	free(t->t);
	memset(t, 0, sizeof(*t));
}
