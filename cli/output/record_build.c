// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "model/contract.h"
#include "output/record_build.h"
#include "output/record_holder.h"

static void start(struct json *j, const char *type, double time, uint64_t seq)
{
	json_obj_open(j);
	json_kv_str(j, "type", type);
	json_kv_f64(j, "time", time);
	json_kv_u64(j, "seq", seq);
}

char *rbuild_prefix(const char *type, double time, uint64_t seq)
{
	struct rp_capture c;
	struct rp_piece x;
	struct json *j = rp_capture_begin(&c);

	if (j) {
		start(j, type, time, seq);
		json_obj_close(j);
	}
	if (!j || rp_capture_end(&c, &x, false))
		return NULL;
	x.s[x.n - 1] = 0; /* "{...}" -> "{..." */
	return x.s;
}

/* a whole record: its start, what body writes, its end and newline */
#define WHOLE(type, time, seq, len, ...)                   \
	__extension__({                                    \
		struct rp_capture c_;                      \
		struct rp_piece x_ = { 0 };                \
		struct json *j = rp_capture_begin(&c_);    \
		if (j) {                                   \
			start(j, type, time, seq);         \
			__VA_ARGS__;                       \
			json_obj_close(j);                 \
			fputc('\n', c_.f);                 \
		}                                          \
		if (!j || rp_capture_end(&c_, &x_, false)) \
			x_.s = NULL;                       \
		*(len) = x_.n;                             \
		x_.s;                                      \
	})

static void hdr_format(struct json *j, const char *key, const void *o)
{
	json_kv_u64(j, key, RECORDING_FORMAT);
	json_kv_str(j, "version", PPWATCH_VERSION);
}

static bool hdr_has_file(const void *o)
{
	return ((const struct rbuild_header *)o)->file;
}

static bool hdr_has_boot_id(const void *o)
{
	const struct rbuild_header *h = o;

	return h->boot_id && h->boot_id[0];
}

static void hdr_str(struct json *j, const char *key, const char *v)
{
	json_kv_str(j, key, v ? v : "");
}

#define HDR_STR(name, m)                                                 \
	static void name(struct json *j, const char *key, const void *o) \
	{                                                                \
		hdr_str(j, key, ((const struct rbuild_header *)o)->m);   \
	}
HDR_STR(hdr_file, file)
HDR_STR(hdr_run, run)
HDR_STR(hdr_hostname, hostname)
HDR_STR(hdr_boot_id, boot_id)
HDR_STR(hdr_release, release)
HDR_STR(hdr_attach, attach)

static void hdr_regime(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, unmap_regime_name(((const struct rbuild_header *)o)->unmap));
}

static const struct rfield kernel_fields[] = {
	FN("release", hdr_release, NULL),
	FN("attach", hdr_attach, NULL),
	FN("unmap_regime", hdr_regime, NULL),
	F("page_size", RF_U64, struct rbuild_header, page_size, W_ALWAYS),
	F("netlink", RF_BOOL, struct rbuild_header, netlink, W_ALWAYS),
	F("pp_stats", RF_BOOL, struct rbuild_header, pp_stats, W_ALWAYS),
};

static void hdr_kernel(struct json *j, const char *key, const void *o)
{
	rfmt_object(j, key, kernel_fields, ARRAY_SIZE(kernel_fields), o);
}

static const struct rfield header_fields[] = {
	FN("format", hdr_format, NULL),
	FN("file", hdr_file, hdr_has_file),
	FN("run", hdr_run, NULL),
	FN("hostname", hdr_hostname, NULL),
	FN("boot_id", hdr_boot_id, hdr_has_boot_id),
	F("pid", RF_U32, struct rbuild_header, pid, W_NONZERO),
	F("boot_to_real_s", RF_F64, struct rbuild_header, boot_to_real, W_ALWAYS),
	F("stall_after_s", RF_F64, struct rbuild_header, stall_after, W_ALWAYS),
	F("snapshot_every_s", RF_F64, struct rbuild_header, snapshot_every, W_ALWAYS),
	F("scan_every_s", RF_F64, struct rbuild_header, scan_every, W_ALWAYS),
	F("stack_every", RF_U32, struct rbuild_header, stack_every, W_ALWAYS),
	F("max_record_bytes", RF_U64, struct rbuild_header, max_record, W_ALWAYS),
	FN("kernel", hdr_kernel, NULL),
};

char *rbuild_header(const struct rbuild_header *h, double time, uint64_t seq, size_t *len)
{
	return WHOLE("header", time, seq, len, RFMT_FIELDS(j, header_fields, h));
}

static void gap_what(struct json *j, const char *key, const void *o)
{
	hdr_str(j, key, ((const struct rbuild_gap *)o)->what);
}

static void gap_error(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, strerror(((const struct rbuild_gap *)o)->err));
}

static const struct rfield gap_fields[] = {
	FN("what", gap_what, NULL),
	F("errno", RF_S32, struct rbuild_gap, err, W_ALWAYS),
	FN("error", gap_error, NULL),
	F("since", RF_F64, struct rbuild_gap, since, W_ALWAYS),
	F("until", RF_F64, struct rbuild_gap, until, W_FINITE),
	F("failures", RF_U64, struct rbuild_gap, failures, W_ALWAYS),
	F("lost_records", RF_U64, struct rbuild_gap, lost, W_ALWAYS),
	F("lost_bytes", RF_U64, struct rbuild_gap, lost_bytes, W_ALWAYS),
};

char *rbuild_gap(const struct rbuild_gap *g, double time, uint64_t seq, size_t *len)
{
	return WHOLE("gap", time, seq, len, RFMT_FIELDS(j, gap_fields, g));
}

static void end_why(struct json *j, const char *key, const void *o)
{
	hdr_str(j, key, ((const struct rbuild_end *)o)->why);
}

static const struct rfield end_fields[] = {
	FN("ended", end_why, NULL),
	F("records", RF_U64, struct rbuild_end, records, W_ALWAYS),
	F("lost_records", RF_U64, struct rbuild_end, lost, W_ALWAYS),
	F("gaps", RF_U64, struct rbuild_end, gaps, W_ALWAYS),
	F("split_records", RF_U64, struct rbuild_end, split, W_ALWAYS),
	F("elements_dropped", RF_U64, struct rbuild_end, dropped, W_ALWAYS),
	F("retries_thinned", RF_U64, struct rbuild_end, thinned, W_ALWAYS),
};

char *rbuild_end(const struct rbuild_end *e, double time, uint64_t seq, size_t *len)
{
	return WHOLE("end", time, seq, len, RFMT_FIELDS(j, end_fields, e));
}

char *rbuild_event(const struct event_row *er, double time, uint64_t seq, size_t *len)
{
	return WHOLE("event", time, seq, len, {
		json_key(j, "event");
		rfmt_event(j, er);
	});
}

/* a piece of JSON text written by the statements: a whole value, or (members) an object's */
#define PIECE(p, piece, members, ...)                             \
	do {                                                      \
		struct rp_capture c_;                             \
		struct json *j = rp_capture_begin(&c_);           \
		if (j) {                                          \
			if (members)                              \
				json_obj_open(j);                 \
			__VA_ARGS__;                              \
			if (members)                              \
				json_obj_close(j);                \
		}                                                 \
		if (!j || rp_capture_end(&c_, &(piece), members)) \
			(p)->nomem = true;                        \
	} while (0)

void rbuild_snapshot(struct rparts *p, const struct snapshot *s)
{
	struct rp_piece x;
	size_t i;

	rparts_init(p, "pools");
	PIECE(p, p->once, true, rfmt_ledger_members(j, s));
	for (i = 0; i < s->n && !p->nomem; i++) {
		PIECE(p, x, false, rfmt_pool(j, &s->rows[i]));
		if (!p->nomem)
			rparts_add(p, x);
	}
}

void rbuild_holders(struct rparts *p, const struct holders_report *rep)
{
	struct rp_piece x;
	size_t i, k;

	rparts_init(p, "pools");
	PIECE(p, p->once, true, {
		json_key(j, "scan");
		rfmt_scan(j, rep);
	});
	for (i = 0; i < rep->n && !p->nomem; i++) {
		const struct pool_holders *ph = &rep->pools[i];

		PIECE(p, x, true, rfmt_holders_pool_members(j, ph));
		if (p->nomem)
			break;
		rparts_group(p, x, "holders");
		for (k = 0; k < ph->n && !p->nomem; k++) {
			PIECE(p, x, false, rfmt_holder(j, &ph->v[k]));
			if (!p->nomem)
				rparts_inner(p, x);
		}
	}
}

void rbuild_pages(struct rparts *p, const struct pool_row *row, const struct page_row *rows,
		  size_t n)
{
	struct rp_piece x;
	size_t i;

	rparts_init(p, "pages");
	PIECE(p, p->each, true, rfmt_pool_ref_members(j, row));
	for (i = 0; i < n && !p->nomem; i++) {
		PIECE(p, x, false, rfmt_page(j, &rows[i]));
		if (!p->nomem)
			rparts_add(p, x);
	}
}

static bool of_row(const struct stack_agg *a, const struct pool_row *row)
{
	return a->key.pool == row->addr && a->key.gen == row->gen;
}

/* how the stacks were sampled: 1 in every, and how many were taken and lost */
struct sampling {
	uint64_t every, taken, lost;
};

static const struct rfield sampling_fields[] = {
	F("every", RF_U64, struct sampling, every, W_ALWAYS),
	F("stacks_taken", RF_U64, struct sampling, taken, W_ALWAYS),
	F("stacks_lost", RF_U64, struct sampling, lost, W_ALWAYS),
};

void rbuild_stacks(struct rparts *p, const struct ksyms *k, const struct snapshot *s,
		   const struct stack_agg *v, size_t n, uint64_t every)
{
	struct rp_piece x;
	size_t i, r;
	struct sampling sm = { every, s->counters[PPW_CNT_STACKS],
			       s->counters[PPW_CNT_STACK_FAIL] };

	rparts_init(p, "pools");
	PIECE(p, p->once, true,
	      rfmt_object(j, "sampling", sampling_fields, ARRAY_SIZE(sampling_fields), &sm));
	for (r = 0; r < s->n && !p->nomem; r++) {
		PIECE(p, x, true, rfmt_pool_ref_members(j, &s->rows[r]));
		if (p->nomem)
			break;
		rparts_group(p, x, "stacks");
		for (i = 0; i < n && !p->nomem; i++) {
			if (!of_row(&v[i], &s->rows[r]))
				continue;
			PIECE(p, x, false, rfmt_stack(j, k, &v[i], every));
			if (!p->nomem)
				rparts_inner(p, x);
		}
	}
}
