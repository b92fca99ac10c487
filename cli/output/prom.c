// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prometheus text 0.0.4 and OpenMetrics 1.0.0 rendering of a snapshot.
 * Both formats share the sample lines; they differ in the metadata: in
 * OpenMetrics a counter's family is named without '_total' and an info
 * family without '_info', units get a '# UNIT' line, and the exposition
 * ends with '# EOF'. A family's HELP and TYPE are printed with its first
 * sample, so families without samples (item stats on kernels that have
 * none) are left out entirely.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "model/counter_names.h"
#include "output/pool_table.h"
#include "output/prom.h"

#include "output/prom_families.h"

/* the family table (output/prom_families.c), by the name the renderer has always used */
static const struct family *const fams = prom_fams;

/* ---- rendering ---------------------------------------------------------------------- */

struct out {
	FILE *f;
	enum prom_format fmt;
	int cur; /* family whose metadata is out; -1: none */
	bool done[F_NR];
};

/* a HELP text: backslash and newline escaped (both formats) */
static void put_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family_begin(struct out *o, int fam)
{
	const struct family *F = &fams[fam];
	size_t len = strlen(F->name);
	const char *type;

	if (o->cur == fam)
		return;
	o->cur = fam;
	if (o->done[fam])
		return; /* never: each family is rendered in one go */
	o->done[fam] = true;
	if (o->fmt == PROM_OPENMETRICS) {
		/* family names drop the sample suffix */
		if (F->type == MT_COUNTER && len > 6 && !strcmp(F->name + len - 6, "_total"))
			len -= 6;
		else if (F->type == MT_INFO && len > 5 && !strcmp(F->name + len - 5, "_info"))
			len -= 5;
		type = F->type == MT_COUNTER ? "counter" : F->type == MT_INFO ? "info" : "gauge";
	} else {
		type = F->type == MT_COUNTER ? "counter" : "gauge";
	}
	fprintf(o->f, "# HELP %.*s ", (int)len, F->name);
	put_help(o->f, F->help);
	fprintf(o->f, "\n# TYPE %.*s %s\n", (int)len, F->name, type);
	if (o->fmt == PROM_OPENMETRICS && F->unit)
		fprintf(o->f, "# UNIT %.*s %s\n", (int)len, F->name, F->unit);
}

/*
 * A label value: untrusted names through lib/escape.h (a label value must
 * be UTF-8, or Prometheus rejects the whole scrape), then the format's
 * quoting of backslash and double quote (no newline is left to quote).
 */
static void put_label_value(FILE *f, const char *s)
{
	esc_put(f, s, strlen(s), "\"\\");
}

static void put_value(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else if (fabs(v) >= 1e6)
		fprintf(f, "%.3f", v);
	else
		fprintf(f, "%.9g", v);
}

/*
 * One sample: labels is the pre-rendered pool label set (or NULL), then
 * up to one extra label name=value.
 */
static void sample(struct out *o, int fam, const char *labels, const char *xname, const char *xval,
		   double v)
{
	family_begin(o, fam);
	fputs(fams[fam].name, o->f);
	if ((labels && *labels) || xname) {
		fputc('{', o->f);
		if (labels && *labels)
			fputs(labels, o->f);
		if (xname) {
			fprintf(o->f, "%s%s=\"", labels && *labels ? "," : "", xname);
			put_label_value(o->f, xval);
			fputc('"', o->f);
		}
		fputc('}', o->f);
	}
	fputc(' ', o->f);
	put_value(o->f, v);
	fputc('\n', o->f);
}

static char *pool_labels(const struct pool_row *r)
{
	char *buf = NULL, num[24];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "pool_id=\"%s\",device=\"", r->ident);
	put_label_value(f, r->device);
	fputs("\",ifindex=\"", f);
	if (r->ifindex > 0)
		fprintf(f, "%d", r->ifindex);
	fputs("\",netns=\"", f);
	if (r->netns_ino)
		fprintf(f, "%u", r->netns_ino);
	fputs("\",napi_id=\"", f);
	if (r->napi_id) {
		snprintf(num, sizeof(num), "%u", r->napi_id);
		fputs(num, f);
	}
	fputs("\",driver=\"", f);
	put_label_value(f, r->driver);
	fputc('"', f);
	fclose(f);
	return buf;
}

/* the value of a per-pool family for one pool; false: this pool has none */
static bool pool_value(int fam, const struct pool_row *r, const struct prom_total *t, double *v)
{
	switch (fam) {
	case F_INFLIGHT_PAGES:
		*v = r->inflight > 0 ? r->inflight : 0;
		return true;
	case F_INFLIGHT_BYTES:
		*v = r->inflight_bytes;
		return true;
	case F_HELD:
		*v = t ? t->hold : 0;
		return t != NULL;
	case F_RELEASED:
		*v = t ? t->release : 0;
		return t != NULL;
	case F_ZOMBIE:
		*v = r->state == ROW_ZOMBIE;
		return true;
	case F_DETACH_AGE:
		*v = r->detach_age_s;
		return r->state == ROW_ZOMBIE && isfinite(r->detach_age_s);
	case F_OLDEST_AGE:
	case F_OLDEST_LOWER:
		*v = fam == F_OLDEST_AGE ? r->oldest_age_s : r->oldest_at_least;
		return isfinite(r->oldest_age_s);
	case F_LEDGER:
		*v = r->ledger_pages;
		return r->has_record && r->ledger_pages >= 0;
	case F_BEFORE_START:
		*v = r->before_start;
		return r->has_record && r->before_start >= 0;
	case F_UNTRACKED:
		*v = r->untracked > 0 ? r->untracked : 0;
		return r->has_record && r->untracked >= 0;
	case F_PHANTOMS:
		*v = r->phantoms;
		return r->has_record && r->phantoms >= 0;
	case F_RETRIES:
		*v = r->retries;
		return r->has_record;
	case F_DMA_HAZARD:
		*v = r->dma == DMA_HAZARD;
		return r->dma != DMA_UNKNOWN;
	case F_DMA_STILL_MAPPED:
		*v = r->dma_still_mapped;
		return r->dma != DMA_UNKNOWN && r->dma_still_mapped >= 0;
	case F_DMA_UNMAPPED:
		*v = r->dma_unmapped_at_destroy;
		return r->dma != DMA_UNKNOWN && r->dma_unmapped_at_destroy >= 0;
	case F_ITEM_FAST_EMPTY:
		*v = r->item_fast_empty;
		return r->item_stats;
	case F_ITEM_SLOW_FAILED:
		*v = r->item_slow_failed;
		return r->item_stats;
	case F_DMA_INDEX_FAILED:
		*v = r->dma_index_failed;
		return r->dma_index_stats;
	case F_DMA_MAP_FAILED:
		*v = r->dma_map_failed;
		return r->dma_map_stats;
	case F_ITEM_BLOCKS_ALLOC:
		*v = r->blocks_dyn_alloc;
		return r->item_blocks;
	case F_ITEM_BLOCKS_FREE:
		*v = r->blocks_dyn_free;
		return r->item_blocks;
	case F_ITEM_BLOCKS_SPARSE:
		*v = r->occ.sparse;
		return r->occ_known;
	case F_RECYCLING_RATIO:
		*v = r->recycling_pct / 100;
		return r->stats.source != PPS_NONE && isfinite(r->recycling_pct);
	}
	return false;
}

/* the pool's allocation or recycling counters, one sample per kind (pp_alloc_key()'s suffix) */
static void stats_samples(struct out *o, int fam, const char *labels, const struct pool_row *r)
{
	const struct pp_stats *st = &r->stats;
	int i, n = fam == F_ALLOC ? PPW_ALLOC_MAX : PPW_RECYCLE_MAX;
	const char *key;

	if (st->source == PPS_NONE || (fam == F_RECYCLE && !st->recycle_known))
		return;
	for (i = 0; i < n; i++) {
		key = fam == F_ALLOC ? pp_alloc_key(i) + 6 : pp_recycle_key(i) + 8;
		sample(o, fam, labels, "kind", key, fam == F_ALLOC ? st->alloc[i] : st->recycle[i]);
	}
}

/* the pools with series of their own: how many */
static size_t render_pools(struct out *o, const struct snapshot *s, const struct prom_totals *t,
			   const struct prom_self *self)
{
	const struct pool_row **rows;
	bool *shown = NULL;
	char **labels;
	size_t i, n = 0;
	int fam;
	double v;

	rows = calloc(s->n ? s->n : 1, sizeof(*rows));
	labels = calloc(s->n ? s->n : 1, sizeof(*labels));
	if (!rows || !labels)
		goto out;
	if (self && self->per_device) {
		shown = calloc(s->n ? s->n : 1, sizeof(*shown));
		if (!shown || prom_pools_shown(s, self->top_pools, shown))
			goto out;
	}
	for (i = 0; i < s->n; i++) {
		if (s->rows[i].state == ROW_FREED || (shown && !shown[i]))
			continue; /* freed pools leave the output */
		rows[n] = &s->rows[i];
		labels[n] = pool_labels(rows[n]);
		if (!labels[n])
			goto out;
		n++;
	}
	for (fam = F_INFLIGHT_PAGES; fam <= F_LAST_POOL_FAMILY; fam++) {
		for (i = 0; i < n; i++) {
			const struct prom_total *pt = t ? prom_totals_find(t, rows[i]) : NULL;

			if (fam == F_DMA_STATE) {
				if (rows[i]->dma == DMA_UNKNOWN)
					continue;
				sample(o, fam, labels[i], "state", dma_state_name(rows[i]->dma), 1);
				continue;
			}
			if (fam == F_ITEM_BLOCKS) { /* the walk's count, else the series' */
				if (rows[i]->occ_known) {
					sample(o, fam, labels[i], "kind", "prealloc",
					       rows[i]->occ.prealloc);
					sample(o, fam, labels[i], "kind", "dynamic",
					       rows[i]->occ.dynamic);
				} else if (rows[i]->item_blocks) {
					sample(o, fam, labels[i], "kind", "prealloc",
					       rows[i]->blocks_prealloc);
					sample(o, fam, labels[i], "kind", "dynamic",
					       rows[i]->blocks_dyn);
				}
				continue;
			}
			if (fam == F_POOL_LEDGER_LOSSES) {
				const struct pool_row *r = rows[i];

				/* a pool with none has no series (10,000 pools, 40,000 zeros) */
				if (!r->has_record || r->ledger_pages < 0 ||
				    !(r->hold_lost | r->release_lost | r->ties | r->lost))
					continue;
				sample(o, fam, labels[i], "kind", "hold_lost", r->hold_lost);
				sample(o, fam, labels[i], "kind", "release_lost", r->release_lost);
				sample(o, fam, labels[i], "kind", "ties", r->ties);
				sample(o, fam, labels[i], "kind", "lost", r->lost);
				continue;
			}
			if (fam == F_ALLOC || fam == F_RECYCLE) {
				stats_samples(o, fam, labels[i], rows[i]);
				continue;
			}
			if (fam == F_ITEM_BLOCK_ITEMS) {
				const struct block_occupancy *oc = &rows[i]->occ;

				if (!rows[i]->occ_known)
					continue;
				sample(o, fam, labels[i], "state", "used", occ_used(oc));
				sample(o, fam, labels[i], "state", "idle",
				       occ_items(oc) - occ_used(oc));
				continue;
			}
			if (pool_value(fam, rows[i], pt, &v))
				sample(o, fam, labels[i], NULL, NULL, v);
		}
	}
out:
	for (i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
	free(rows);
	free(shown);
	return n;
}

static char *dev_labels(const struct prom_dev *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs("device=\"", f);
	put_label_value(f, d->device);
	fputs("\",ifindex=\"", f);
	if (d->ifindex > 0)
		fprintf(f, "%d", d->ifindex);
	fputs("\",netns=\"", f);
	if (d->netns_ino)
		fprintf(f, "%u", d->netns_ino);
	fputs("\",driver=\"", f);
	put_label_value(f, d->driver);
	fputc('"', f);
	fclose(f);
	return buf;
}

/* the value of a per-device family; false: this device has none */
static bool dev_value(int fam, const struct prom_dev *d, double *v)
{
	switch (fam) {
	case F_DEV_INFLIGHT_PAGES:
		*v = d->inflight;
		return true;
	case F_DEV_INFLIGHT_BYTES:
		*v = d->bytes;
		return true;
	case F_DEV_HELD:
		*v = d->c[PD_HELD];
		return true;
	case F_DEV_RELEASED:
		*v = d->c[PD_RELEASED];
		return true;
	case F_DEV_OLDEST_AGE:
	case F_DEV_OLDEST_LOWER:
		*v = fam == F_DEV_OLDEST_AGE ? d->oldest_s : d->oldest_lower;
		return isfinite(d->oldest_s);
	case F_DEV_LEDGER:
		*v = d->ledger;
		return d->ledger >= 0;
	case F_DEV_BEFORE_START:
		*v = d->before_start;
		return d->before_start >= 0;
	case F_DEV_UNTRACKED:
		*v = d->untracked;
		return d->untracked >= 0;
	case F_DEV_RETRIES:
		*v = d->c[PD_RETRIES];
		return true;
	case F_DEV_ITEM_FAST_EMPTY:
		*v = d->c[PD_ITEM_FAST_EMPTY];
		return d->item_stats;
	case F_DEV_ITEM_SLOW_FAILED:
		*v = d->c[PD_ITEM_SLOW_FAILED];
		return d->item_stats;
	case F_DEV_ITEM_BLOCKS_ALLOC:
		*v = d->c[PD_BLOCKS_ALLOC];
		return d->item_blocks;
	case F_DEV_ITEM_BLOCKS_FREE:
		*v = d->c[PD_BLOCKS_FREE];
		return d->item_blocks;
	}
	return false;
}

/* every device's sums (t may be NULL: none) */
static void render_devices(struct out *o, const struct prom_totals *t)
{
	char **labels;
	size_t i;
	int fam;
	double v;

	if (!t || !t->devs.n)
		return;
	labels = calloc(t->devs.n, sizeof(*labels));
	if (!labels)
		return;
	for (i = 0; i < t->devs.n; i++)
		if (!(labels[i] = dev_labels(&t->devs.v[i])))
			goto out;
	for (fam = F_DEV_POOLS; fam <= F_DEV_ITEM_BLOCKS_FREE; fam++)
		for (i = 0; i < t->devs.n; i++) {
			const struct prom_dev *d = &t->devs.v[i];

			if (fam == F_DEV_POOLS) {
				sample(o, fam, labels[i], "state", "live", d->live);
				sample(o, fam, labels[i], "state", "zombie", d->zombies);
			} else if (fam == F_DEV_ITEM_BLOCKS) {
				if (!d->item_blocks)
					continue;
				sample(o, fam, labels[i], "kind", "prealloc", d->blocks_prealloc);
				sample(o, fam, labels[i], "kind", "dynamic", d->blocks_dyn);
			} else if (dev_value(fam, d, &v)) {
				sample(o, fam, labels[i], NULL, NULL, v);
			}
		}
out:
	for (i = 0; i < t->devs.n; i++)
		free(labels[i]);
	free(labels);
}

void prom_render(FILE *f, enum prom_format fmt, const struct snapshot *s,
		 const struct prom_totals *t, const struct prom_self *self)
{
	struct out o = { .f = f, .fmt = fmt, .cur = -1 };
	struct snapshot_totals tot;
	const char *name;
	size_t i, shown;
	int idx;

	shown = render_pools(&o, s, t, self);
	render_devices(&o, t);
	snapshot_totals(s, &tot);
	sample(&o, F_POOLS, NULL, "state", "live", tot.live);
	sample(&o, F_POOLS, NULL, "state", "zombie", tot.zombies);
	sample(&o, F_POOLS_SHOWN, NULL, NULL, NULL, shown);
	sample(&o, F_LEDGER_USED, NULL, NULL, NULL, s->pages_used);
	sample(&o, F_LEDGER_CAP, NULL, NULL, NULL, s->max_pages);
	sample(&o, F_EVENTS, NULL, "event", "hold", s->counters[PPW_CNT_HOLD]);
	sample(&o, F_EVENTS, NULL, "event", "release", s->counters[PPW_CNT_RELEASE]);
	sample(&o, F_EVENTS, NULL, "event", "pool_release", s->counters[PPW_CNT_POOL_RELEASE]);
	for (i = 0; (name = loss_counter(i, &idx)); i++)
		sample(&o, F_LOSSES, NULL, "kind", name, s->counters[idx]);
	for (i = 0; (name = loss_kind(i, &idx)); i++) /* "ledger_hold_lost" -> "hold_lost" */
		sample(&o, F_LEDGER_LOSSES, NULL, "kind", name + 7, s->counters[idx]);
	sample(&o, F_LEDGER_LOSSES, NULL, "kind", "ties", s->counters[PPW_CNT_TIES]);
	sample(&o, F_LEDGER_LOSSES, NULL, "kind", "lost", s->counters[PPW_CNT_LOST]);
	sample(&o, F_LEDGER_PHANTOMS, NULL, NULL, NULL, s->counters[PPW_CNT_PHANTOMS]);
	if (self) {
		sample(&o, F_COLLECT_DURATION, NULL, NULL, NULL, self->collect_duration_s);
		sample(&o, F_COLLECT_SECONDS, NULL, NULL, NULL, self->collect_seconds_total);
		sample(&o, F_COLLECTS, NULL, NULL, NULL, self->collects_total);
		sample(&o, F_COLLECT_ERRORS, NULL, NULL, NULL, self->collect_errors_total);
		sample(&o, F_LAST_COLLECT, NULL, NULL, NULL, self->last_collect_time);
		sample(&o, F_INTERVAL, NULL, NULL, NULL, self->interval_s);
		sample(&o, F_BUILD, NULL, "version", self->version ? self->version : "", 1);
		family_begin(&o, F_KERNEL);
		fprintf(f, "%s{attach=\"", fams[F_KERNEL].name);
		put_label_value(f, self->attach ? self->attach : "");
		fprintf(f, "\",netlink=\"%s\"} 1\n", self->netlink ? "yes" : "no");
	}
}

void prom_render_serve(FILE *f, enum prom_format fmt, const struct prom_serve *sv)
{
	struct out o = { .f = f, .fmt = fmt, .cur = -1 };
	char code[8];
	size_t i;

	if (isfinite(sv->scrape_duration_s))
		sample(&o, F_SCRAPE_DURATION, NULL, NULL, NULL, sv->scrape_duration_s);
	for (i = 0; i < PROM_HTTP_CODES; i++) {
		if (!sv->http_code[i])
			continue;
		snprintf(code, sizeof(code), "%d", sv->http_code[i]);
		sample(&o, F_HTTP, NULL, "code", code, sv->http_count[i]);
	}
	if (!sv->no_process) {
		sample(&o, F_CPU, NULL, NULL, NULL, sv->cpu_seconds);
		sample(&o, F_RSS, NULL, NULL, NULL, sv->rss_bytes);
		sample(&o, F_START, NULL, NULL, NULL, sv->start_time);
	}
	if (fmt == PROM_OPENMETRICS)
		fputs("# EOF\n", f);
}

void prom_serve_count(struct prom_serve *sv, int code)
{
	int i;

	for (i = 0; i < PROM_HTTP_CODES; i++) {
		if (sv->http_code[i] == code || !sv->http_code[i]) {
			sv->http_code[i] = code;
			sv->http_count[i]++;
			return;
		}
	}
}
