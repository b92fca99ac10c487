// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch check's rules, evaluated: ruleset + snapshot -> results (pure).
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "lib/vec.h"
#include "model/counter_names.h"
#include "model/rules_eval.h"

static bool glob_match(const char *pat, const char *s)
{
	return s && *s && !fnmatch(pat, s, 0);
}

static bool rule_matches(const struct rule *r, const struct pool_row *row)
{
	const struct rule_match *m = &r->match;

	if (row->state == ROW_FREED)
		return false;
	if (m->device && !glob_match(m->device, row->device) &&
	    !glob_match(m->device, row->ifname) && !glob_match(m->device, row->devname))
		return false;
	if (m->driver && !glob_match(m->driver, row->driver))
		return false;
	if (m->pool && strcmp(m->pool, row->ident))
		return false;
	if (m->has_ifindex && row->ifindex != (__s32)m->ifindex)
		return false;
	if (m->netns_ino && row->netns_ino != m->netns_ino)
		return false;
	if (m->state >= 0 && row->state != (enum row_state)m->state)
		return false;
	return true;
}

static void fmt_value(char *buf, size_t len, enum vtype t, double v, bool at_least)
{
	char tmp[24];

	switch (t) {
	case VT_BYTES:
		fmt_bytes(tmp, sizeof(tmp), v);
		break;
	case VT_DURATION:
		fmt_age(tmp, sizeof(tmp), v);
		break;
	default:
		snprintf(tmp, sizeof(tmp), "%.0f", v);
	}
	snprintf(buf, len, "%s%s", at_least ? ">" : "", tmp);
}

static const char *unit_word(enum limit_kind k, double v)
{
	switch (k) {
	case LIM_MAX_INFLIGHT:
		return v == 1 ? " page" : " pages";
	case LIM_MAX_ITEM_SLOW_FAILED:
		return v == 1 ? " failure" : " failures";
	default:
		return "";
	}
}

/* what a pool's value is, before it: "oldest page 12.0s" */
static const char *value_prefix(enum limit_kind k)
{
	switch (k) {
	case LIM_MAX_OLDEST_AGE:
		return "oldest page ";
	case LIM_MAX_ZOMBIE_AGE:
		return "zombie for ";
	default:
		return "";
	}
}

static const char *pools_word(size_t n)
{
	return n == 1 ? "pool" : "pools";
}

/* a pool's value for a per-pool limit; false: not applicable or unknown */
static bool pool_value(enum limit_kind k, const struct pool_row *r, double *v, bool *at_least,
		       bool *unknown)
{
	*at_least = false;
	*unknown = false;
	switch (k) {
	case LIM_MAX_INFLIGHT:
		*v = r->inflight > 0 ? r->inflight : 0;
		return true;
	case LIM_MAX_INFLIGHT_BYTES:
		*v = r->inflight_bytes;
		return true;
	case LIM_MAX_OLDEST_AGE:
		if (isnan(r->oldest_age_s))
			return false; /* nothing inflight */
		*v = r->oldest_age_s;
		*at_least = r->oldest_at_least;
		return true;
	case LIM_MAX_ZOMBIE_AGE:
		if (r->state != ROW_ZOMBIE)
			return false;
		*v = r->detach_age_s;
		*unknown = isnan(r->detach_age_s);
		return true;
	case LIM_MAX_ITEM_SLOW_FAILED:
		*v = r->item_slow_failed;
		*unknown = !r->item_stats;
		return true;
	default:
		return false;
	}
}

static int add_finding(struct check_result *res, const struct pool_row *r, double v, bool at_least)
{
	struct finding *f = VEC_PUSH(res->findings, res->nfindings, res->capfindings);

	if (!f)
		return -ENOMEM;
	f->pool_id = r->id;
	snprintf(f->pool, sizeof(f->pool), "%s", r->ident);
	snprintf(f->device, sizeof(f->device), "%s", r->device[0] ? r->device : "-");
	f->value = v;
	f->at_least = at_least;
	return 0;
}

static void pool_name(char *buf, size_t len, const char *ident, const char *device)
{
	snprintf(buf, len, "pool %s (%s)", ident, device && *device ? device : "-");
}

/* one line per finding, and the first few in the summary */
static int describe_findings(struct check_result *res, enum limit_kind k, enum vtype t)
{
	char val[32], pn[80];
	size_t i, len = 0;
	FILE *f;

	f = open_memstream(&res->details, &len);
	if (!f)
		return -ENOMEM;
	for (i = 0; i < res->nfindings; i++) {
		const struct finding *x = &res->findings[i];

		fmt_value(val, sizeof(val), t, x->value, x->at_least);
		pool_name(pn, sizeof(pn), x->pool, x->device);
		fprintf(f, "%s: %s%s%s\n", pn, value_prefix(k), val, unit_word(k, x->value));
	}
	fclose(f);
	return 0;
}

static int eval_pool_limit(const struct rule *rule, enum limit_kind k, const struct snapshot *s,
			   struct check_result *res)
{
	const struct keydef *d = rules_limit_def(k);
	double limit = rule->limit[k], v, worst = NAN;
	bool at_least, unknown, worst_al = false;
	const struct pool_row *worst_row = NULL;
	size_t i, nunknown = 0, napplicable = 0;
	char lim[32], val[32], pn[80];
	const char *first_unknown = "";

	for (i = 0; i < s->n; i++) {
		const struct pool_row *r = &s->rows[i];

		if (!rule_matches(rule, r))
			continue;
		res->npools++;
		if (!pool_value(k, r, &v, &at_least, &unknown))
			continue;
		napplicable++;
		if (unknown) {
			if (!nunknown++)
				first_unknown = r->ident;
			continue;
		}
		if (isnan(worst) || v > worst) {
			worst = v;
			worst_al = at_least;
			worst_row = r;
		}
		if (v > limit && add_finding(res, r, v, at_least))
			return -ENOMEM;
	}
	fmt_value(lim, sizeof(lim), d->t, limit, false);
	if (res->nfindings) {
		res->v = VERDICT_FAIL;
		if (describe_findings(res, k, d->t))
			return -ENOMEM;
		fmt_value(val, sizeof(val), d->t, res->findings[0].value,
			  res->findings[0].at_least);
		pool_name(pn, sizeof(pn), res->findings[0].pool, res->findings[0].device);
		if (res->nfindings == 1)
			snprintf(res->summary, sizeof(res->summary), "%s: %s%s%s > %s", pn,
				 value_prefix(k), val, unit_word(k, res->findings[0].value), lim);
		else
			snprintf(res->summary, sizeof(res->summary),
				 "%zu of %zu %s over %s, "
				 "first %s: %s%s%s",
				 res->nfindings, res->npools, pools_word(res->npools), lim, pn,
				 value_prefix(k), val, unit_word(k, res->findings[0].value));
		if (nunknown)
			snprintf(res->summary + strlen(res->summary),
				 sizeof(res->summary) - strlen(res->summary),
				 "; %zu more could not be checked", nunknown);
		return 0;
	}
	if (nunknown) {
		res->v = VERDICT_ERROR;
		if (k == LIM_MAX_ITEM_SLOW_FAILED)
			snprintf(res->summary, sizeof(res->summary),
				 "could not check %zu of %zu "
				 "%s (first: pool %s): item stats not available on this kernel "
				 "(it does not report page-pool item stats)",
				 nunknown, res->npools, pools_word(res->npools), first_unknown);
		else
			snprintf(res->summary, sizeof(res->summary),
				 "could not check %zu of %zu "
				 "%s (first: pool %s): %s not known",
				 nunknown, res->npools, pools_word(res->npools), first_unknown,
				 k == LIM_MAX_ZOMBIE_AGE ? "detach time" : "value");
		return 0;
	}
	res->v = VERDICT_PASS;
	if (!res->npools) {
		snprintf(res->summary, sizeof(res->summary), "no matching pools");
		return 0;
	}
	if (!worst_row) {
		snprintf(res->summary, sizeof(res->summary), "%zu %s, %s", res->npools,
			 pools_word(res->npools),
			 k == LIM_MAX_ZOMBIE_AGE ? "no zombies" :
			 k == LIM_MAX_OLDEST_AGE ? "nothing inflight" :
						   "nothing to check");
		return 0;
	}
	fmt_value(val, sizeof(val), d->t, worst, worst_al);
	pool_name(pn, sizeof(pn), worst_row->ident, worst_row->device);
	if (k == LIM_MAX_ZOMBIE_AGE)
		snprintf(res->summary, sizeof(res->summary), "%zu %s, longest %s, %s", napplicable,
			 napplicable == 1 ? "zombie" : "zombies", val, pn);
	else
		snprintf(res->summary, sizeof(res->summary), "%zu %s, highest %s%s, %s",
			 res->npools, pools_word(res->npools), val, unit_word(k, worst), pn);
	return 0;
}

static int eval_losses(const struct rule *rule, const struct snapshot *s, struct check_result *res)
{
	__u64 total = snapshot_losses(s);
	size_t i, off, first = 1;
	const char *name;
	int idx;

	res->v = total > rule->limit[LIM_MAX_LOSSES] ? VERDICT_FAIL : VERDICT_PASS;
	off = snprintf(res->summary, sizeof(res->summary), "%llu lost", (unsigned long long)total);
	for (i = 0; (name = loss_counter(i, &idx)); i++) {
		if (!s->counters[idx] || off >= sizeof(res->summary))
			continue;
		off += snprintf(res->summary + off, sizeof(res->summary) - off, "%s%s=%llu",
				first ? " (" : ", ", name, (unsigned long long)s->counters[idx]);
		first = 0;
	}
	if (!first && off < sizeof(res->summary))
		off += snprintf(res->summary + off, sizeof(res->summary) - off, ")");
	if (res->v == VERDICT_FAIL && off < sizeof(res->summary))
		snprintf(res->summary + off, sizeof(res->summary) - off, " > %.0f%s",
			 rule->limit[LIM_MAX_LOSSES],
			 s->counters[PPW_CNT_LEDGER_FULL] ? "; raise --max-pages" :
			 s->counters[PPW_CNT_POOLS_FULL]  ? "; raise --max-pools" :
							    "");
	return 0;
}

static int eval_min_pools(const struct rule *rule, const struct snapshot *s,
			  struct check_result *res)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		res->npools += rule_matches(rule, &s->rows[i]);
	res->v = res->npools >= rule->limit[LIM_MIN_POOLS] ? VERDICT_PASS : VERDICT_FAIL;
	snprintf(res->summary, sizeof(res->summary), "%zu matching %s%s", res->npools,
		 pools_word(res->npools), res->v == VERDICT_FAIL ? ", fewer than required" : "");
	return 0;
}

int rules_eval(const struct ruleset *rs, const struct snapshot *s, struct check_report *rep)
{
	struct check_result *res;
	char lim[32];
	size_t i;
	int k, err;

	for (i = 0; i < rs->n; i++) {
		const struct rule *rule = &rs->rules[i];

		for (k = 0; k < LIM_NR; k++) {
			const struct keydef *d = rules_limit_def(k);

			if (!rule->has[k])
				continue;
			res = report_add(rep);
			if (!res)
				return -ENOMEM;
			snprintf(res->name, sizeof(res->name), "%s", rule->name);
			fmt_value(lim, sizeof(lim), d->t, rule->limit[k], false);
			snprintf(res->what, sizeof(res->what), "%s %s %s", d->key,
				 k == LIM_MIN_POOLS ? ">=" : "<=", lim);
			res->key = d->key;
			res->limit = rule->limit[k];
			switch (k) {
			case LIM_MAX_LOSSES:
				err = eval_losses(rule, s, res);
				break;
			case LIM_MIN_POOLS:
				err = eval_min_pools(rule, s, res);
				break;
			default:
				err = eval_pool_limit(rule, k, s, res);
			}
			if (err)
				return err;
		}
	}
	return 0;
}
