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

enum mtype { MT_GAUGE, MT_COUNTER, MT_INFO };

enum fam {
	/* per pool */
	F_INFLIGHT_PAGES,
	F_INFLIGHT_BYTES,
	F_HELD,
	F_RELEASED,
	F_ZOMBIE,
	F_DETACH_AGE,
	F_OLDEST_AGE,
	F_OLDEST_LOWER,
	F_LEDGER,
	F_BEFORE_START,
	F_UNTRACKED,
	F_PHANTOMS,
	F_POOL_LEDGER_LOSSES,
	F_RETRIES,
	F_DMA_STATE,
	F_DMA_HAZARD,
	F_DMA_STILL_MAPPED,
	F_DMA_UNMAPPED,
	F_ITEM_FAST_EMPTY,
	F_ITEM_SLOW_FAILED,
	F_DMA_INDEX_FAILED,
	F_DMA_MAP_FAILED,
	F_ITEM_BLOCKS,
	F_ITEM_BLOCKS_ALLOC,
	F_ITEM_BLOCKS_FREE,
	F_ITEM_BLOCK_ITEMS,
	F_ITEM_BLOCKS_SPARSE,
	F_LAST_POOL_FAMILY = F_ITEM_BLOCKS_SPARSE,
	/* per device: the pools' sums */
	F_DEV_POOLS,
	F_DEV_INFLIGHT_PAGES,
	F_DEV_INFLIGHT_BYTES,
	F_DEV_HELD,
	F_DEV_RELEASED,
	F_DEV_OLDEST_AGE,
	F_DEV_OLDEST_LOWER,
	F_DEV_LEDGER,
	F_DEV_BEFORE_START,
	F_DEV_UNTRACKED,
	F_DEV_RETRIES,
	F_DEV_ITEM_FAST_EMPTY,
	F_DEV_ITEM_SLOW_FAILED,
	F_DEV_ITEM_BLOCKS,
	F_DEV_ITEM_BLOCKS_ALLOC,
	F_DEV_ITEM_BLOCKS_FREE,
	/* ppwatch and the host */
	F_POOLS,
	F_POOLS_SHOWN,
	F_LEDGER_USED,
	F_LEDGER_CAP,
	F_EVENTS,
	F_LOSSES,
	F_LEDGER_LOSSES,
	F_LEDGER_PHANTOMS,
	F_COLLECT_DURATION,
	F_COLLECT_SECONDS,
	F_COLLECTS,
	F_COLLECT_ERRORS,
	F_LAST_COLLECT,
	F_INTERVAL,
	F_SCRAPE_DURATION,
	F_HTTP,
	F_BUILD,
	F_KERNEL,
	F_CPU,
	F_RSS,
	F_START,
	F_NR,
};

struct family {
	const char *name; /* sample name (with _total, _info) */
	enum mtype type;
	const char *unit; /* OpenMetrics UNIT; NULL: none */
	const char *labels;
	const char *help;
};

#define POOL "pool"
#define DEV  "device"

static const struct family fams[F_NR] = {
	[F_INFLIGHT_PAGES] = { "ppwatch_pool_inflight_pages", MT_GAUGE, NULL, POOL,
			       "Pages the pool has handed out and not got back (the kernel's hold - release counters)." },
	[F_INFLIGHT_BYTES] = { "ppwatch_pool_inflight_bytes", MT_GAUGE, "bytes", POOL,
			       "Bytes of the pool's inflight pages." },
	[F_HELD] = { "ppwatch_pool_pages_held_total", MT_COUNTER, NULL, POOL,
		     "Pages the pool took from the page allocator (pages_state_hold_cnt, widened to 64 bits)." },
	[F_RELEASED] = { "ppwatch_pool_pages_released_total", MT_COUNTER, NULL, POOL,
			 "Pages the pool gave back (pages_state_release_cnt, widened to 64 bits)." },
	[F_ZOMBIE] = { "ppwatch_pool_zombie", MT_GAUGE, NULL, POOL,
		       "1 if the pool was destroyed by its driver but still has pages out, else 0." },
	[F_DETACH_AGE] = { "ppwatch_pool_detach_age_seconds", MT_GAUGE, "seconds", POOL,
			   "Seconds since a zombie pool was destroyed (zombies only)." },
	[F_OLDEST_AGE] = { "ppwatch_pool_oldest_page_age_seconds", MT_GAUGE, "seconds", POOL,
			   "Age of the pool's oldest inflight page (pools with pages out only)." },
	[F_OLDEST_LOWER] = { "ppwatch_pool_oldest_page_age_lower_bound", MT_GAUGE, NULL, POOL,
			     "1 if the oldest page age is a lower bound (a page ppwatch did not see taken: at least as old as its start, or the pool's destroy)." },
	[F_LEDGER] = { "ppwatch_pool_ledger_pages", MT_GAUGE, NULL, POOL,
		       "Inflight pages in ppwatch's page ledger (their ages are known)." },
	[F_BEFORE_START] = { "ppwatch_pool_before_start_pages", MT_GAUGE, NULL, POOL,
			     "Inflight pages held since before ppwatch first saw the pool." },
	[F_UNTRACKED] = { "ppwatch_pool_untracked_pages", MT_GAUGE, NULL, POOL,
			  "Inflight pages ppwatch could not record (ledger full or events lost)." },
	[F_PHANTOMS] = { "ppwatch_pool_phantom_pages", MT_GAUGE, NULL, POOL,
			 "Pages the ledger had as inflight that the kernel's count says are gone (their release was lost): out of the ages." },
	[F_POOL_LEDGER_LOSSES] = { "ppwatch_pool_ledger_losses_total", MT_COUNTER, NULL,
				   POOL ", kind",
				   "The pool's ledger losses: kind=hold_lost, release_lost (a full page log), ties (a page's hold and release in one tick on two CPUs, decided by the count), lost (counts only a lost event explains)." },
	[F_RETRIES] = { "ppwatch_pool_release_retries_total", MT_COUNTER, NULL, POOL,
			"Times the kernel retried releasing a destroyed pool (once a second while pages are out)." },
	[F_DMA_STATE] = { "ppwatch_pool_dma_state", MT_GAUGE, NULL, POOL ", state",
			  "1 for the pool's DMA-mapping state: not_mapped, mapped, unmap_pending, unmapped, hazard." },
	[F_DMA_HAZARD] = { "ppwatch_pool_dma_hazard", MT_GAUGE, NULL, POOL,
			   "1 if the pool was destroyed with pages still DMA-mapped until they come back, else 0." },
	[F_DMA_STILL_MAPPED] = { "ppwatch_pool_dma_still_mapped_pages", MT_GAUGE, NULL, POOL,
				 "Pages of the pool still DMA-mapped (live pools: every inflight page of a mapping pool)." },
	[F_DMA_UNMAPPED] = { "ppwatch_pool_dma_unmapped_at_destroy_pages", MT_GAUGE, NULL, POOL,
			     "Pages whose DMA mappings the kernel tore down when the pool was destroyed." },
	[F_ITEM_FAST_EMPTY] = { "ppwatch_pool_item_fast_empty_total", MT_COUNTER, NULL, POOL,
				"Allocations that found the pre-allocated tracking items used up (kernels with page-pool item stats)." },
	[F_ITEM_SLOW_FAILED] = { "ppwatch_pool_item_slow_failed_total", MT_COUNTER, NULL, POOL,
				 "Allocations that failed because no tracking item could be had (kernels with page-pool item stats)." },
	[F_DMA_INDEX_FAILED] = { "ppwatch_pool_dma_index_failed_total", MT_COUNTER, NULL, POOL,
				 "Pages dropped because their DMA mapping could not be registered for the unmap at destroy (kernels with ppwatch's xarray series)." },
	[F_DMA_MAP_FAILED] = { "ppwatch_pool_dma_map_failed_total", MT_COUNTER, NULL, POOL,
			       "Pages dropped because they could not be DMA-mapped (kernels with ppwatch's xarray series)." },
	[F_ITEM_BLOCKS] = { "ppwatch_pool_item_blocks", MT_GAUGE, NULL, POOL ", kind",
			    "Item blocks the pool holds, kind=prealloc (at creation) or dynamic (kernels with item block counts)." },
	[F_ITEM_BLOCKS_ALLOC] = { "ppwatch_pool_item_blocks_dynamic_allocated_total", MT_COUNTER,
				  NULL, POOL,
				  "Dynamic item blocks allocated since the pool was created." },
	[F_ITEM_BLOCKS_FREE] = { "ppwatch_pool_item_blocks_dynamic_freed_total", MT_COUNTER, NULL,
				 POOL, "Dynamic item blocks freed since the pool was created." },
	[F_ITEM_BLOCK_ITEMS] = { "ppwatch_pool_item_block_items", MT_GAUGE, NULL, POOL ", state",
				 "Items of the pool's item blocks, state=used (tracking a page) or idle (kernels with item blocks)." },
	[F_ITEM_BLOCKS_SPARSE] = { "ppwatch_pool_item_blocks_sparse", MT_GAUGE, NULL, POOL,
				   "Dynamic item blocks held for under a quarter of their items (kernels with item blocks)." },
	[F_DEV_POOLS] = { "ppwatch_device_pools", MT_GAUGE, NULL, DEV ", state",
			  "The device's page pools by state (live, zombie)." },
	[F_DEV_INFLIGHT_PAGES] = { "ppwatch_device_inflight_pages", MT_GAUGE, NULL, DEV,
				   "Pages the device's pools have out (the sum of ppwatch_pool_inflight_pages)." },
	[F_DEV_INFLIGHT_BYTES] = { "ppwatch_device_inflight_bytes", MT_GAUGE, "bytes", DEV,
				   "Bytes of the device's inflight pages." },
	[F_DEV_HELD] = { "ppwatch_device_pages_held_total", MT_COUNTER, NULL, DEV,
			 "Pages the device's pools took from the page allocator, freed pools included." },
	[F_DEV_RELEASED] = { "ppwatch_device_pages_released_total", MT_COUNTER, NULL, DEV,
			     "Pages the device's pools gave back, freed pools included." },
	[F_DEV_OLDEST_AGE] = { "ppwatch_device_oldest_page_age_seconds", MT_GAUGE, "seconds", DEV,
			       "Age of the oldest inflight page of any of the device's pools." },
	[F_DEV_OLDEST_LOWER] = { "ppwatch_device_oldest_page_age_lower_bound", MT_GAUGE, NULL, DEV,
				 "1 if the device's oldest page age is a lower bound (a page ppwatch did not see taken: since its start, or the pool's destroy)." },
	[F_DEV_LEDGER] = { "ppwatch_device_ledger_pages", MT_GAUGE, NULL, DEV,
			   "The device's inflight pages in ppwatch's page ledger." },
	[F_DEV_BEFORE_START] = { "ppwatch_device_before_start_pages", MT_GAUGE, NULL, DEV,
				 "The device's inflight pages held since before ppwatch saw their pool." },
	[F_DEV_UNTRACKED] = { "ppwatch_device_untracked_pages", MT_GAUGE, NULL, DEV,
			      "The device's inflight pages ppwatch could not record." },
	[F_DEV_RETRIES] = { "ppwatch_device_release_retries_total", MT_COUNTER, NULL, DEV,
			    "Release retries of the device's destroyed pools." },
	[F_DEV_ITEM_FAST_EMPTY] = { "ppwatch_device_item_fast_empty_total", MT_COUNTER, NULL, DEV,
				    "The device's pools' ppwatch_pool_item_fast_empty_total, summed." },
	[F_DEV_ITEM_SLOW_FAILED] = { "ppwatch_device_item_slow_failed_total", MT_COUNTER, NULL, DEV,
				     "The device's pools' ppwatch_pool_item_slow_failed_total, summed." },
	[F_DEV_ITEM_BLOCKS] = { "ppwatch_device_item_blocks", MT_GAUGE, NULL, DEV ", kind",
				"Item blocks of the device's pools, kind=prealloc or dynamic." },
	[F_DEV_ITEM_BLOCKS_ALLOC] = { "ppwatch_device_item_blocks_dynamic_allocated_total",
				      MT_COUNTER, NULL, DEV,
				      "Dynamic item blocks the device's pools allocated." },
	[F_DEV_ITEM_BLOCKS_FREE] = { "ppwatch_device_item_blocks_dynamic_freed_total", MT_COUNTER,
				     NULL, DEV, "Dynamic item blocks the device's pools freed." },
	[F_POOLS] = { "ppwatch_pools", MT_GAUGE, NULL, "state",
		      "Page pools by state (live, zombie); freed pools are not counted." },
	[F_POOLS_SHOWN] = { "ppwatch_pools_exported", MT_GAUGE, NULL, "",
			    "Pools with ppwatch_pool_* series of their own: all (--series pool), or zombies, DMA hazards, pages out for a minute, item failures and the --top-pools with most pages out (--series device)." },
	[F_LEDGER_USED] = { "ppwatch_ledger_used_pages", MT_GAUGE, NULL, "",
			    "Entries in use in ppwatch's page ledger." },
	[F_LEDGER_CAP] = { "ppwatch_ledger_capacity_pages", MT_GAUGE, NULL, "",
			   "Size of ppwatch's page ledger (--max-pages)." },
	[F_EVENTS] = { "ppwatch_events_total", MT_COUNTER, NULL, "event",
		       "Tracepoint events ppwatch handled: event=hold, release, pool_release." },
	[F_LOSSES] = { "ppwatch_losses_total", MT_COUNTER, NULL, "kind",
		       "Events or pools ppwatch lost: kind=ledger_full, pools_full, ringbuf_drop, discovery_truncated." },
	[F_LEDGER_LOSSES] = { "ppwatch_ledger_losses_total", MT_COUNTER, NULL, "kind",
			      "The page ledger's losses by kind: hold_lost, release_lost, slot_skipped (together ppwatch_losses_total{kind=\"ledger_full\"}), ties, lost." },
	[F_LEDGER_PHANTOMS] = { "ppwatch_ledger_phantom_pages", MT_GAUGE, NULL, "",
				"Ledger pages the kernel's counts say are gone (lost releases), every pool's: out of the ages." },
	[F_COLLECT_DURATION] = { "ppwatch_collect_duration_seconds", MT_GAUGE, "seconds", "",
				 "Time the latest collection took (BPF maps, discovery, netlink)." },
	[F_COLLECT_SECONDS] = { "ppwatch_collect_seconds_total", MT_COUNTER, "seconds", "",
				"Time spent collecting." },
	[F_COLLECTS] = { "ppwatch_collects_total", MT_COUNTER, NULL, "",
			 "Collections made (one per --interval)." },
	[F_COLLECT_ERRORS] = { "ppwatch_collect_errors_total", MT_COUNTER, NULL, "",
			       "Collections that failed (the previous snapshot stays served)." },
	[F_LAST_COLLECT] = { "ppwatch_last_collect_timestamp_seconds", MT_GAUGE, "seconds", "",
			     "Unix time of the latest good collection, which this scrape shows." },
	[F_INTERVAL] = { "ppwatch_collect_interval_seconds", MT_GAUGE, "seconds", "",
			 "The sampling interval (--interval)." },
	[F_SCRAPE_DURATION] = { "ppwatch_scrape_duration_seconds", MT_GAUGE, "seconds", "",
				"Time the previous scrape took to render." },
	[F_HTTP] = { "ppwatch_http_responses_total", MT_COUNTER, NULL, "code",
		     "HTTP responses sent, by status code." },
	[F_BUILD] = { "ppwatch_build_info", MT_INFO, NULL, "version", "ppwatch's version." },
	[F_KERNEL] = { "ppwatch_kernel_info", MT_INFO, NULL, "attach, netlink",
		       "How ppwatch attached to this kernel: attach=tp_btf|raw_tp|tracepoint, netlink=yes|no." },
	[F_CPU] = { "process_cpu_seconds_total", MT_COUNTER, "seconds", "",
		    "User and system CPU time ppwatch used (export: its sampler and "
		    "listener together)." },
	[F_RSS] = { "process_resident_memory_bytes", MT_GAUGE, "bytes", "",
		    "ppwatch's resident memory (export: its sampler's and listener's)." },
	[F_START] = { "process_start_time_seconds", MT_GAUGE, "seconds", "",
		      "Unix time ppwatch started." },
};

const char *const prom_pool_labels = "pool_id, device, ifindex, netns, napi_id, driver";
const char *const prom_device_labels = "device, ifindex, netns, driver";

size_t prom_families(const struct prom_family_help **out)
{
	static struct prom_family_help h[F_NR];
	int i;

	for (i = 0; i < F_NR; i++)
		h[i] = (struct prom_family_help){ fams[i].name,
						  fams[i].type == MT_COUNTER ? "counter" :
						  fams[i].type == MT_INFO    ? "info" :
									       "gauge",
						  fams[i].labels, fams[i].help };
	*out = h;
	return F_NR;
}

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
	}
	return false;
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
