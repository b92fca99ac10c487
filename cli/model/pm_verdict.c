// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/jtree.h"
#include "model/pm_verdict.h"
#include "model/pool_verdict.h"
#include "model/recording.h"

struct pt {
	double age, v;
};

struct pts {
	struct pt *v;
	size_t n, cap;
	bool nomem;
};

static void add(struct pts *s, double age, double v)
{
	struct pt *p;

	if (!isfinite(age) || !isfinite(v))
		return;
	p = VEC_PUSH(s->v, s->n, s->cap);
	if (!p) {
		s->nomem = true;
		return;
	}
	*p = (struct pt){ age, v };
}

static int pt_cmp(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	return x->age < y->age ? -1 : x->age > y->age;
}

/* inflight by age since the destroy, from each source the pool has */
static void gather(struct pts *s, const json_t *pool, const json_t *kl, bool log_only)
{
	double d = jnum(pool, "destroyed_at", NAN), t;
	const json_t *x;
	size_t i;

	if (json_is_object(kl)) {
		json_array_foreach(json_object_get(kl, "inflight_by_sec"), i, x)
			add(s, json_number_value(json_array_get(x, 0)),
			    json_number_value(json_array_get(x, 1)));
		x = json_object_get(kl, "last");
		add(s, jnum(x, "sec", NAN), jnum(x, "inflight", NAN));
	}
	if (log_only || isnan(d))
		return;
	json_array_foreach(json_object_get(pool, "timeline"), i,
			   x) if (!strcmp(jstr(x, "event", ""), "destroy") &&
				  !json_is_true(json_object_get(x, "derived")))
		add(s, 0, jnum(x, "inflight", NAN));
	json_array_foreach(json_object_get(pool, "inflight_over_time"), i, x)
	{
		t = json_number_value(json_array_get(x, 0));
		if (t >= d - 0.5)
			add(s, fmax(t - d, 0), json_number_value(json_array_get(x, 1)));
	}
	if (!strcmp(jstr(pool, "state", ""), "zombie"))
		add(s, jnum(pool, "detach_age_s", NAN), jnum(pool, "inflight", NAN));
}

/* the trend: the latest sighting, and inflight PV_WINDOW_S before it (or the first) */
static void trend(struct pts *s, struct pv_in *in)
{
	const struct pt *to;
	double start;
	size_t i;

	in->from_age = in->from = in->to_age = in->to = in->recent = in->steady_s = NAN;
	if (s->n < 2)
		return;
	qsort(s->v, s->n, sizeof(*s->v), pt_cmp);
	to = &s->v[s->n - 1];
	in->to_age = to->age;
	in->to = to->v;
	start = to->age - PV_WINDOW_S;
	in->from_age = s->v[0].age;
	in->from = s->v[0].v;
	for (i = 0; i < s->n && s->v[i].age <= start; i++) {
		in->from_age = start;
		in->from = s->v[i].v;
	}
	in->recent = s->v[0].v;
	for (i = 0; i < s->n && s->v[i].age <= to->age - PV_RECENT_S; i++)
		in->recent = s->v[i].v;
	/* since when it has been what it is now: after the last point that was not */
	in->steady_s = to->age - s->v[0].age;
	for (i = s->n; i-- > 0;)
		if (s->v[i].v != to->v) {
			in->steady_s = to->age - s->v[i + 1].age;
			break;
		}
}

struct out {
	bool nomem;
};

/* the walkable holders: what the holder scan named, unattributed apart */
static json_t *holders(struct out *o, const json_t *h, double *attributed)
{
	json_t *v = json_array(), *e;
	const json_t *x;
	size_t i;

	*attributed = 0;
	if (!v) {
		o->nomem = true;
		return json_null();
	}
	json_array_foreach(json_object_get(h, "holders"), i, x)
	{
		if (!strcmp(jstr(x, "kind", ""), "unattributed") || jnum(x, "pages", 0) <= 0)
			continue;
		*attributed += jnum(x, "pages", 0);
		e = json_object();
		if (!e || json_array_append_new(v, e)) {
			o->nomem = true;
			continue;
		}
		jt_put(&o->nomem, e, "holder", jt_copy(json_object_get(x, "holder")));
		jt_put(&o->nomem, e, "kind", jt_copy(json_object_get(x, "kind")));
		jt_put(&o->nomem, e, "pages", jt_copy(json_object_get(x, "pages")));
		jt_put(&o->nomem, e, "remedy", jt_copy(json_object_get(x, "remedy")));
	}
	return v;
}

static void one(struct out *o, const json_t *rep, json_t *pool, bool gone)
{
	const json_t *kl = gone ? pool : json_object_get(pool, "kernel_log");
	const json_t *h = json_object_get(pool, "holders");
	const char *freed_by = NULL;
	bool log_only = gone || !strcmp(jstr(pool, "from", ""), "kernel_log");
	double psize = jnum(json_object_get(rep, "kernel"), "page_size", 4096), attributed = 0;
	struct pts s = { 0 };
	struct pv_in in = { 0 };
	struct pool_verdict v;
	json_t *vd = json_object(), *basis = json_array(), *hs = NULL;

	if (!vd || !basis) {
		json_decref(vd);
		json_decref(basis);
		o->nomem = true;
		return;
	}
	in.inflight = gone ? jnum(json_object_get(kl, "last"), "inflight", NAN) :
			     jnum(pool, "inflight", NAN);
	in.negative = in.inflight < 0 || jnum(kl, "min_inflight", 0) < 0;
	if (!strcmp(jstr(pool, "state", ""), "freed"))
		freed_by = "recording";
	else if (gone)
		freed_by = "host";
	else if (log_only && json_is_true(json_object_get(kl, "ended")) &&
		 !json_is_true(json_object_get(kl, "rebooted")))
		freed_by = "log";
	in.freed = freed_by != NULL;
	gather(&s, pool, kl, log_only);
	trend(&s, &in);
	free(s.v);
	o->nomem |= s.nomem;
	in.release_per_s = NAN;
	in.scanned = json_is_object(h);
	if (in.scanned) {
		hs = holders(o, h, &attributed);
		in.attributed = attributed;
		in.unattributed = jnum(h, "unattributed", NAN);
	}
	pool_verdict_decide(&in, &v);

	if (!log_only)
		json_array_append_new(
			basis,
			json_string(!strcmp(jstr(rep, "source", ""), "live")   ? "live" :
				    !strcmp(jstr(rep, "source", ""), "vmcore") ? "vmcore" :
										 "recording"));
	if (json_is_object(kl))
		json_array_append_new(basis, json_string("kernel_log"));
	if (in.scanned)
		json_array_append_new(basis, json_string("holder_scan"));
	jt_put(&o->nomem, vd, "verdict", json_string(pool_verdict_name(v.code)));
	jt_put(&o->nomem, vd, "basis", basis);
	jt_put(&o->nomem, vd, "inflight", jt_num(in.inflight));
	if (json_is_number(json_object_get(pool, "inflight_bytes"))) {
		jt_put(&o->nomem, vd, "bytes", jt_copy(json_object_get(pool, "inflight_bytes")));
		jt_put(&o->nomem, vd, "bytes_estimated", json_false());
	} else {
		jt_put(&o->nomem, vd, "bytes", jt_num(in.inflight > 0 ? in.inflight * psize : NAN));
		jt_put(&o->nomem, vd, "bytes_estimated", json_true());
	}
	jt_put(&o->nomem, vd, "trend",
	       isnan(in.to_age) ?
		       json_null() :
		       json_pack("{s:o,s:o,s:o,s:o,s:o}", "from_age_s", jt_num(in.from_age), "from",
				 jt_num(in.from), "to_age_s", jt_num(in.to_age), "to",
				 jt_num(in.to), "steady_s", jt_num(in.steady_s)));
	jt_put(&o->nomem, vd, "rate_pages_per_s", jt_num(v.rate_per_s));
	jt_put(&o->nomem, vd, "eta_s", jt_num(v.eta_s));
	jt_put(&o->nomem, vd, "holders", hs ?: json_null());
	jt_put(&o->nomem, vd, "unattributed", jt_num(in.scanned ? in.unattributed : NAN));
	jt_put(&o->nomem, vd, "driver", jt_copy(json_object_get(pool, "driver")));
	jt_put(&o->nomem, vd, "hold_stacks", jt_copy(json_object_get(pool, "hold_stacks")));
	jt_put(&o->nomem, vd, "stacks_recorded",
	       log_only || !json_is_number(json_object_get(rep, "stack_every")) ?
		       json_null() :
		       json_boolean(jnum(rep, "stack_every", 0) > 0));
	jt_put(&o->nomem, vd, "freed_by", freed_by ? json_string(freed_by) : json_null());
	jt_put(&o->nomem, vd, "rebooted",
	       json_boolean(json_is_true(json_object_get(kl, "rebooted"))));
	jt_put(&o->nomem, pool, "verdict", vd);
}

int pm_add_verdicts(json_t *rep)
{
	json_t *pool;
	struct out o = { 0 };
	size_t i;

	json_array_foreach(json_object_get(rep, "pools"), i, pool)
	{
		/* a live pool with pages out (a dump's report has them): its ring, no verdict */
		if (!strcmp(jstr(rep, "source", ""), "vmcore") &&
		    !strcmp(jstr(pool, "state", ""), "live"))
			continue;
		one(&o, rep, pool, false);
	}
	json_array_foreach(json_object_get(json_object_get(rep, "kernel_log"), "gone"), i, pool)
		one(&o, rep, pool, true);
	return o.nomem ? -ENOMEM : 0;
}
