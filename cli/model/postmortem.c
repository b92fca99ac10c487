// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "model/postmortem.h"

#define MAX_POOLS 256

struct pool_acc {
	char key[48];			/* "addr/gen" */
	const struct jv *row;		/* last snapshot row */
	double row_time;
	const struct jv *events[512];
	size_t nevents;
	const struct jv *holders;	/* the pool's entry in the last holders record */
	double holders_time;
	const struct jv *pages;
	double pages_time;
	const struct jv *stacks;
	bool destroyed, freed, stalled;
};

struct acc {
	struct pool_acc *v;
	size_t n;
	const struct jv *header;
	double end_time;
};

static void pool_key(char *buf, size_t len, const struct jv *o)
{
	snprintf(buf, len, "%s/%.0f", jv_str(jv_get(o, "addr"), "?"), jv_num(jv_get(o, "gen"), 0));
}

static struct pool_acc *acc_get(struct acc *a, const struct jv *o)
{
	char key[48];
	size_t i;

	if (!jv_get(o, "addr"))
		return NULL;
	pool_key(key, sizeof(key), o);
	for (i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].key, key))
			return &a->v[i];
	if (a->n == MAX_POOLS)
		return NULL;
	memset(&a->v[a->n], 0, sizeof(a->v[0]));
	snprintf(a->v[a->n].key, sizeof(a->v[0].key), "%s", key);
	return &a->v[a->n++];
}

static void each_pool(struct acc *a, const struct jv *rec, const char *member,
		      void (*fn)(struct pool_acc *, const struct jv *, double), double t)
{
	const struct jv *pools = jv_get(rec, member);
	size_t i;

	for (i = 0; pools && i < pools->n; i++) {
		struct pool_acc *p = acc_get(a, &pools->items[i]);

		if (p)
			fn(p, &pools->items[i], t);
	}
}

static void on_row(struct pool_acc *p, const struct jv *row, double t)
{
	p->row = row;
	p->row_time = t;
}

static void on_holders(struct pool_acc *p, const struct jv *h, double t)
{
	p->holders = h;
	p->holders_time = t;
}

static void on_stacks(struct pool_acc *p, const struct jv *s, double t)
{
	p->stacks = s;
}

static void feed(struct acc *a, const struct jv *rec)
{
	const char *type = jv_str(jv_get(rec, "type"), "");
	double t = jv_num(jv_get(rec, "time"), NAN);
	const struct jv *ev;
	struct pool_acc *p;

	if (!isnan(t))
		a->end_time = t;
	if (!strcmp(type, "header")) {
		a->header = rec;
	} else if (!strcmp(type, "snapshot")) {
		each_pool(a, rec, "pools", on_row, t);
	} else if (!strcmp(type, "holders")) {
		each_pool(a, rec, "pools", on_holders, t);
	} else if (!strcmp(type, "stacks")) {
		each_pool(a, rec, "pools", on_stacks, t);
	} else if (!strcmp(type, "pages")) {
		p = acc_get(a, rec);
		if (p) {
			p->pages = jv_get(rec, "pages");
			p->pages_time = t;
		}
	} else if (!strcmp(type, "event")) {
		ev = jv_get(rec, "event");
		p = acc_get(a, ev);
		if (!p)
			return;
		const char *e = jv_str(jv_get(ev, "event"), "");

		p->destroyed |= !strcmp(e, "destroy");
		p->freed |= !strcmp(e, "freed");
		p->stalled |= !strcmp(e, "stalled");
		if (p->nevents < sizeof(p->events) / sizeof(p->events[0]))
			p->events[p->nevents++] = ev;
	}
}

static void add_timeline(struct jv *tl, double t, const char *event, double inflight,
			 const char *detail, bool derived)
{
	struct jv *e = jv_push(tl);

	e->t = JV_OBJ;
	jv_set_num(e, "time", t);
	jv_set_str(e, "event", event);
	jv_set_num(e, "inflight", inflight);
	jv_set_str(e, "detail", detail);
	if (derived)
		jv_set_bool(e, "derived", true);
}

/* events, with the retries folded into one entry; destroy and stall derived when unseen */
static void timeline(struct jv *out, const struct pool_acc *p, double stall_after,
		     double detach_age_end, double end_time)
{
	struct jv *tl = jv_set(out, "timeline");
	double first_retry = NAN, last_retry = NAN, retry_inflight = NAN;
	double destroyed_at = NAN, t;
	unsigned int retries = 0, last_n = 0;
	char detail[200];
	bool have_destroy = false, have_stall = false;
	size_t i;

	tl->t = JV_ARR;
	for (i = 0; i < p->nevents; i++) {
		const struct jv *e = p->events[i];
		const char *k = jv_str(jv_get(e, "event"), "");

		t = jv_num(jv_get(e, "time"), NAN);
		if (!strcmp(k, "retry")) {
			if (isnan(first_retry))
				first_retry = t;
			last_retry = t;
			retry_inflight = jv_num(jv_get(e, "inflight"), NAN);
			last_n = jv_num(jv_get(e, "retry"), 0);
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
		add_timeline(tl, t, k, jv_num(jv_get(e, "inflight"), NAN),
			     jv_str(jv_get(e, "detail"), ""), false);
	}
	if (!have_destroy && !isnan(detach_age_end)) {
		destroyed_at = end_time - detach_age_end;
		add_timeline(tl, destroyed_at, "destroy", NAN,
			     "before the recording (from the kernel's detach time)", true);
	}
	/* a stall ppwatch noticed late happened at destroy + threshold */
	for (i = 0; have_stall && !isnan(destroyed_at) && i < tl->n; i++) {
		struct jv *e = &tl->items[i];

		if (strcmp(jv_str(jv_get(e, "event"), ""), "stalled"))
			continue;
		t = destroyed_at + stall_after;
		if (jv_num(jv_get(e, "time"), t) > t + 1) {
			snprintf(detail, sizeof(detail), "%.0fs after destroy, %.0f inflight "
				 "(noticed %.0fs later)", stall_after,
				 jv_num(jv_get(e, "inflight"), NAN), jv_num(jv_get(e, "time"), t) - t);
			free(e->items[0].str);
			e->items[0].t = JV_NUM;
			e->items[0].num = t;
			for (size_t k = 0; k < e->n; k++)
				if (!strcmp(e->keys[k], "detail")) {
					free(e->items[k].str);
					e->items[k].str = strdup(detail);
				}
		}
	}
	if (retries) {
		snprintf(detail, sizeof(detail), "%u retries seen, up to retry %u; %.0f inflight "
			 "at the last", retries, last_n, retry_inflight);
		add_timeline(tl, first_retry, "retry", retry_inflight, detail, false);
		jv_set_num(out, "last_retry_time", last_retry);
	}
	if (!have_stall && !isnan(destroyed_at) && !isnan(detach_age_end) &&
	    detach_age_end >= stall_after) {
		snprintf(detail, sizeof(detail), "%.0fs after destroy (the kernel warns then)",
			 stall_after);
		add_timeline(tl, destroyed_at + stall_after, "stalled", NAN, detail, true);
	}
	jv_set_num(out, "destroyed_at", destroyed_at);
	jv_set_num(out, "retries", last_n);
}

static int tl_cmp(const void *a, const void *b)
{
	double x = jv_num(jv_get(a, "time"), 0), y = jv_num(jv_get(b, "time"), 0);

	return x < y ? -1 : x > y;
}

static void copy_member(struct jv *dst, const char *key, const struct jv *src)
{
	struct jv *m = jv_set(dst, key);

	if (m && src)
		jv_copy_into(m, src);
}

static void build_pool(struct jv *pool, const struct pool_acc *p, double stall_after,
		       double end_time)
{
	static const char *const ident[] = {
		"id", "device", "ifname", "ifindex", "netns", "driver", "dev_name", "napi_id",
		"addr", "gen", "state", "inflight", "inflight_bytes", "netlink", "dma_map",
	};
	const struct jv *row = p->row;
	double detach_age = jv_num(jv_get(row, "detach_age_s"), NAN);
	double zombie_s = jv_num(jv_get(row, "zombie_s"), NAN);

	/* a freed pool: destroyed zombie_s before it was freed */
	if (isnan(detach_age) && !isnan(zombie_s))
		detach_age = jv_num(jv_get(row, "freed_age_s"), NAN) + zombie_s;
	struct jv *tl, *dma, *h;
	size_t i;

	pool->t = JV_OBJ;
	for (i = 0; i < sizeof(ident) / sizeof(ident[0]); i++)
		copy_member(pool, ident[i], jv_get(row, ident[i]));
	if (!isnan(detach_age))
		detach_age += end_time - p->row_time;
	jv_set_bool(pool, "stalled", p->stalled || (!isnan(detach_age) && detach_age >= stall_after &&
						    (isnan(zombie_s) || zombie_s >= stall_after)));
	jv_set_num(pool, "detach_age_s", detach_age);
	dma = jv_set(pool, "dma");
	dma->t = JV_OBJ;
	copy_member(dma, "state", jv_get(row, "dma"));
	copy_member(dma, "unmapped_at_destroy", jv_get(row, "dma_unmapped_at_destroy"));
	copy_member(dma, "still_mapped", jv_get(row, "dma_still_mapped"));
	copy_member(dma, "unmap_age_s", jv_get(row, "dma_unmap_age_s"));
	timeline(pool, p, stall_after, detach_age, end_time);
	tl = (struct jv *)jv_get(pool, "timeline");
	if (tl && tl->n > 1)
		qsort(tl->items, tl->n, sizeof(*tl->items), tl_cmp);
	h = jv_set(pool, "holders");
	if (p->holders) {
		h->t = JV_OBJ;
		jv_set_num(h, "time", p->holders_time);
		copy_member(h, "inflight", jv_get(p->holders, "inflight"));
		copy_member(h, "unattributed", jv_get(p->holders, "unattributed"));
		copy_member(h, "holders", jv_get(p->holders, "holders"));
	}
	copy_member(pool, "oldest_pages", p->pages);
	h = jv_set(pool, "release_stacks");
	h->t = JV_ARR;
	for (i = 0; p->stacks && jv_get(p->stacks, "stacks") &&
		    i < jv_get(p->stacks, "stacks")->n; i++) {
		const struct jv *s = jv_at(jv_get(p->stacks, "stacks"), i);
		const char *k = jv_str(jv_get(s, "kind"), "");

		if (!strcmp(k, "zombie_release"))
			jv_copy_into(jv_push(h), s);
	}
}

/* inflight over time: snapshot rows and events, in order, without repeats */
static void series(struct jv *pool, struct jv *const *records, size_t n, const char *key)
{
	struct jv *out = jv_set(pool, "inflight_over_time");
	double last = NAN;
	char k[48];
	size_t r, i;

	out->t = JV_ARR;
	for (r = 0; r < n; r++) {
		const char *type = jv_str(jv_get(records[r], "type"), "");
		const struct jv *src = NULL, *pools;
		double t = jv_num(jv_get(records[r], "time"), NAN), v;

		if (!strcmp(type, "event")) {
			src = jv_get(records[r], "event");
			t = jv_num(jv_get(src, "time"), NAN);
			pool_key(k, sizeof(k), src);
			if (strcmp(k, key))
				src = NULL;
		} else if (!strcmp(type, "snapshot")) {
			pools = jv_get(records[r], "pools");
			for (i = 0; pools && i < pools->n && !src; i++) {
				pool_key(k, sizeof(k), &pools->items[i]);
				if (!strcmp(k, key))
					src = &pools->items[i];
			}
		}
		v = jv_num(jv_get(src, "inflight"), NAN);
		if (!src || isnan(v) || v == last)
			continue;
		last = v;
		struct jv *pt = jv_push(out);

		pt->t = JV_ARR;
		jv_push(pt)->t = JV_NUM;
		pt->items[0].num = t;
		jv_push(pt)->t = JV_NUM;
		pt->items[1].num = v;
	}
}

struct jv *postmortem_build(struct jv *const *records, size_t n, const char *source)
{
	struct jv *rep = jv_new(JV_OBJ), *pools;
	struct acc a = { 0 };
	double stall_after;
	size_t i;

	a.v = calloc(MAX_POOLS, sizeof(*a.v));
	if (!rep || !a.v) {
		free(a.v);
		jv_free(rep);
		return NULL;
	}
	for (i = 0; i < n; i++)
		feed(&a, records[i]);
	stall_after = jv_num(jv_get(a.header, "stall_after_s"), 60);
	jv_set_str(rep, "source", source);
	jv_set_num(rep, "time", a.end_time);
	copy_member(rep, "hostname", jv_get(a.header, "hostname"));
	copy_member(rep, "kernel", jv_get(a.header, "kernel"));
	jv_set_num(rep, "stall_after_s", stall_after);
	pools = jv_set(rep, "pools");
	pools->t = JV_ARR;
	for (i = 0; i < a.n; i++) {
		struct pool_acc *p = &a.v[i];
		const char *state = jv_str(jv_get(p->row, "state"), "");

		if (!p->row)
			continue;
		/* what a post-mortem is about: destroyed and out, or freed meanwhile */
		if (strcmp(state, "zombie") && !p->freed && !p->stalled)
			continue;
		build_pool(jv_push(pools), p, stall_after, a.end_time);
		series(&pools->items[pools->n - 1], records, n, p->key);
	}
	free(a.v);
	return rep;
}
