// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "lib/vec.h"
#include "model/contract.h"
#include "model/postmortem.h"

/* a pool's inflight over time: the last PM_SERIES_MAX changes */
struct point {
	double t, v;
};

/* what the records say about one pool: references the accumulator owns */
struct pool_acc {
	char *key;   /* "addr/gen" */
	json_t *row; /* last snapshot row */
	double row_time;
	json_t *events; /* the events but retries, as many as PM_EVENTS_MAX / PM_MINOR_MAX let */
	size_t minor;	/* events of the kinds that repeat, kept */
	uint64_t seen;	/* events seen, retries included */
	uint64_t not_listed;
	/* the retries, folded as they come: first, last, how many */
	uint64_t retries;
	double first_retry, last_retry, retry_inflight, last_n;
	double kept_n;	 /* the latest retry FILE.incidents kept (the others may be gone) */
	json_t *holders; /* the pool's entry in the last holders record (its parts joined) */
	double holders_time, holders_seq;
	json_t *pages;
	double pages_seq;
	json_t *stacks;
	double stacks_seq;
	struct point *series; /* a ring once full */
	size_t s_head, s_n, s_cap;
	uint64_t s_dropped;
	double last_inflight;
	bool freed, stalled;
};

struct pm {
	struct pool_acc *v;
	size_t n, cap;
	json_t *index; /* key -> position in v */
	json_t *header;
	double end_time;
	/* records the recorder could not write (a full disk): its gap and end records say */
	double lost_gaps, lost_end;
	json_t *lost_why;
	/* what it could not take (or write), as its gap records say: the first PM_GAPS_MAX */
	json_t *gaps;
	uint64_t gaps_not_listed;
	/* the recorders whose records these are, by their run: from when to when, their end */
	struct pm_run {
		char run[40];
		char boot_id[48];
		char host[72];
		double pid; /* the recorder's (NAN: not said) */
		double from, to, snapshot_every;
		const char *ended; /* the end record's reason (static), or NULL: none seen */
		char ended_buf[16];
	} runs[PM_RUNS_MAX];
	size_t nruns;
	uint64_t runs_not_listed;
	struct pm_run *run; /* the current file's */
	bool kept; /* the records fed now are FILE.incidents' copies: what the set has is newer */
	/* what the report is read against (pm_context()) */
	double now;
	char boot_id[48];
	char host[72];
	bool (*alive)(int pid); /* is pid a ppwatch here? */
	bool live;		/* live pools with pages out are reported too */
	bool nomem;
};

/* ---- building the tree ----------------------------------------------------------- */

static void set(struct pm *a, json_t *obj, const char *key, json_t *v)
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
static void copy(struct pm *a, json_t *dst, const char *key, const json_t *src)
{
	set(a, dst, key, src ? json_incref((json_t *)src) : json_null());
}

/* keep a reference to v in *slot, letting go of what was there */
static void keep(json_t **slot, json_t *v)
{
	json_incref(v);
	json_decref(*slot);
	*slot = v;
}

/* ---- reading the records ------------------------------------------------------------ */

static struct pool_acc *acc_get(struct pm *a, const json_t *o)
{
	struct pool_acc *p;
	json_t *at;
	char *key;

	if (!json_object_get(o, "addr"))
		return NULL;
	if (asprintf(&key, "%s/%.17g", jstr(o, "addr", "?"), jnum(o, "gen", 0)) < 0) {
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
	p->first_retry = NAN;
	p->events = json_array();
	if (!p->events)
		a->nomem = true;
	return p;
}

/* inflight over time: a point when it changes, the last PM_SERIES_MAX of them */
static void add_point(struct pm *a, struct pool_acc *p, double t, double inflight)
{
	struct point *v;

	if (isnan(inflight) || inflight == p->last_inflight)
		return;
	p->last_inflight = inflight;
	if (p->s_n < PM_SERIES_MAX) {
		if (p->s_n == p->s_cap) {
			v = vec_grow(p->series, &p->s_cap, p->s_n + 1, sizeof(*v));
			if (!v) {
				a->nomem = true;
				return;
			}
			p->series = v;
		}
		p->series[p->s_n++] = (struct point){ t, inflight };
		return;
	}
	p->series[p->s_head] = (struct point){ t, inflight };
	p->s_head = (p->s_head + 1) % PM_SERIES_MAX;
	p->s_dropped++;
}

/*
 * What a record says of a pool, kept in *slot: v, or when v continues the
 * record kept (the same "seq": a record written in parts), what was kept
 * with v's array key joined to it. *slot_seq: the seq kept (a copy from
 * FILE.incidents under its own, negative, so as not to be joined to the
 * set's record of the same seq).
 */
static void keep_part(struct pm *a, json_t **slot, double *slot_seq, json_t *v, const char *key,
		      double seq)
{
	json_t *joined, *arr;

	/* a copy FILE.incidents kept and the set's record are not parts of each other */
	if (a->kept)
		seq = -1 - seq;
	if (!*slot || isnan(seq) || seq != *slot_seq) {
		keep(slot, v);
		*slot_seq = seq;
		return;
	}
	/* a part after the first: its elements after those kept */
	arr = json_array();
	joined = key ? json_copy(*slot) : json_incref(arr);
	if (!joined || !arr || json_array_extend(arr, key ? json_object_get(*slot, key) : *slot) ||
	    json_array_extend(arr, key ? json_object_get(v, key) : v) ||
	    (key && json_object_set(joined, key, arr))) {
		a->nomem = true;
		json_decref(joined);
		json_decref(arr);
		return;
	}
	json_decref(arr);
	json_decref(*slot);
	*slot = joined;
}

/* what a record that lists pools says of each: the part of the pool it updates */
enum pool_part {
	PART_ROW,     /* a snapshot's row: the pool's state, and a point of inflight over time */
	PART_HOLDERS, /* a holder scan's entry */
	PART_STACKS,  /* the release stacks */
};

/* each pool a snapshot, holders or stacks record lists: its part kept */
static void keep_pools(struct pm *a, const json_t *rec, double t, enum pool_part part)
{
	json_t *pools = json_object_get(rec, "pools"), *x;
	double seq = jnum(rec, "seq", NAN);
	struct pool_acc *p;
	size_t i;

	json_array_foreach(pools, i, x)
	{
		p = acc_get(a, x);
		if (!p)
			continue;
		switch (part) {
		case PART_ROW:
			keep(&p->row, x);
			p->row_time = t;
			add_point(a, p, t, jnum(x, "inflight", NAN));
			break;
		case PART_HOLDERS:
			keep_part(a, &p->holders, &p->holders_seq, x, "holders", seq);
			p->holders_time = t;
			break;
		case PART_STACKS:
			keep_part(a, &p->stacks, &p->stacks_seq, x, "stacks", seq);
			break;
		}
	}
}

/* a gap record: what failed, from when to when; one that ends replaces its beginning */
static void add_gap(struct pm *a, json_t *rec)
{
	const char *what = jstr(rec, "what", NULL);
	double since = jnum(rec, "since", NAN);
	json_t *g, *x;
	size_t i;

	a->lost_gaps += jnum(rec, "lost_records", 0);
	/* format 1 said why only */
	keep(&a->lost_why, json_object_get(rec, json_object_get(rec, "error") ? "error" : "why"));
	if (!what)
		return;
	g = json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o}", "what", what, "error",
		      json_incref(json_object_get(rec, "error") ?: json_null()), "errno",
		      json_incref(json_object_get(rec, "errno") ?: json_null()), "since",
		      num(since), "until", num(jnum(rec, "until", NAN)), "failures",
		      num(jnum(rec, "failures", NAN)), "lost_records",
		      num(jnum(rec, "lost_records", 0)));
	if (!g) {
		a->nomem = true;
		return;
	}
	json_array_foreach(a->gaps, i, x)
	{
		if (!strcmp(jstr(x, "what", ""), what) && jnum(x, "since", NAN) == since) {
			json_array_set_new(a->gaps, i, g);
			return;
		}
	}
	if (json_array_size(a->gaps) >= PM_GAPS_MAX) {
		a->gaps_not_listed++;
		json_decref(g);
		return;
	}
	if (json_array_append_new(a->gaps, g))
		a->nomem = true;
}

/* the lifecycle's own events: a pool has each about once */
static bool lifecycle_kind(const char *e)
{
	return !strcmp(e, "new") || !strcmp(e, "destroy") || !strcmp(e, "stalled") ||
	       !strcmp(e, "unmap") || !strcmp(e, "freed");
}

/* a lifecycle event kept already: the set's and FILE.incidents' copy of it are one */
static bool have_event(const struct pool_acc *p, const char *e, double t)
{
	const json_t *x;
	size_t i;

	json_array_foreach(p->events, i, x) if (jnum(x, "time", NAN) == t &&
						!strcmp(jstr(x, "event", ""), e)) return true;
	return false;
}

static void add_event(struct pm *a, struct pool_acc *p, json_t *ev)
{
	const char *e = jstr(ev, "event", "");
	double t = jnum(ev, "time", NAN);
	bool life = lifecycle_kind(e);
	json_t *kept;

	if (!strcmp(e, "retry") && a->kept) {
		/* not counted: the set has it, or the ones before it are gone */
		p->kept_n = fmax(p->kept_n, jnum(ev, "retry", 0));
		return;
	}
	if (life && have_event(p, e, t))
		return;
	p->freed |= !strcmp(e, "freed");
	p->stalled |= !strcmp(e, "stalled");
	add_point(a, p, t, jnum(ev, "inflight", NAN));
	if (!strcmp(e, "retry")) {
		if (isnan(p->first_retry))
			p->first_retry = t;
		p->last_retry = t;
		p->retry_inflight = jnum(ev, "inflight", NAN);
		p->last_n = jnum(ev, "retry", 0);
		p->retries++;
		p->seen++;
		return;
	}
	/* 'new' after other events: the pool was seen again, nothing happened to it */
	if (!strcmp(e, "new") && p->seen++)
		return;
	if (json_array_size(p->events) >= PM_EVENTS_MAX || (!life && p->minor >= PM_MINOR_MAX)) {
		p->not_listed++;
		return;
	}
	p->minor += !life;
	/* what the timeline shows of it, no more: a pool's events may be many */
	kept = json_pack("{s:o,s:s,s:o,s:s}", "time", num(t), "event", e, "inflight",
			 num(jnum(ev, "inflight", NAN)), "detail", jstr(ev, "detail", ""));
	if (!kept || json_array_append_new(p->events, kept))
		a->nomem = true;
}

/* a header: the run it begins a file of (format 1 has no run id: one run per header-less id) */
static void run_of(struct pm *a, const json_t *hdr)
{
	const char *id = jstr(hdr, "run", "");
	size_t i;

	for (i = 0; i < a->nruns; i++)
		if (*id && !strcmp(a->runs[i].run, id)) {
			a->run = &a->runs[i];
			return;
		}
	if (a->nruns == PM_RUNS_MAX) {
		a->runs_not_listed++;
		a->run = NULL;
		return;
	}
	a->run = &a->runs[a->nruns++];
	memset(a->run, 0, sizeof(*a->run));
	snprintf(a->run->run, sizeof(a->run->run), "%s", id);
	snprintf(a->run->boot_id, sizeof(a->run->boot_id), "%s", jstr(hdr, "boot_id", ""));
	snprintf(a->run->host, sizeof(a->run->host), "%s", jstr(hdr, "hostname", ""));
	a->run->pid = jnum(hdr, "pid", NAN);
	a->run->from = a->run->to = NAN;
	a->run->snapshot_every = jnum(hdr, "snapshot_every_s", NAN);
}

/* the times a run's records cover, and its end */
static void run_note(struct pm *a, const char *type, const json_t *rec, double t)
{
	struct pm_run *r = a->run;

	if (!r)
		return;
	if (!isnan(t) && (isnan(r->from) || t < r->from))
		r->from = t;
	if (!isnan(t) && (isnan(r->to) || t > r->to))
		r->to = t;
	if (!strcmp(type, "end")) {
		snprintf(r->ended_buf, sizeof(r->ended_buf), "%s", jstr(rec, "ended", "ended"));
		r->ended = r->ended_buf;
	}
}

int pm_feed(struct pm *a, json_t *rec)
{
	const char *type = jstr(rec, "type", "");
	double t = jnum(rec, "time", NAN);
	struct pool_acc *p;
	json_t *ev;

	if (!isnan(t))
		a->end_time = t;
	if (!strcmp(type, "header"))
		run_of(a, rec);
	run_note(a, type, rec, t);
	if (!strcmp(type, "header")) {
		keep(&a->header, rec);
	} else if (!strcmp(type, "snapshot")) {
		keep_pools(a, rec, t, PART_ROW);
	} else if (!strcmp(type, "holders")) {
		keep_pools(a, rec, t, PART_HOLDERS);
	} else if (!strcmp(type, "stacks")) {
		keep_pools(a, rec, t, PART_STACKS);
	} else if (!strcmp(type, "pages")) {
		p = acc_get(a, rec);
		if (p)
			keep_part(a, &p->pages, &p->pages_seq, json_object_get(rec, "pages"), NULL,
				  jnum(rec, "seq", NAN));
	} else if (!strcmp(type, "event")) {
		ev = json_object_get(rec, "event");
		p = acc_get(a, ev);
		if (p)
			add_event(a, p, ev);
	} else if (!strcmp(type, "gap")) {
		add_gap(a, rec);
	} else if (!strcmp(type, "end")) {
		a->lost_end = jnum(rec, "lost_records", 0);
	}
	return a->nomem ? -ENOMEM : 0;
}

int pm_read(struct pm *a, struct recording *r)
{
	json_t *rec;
	int err;

	while ((err = recording_next(r, &rec)) > 0) {
		/* the file of the record: FILE.incidents' copies come first, the set's win */
		a->kept = recording_kept(r);
		err = pm_feed(a, rec);
		json_decref(rec);
		if (err)
			return err;
	}
	return err;
}

/* ---- one pool ------------------------------------------------------------------------ */

static json_t *add_timeline(struct pm *a, json_t *tl, double t, const char *event, double inflight,
			    const char *detail, bool derived)
{
	json_t *e = json_object();

	if (!e || json_array_append_new(tl, e)) {
		a->nomem = true;
		return NULL;
	}
	set(a, e, "time", num(t));
	set(a, e, "event", str(event));
	set(a, e, "inflight", num(inflight));
	set(a, e, "detail", str(detail));
	if (derived)
		set(a, e, "derived", json_true());
	return e;
}

/* events, with the retries folded into one entry; destroy and stall derived when unseen */
static void timeline(struct pm *a, json_t *out, const struct pool_acc *p, double stall_after,
		     double detach_age_end, double end_time)
{
	double destroyed_at = NAN, t, et;
	bool have_destroy = false, have_stall = false;
	json_t *tl = json_array(), *e, *ev;
	char detail[200];
	const char *k;
	size_t i;

	set(a, out, "timeline", tl);
	if (!tl)
		return;
	json_array_foreach(p->events, i, ev)
	{
		k = jstr(ev, "event", "");
		t = jnum(ev, "time", NAN);
		if (!strcmp(k, "destroy")) {
			have_destroy = true;
			destroyed_at = t;
		}
		have_stall |= !strcmp(k, "stalled");
		add_timeline(a, tl, t, k, jnum(ev, "inflight", NAN), jstr(ev, "detail", ""), false);
	}
	if (!have_destroy && !isnan(detach_age_end)) {
		destroyed_at = end_time - detach_age_end;
		add_timeline(
			a, tl, destroyed_at, "destroy", NAN,
			"before the recording (as the kernel dates it: detach time, or the destroy's jiffies)",
			true);
	}
	/* a stall ppwatch noticed late happened at destroy + threshold */
	json_array_foreach(tl, i, e)
	{
		if (!have_stall || isnan(destroyed_at) || strcmp(jstr(e, "event", ""), "stalled"))
			continue;
		t = destroyed_at + stall_after;
		et = jnum(e, "time", t);
		if (et > t + 1) {
			snprintf(detail, sizeof(detail),
				 "%.0fs after destroy, %.0f inflight "
				 "(noticed %.0fs later)",
				 stall_after, jnum(e, "inflight", NAN), et - t);
			set(a, e, "time", num(t));
			set(a, e, "detail", str(detail));
		}
	}
	if (p->retries) {
		snprintf(detail, sizeof(detail),
			 "%llu %s seen, up to retry %.0f; %.0f inflight "
			 "at the last",
			 (unsigned long long)p->retries, p->retries == 1 ? "retry" : "retries",
			 p->last_n, p->retry_inflight);
		add_timeline(a, tl, p->first_retry, "retry", p->retry_inflight, detail, false);
		set(a, out, "last_retry_time", num(p->last_retry));
	}
	if (!have_stall && !isnan(destroyed_at) && !isnan(detach_age_end) &&
	    detach_age_end >= stall_after) {
		snprintf(detail, sizeof(detail), "%.0fs after destroy (the kernel warns then)",
			 stall_after);
		add_timeline(a, tl, destroyed_at + stall_after, "stalled", NAN, detail, true);
	}
	set(a, out, "destroyed_at", num(destroyed_at));
	set(a, out, "retries", num(fmax(p->retries ? p->last_n : 0, p->kept_n)));
	set(a, out, "events_not_listed", json_integer(p->not_listed));
}

static int tl_cmp(const void *pa, const void *pb)
{
	double x = jnum(*(json_t *const *)pa, "time", 0);
	double y = jnum(*(json_t *const *)pb, "time", 0);

	return x < y ? -1 : x > y;
}

/* the timeline in time order */
static void sort_timeline(struct pm *a, json_t *tl)
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

/* [[time, inflight], ...], oldest first */
static json_t *series(struct pm *a, const struct pool_acc *p)
{
	json_t *v = json_array(), *pt;
	const struct point *x;
	size_t i;

	for (i = 0; v && i < p->s_n; i++) {
		x = &p->series[(p->s_head + i) % p->s_n];
		pt = json_pack("[oo]", num(x->t), num(x->v));
		if (!pt || json_array_append_new(v, pt))
			a->nomem = true;
	}
	if (!v)
		a->nomem = true;
	return v ? v : json_null();
}

static void build_pool(struct pm *a, json_t *pool, const struct pool_acc *p, double stall_after,
		       double end_time)
{
	static const char *const ident[] = {
		"id",	    "pool",	      "device",	 "ifname",  "ifindex", "netns",
		"driver",   "dev_name",	      "napi_id", "addr",    "gen",     "state",
		"inflight", "inflight_bytes", "netlink", "dma_map",
	};
	const json_t *row = p->row, *stacks = json_object_get(p->stacks, "stacks"), *s;
	double detach_age = jnum(row, "detach_age_s", NAN);
	double zombie_s = jnum(row, "zombie_s", NAN);
	json_t *dma, *h;
	size_t i;

	/* a freed pool: destroyed zombie_s before it was freed */
	if (isnan(detach_age) && !isnan(zombie_s))
		detach_age = jnum(row, "freed_age_s", NAN) + zombie_s;
	for (i = 0; i < ARRAY_SIZE(ident); i++)
		copy(a, pool, ident[i], json_object_get(row, ident[i]));
	if (!isnan(detach_age))
		detach_age += end_time - p->row_time;
	set(a, pool, "stalled",
	    json_boolean(p->stalled || (!isnan(detach_age) && detach_age >= stall_after &&
					(isnan(zombie_s) || zombie_s >= stall_after))));
	set(a, pool, "detach_age_s", num(detach_age));
	copy(a, pool, "block_occupancy", json_object_get(row, "block_occupancy"));
	dma = json_object();
	set(a, pool, "dma", dma);
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
	set(a, pool, "holders", h);
	if (p->holders && h) {
		set(a, h, "time", num(p->holders_time));
		copy(a, h, "inflight", json_object_get(p->holders, "inflight"));
		copy(a, h, "unattributed", json_object_get(p->holders, "unattributed"));
		copy(a, h, "holders", json_object_get(p->holders, "holders"));
	}
	copy(a, pool, "oldest_pages", p->pages);
	h = json_array();
	set(a, pool, "release_stacks", h);
	json_array_foreach(stacks, i, s) if (h && !strcmp(jstr(s, "kind", ""), "zombie_release") &&
					     json_array_append(h, (json_t *)s)) a->nomem = true;
	/* where its pages were taken: a leak's driver path (the first few, by count) */
	h = json_array();
	set(a, pool, "hold_stacks", h);
	json_array_foreach(stacks, i, s) if (h && json_array_size(h) < PM_HOLD_STACKS &&
					     !strcmp(jstr(s, "kind", ""), "hold") &&
					     json_array_append(h, (json_t *)s)) a->nomem = true;
	set(a, pool, "inflight_over_time", series(a, p));
	set(a, pool, "inflight_over_time_dropped", json_integer(p->s_dropped));
}

struct pm *pm_new(void)
{
	struct pm *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->end_time = NAN;
	a->index = json_object();
	a->gaps = json_array();
	if (!a->index || !a->gaps) {
		json_decref(a->index);
		json_decref(a->gaps);
		free(a);
		return NULL;
	}
	return a;
}

void pm_free(struct pm *a)
{
	struct pool_acc *p;
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		p = &a->v[i];
		free(p->key);
		json_decref(p->row);
		json_decref(p->events);
		json_decref(p->holders);
		json_decref(p->pages);
		json_decref(p->stacks);
		free(p->series);
	}
	free(a->v);
	json_decref(a->index);
	json_decref(a->header);
	json_decref(a->lost_why);
	json_decref(a->gaps);
	free(a);
}

void pm_report_live(struct pm *a, bool on)
{
	a->live = on;
}

void pm_context(struct pm *a, double now, const char *boot_id, const char *host,
		bool (*alive)(int pid))
{
	a->now = now;
	snprintf(a->boot_id, sizeof(a->boot_id), "%s", boot_id ? boot_id : "");
	snprintf(a->host, sizeof(a->host), "%s", host ? host : "");
	a->alive = alive;
}

/*
 * How a run ended: its end record's reason; without one, what the reading
 * can tell on the host that recorded it: this boot, and its recorder's pid
 * still a ppwatch (running) or not (killed or crashed), or another boot (a
 * crash, a power cut, a reboot); elsewhere, or with a recorder that did
 * not say (format 1): only that it ended without one
 */
static const char *run_end(const struct pm *a, const struct pm_run *r)
{
	bool here = r->host[0] && !strcmp(r->host, a->host) && r->boot_id[0] && a->boot_id[0];

	if (r->ended)
		return r->ended;
	if (here && strcmp(r->boot_id, a->boot_id))
		return "rebooted";
	if (here && !isnan(r->pid) && r->pid > 0 && r->pid < 1 << 30 && a->alive)
		return a->alive((int)r->pid) ? "running" : "killed";
	return "no_end";
}

static json_t *runs(struct pm *a)
{
	json_t *v = json_array(), *x;
	size_t i;

	for (i = 0; v && i < a->nruns; i++) {
		const struct pm_run *r = &a->runs[i];

		x = json_pack("{s:o,s:o,s:o,s:s,s:b}", "run",
			      r->run[0] ? json_string(r->run) : json_null(), "from", num(r->from),
			      "to", num(r->to), "end", run_end(a, r), "end_record",
			      r->ended != NULL);
		if (!x || json_array_append_new(v, x))
			a->nomem = true;
	}
	if (!v)
		a->nomem = true;
	return v ? v : json_null();
}

json_t *pm_report(struct pm *a, const char *source, json_t *input)
{
	json_t *rep = json_object(), *pools = json_array(), *pool;
	double stall_after = jnum(a->header, "stall_after_s", 60);
	struct pool_acc *p;
	size_t i;

	if (!rep || !pools) {
		json_decref(rep);
		json_decref(pools);
		return NULL;
	}
	/* a -j document of its own (model/contract.h), and the same in YAML */
	set(a, rep, "format", json_integer(JSON_FORMAT));
	set(a, rep, "version", str(PPWATCH_VERSION));
	set(a, rep, "source", str(source));
	if (input)
		copy(a, rep, "input", input);
	set(a, rep, "time", num(a->end_time));
	copy(a, rep, "hostname", json_object_get(a->header, "hostname"));
	copy(a, rep, "kernel", json_object_get(a->header, "kernel"));
	set(a, rep, "stall_after_s", num(stall_after));
	copy(a, rep, "stack_every", json_object_get(a->header, "stack_every"));
	copy(a, rep, "boot_to_real_s", json_object_get(a->header, "boot_to_real_s"));
	set(a, rep, "lost_records", num(a->lost_gaps > a->lost_end ? a->lost_gaps : a->lost_end));
	copy(a, rep, "lost_why", a->lost_why);
	copy(a, rep, "gaps", a->gaps);
	set(a, rep, "gaps_not_listed", json_integer(a->gaps_not_listed));
	set(a, rep, "runs", runs(a));
	set(a, rep, "runs_not_listed", json_integer(a->runs_not_listed));
	set(a, rep, "pools", pools);
	for (i = 0; i < a->n; i++) {
		p = &a->v[i];
		if (!p->row)
			continue;
		/* what a post-mortem is about: destroyed and out, or freed meanwhile */
		if (strcmp(jstr(p->row, "state", ""), "zombie") && !p->freed && !p->stalled &&
		    !(a->live && jnum(p->row, "inflight", 0) > 0))
			continue;
		pool = json_object();
		if (!pool || json_array_append_new(pools, pool)) {
			a->nomem = true;
			break;
		}
		build_pool(a, pool, p, stall_after, a->end_time);
	}
	if (a->nomem) {
		json_decref(rep);
		return NULL;
	}
	return rep;
}
