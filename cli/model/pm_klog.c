// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "model/jtree.h"
#include "model/pm_klog.h"
#include "model/recording.h"

/* ---- values ----------------------------------------------------------------------------- */

struct tree {
	bool nomem;
};

/* text from the log: escaped, so that it is UTF-8 whatever it held */
static json_t *text(const char *s)
{
	char buf[4 * KLOG_TEXT_MAX + 1];

	esc_buf(buf, sizeof(buf), s, strlen(s));
	return json_string(buf);
}

static json_t *text_or_null(const char *s)
{
	return s && *s ? text(s) : json_null();
}

/* a line's time in the report's clock, and how far off that may be; NAN: none */
static double line_unix(const struct klog_line *l, const struct klog_link_opts *o, double *tol)
{
	*tol = NAN;
	if (!isnan(l->t.mono) && !isnan(o->printk_to_unix)) {
		*tol = 2 + o->drift * l->t.mono;
		return l->t.mono + o->printk_to_unix;
	}
	if (!isnan(l->t.wall)) {
		*tol = 2 + (l->t.resolution >= 1 ? 1 : l->t.resolution);
		return klog_wall_unix(&l->t, o->utc_offset_s, o->year);
	}
	return NAN;
}

static json_t *line_obj(struct tree *t, const struct klog_line *l, const struct klog_link_opts *o)
{
	json_t *v = json_object();
	double tol;

	if (!v) {
		t->nomem = true;
		return NULL;
	}
	jt_put(&t->nomem, v, "line", json_integer((json_int_t)l->lineno));
	jt_put(&t->nomem, v, "time", text_or_null(l->stamp));
	jt_put(&t->nomem, v, "unix", jt_num(line_unix(l, o, &tol)));
	jt_put(&t->nomem, v, "printk_s", jt_num(l->t.mono));
	jt_put(&t->nomem, v, "sec", json_integer(l->sec));
	jt_put(&t->nomem, v, "inflight", json_integer(l->inflight));
	jt_put(&t->nomem, v, "format", json_string(klog_fmt_name(l->fmt)));
	jt_put(&t->nomem, v, "text", text(l->text));
	return v;
}

static json_t *pool_obj(struct tree *t, const struct klog_pool *p, const struct klog_link_opts *o)
{
	json_t *v = json_object(), *pts = json_array(), *pt;
	const struct klog_point *x;
	double tol, lu = line_unix(&p->last, o, &tol);
	size_t i;

	if (!v || !pts) {
		json_decref(v);
		json_decref(pts);
		t->nomem = true;
		return NULL;
	}
	jt_put(&t->nomem, v, "id", p->has_id ? json_integer(p->id) : json_null());
	jt_put(&t->nomem, v, "boot", json_integer(p->boot));
	jt_put(&t->nomem, v, "device", text_or_null(p->dev));
	jt_put(&t->nomem, v, "grouped_by", json_string(p->grouped_by));
	jt_put(&t->nomem, v, "destroyed_together", json_boolean(p->together));
	jt_put(&t->nomem, v, "lines", json_integer((json_int_t)p->lines));
	jt_put(&t->nomem, v, "first", line_obj(t, &p->first, o));
	jt_put(&t->nomem, v, "last", line_obj(t, &p->last, o));
	jt_put(&t->nomem, v, "destroyed_unix", jt_num(lu - (double)p->last.sec));
	jt_put(&t->nomem, v, "destroyed_printk_s", jt_num(p->last.t.mono - (double)p->last.sec));
	jt_put(&t->nomem, v, "min_inflight", json_integer(p->min_inflight));
	jt_put(&t->nomem, v, "max_inflight", json_integer(p->max_inflight));
	for (i = 0; i < klog_npoints(p); i++) {
		x = klog_point(p, i);
		pt = json_pack("[II]", (json_int_t)x->sec, (json_int_t)x->inflight);
		if (!pt || json_array_append_new(pts, pt))
			t->nomem = true;
	}
	jt_put(&t->nomem, v, "inflight_by_sec", pts);
	jt_put(&t->nomem, v, "inflight_by_sec_dropped", json_integer((json_int_t)p->pts_dropped));
	jt_put(&t->nomem, v, "ended", json_boolean(p->ended));
	jt_put(&t->nomem, v, "ended_after_s", jt_num(p->ended_after_s));
	jt_put(&t->nomem, v, "rebooted", json_boolean(p->rebooted));
	return v;
}

json_t *pm_klog_pool(const struct klog_pool *p, const struct klog_link_opts *o)
{
	struct tree t = { 0 };
	json_t *v = pool_obj(&t, p, o);

	if (t.nomem) {
		json_decref(v);
		return NULL;
	}
	return v;
}

/* ---- evidence -------------------------------------------------------------------------- */

/* the recorded inflight over [t0, t1]: whether v is among its values; -1 none known */
static int series_has(const json_t *ser, double t0, double t1, int64_t v, double *first,
		      double *last, double *first_t, double *last_t)
{
	double before = NAN, pt, pv;
	const json_t *x;
	bool any = false, hit = false;
	size_t i;

	*first = *last = *first_t = *last_t = NAN;
	json_array_foreach(ser, i, x)
	{
		pt = json_number_value(json_array_get(x, 0));
		pv = json_number_value(json_array_get(x, 1));
		if (!i) {
			*first = pv;
			*first_t = pt;
		}
		*last = pv;
		*last_t = pt;
		if (pt <= t0) {
			before = pv;
			continue;
		}
		if (pt <= t1) {
			any = true;
			hit |= pv == (double)v;
		}
	}
	if (!isnan(before)) {
		any = true;
		hit |= before == (double)v;
	}
	return any ? hit : -1;
}

/* +1 agree, -1 disagree, 0 not known: the recording's inflight at the line */
static int inflight_rel(const json_t *pool, const struct klog_line *l)
{
	const json_t *ser = json_object_get(pool, "inflight_over_time");
	double d = jnum(pool, "destroyed_at", NAN), at, first, last, ft, lt;
	int has;

	if (isnan(d) || !json_array_size(ser))
		return 0;
	at = d + (double)l->sec;
	has = series_has(ser, at - 2, at + 2, l->inflight, &first, &last, &ft, &lt);
	if (has >= 0 && at - 2 >= ft)
		return has ? 1 : -1;
	/* before the recording: pages only come back since the destroy */
	if (at < ft)
		return (double)l->inflight < first ? -1 : 0;
	if (at > lt + 2)
		return (double)l->inflight > last ? -1 : 0;
	return has > 0 ? 1 : 0;
}

struct cand {
	size_t g, p;
	int score, id, time, infl, age;
	double dt;	   /* destroy times apart */
	double zone_shift; /* local stamps a whole zone offset off: their zone is not ours */
};

/* local stamps read in the reader's zone, off by a zone's offset (quarter hours, 14 h at most) */
static double zone_shift(const struct klog_line *l, const struct klog_link_opts *o, double d,
			 double tol)
{
	double k = round(d / 900);

	if (!isnan(l->t.mono) && !isnan(o->printk_to_unix))
		return 0; /* the printk clock, not a wall clock */
	if (l->t.zoned || k == 0 || fabs(k) > 14 * 4 || fabs(d - k * 900) > tol)
		return 0;
	return k * 900;
}

static void evaluate(struct cand *c, const struct klog_pool *g, const json_t *pool,
		     const struct klog_link_opts *o)
{
	double tol, lu = line_unix(&g->last, o, &tol), pd = jnum(pool, "destroyed_at", NAN);
	double age = jnum(pool, "detach_age_s", NAN), pid = jnum(pool, "id", NAN);
	int a, b;

	c->id = c->time = c->infl = c->age = 0;
	c->dt = NAN;
	c->zone_shift = 0;
	if (g->has_id && pid > 0)
		c->id = pid == (double)g->id ? 1 : -1;
	if (!isnan(lu) && !isnan(pd)) {
		double d = lu - (double)g->last.sec - pd;

		c->dt = fabs(d);
		c->time = c->dt <= tol ? 1 : -1;
		/* a log written in another zone: its times tell nothing here */
		if (c->time < 0 && (c->zone_shift = zone_shift(&g->last, o, d, tol)))
			c->time = 0;
	}
	a = inflight_rel(pool, &g->first);
	b = inflight_rel(pool, &g->last);
	c->infl = a < 0 || b < 0 ? -1 : a > 0 || b > 0 ? 1 : 0;
	/* live: warned about within a warning interval, so at most that older now */
	if (o->live && !g->ended && !isnan(age) && !strcmp(jstr(pool, "state", ""), "zombie")) {
		double ahead = age - (double)g->last.sec;

		c->age = ahead >= -2 && ahead <= KLOG_WARN_EVERY * 1.5 + 2 ? 1 : -1;
	}
	c->score = 100 * c->id + 40 * c->time + 30 * c->infl + 10 * c->age;
	if (c->id < 0 || (c->id == 0 && (c->time < 0 || c->infl < 0 || c->age < 0)))
		c->score = -1;
	else if (c->id > 0 && (c->time < 0 || c->infl < 0))
		c->score = 1; /* the id, against the rest: kept, the conflict said */
	else if (c->score <= 0)
		c->score = -1;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->score != y->score)
		return y->score - x->score;
	if (!isnan(x->dt) && !isnan(y->dt) && x->dt != y->dt)
		return x->dt < y->dt ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g ? 1 : (x->p > y->p) - (x->p < y->p);
}

/* ---- the link ---------------------------------------------------------------------------- */

static json_t *pool_ref(const json_t *pool)
{
	const json_t *id = json_object_get(pool, "id");

	if (json_is_number(id) && json_number_value(id) > 0)
		return json_incref((json_t *)id);
	return json_incref(json_object_get(pool, "addr")) ?: json_null();
}

static const char *confidence(const struct cand *c, bool tie)
{
	if (c->id > 0)
		return c->score == 1 ? "low" : c->time > 0 || c->infl > 0 ? "certain" : "high";
	if (tie)
		return "low";
	if (c->time > 0 && c->infl > 0)
		return "high";
	if (c->time > 0 || c->infl > 0)
		return "medium";
	return "low";
}

static json_t *match_obj(struct tree *t, const struct cand *c, const struct cand *all, size_t n,
			 const json_t *pools, bool shared)
{
	json_t *m = json_object(), *by = json_array(), *cands = json_array(), *conf;
	bool tie = false;
	size_t i;

	if (!m || !by || !cands) {
		t->nomem = true;
		json_decref(m);
		json_decref(by);
		json_decref(cands);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (all[i].g != c->g || all[i].score <= 0)
			continue;
		if (all[i].p != c->p && all[i].score == c->score)
			tie = true;
		if (json_array_append_new(cands, pool_ref(json_array_get(pools, all[i].p))))
			t->nomem = true;
	}
	if (c->id > 0)
		json_array_append_new(by, json_string("id"));
	if (c->time > 0)
		json_array_append_new(by, json_string("destroy_time"));
	if (c->infl > 0)
		json_array_append_new(by, json_string("inflight"));
	if (c->age > 0)
		json_array_append_new(by, json_string("age"));
	jt_put(&t->nomem, m, "by", by);
	jt_put(&t->nomem, m, "confidence", json_string(confidence(c, tie || shared)));
	jt_put(&t->nomem, m, "ambiguous", json_boolean(tie));
	jt_put(&t->nomem, m, "shared", json_boolean(shared));
	jt_put(&t->nomem, m, "candidates", cands);
	jt_put(&t->nomem, m, "destroy_times_apart_s", jt_num(c->dt));
	jt_put(&t->nomem, m, "zone_shift_s",
	       c->zone_shift ? json_real(c->zone_shift) : json_null());
	conf = json_array();
	if (conf && c->id > 0 && c->time < 0)
		json_array_append_new(conf, json_string("destroy_time"));
	if (conf && c->id > 0 && c->infl < 0)
		json_array_append_new(conf, json_string("inflight"));
	jt_put(&t->nomem, m, "conflicts", conf ?: json_null());
	return m;
}

/* the log's pool as a pool of the report's, for what only the log knows of */
static json_t *log_only_pool(struct tree *t, const struct klog_pool *g, json_t *kl)
{
	json_t *v = json_object();

	if (!v) {
		t->nomem = true;
		json_decref(kl);
		return NULL;
	}
	jt_put(&t->nomem, v, "id", g->has_id ? json_integer(g->id) : json_null());
	jt_put(&t->nomem, v, "device", text_or_null(g->dev));
	jt_put(&t->nomem, v, "from", json_string("kernel_log"));
	jt_put(&t->nomem, v, "state", json_null());
	jt_put(&t->nomem, v, "inflight", json_integer(g->last.inflight));
	jt_put(&t->nomem, v, "inflight_bytes", json_null());
	jt_put(&t->nomem, v, "stalled", json_true());
	jt_put(&t->nomem, v, "detach_age_s", json_real((double)g->last.sec));
	jt_put(&t->nomem, v, "destroyed_at", json_incref(json_object_get(kl, "destroyed_unix")));
	jt_put(&t->nomem, v, "kernel_log", kl);
	return v;
}

static json_t *summary(struct tree *t, const struct klog *k, const struct klog_link_opts *o)
{
	json_t *s = json_object(), *f = json_object(), *u;
	size_t i;

	if (!s || !f) {
		json_decref(s);
		json_decref(f);
		t->nomem = true;
		return NULL;
	}
	jt_put(&t->nomem, s, "source", text(o->source ? o->source : "?"));
	jt_put(&t->nomem, s, "lines", json_integer((json_int_t)k->lines));
	jt_put(&t->nomem, s, "stall_lines", json_integer((json_int_t)k->stall_lines));
	jt_put(&t->nomem, s, "unread_lines", json_integer((json_int_t)k->unread_lines));
	u = k->unread_lines ? json_pack("{s:I,s:o}", "line", (json_int_t)k->unread_first, "text",
					text(k->unread_text)) :
			      json_null();
	jt_put(&t->nomem, s, "unread_first", u);
	for (i = 0; i < KF_MAX; i++)
		if (k->by_fmt[i])
			jt_put(&t->nomem, f, klog_fmt_name(i),
			       json_integer((json_int_t)k->by_fmt[i]));
	jt_put(&t->nomem, s, "formats", f);
	jt_put(&t->nomem, s, "boots", json_integer(k->boots));
	jt_put(&t->nomem, s, "kernel", text_or_null(k->kernel));
	jt_put(&t->nomem, s, "negative_warnings", json_integer((json_int_t)k->negative_warnings));
	jt_put(&t->nomem, s, "negative_first",
	       k->negative_warnings ? json_integer(k->negative_first) : json_null());
	jt_put(&t->nomem, s, "pools", json_integer((json_int_t)k->n));
	jt_put(&t->nomem, s, "lines_not_grouped", json_integer((json_int_t)k->lines_not_grouped));
	jt_put(&t->nomem, s, "lines_lost", json_integer((json_int_t)k->lost_lines));
	jt_put(&t->nomem, s, "printk_to_unix_s", jt_num(o->printk_to_unix));
	jt_put(&t->nomem, s, "local_utc_offset_s", jt_num(o->utc_offset_s));
	jt_put(&t->nomem, s, "assumed_year", o->year ? json_integer(o->year) : json_null());
	jt_put(&t->nomem, s, "live", json_boolean(o->live));
	jt_put(&t->nomem, s, "alone", json_boolean(o->alone));
	return s;
}

int pm_add_kernel_log(json_t *rep, const struct klog *k, const struct klog_link_opts *o)
{
	json_t *pools = json_object_get(rep, "pools"), *sum, *gone, *kl, *pool;
	size_t np = json_array_size(pools), n = 0, cap = 0, i, j, *taken, *by_g;
	struct tree t = { 0 };
	struct cand *c = NULL, x;

	if (!json_is_array(pools))
		return -EINVAL;
	sum = summary(&t, k, o);
	gone = json_array();
	jt_put(&t.nomem, rep, "kernel_log", sum);
	if (sum)
		jt_put(&t.nomem, sum, "gone", gone);
	taken = calloc(np + 1, sizeof(*taken));
	by_g = calloc(k->n + 1, sizeof(*by_g));
	for (i = 0; taken && by_g && !t.nomem && i < k->n; i++)
		for (j = 0; j < np; j++) {
			struct cand *slot;

			x.g = i;
			x.p = j;
			evaluate(&x, &k->pools[i], json_array_get(pools, j), o);
			if (x.score <= 0)
				continue;
			slot = VEC_PUSH(c, n, cap);
			if (!slot) {
				t.nomem = true;
				break;
			}
			*slot = x;
		}
	if (!taken || !by_g || t.nomem) {
		free(taken);
		free(by_g);
		free(c);
		return -ENOMEM;
	}
	if (n)
		qsort(c, n, sizeof(*c), cand_cmp);
	/* one log pool a pool, the best first; by_g: the candidate taken + 1 */
	for (i = 0; i < n; i++)
		if (!by_g[c[i].g] && !taken[c[i].p]) {
			by_g[c[i].g] = i + 1;
			taken[c[i].p] = 1;
		}
	for (i = 0; i < k->n; i++) {
		const struct klog_pool *g = &k->pools[i];
		const struct cand *best = NULL;
		bool shared = false;

		kl = pool_obj(&t, g, o);
		if (!kl)
			break;
		if (by_g[i]) {
			best = &c[by_g[i] - 1];
		} else {
			for (j = 0; j < n && !best; j++)
				if (c[j].g == i)
					best = &c[j];
			shared = best != NULL;
		}
		if (best) {
			pool = json_array_get(pools, best->p);
			jt_put(&t.nomem, kl, "match", match_obj(&t, best, c, n, pools, shared));
			/* two log pools for one: the later one stays beside it */
			if (json_object_get(pool, "kernel_log")) {
				json_t *also = json_object_get(pool, "kernel_log_also");

				if (!also) {
					also = json_array();
					jt_put(&t.nomem, pool, "kernel_log_also", also);
				}
				if (json_array_append_new(also, kl))
					t.nomem = true;
			} else {
				jt_put(&t.nomem, pool, "kernel_log", kl);
			}
		} else if (o->live) {
			/* no pool of the host's fits: its pages came back since */
			jt_put(&t.nomem, kl, "match", json_null());
			if (json_array_append_new(gone, kl))
				t.nomem = true;
		} else {
			jt_put(&t.nomem, kl, "match", json_null());
			pool = log_only_pool(&t, g, kl);
			if (!pool || json_array_append_new(pools, pool))
				t.nomem = true;
		}
	}
	free(taken);
	free(by_g);
	free(c);
	return t.nomem ? -ENOMEM : 0;
}
