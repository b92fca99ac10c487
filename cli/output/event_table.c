// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "output/doc.h"
#include "output/event_table.h"
#include "output/table.h"

static void detail(struct event_row *er, const struct life_event *e)
{
	const struct pool_row *r = &er->row;
	char a[32], b[32];

	switch (e->kind) {
	case LE_NEW:
		snprintf(er->detail, sizeof(er->detail), "%s%s, %lld inflight",
			 r->state == ROW_ZOMBIE ? "found destroyed" : "first seen",
			 r->netlink ? ", listed by netlink" : "", (long long)r->inflight);
		break;
	case LE_DESTROY:
		snprintf(er->detail, sizeof(er->detail), "page_pool_destroy: %d pages out; dma %s",
			 e->inflight, dma_state_name(r->dma));
		if (r->dma == DMA_UNMAPPED && r->dma_unmapped_at_destroy >= 0)
			snprintf(er->detail + strlen(er->detail),
				 sizeof(er->detail) - strlen(er->detail),
				 ", %lld pages unmapped at destroy",
				 (long long)r->dma_unmapped_at_destroy);
		break;
	case LE_RETRY:
		snprintf(er->detail, sizeof(er->detail), "retry %u, %s after destroy", er->retry,
			 isnan(r->detach_age_s) ? "?" : fmt_age(a, sizeof(a), r->detach_age_s));
		break;
	case LE_STALLED:
		if (er->row.id)
			snprintf(er->detail, sizeof(er->detail),
				 "%s after destroy, %d inflight (kernel: \"stalled pool shutdown: "
				 "id %u, %d inflight %.0f sec\")",
				 fmt_age(a, sizeof(a), e->detach_age_s), e->inflight, er->row.id,
				 e->inflight, floor(e->detach_age_s));
		else /* kernels before pool ids say it without one */
			snprintf(
				er->detail, sizeof(er->detail),
				"%s after destroy, %d inflight (kernel: \"stalled pool shutdown %d "
				"inflight %.0f sec\")",
				fmt_age(a, sizeof(a), e->detach_age_s), e->inflight, e->inflight,
				floor(e->detach_age_s));
		break;
	case LE_UNMAP:
		snprintf(er->detail, sizeof(er->detail),
			 "DMA unmap at destroy: %u pages, %u blocks, %.1f us", r->unmap_pages,
			 r->unmap_blocks, r->unmap_took_ns / 1e3);
		break;
	case LE_BLOCK_ALLOC:
	case LE_BLOCK_FREE:
		snprintf(er->detail, sizeof(er->detail),
			 "dynamic item block %s: %llu pre-allocated "
			 "+ %llu dynamic (%llu allocated, %llu freed so far)",
			 e->kind == LE_BLOCK_ALLOC ? "allocated" : "freed",
			 (unsigned long long)r->blocks_prealloc, (unsigned long long)r->blocks_dyn,
			 (unsigned long long)r->blocks_dyn_alloc,
			 (unsigned long long)r->blocks_dyn_free);
		break;
	case LE_SLOW_FAILED:
		snprintf(er->detail, sizeof(er->detail),
			 "no item block could be allocated: a page "
			 "allocation failed (%llu so far)",
			 (unsigned long long)r->item_slow_failed);
		break;
	case LE_FREED:
		snprintf(er->detail, sizeof(er->detail), "freed%s%s%s",
			 isnan(r->zombie_s) ? "" : " after ",
			 isnan(r->zombie_s) ? "" : fmt_age(b, sizeof(b), r->zombie_s),
			 isnan(r->zombie_s) ? "" : " as a zombie");
		break;
	case LE_NID:
		snprintf(er->detail, sizeof(er->detail), "NUMA node now %d", e->nid);
		break;
	default:
		snprintf(er->detail, sizeof(er->detail), "netlink notification");
	}
}

void event_row_of(struct event_row *er, const struct life_event *e, const struct event_ctx *c)
{
	memset(er, 0, sizeof(*er));
	er->time = e->ts_ns / 1e9 + c->boot_to_real;
	er->kind = e->kind;
	er->retry = e->retry;
	er->stall_after_s = c->stall_after_s;
	if (e->rec.addr)
		pool_row_of(&er->row, &e->rec, e->ts_ns, c->page_size, c->detach_time_is_ns,
			    c->regime);
	else {
		er->row.id = e->id;
		er->row.detach_age_s = er->row.oldest_age_s = NAN;
	}
	if (e->kind == LE_STALLED)
		er->row.detach_age_s = e->detach_age_s;
	if (!er->row.id)
		er->row.id = e->id;
	if (!er->row.ident[0]) /* a netlink notification: the kernel's id is all there is */
		snprintf(er->row.ident, sizeof(er->row.ident), "%u", er->row.id);
	if (e->kind == LE_DESTROY || e->kind == LE_RETRY || e->kind == LE_FREED ||
	    e->kind == LE_STALLED)
		er->row.inflight = e->inflight;
	detail(er, e);
}

enum { EC_TIME, EC_EVENT, EC_ID, EC_DEVICE, EC_INFLIGHT, EC_DETAIL, EC_MAX };

static const struct ocol cols[EC_MAX] = {
	[EC_TIME] = { "time", "TIME", 12, OF_PLAIN, OC_LEFT },
	[EC_EVENT] = { "event", "EVENT", 8, OF_PLAIN, OC_LEFT },
	[EC_ID] = { "pool", "POOL", 5, OF_PLAIN, 0 },
	[EC_DEVICE] = { "device", "DEVICE", 12, OF_PLAIN, OC_LEFT },
	[EC_INFLIGHT] = { "inflight", "INFLIGHT", 8, OF_PLAIN, 0 },
	[EC_DETAIL] = { "detail", "DETAIL", 40, OF_PLAIN, OC_LEFT },
};

static void event_cell(const void *p, int col, struct oval *v, void *arg)
{
	const struct event_row *er = p;
	time_t t = (time_t)er->time;
	struct tm tm;

	switch (col) {
	case EC_TIME:
		localtime_r(&t, &tm);
		OV_FMT(v, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		       (int)((er->time - t) * 1000));
		break;
	case EC_EVENT:
		OV_STR(v, life_kind_name(er->kind));
		break;
	case EC_ID:
		OV_STR(v, er->row.ident);
		break;
	case EC_DEVICE:
		OV_STR(v, er->row.device);
		break;
	case EC_INFLIGHT:
		OV_S64(v, er->row.inflight);
		break;
	case EC_DETAIL:
		OV_STR(v, er->detail);
		break;
	}
}

struct oview event_oview(void)
{
	return (struct oview){ cols, EC_MAX, event_cell, NULL, NULL };
}

void render_event_text(FILE *f, const struct event_row *er, bool header)
{
	struct oview ov = event_oview();

	out_text(f, &ov, er, 1, sizeof(*er), false, header);
}

void render_event_json(struct json *j, const struct event_row *er, bool doc)
{
	json_obj_open(j);
	if (doc)
		doc_members(j);
	json_kv_f64(j, "time", er->time);
	json_kv_str(j, "event", life_kind_name(er->kind));
	json_key(j, "id");
	er->row.id ? json_u64(j, er->row.id) : json_put_null(j);
	json_kv_str(j, "pool", er->row.ident);
	json_kv_str(j, "device", er->row.device);
	json_kv_s64(j, "ifindex", er->row.ifindex);
	json_kv_u64(j, "netns", er->row.netns_ino);
	json_kv_s64(j, "inflight", er->row.inflight);
	if (er->kind == LE_RETRY)
		json_kv_u64(j, "retry", er->retry);
	json_kv_f64(j, "detach_age_s", er->row.detach_age_s);
	json_kv_str(j, "state", row_state_name(er->row.state));
	json_kv_str(j, "dma", dma_state_name(er->row.dma));
	if (er->row.dma_unmapped_at_destroy >= 0)
		json_kv_s64(j, "dma_unmapped_at_destroy", er->row.dma_unmapped_at_destroy);
	if (er->row.dma_still_mapped >= 0)
		json_kv_s64(j, "dma_still_mapped", er->row.dma_still_mapped);
	if (er->kind == LE_STALLED)
		json_kv_f64(j, "stall_after_s", er->stall_after_s);
	if (er->kind == LE_FREED)
		json_kv_f64(j, "zombie_s", er->row.zombie_s);
	if (er->kind == LE_UNMAP) {
		json_kv_u64(j, "unmapped", er->row.unmap_pages);
		json_kv_u64(j, "blocks", er->row.unmap_blocks);
		json_kv_u64(j, "duration_ns", er->row.unmap_took_ns);
	}
	if (er->row.item_blocks && (er->kind == LE_BLOCK_ALLOC || er->kind == LE_BLOCK_FREE)) {
		json_kv_u64(j, "blocks_prealloc", er->row.blocks_prealloc);
		json_kv_u64(j, "blocks_dyn", er->row.blocks_dyn);
	}
	if (er->row.item_stats && er->kind == LE_SLOW_FAILED)
		json_kv_u64(j, "item_slow_failed", er->row.item_slow_failed);
	if (er->row.dma_index_stats)
		json_kv_u64(j, "dma_index_failed", er->row.dma_index_failed);
	if (er->row.dma_map_stats)
		json_kv_u64(j, "dma_map_failed", er->row.dma_map_failed);
	if (er->row.addr) {
		char a[24];

		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)er->row.addr);
		json_kv_str(j, "addr", a);
		json_kv_u64(j, "gen", er->row.gen);
	}
	json_kv_str(j, "detail", er->detail);
	json_obj_close(j);
}
