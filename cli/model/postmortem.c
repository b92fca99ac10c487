// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "lib/vec.h"
#include "model/postmortem.h"

/* what the records say about one pool; json_t pointers are borrowed from the records */
struct pool_acc {
	char *key;	   /* "addr/gen" */
	const json_t *row; /* last snapshot row */
	double row_time;
	const json_t **events; /* every event, in order */
	size_t nevents, capevents;
	const json_t *holders; /* the pool's entry in the last holders record */
	double holders_time;
	const json_t *pages;
	const json_t *stacks;
	json_t *series; /* owned: [[time, inflight], ...] without repeats */
	double last_inflight;
	bool freed, stalled;
};

struct acc {
	struct pool_acc *v;
	size_t n, cap;
	json_t *index; /* key -> position in v */
	const json_t *header;
	double end_time;
	bool nomem;
};

/* ---- building the tree ----------------------------------------------------------- */

static void put(struct acc *a, json_t *obj, const char *key, json_t *v)
{
	if (json_object_set_new(obj, key, v))
		a->nomem = true;
}

/* a number, or null for what JSON cannot carry (NaN: unknown) */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s)
{
	json_t *v = s ? json_string(s) : NULL;

	return v ? v : json_null();
}

/* a member copied from a record (shared, never changed), or null */
static void copy(struct acc *a, json_t *dst, const char *key, const json_t *src)
{
	put(a, dst, key, src ? json_incref((json_t *)src) : json_null());
}

/* ---- reading the records ------------------------------------------------------------ */

static struct pool_acc *acc_get(struct acc *a, const json_t *o)
{
	struct pool_acc *p;
	json_t *at;
	char *key;

	if (!json_object_get(o, "addr"))
		return NULL;
	if (asprintf(&key, "%s/%.17g", rec_str(o, "addr", "?"), rec_num(o, "gen", 0)) < 0) {
		a->nomem = true;
		return NULL;
	}
	at = json_object_get(a->index, key);
	if (at) {
		free(key);
		return &a->v[json_integer_value(at)];
	}
	p = VEC_PUSH(a->v, a->n, a->cap);
	if (!p || json_object_set_new(a->index, key, json_integer(a->n - 1))) {
		a->n -= p != NULL;
		a->nomem = true;
		free(key);
		return NULL;
	}
	p->key = key;
	p->last_inflight = NAN;
	p->series = json_array();
	if (!p->series)
		a->nomem = true;
	return p;
}

/* inflight over time: a point when it changes */
static void add_point(struct acc *a, struct pool_acc *p, double t, double inflight)
{
	json_t *pt;

	if (isnan(inflight) || inflight == p->last_inflight || !p->series)
		return;
	p->last_inflight = inflight;
	pt = json_pack("[oo]", num(t), num(inflight));
	if (!pt || json_array_append_new(p->series, pt))
		a->nomem = true;
}

static void each_pool(struct acc *a, const json_t *rec, double t, int what)
{
	const json_t *pools = json_object_get(rec, "pools"), *x;
	struct pool_acc *p;
	size_t i;

	json_array_foreach(pools, i, x)
	{
		p = acc_get(a, x);
		if (!p)
			continue;
		switch (what) {
		case 's':
			p->row = x;
			p->row_time = t;
			add_point(a, p, t, rec_num(x, "inflight", NAN));
			break;
		case 'h':
			p->holders = x;
			p->holders_time = t;
			break;
		case 'k':
			p->stacks = x;
			break;
		}
	}
}

static void feed(struct acc *a, const json_t *rec)
{
	const char *type = rec_str(rec, "type", ""), *e;
	double t = rec_num(rec, "time", NAN);
	const json_t *ev, **slot;
	struct pool_acc *p;

	if (!isnan(t))
		a->end_time = t;
	if (!strcmp(type, "header")) {
		a->header = rec;
	} else if (!strcmp(type, "snapshot")) {
		each_pool(a, rec, t, 's');
	} else if (!strcmp(type, "holders")) {
		each_pool(a, rec, t, 'h');
	} else if (!strcmp(type, "stacks")) {
		each_pool(a, rec, t, 'k');
	} else if (!strcmp(type, "pages")) {
		p = acc_get(a, rec);
		if (p)
			p->pages = json_object_get(rec, "pages");
	} else if (!strcmp(type, "event")) {
		ev = json_object_get(rec, "event");
		p = acc_get(a, ev);
		if (!p)
			return;
		e = rec_str(ev, "event", "");
		p->freed |= !strcmp(e, "freed");
		p->stalled |= !strcmp(e, "stalled");
		slot = VEC_PUSH(p->events, p->nevents, p->capevents);
		if (!slot) {
			a->nomem = true;
			return;
		}
		*slot = ev;
		add_point(a, p, rec_num(ev, "time", NAN), rec_num(ev, "inflight", NAN));
	}
}

/* ---- one pool ------------------------------------------------------------------------ */

static json_t *add_timeline(struct acc *a, json_t *tl, double t, const char *event, double inflight,
			    const char *detail, bool derived)
{
	json_t *e = json_object();

	if (!e || json_array_append_new(tl, e)) {
		a->nomem = true;
		return NULL;
	}
	put(a, e, "time", num(t));
	put(a, e, "event", str(event));
	put(a, e, "inflight", num(inflight));
	put(a, e, "detail", str(detail));
	if (derived)
		put(a, e, "derived", json_true());
	return e;
}

/* events, with the retries folded into one entry; destroy and stall derived when unseen */
static void timeline(struct acc *a, json_t *out, const struct pool_acc *p, double stall_after,
		     double detach_age_end, double end_time)
{
	double first_retry = NAN, last_retry = NAN, retry_inflight = NAN, last_n = 0;
	double destroyed_at = NAN, t, et;
	bool have_destroy = false, have_stall = false;
	json_t *tl = json_array(), *e;
	size_t i, retries = 0;
	char detail[200];
	const char *k;

	put(a, out, "timeline", tl);
	if (!tl)
		return;
	for (i = 0; i < p->nevents; i++) {
		const json_t *ev = p->events[i];

		k = rec_str(ev, "event", "");
		t = rec_num(ev, "time", NAN);
		if (!strcmp(k, "retry")) {
			if (isnan(first_retry))
				first_retry = t;
			last_retry = t;
			retry_inflight = rec_num(ev, "inflight", NAN);
			last_n = rec_num(ev, "retry", 0);
			retries++;
			continue;
		}
		if (!strcmp(k, "destroy")) {
			have_destroy = true;
			destroyed_at = t;
		}
		have_stall |= !strcmp(k, "stalled");
		if (!strcmp(k, "new") && i > 0)
			continue;
		add_timeline(a, tl, t, k, rec_num(ev, "inflight", NAN), rec_str(ev, "detail", ""),
			     false);
	}
	if (!have_destroy && !isnan(detach_age_end)) {
		destroyed_at = end_time - detach_age_end;
		add_timeline(a, tl, destroyed_at, "destroy", NAN,
			     "before the recording (from the kernel's detach time)", true);
	}
	/* a stall ppwatch noticed late happened at destroy + threshold */
	json_array_foreach(tl, i, e)
	{
		if (!have_stall || isnan(destroyed_at) ||
		    strcmp(rec_str(e, "event", ""), "stalled"))
			continue;
		t = destroyed_at + stall_after;
		et = rec_num(e, "time", t);
		if (et > t + 1) {
			snprintf(detail, sizeof(detail),
				 "%.0fs after destroy, %.0f inflight "
				 "(noticed %.0fs later)",
				 stall_after, rec_num(e, "inflight", NAN), et - t);
			put(a, e, "time", num(t));
			put(a, e, "detail", str(detail));
		}
	}
	if (retries) {
		snprintf(detail, sizeof(detail),
			 "%zu %s seen, up to retry %.0f; %.0f inflight "
			 "at the last",
			 retries, retries == 1 ? "retry" : "retries", last_n, retry_inflight);
		add_timeline(a, tl, first_retry, "retry", retry_inflight, detail, false);
		put(a, out, "last_retry_time", num(last_retry));
	}
	if (!have_stall && !isnan(destroyed_at) && !isnan(detach_age_end) &&
	    detach_age_end >= stall_after) {
		snprintf(detail, sizeof(detail), "%.0fs after destroy (the kernel warns then)",
			 stall_after);
		add_timeline(a, tl, destroyed_at + stall_after, "stalled", NAN, detail, true);
	}
	put(a, out, "destroyed_at", num(destroyed_at));
	put(a, out, "retries", num(last_n));
}

static int tl_cmp(const void *pa, const void *pb)
{
	double x = rec_num(*(json_t *const *)pa, "time", 0);
	double y = rec_num(*(json_t *const *)pb, "time", 0);

	return x < y ? -1 : x > y;
}

/* the timeline in time order */
static void sort_timeline(struct acc *a, json_t *tl)
{
	size_t n = json_array_size(tl), i;
	json_t **v;

	if (n < 2)
		return;
	v = calloc(n, sizeof(*v));
	if (!v) {
		a->nomem = true;
		return;
	}
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(tl, i));
	qsort(v, n, sizeof(*v), tl_cmp);
	json_array_clear(tl);
	for (i = 0; i < n; i++)
		if (json_array_append_new(tl, v[i]))
			a->nomem = true;
	free(v);
}

static void build_pool(struct acc *a, json_t *pool, const struct pool_acc *p, double stall_after,
		       double end_time)
{
	static const char *const ident[] = {
		"id",	  "device",   "ifname",		"ifindex", "netns",
		"driver", "dev_name", "napi_id",	"addr",	   "gen",
		"state",  "inflight", "inflight_bytes", "netlink", "dma_map",
	};
	const json_t *row = p->row, *stacks = json_object_get(p->stacks, "stacks"), *s;
	double detach_age = rec_num(row, "detach_age_s", NAN);
	double zombie_s = rec_num(row, "zombie_s", NAN);
	json_t *dma, *h;
	size_t i;

	/* a freed pool: destroyed zombie_s before it was freed */
	if (isnan(detach_age) && !isnan(zombie_s))
		detach_age = rec_num(row, "freed_age_s", NAN) + zombie_s;
	for (i = 0; i < ARRAY_SIZE(ident); i++)
		copy(a, pool, ident[i], json_object_get(row, ident[i]));
	if (!isnan(detach_age))
		detach_age += end_time - p->row_time;
	put(a, pool, "stalled",
	    json_boolean(p->stalled || (!isnan(detach_age) && detach_age >= stall_after &&
					(isnan(zombie_s) || zombie_s >= stall_after))));
	put(a, pool, "detach_age_s", num(detach_age));
	dma = json_object();
	put(a, pool, "dma", dma);
	if (dma) {
		copy(a, dma, "state", json_object_get(row, "dma"));
		copy(a, dma, "unmapped_at_destroy",
		     json_object_get(row, "dma_unmapped_at_destroy"));
		copy(a, dma, "still_mapped", json_object_get(row, "dma_still_mapped"));
		copy(a, dma, "unmap_age_s", json_object_get(row, "dma_unmap_age_s"));
	}
	timeline(a, pool, p, stall_after, detach_age, end_time);
	sort_timeline(a, json_object_get(pool, "timeline"));
	h = p->holders ? json_object() : json_null();
	put(a, pool, "holders", h);
	if (p->holders && h) {
		put(a, h, "time", num(p->holders_time));
		copy(a, h, "inflight", json_object_get(p->holders, "inflight"));
		copy(a, h, "unattributed", json_object_get(p->holders, "unattributed"));
		copy(a, h, "holders", json_object_get(p->holders, "holders"));
	}
	copy(a, pool, "oldest_pages", p->pages);
	h = json_array();
	put(a, pool, "release_stacks", h);
	json_array_foreach(stacks, i, s) if (h &&
					     !strcmp(rec_str(s, "kind", ""), "zombie_release") &&
					     json_array_append(h, (json_t *)s)) a->nomem = true;
	copy(a, pool, "inflight_over_time", p->series);
}

json_t *postmortem_build(const json_t *records, const char *source)
{
	struct acc a = { .index = json_object(), .end_time = NAN };
	json_t *rep = json_object(), *pools = json_array(), *rec;
	double stall_after;
	size_t i;

	if (!rep || !pools || !a.index) {
		a.nomem = true;
		goto out;
	}
	json_array_foreach(records, i, rec) feed(&a, rec);
	stall_after = rec_num(a.header, "stall_after_s", 60);
	put(&a, rep, "source", str(source));
	put(&a, rep, "time", num(a.end_time));
	copy(&a, rep, "hostname", json_object_get(a.header, "hostname"));
	copy(&a, rep, "kernel", json_object_get(a.header, "kernel"));
	put(&a, rep, "stall_after_s", num(stall_after));
	put(&a, rep, "pools", json_incref(pools));
	for (i = 0; i < a.n; i++) {
		struct pool_acc *p = &a.v[i];
		json_t *pool;

		if (!p->row)
			continue;
		/* what a post-mortem is about: destroyed and out, or freed meanwhile */
		if (strcmp(rec_str(p->row, "state", ""), "zombie") && !p->freed && !p->stalled)
			continue;
		pool = json_object();
		if (!pool || json_array_append_new(pools, pool)) {
			a.nomem = true;
			break;
		}
		build_pool(&a, pool, p, stall_after, a.end_time);
	}
out:
	for (i = 0; i < a.n; i++) {
		free(a.v[i].key);
		free(a.v[i].events);
		json_decref(a.v[i].series);
	}
	free(a.v);
	json_decref(a.index);
	json_decref(pools);
	if (a.nomem) {
		json_decref(rep);
		return NULL;
	}
	return rep;
}
