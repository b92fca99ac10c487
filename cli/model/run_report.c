// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * check --run's report (pure): the pools before the command and a snapshot
 * after it -> created, destroyed, freed, stuck. output/run_report_fmt.c
 * prints it and turns it into a check result.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "model/run_report.h"

/* ---- the --run report ----------------------------------------------------- */

static const struct run_key *find_key(const struct run_key *base, size_t n,
				      const struct pool_row *r)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r->addr ? (base[i].addr == r->addr && base[i].gen == r->gen) :
			      (!base[i].addr && base[i].id == r->id))
			return &base[i];
	}
	return NULL;
}

/* when the pool was destroyed, CLOCK_BOOTTIME s; NAN: not known */
static double destroyed_at(const struct pool_row *r, double ts)
{
	if (r->state == ROW_ZOMBIE && isfinite(r->detach_age_s))
		return ts - r->detach_age_s;
	if (r->state == ROW_FREED && isfinite(r->freed_age_s) && isfinite(r->zombie_s))
		return ts - r->freed_age_s - r->zombie_s;
	return NAN;
}

static int run_pool_cmp(const void *a, const void *b)
{
	const struct run_pool *x = a, *y = b;
	int rx = x->stuck ? 0 : x->destroyed ? 1 : 2, ry = y->stuck ? 0 : y->destroyed ? 1 : 2;

	if (rx != ry)
		return rx - ry;
	return x->row.id < y->row.id ? -1 : x->row.id > y->row.id;
}

int run_report_build(struct run_report *rep, const struct run_key *base, size_t nbase,
		     const struct snapshot *fin, __u64 start_ns, __u64 end_ns, double deadline_s)
{
	double ts = fin->ts_ns / 1e9, start = start_ns / 1e9, end = end_ns / 1e9, d;
	const struct run_key *k;
	struct run_pool *p;
	size_t i;

	free(rep->pools);
	rep->pools = NULL;
	rep->n = rep->ncreated = rep->ndestroyed = rep->nfreed = rep->nstuck = 0;
	rep->npreexisting = 0;
	rep->deadline_s = deadline_s;
	rep->ts_ns = fin->ts_ns;
	rep->waited_s = ts > end ? ts - end : 0;
	if (fin->n) {
		rep->pools = calloc(fin->n, sizeof(*rep->pools));
		if (!rep->pools)
			return -ENOMEM;
	}
	for (i = 0; i < fin->n; i++) {
		const struct pool_row *r = &fin->rows[i];
		bool gone = r->state != ROW_LIVE;

		k = find_key(base, nbase, r);
		if (k && k->state != ROW_LIVE) {
			/* a zombie (or freed) before the command: not its doing */
			rep->npreexisting += k->state == ROW_ZOMBIE;
			continue;
		}
		if (k && !gone)
			continue; /* there before, still there: untouched */
		p = &rep->pools[rep->n++];
		p->row = *r;
		p->created = !k;
		p->destroyed = gone;
		d = destroyed_at(r, ts);
		p->destroyed_s = isfinite(d) ? d - start : NAN;
		p->freed_s = r->state == ROW_FREED && isfinite(r->freed_age_s) ?
				     ts - r->freed_age_s - end :
				     NAN;
		if (p->created)
			rep->ncreated++;
		if (!gone)
			continue;
		rep->ndestroyed++;
		/* freed at or before the deadline: in time; anything else is stuck */
		if (isfinite(p->freed_s) && p->freed_s <= deadline_s)
			rep->nfreed++;
		else
			p->stuck = true;
		rep->nstuck += p->stuck;
	}
	if (rep->n)
		qsort(rep->pools, rep->n, sizeof(*rep->pools), run_pool_cmp);
	return 0;
}

bool run_report_settled(const struct run_report *rep)
{
	size_t i;

	for (i = 0; i < rep->n; i++)
		if (rep->pools[i].destroyed && rep->pools[i].row.state != ROW_FREED)
			return false;
	return true;
}

void run_report_free(struct run_report *rep)
{
	size_t i;

	for (i = 0; i < rep->n; i++)
		free(rep->pools[i].holders);
	free(rep->pools);
	rep->pools = NULL;
	rep->n = 0;
}

void run_report_verdicts(struct run_report *rep)
{
	struct run_pool *p;
	struct pv_in in;
	size_t i, h;

	for (i = 0; i < rep->n; i++) {
		p = &rep->pools[i];
		if (!p->stuck)
			continue;
		memset(&in, 0, sizeof(in));
		in.inflight = (double)p->row.inflight;
		in.negative = p->row.inflight < 0;
		in.freed = p->row.state == ROW_FREED;
		in.from_age = in.from = in.to_age = in.to = in.recent = in.steady_s = NAN;
		in.release_per_s = p->row.release_per_s;
		in.scanned = p->holders != NULL;
		p->attributed = p->unattributed = 0;
		for (h = 0; h < p->nholders; h++) {
			if (p->holders[h].pages <= 0)
				continue;
			if (p->holders[h].walked)
				p->attributed += (double)p->holders[h].pages;
			else
				p->unattributed += (double)p->holders[h].pages;
		}
		in.attributed = p->attributed;
		in.unattributed = p->unattributed;
		pool_verdict_decide(&in, &p->verdict);
	}
}
