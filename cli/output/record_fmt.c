// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "model/counter_names.h"
#include "model/holder_desc.h"
#include "output/record_fmt.h"
#include "output/recycle_table.h"

/* ---- a record type as a table of members ------------------------------------------- */

/* an integer member's value: an unsigned one widened, a signed one as its two's complement */
static uint64_t u64_at(const struct rfield *f, const void *obj)
{
	const char *p = (const char *)obj + f->off;

	switch (f->type) {
	case RF_U32:
		return *(const __u32 *)p;
	case RF_S32:
		return (uint64_t)(int64_t) * (const __s32 *)p;
	case RF_BOOL:
		return *(const bool *)p;
	default: /* RF_U64, RF_S64, RF_HEX */
		return *(const __u64 *)p;
	}
}

static bool is_signed(enum rf_type t)
{
	return t == RF_S32 || t == RF_S64;
}

static double num_at(const struct rfield *f, const void *obj)
{
	if (f->type == RF_F64)
		return *(const double *)((const char *)obj + f->off);
	return is_signed(f->type) ? (double)(int64_t)u64_at(f, obj) : (double)u64_at(f, obj);
}

static bool known(const struct rfield *f, const void *obj)
{
	const char *p = (const char *)obj + f->off;
	double v;

	if (f->cond && !f->cond(obj))
		return false;
	if (f->type == RF_FN)
		return true;
	if (f->type == RF_STR)
		return f->when != W_NONEMPTY || *p;
	v = num_at(f, obj);
	switch (f->when) {
	case W_ALWAYS:
	case W_NONEMPTY:
		return true;
	case W_NONZERO:
		return v != 0;
	case W_POSITIVE:
		return v > 0;
	case W_NONNEG:
		return v >= 0;
	case W_FINITE:
		return isfinite(v);
	}
	return true;
}

void rfmt_fields(struct json *j, const struct rfield *f, size_t n, const void *obj)
{
	char a[24];
	size_t i;

	for (i = 0; i < n; i++, f++) {
		if (!known(f, obj))
			continue;
		if (f->type == RF_FN) {
			f->fn(j, f->key, obj);
			continue;
		}
		json_key(j, f->key);
		switch (f->type) {
		case RF_F64:
			json_f64(j, num_at(f, obj));
			break;
		case RF_BOOL:
			json_bool(j, u64_at(f, obj));
			break;
		case RF_STR:
			json_str(j, (const char *)obj + f->off);
			break;
		case RF_HEX:
			snprintf(a, sizeof(a), "0x%llx", (unsigned long long)u64_at(f, obj));
			json_str(j, a);
			break;
		case RF_S32:
		case RF_S64:
			json_s64(j, (int64_t)u64_at(f, obj));
			break;
		default:
			json_u64(j, u64_at(f, obj));
			break;
		}
	}
}

void rfmt_object(struct json *j, const char *key, const struct rfield *f, size_t n, const void *obj)
{
	if (key)
		json_key(j, key);
	json_obj_open(j);
	rfmt_fields(j, f, n, obj);
	json_obj_close(j);
}

/* ---- pools ----------------------------------------------------------------------------- */

COND(has_record, struct pool_row, x->has_record)
COND(was_destroyed, struct pool_row, x->has_record && x->destroy_cnt)
COND(oldest_known, struct pool_row, isfinite(x->oldest_age_s))
COND(ledger_known, struct pool_row, x->has_record && x->ledger_pages >= 0)
COND(has_items, struct pool_row, x->item_stats || x->item_blocks)
COND(has_dma_index, struct pool_row, x->dma_index_stats)
COND(has_occ, struct pool_row, x->occ_known)
COND(has_unmap, struct pool_row, x->unmap_seen)
COND(has_dma_map, struct pool_row, x->dma_map_stats)

static void pool_state(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, row_state_name(((const struct pool_row *)o)->state));
}

static void pool_dma(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, dma_state_name(((const struct pool_row *)o)->dma));
}

static void pool_netlink(struct json *j, const char *key, const void *o)
{
	const struct pool_row *r = o;

	json_kv_bool(j, key, r->netlink || (r->flags & PPW_PF_HAS_NETDEV));
}

static void pool_dma_map(struct json *j, const char *key, const void *o)
{
	json_kv_bool(j, key, ((const struct pool_row *)o)->flags & PPW_PF_DMA_MAP);
}

/* where the ages come from: exact, sampled (estimates), counters (none kept), none */
static void pool_ages(struct json *j, const char *key, const void *o)
{
	const struct pool_row *r = o;

	json_kv_str(j, key,
		    !r->has_record	? "none" :
		    r->ledger_pages < 0 ? "counters" :
		    r->sampled		? "sampled" :
					  "exact");
}

static void pool_page_ages(struct json *j, const char *key, const void *o)
{
	static const char *const bucket[POOL_AGE_BUCKETS] = {
		"lt_1s", "lt_10s", "lt_1m", "lt_10m", "lt_1h", "ge_1h",
	};
	const struct pool_row *r = o;
	int b;

	json_key(j, key);
	json_obj_open(j);
	for (b = 0; b < POOL_AGE_BUCKETS; b++)
		json_kv_u64(j, bucket[b], r->age_hist[b]);
	json_obj_close(j);
}

static const struct rfield ledger_loss_fields[] = {
	F("hold_lost", RF_U64, struct pool_row, hold_lost, W_ALWAYS),
	F("release_lost", RF_U64, struct pool_row, release_lost, W_ALWAYS),
	F("ties", RF_U64, struct pool_row, ties, W_ALWAYS),
	F("lost", RF_U64, struct pool_row, lost, W_ALWAYS),
};

/* the ledger's losses for this pool, by kind (the recording's "losses" has the host's) */
static void pool_ledger_losses(struct json *j, const char *key, const void *o)
{
	json_key(j, key);
	json_obj_open(j);
	PUT_FIELDS(j, ledger_loss_fields, o);
	json_obj_close(j);
}

static const struct rfield item_fields[] = {
	F("fast_empty", RF_U64, struct pool_row, item_fast_empty, W_ALWAYS),
	F("slow_failed", RF_U64, struct pool_row, item_slow_failed, W_ALWAYS),
};

static const struct rfield block_fields[] = {
	F("blocks_prealloc", RF_U64, struct pool_row, blocks_prealloc, W_ALWAYS),
	F("blocks_dyn", RF_U64, struct pool_row, blocks_dyn, W_ALWAYS),
	F("blocks_dyn_alloc", RF_U64, struct pool_row, blocks_dyn_alloc, W_ALWAYS),
	F("blocks_dyn_free", RF_U64, struct pool_row, blocks_dyn_free, W_ALWAYS),
};

/* the item counters this kernel has: the v7 series' stats, ppwatch's block counts */
static void pool_items(struct json *j, const char *key, const void *o)
{
	const struct pool_row *r = o;

	json_key(j, key);
	json_obj_open(j);
	if (r->item_stats)
		PUT_FIELDS(j, item_fields, r);
	if (r->item_blocks)
		PUT_FIELDS(j, block_fields, r);
	json_obj_close(j);
}

#define OCC(key, m) F(key, RF_U32, struct pool_row, occ.m, W_ALWAYS)

static void occ_items_fn(struct json *j, const char *key, const void *o)
{
	json_kv_u64(j, key, occ_items(&((const struct pool_row *)o)->occ));
}

static void occ_used_fn(struct json *j, const char *key, const void *o)
{
	json_kv_u64(j, key, occ_used(&((const struct pool_row *)o)->occ));
}

static const struct rfield occ_fields[] = {
	OCC("items_per_block", items_per_block),
	OCC("blocks_prealloc", prealloc),
	OCC("blocks_dynamic", dynamic),
	FN("items", occ_items_fn, NULL),
	FN("items_used", occ_used_fn, NULL),
	OCC("items_used_dynamic", used_dynamic),
	OCC("items_unissued", unissued),
	OCC("sparse_blocks", sparse),
	F("truncated", RF_BOOL, struct pool_row, occ.truncated, W_ALWAYS),
};

static void pool_occupancy(struct json *j, const char *key, const void *o)
{
	rfmt_object(j, key, occ_fields, ARRAY_SIZE(occ_fields), o);
}

static void unmap_name(struct json *j, const char *key, const void *o)
{
	(void)o;
	json_kv_str(j, key, "page_pool_destroy_unmap");
}

static const struct rfield unmap_fields[] = {
	FN("event", unmap_name, NULL),
	F("inflight", RF_S32, struct pool_row, unmap_inflight, W_ALWAYS),
	F("unmapped", RF_U32, struct pool_row, unmap_pages, W_ALWAYS),
	F("blocks", RF_U32, struct pool_row, unmap_blocks, W_ALWAYS),
	F("duration_ns", RF_U64, struct pool_row, unmap_took_ns, W_ALWAYS),
	F("age_s", RF_F64, struct pool_row, dma_unmap_age_s, W_FINITE),
};

/* the unmap at destroy, as its tracepoint said */
static void pool_unmap(struct json *j, const char *key, const void *o)
{
	json_key(j, key);
	json_obj_open(j);
	PUT_FIELDS(j, unmap_fields, o);
	json_obj_close(j);
}

static const struct rfield pool_ref_fields[] = {
	F("id", RF_U32, struct pool_row, id, W_NONZERO),
	F("pool", RF_STR, struct pool_row, ident, W_ALWAYS),
	F("addr", RF_HEX, struct pool_row, addr, W_NONZERO),
	FC("gen", RF_U32, struct pool_row, gen, W_ALWAYS, has_record),
	F("device", RF_STR, struct pool_row, device, W_ALWAYS),
	FN("state", pool_state, NULL),
};

static const struct rfield pool_fields[] = {
	/* who it is */
	F("ifname", RF_STR, struct pool_row, ifname, W_NONEMPTY),
	F("ifindex", RF_S32, struct pool_row, ifindex, W_POSITIVE),
	F("netns", RF_U32, struct pool_row, netns_ino, W_NONZERO),
	F("netns_cookie", RF_U64, struct pool_row, netns_cookie, W_NONZERO),
	F("napi_id", RF_U32, struct pool_row, napi_id, W_NONZERO),
	F("driver", RF_STR, struct pool_row, driver, W_NONEMPTY),
	F("dev_name", RF_STR, struct pool_row, devname, W_NONEMPTY),
	FN("netlink", pool_netlink, NULL),
	FN("dma_map", pool_dma_map, has_record),
	FC("order", RF_U32, struct pool_row, order, W_ALWAYS, has_record),
	FC("pool_size", RF_U32, struct pool_row, pool_size, W_ALWAYS, has_record),
	FC("nid", RF_S32, struct pool_row, nid, W_ALWAYS, has_record),
	/* its pages */
	F("inflight", RF_S64, struct pool_row, inflight, W_ALWAYS),
	F("inflight_bytes", RF_U64, struct pool_row, inflight_bytes, W_ALWAYS),
	FC("hold_cnt", RF_U32, struct pool_row, hold_cnt, W_ALWAYS, has_record),
	FC("release_cnt", RF_U32, struct pool_row, release_cnt, W_ALWAYS, has_record),
	FN("ages", pool_ages, NULL),
	FC("ledger_pages", RF_S64, struct pool_row, ledger_pages, W_NONNEG, has_record),
	F("before_start", RF_S64, struct pool_row, before_start, W_NONNEG),
	FC("before_start_at_least", RF_S64, struct pool_row, before_start_min, W_ALWAYS,
	   has_record),
	FC("before_start_at_most", RF_S64, struct pool_row, before_start_max, W_NONNEG, has_record),
	FC("untracked", RF_S64, struct pool_row, untracked, W_NONNEG, has_record),
	FC("phantom_pages", RF_S64, struct pool_row, phantoms, W_NONNEG, has_record),
	FN("ledger_losses", pool_ledger_losses, ledger_known),
	F("oldest_age_s", RF_F64, struct pool_row, oldest_age_s, W_FINITE),
	FC("oldest_age_is_lower_bound", RF_BOOL, struct pool_row, oldest_at_least, W_ALWAYS,
	   oldest_known),
	FN("page_ages", pool_page_ages, ledger_known),
	F("seen_age_s", RF_F64, struct pool_row, seen_age_s, W_FINITE),
	/* its life */
	FC("destroy_cnt", RF_U64, struct pool_row, destroy_cnt, W_ALWAYS, has_record),
	FC("retries", RF_U32, struct pool_row, retries, W_ALWAYS, has_record),
	FC("last_release_inflight", RF_S32, struct pool_row, last_inflight, W_ALWAYS,
	   was_destroyed),
	F("detach_age_s", RF_F64, struct pool_row, detach_age_s, W_FINITE),
	F("freed_age_s", RF_F64, struct pool_row, freed_age_s, W_FINITE),
	F("zombie_s", RF_F64, struct pool_row, zombie_s, W_FINITE),
	/* its DMA mappings */
	FN("dma", pool_dma, NULL),
	F("dma_still_mapped", RF_S64, struct pool_row, dma_still_mapped, W_NONNEG),
	F("dma_unmapped_at_destroy", RF_S64, struct pool_row, dma_unmapped_at_destroy, W_NONNEG),
	F("dma_unmap_age_s", RF_F64, struct pool_row, dma_unmap_age_s, W_FINITE),
	FN("destroy_unmap", pool_unmap, has_unmap),
	/* what the kernel series add */
	FN("items", pool_items, has_items),
	FC("dma_index_failed", RF_U64, struct pool_row, dma_index_failed, W_ALWAYS, has_dma_index),
	FC("dma_map_failed", RF_U64, struct pool_row, dma_map_failed, W_ALWAYS, has_dma_map),
	FN("block_occupancy", pool_occupancy, has_occ),
	/* CONFIG_PAGE_POOL_STATS */
	FN("stats", record_pool_stats, pool_stats_known),
};

void rfmt_pool_ref_members(struct json *j, const struct pool_row *r)
{
	PUT_FIELDS(j, pool_ref_fields, r);
}

void rfmt_pool(struct json *j, const struct pool_row *r)
{
	json_obj_open(j);
	rfmt_pool_ref_members(j, r);
	PUT_FIELDS(j, pool_fields, r);
	json_obj_close(j);
}

/* ---- events ---------------------------------------------------------------------------- */

#define EV(m) row.m

COND(ev_retry, struct event_row, x->kind == LE_RETRY)
COND(ev_stalled, struct event_row, x->kind == LE_STALLED)
COND(ev_freed, struct event_row, x->kind == LE_FREED)
COND(ev_unmap, struct event_row, x->kind == LE_UNMAP)
COND(ev_blocks, struct event_row,
     x->row.item_blocks && (x->kind == LE_BLOCK_ALLOC || x->kind == LE_BLOCK_FREE))
COND(ev_slow_failed, struct event_row, x->row.item_stats && x->kind == LE_SLOW_FAILED)
COND(ev_dma_index, struct event_row, x->row.dma_index_stats)
COND(ev_dma_map, struct event_row, x->row.dma_map_stats)
COND(ev_has_addr, struct event_row, x->row.addr)

static void ev_kind(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, life_kind_name(((const struct event_row *)o)->kind));
}

static void ev_state(struct json *j, const char *key, const void *o)
{
	pool_state(j, key, &((const struct event_row *)o)->row);
}

static void ev_dma(struct json *j, const char *key, const void *o)
{
	pool_dma(j, key, &((const struct event_row *)o)->row);
}

static const struct rfield event_fields[] = {
	F("time", RF_F64, struct event_row, time, W_ALWAYS),
	FN("event", ev_kind, NULL),
	F("id", RF_U32, struct event_row, EV(id), W_NONZERO),
	F("pool", RF_STR, struct event_row, EV(ident), W_ALWAYS),
	F("addr", RF_HEX, struct event_row, EV(addr), W_NONZERO),
	FC("gen", RF_U32, struct event_row, EV(gen), W_ALWAYS, ev_has_addr),
	F("device", RF_STR, struct event_row, EV(device), W_ALWAYS),
	F("ifindex", RF_S32, struct event_row, EV(ifindex), W_POSITIVE),
	F("netns", RF_U32, struct event_row, EV(netns_ino), W_NONZERO),
	FN("state", ev_state, NULL),
	F("inflight", RF_S64, struct event_row, EV(inflight), W_ALWAYS),
	FC("retry", RF_U32, struct event_row, retry, W_ALWAYS, ev_retry),
	F("detach_age_s", RF_F64, struct event_row, EV(detach_age_s), W_FINITE),
	FN("dma", ev_dma, NULL),
	F("dma_unmapped_at_destroy", RF_S64, struct event_row, EV(dma_unmapped_at_destroy),
	  W_NONNEG),
	F("dma_still_mapped", RF_S64, struct event_row, EV(dma_still_mapped), W_NONNEG),
	FC("stall_after_s", RF_F64, struct event_row, stall_after_s, W_FINITE, ev_stalled),
	FC("zombie_s", RF_F64, struct event_row, EV(zombie_s), W_FINITE, ev_freed),
	FC("unmapped", RF_U32, struct event_row, EV(unmap_pages), W_ALWAYS, ev_unmap),
	FC("blocks", RF_U32, struct event_row, EV(unmap_blocks), W_ALWAYS, ev_unmap),
	FC("duration_ns", RF_U64, struct event_row, EV(unmap_took_ns), W_ALWAYS, ev_unmap),
	FC("blocks_prealloc", RF_U64, struct event_row, EV(blocks_prealloc), W_ALWAYS, ev_blocks),
	FC("blocks_dyn", RF_U64, struct event_row, EV(blocks_dyn), W_ALWAYS, ev_blocks),
	FC("item_slow_failed", RF_U64, struct event_row, EV(item_slow_failed), W_ALWAYS,
	   ev_slow_failed),
	FC("dma_index_failed", RF_U64, struct event_row, EV(dma_index_failed), W_ALWAYS,
	   ev_dma_index),
	FC("dma_map_failed", RF_U64, struct event_row, EV(dma_map_failed), W_ALWAYS, ev_dma_map),
	F("detail", RF_STR, struct event_row, detail, W_ALWAYS),
};

void rfmt_event(struct json *j, const struct event_row *er)
{
	json_obj_open(j);
	PUT_FIELDS(j, event_fields, er);
	json_obj_close(j);
}

/* ---- pages and stacks ------------------------------------------------------------------ */

COND(pg_age_known, struct page_row, isfinite(x->age_s))
COND(pg_where_known, struct page_row, x->where != NULL)

static void pg_where(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, ((const struct page_row *)o)->where);
}

static const struct rfield page_fields[] = {
	F("netmem", RF_HEX, struct page_row, netmem, W_ALWAYS),
	F("pfn", RF_U64, struct page_row, pfn, W_NONZERO),
	F("age_s", RF_F64, struct page_row, age_s, W_FINITE),
	FC("age_is_lower_bound", RF_BOOL, struct page_row, age_at_least, W_ALWAYS, pg_age_known),
	F("cpu", RF_S32, struct page_row, cpu, W_NONNEG),
	FN("where", pg_where, pg_where_known),
	F("holder", RF_STR, struct page_row, holder, W_NONEMPTY),
	F("in_ledger", RF_BOOL, struct page_row, in_ledger, W_ALWAYS),
	F("stack_id", RF_S32, struct page_row, stack_id, W_NONNEG),
	F("stack", RF_STR, struct page_row, stack, W_NONEMPTY),
};

void rfmt_page(struct json *j, const struct page_row *p)
{
	json_obj_open(j);
	PUT_FIELDS(j, page_fields, p);
	json_obj_close(j);
}

void rfmt_stack(struct json *j, const struct ksyms *k, const struct stack_agg *a, uint64_t every)
{
	char buf[512];
	int fr;

	json_obj_open(j);
	json_kv_str(j, "kind", stack_kind_name(a->key.kind));
	json_kv_u64(j, "count", a->count);
	/* a destroyed pool's releases are all taken; the others 1 in 'every' */
	json_kv_u64(j, "estimated_events",
		    a->key.kind == PPW_STACK_ZOMBIE_RELEASE ? a->count : a->count * every);
	json_key(j, "frames");
	json_arr_open(j);
	for (fr = 0; fr < a->nframes; fr++)
		json_str(j, ksyms_fmt(k, a->ips[fr], buf, sizeof(buf)));
	json_arr_close(j);
	json_obj_close(j);
}

/* ---- the ledger and losses ------------------------------------------------------------- */

static void led_level(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, level_text(((const struct snapshot *)o)->level));
}

static void led_rate(struct json *j, const char *key, const void *o)
{
	const struct snapshot *s = o;

	json_kv_u64(j, key, s->level == PPW_LEVEL_SAMPLED ? s->sample_rate : 1);
}

#define CNT(key, c) F(key, RF_U64, struct snapshot, counters[c], W_ALWAYS)

static const struct rfield ledger_fields[] = {
	FN("level", led_level, NULL),
	FN("sample_rate", led_rate, NULL),
	F("pages", RF_U64, struct snapshot, pages_used, W_ALWAYS),
	F("max_pages", RF_U64, struct snapshot, max_pages, W_ALWAYS),
	F("memory_bytes", RF_U64, struct snapshot, ledger_bytes, W_ALWAYS),
	CNT("hold_events", PPW_CNT_HOLD),
	CNT("release_events", PPW_CNT_RELEASE),
	CNT("pool_release_events", PPW_CNT_POOL_RELEASE),
	CNT("unmatched_releases", PPW_CNT_UNMATCHED),
	CNT("pool_reuses", PPW_CNT_POOL_REUSE),
	CNT("overflowed", PPW_CNT_LEDGER_SPILL),
	CNT("cpu_slot_evictions", PPW_CNT_PCPU_EVICT),
	CNT("ties", PPW_CNT_TIES),
	CNT("lost", PPW_CNT_LOST),
	CNT("phantom_pages", PPW_CNT_PHANTOMS),
};

void rfmt_ledger_members(struct json *j, const struct snapshot *s)
{
	const char *key;
	size_t i;
	int idx;

	rfmt_object(j, "ledger", ledger_fields, ARRAY_SIZE(ledger_fields), s);
	json_key(j, "losses");
	json_obj_open(j);
	for (i = 0; (key = loss_counter(i, &idx)); i++)
		json_kv_u64(j, key, s->counters[idx]);
	for (i = 0; (key = loss_kind(i, &idx)); i++)
		json_kv_u64(j, key, s->counters[idx]);
	json_obj_close(j);
}
