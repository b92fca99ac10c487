/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recording's record types (format RECORDING_FORMAT, model/contract.h),
 * written from the model's structs by tables of their own: what a pool,
 * an event, a holder, a page or a stack is in a recording is defined
 * here, not by the -j display columns (output/pool_table.c and friends),
 * so a change to a display changes no recording. The names of members
 * that mean the same thing are the -j's (a script reads either the same
 * way); a member whose value is unknown is left out rather than null
 * (docs/schema/recording/, ppwatch-record(8) RECORD TYPES).
 *
 * Each function writes one JSON value, or members of the object being
 * written (_members): the recorder (sources/recorder.c) builds each
 * element of a record on its own, so that it can split a record that
 * would pass the record bound.
 */
#ifndef __PPWATCH_OUTPUT_RECORD_FMT_H
#define __PPWATCH_OUTPUT_RECORD_FMT_H

#include <stddef.h>

#include "lib/json.h"
#include "lib/ksyms.h"
#include "model/attrib.h"
#include "model/kernel.h"
#include "model/snapshot.h"
#include "output/event_table.h"
#include "output/holder_table.h"
#include "output/stacks_fmt.h"

/*
 * A record type as a table of members: each member's key, its type and
 * where its value is in the struct the table is about, and when it is
 * written (otherwise its value is unknown, and it is left out).
 */
enum rf_type { RF_U32, RF_S32, RF_U64, RF_S64, RF_F64, RF_BOOL, RF_STR, RF_HEX, RF_FN };

/* when a member is written: otherwise its value is unknown, and it is left out */
enum rf_when { W_ALWAYS, W_NONZERO, W_POSITIVE, W_NONNEG, W_FINITE, W_NONEMPTY };

struct rfield {
	const char *key;
	enum rf_type type;
	size_t off; /* of the value in the object the table is about */
	enum rf_when when;
	bool (*cond)(const void *obj); /* and this, when not NULL */
	/* RF_FN: writes the member (key and value), or nothing */
	void (*fn)(struct json *j, const char *key, const void *obj);
};

#define F(key, type, st, m, when)                            \
	{                                                    \
		key, type, offsetof(st, m), when, NULL, NULL \
	}
#define FC(key, type, st, m, when, cond)                     \
	{                                                    \
		key, type, offsetof(st, m), when, cond, NULL \
	}
#define FN(key, fn, cond)                         \
	{                                         \
		key, RF_FN, 0, W_ALWAYS, cond, fn \
	}

/* the members of table f about obj, those known */
void rfmt_fields(struct json *j, const struct rfield *f, size_t n, const void *obj);
#define RFMT_FIELDS(j, table, obj) rfmt_fields(j, table, sizeof(table) / sizeof((table)[0]), obj)
#define PUT_FIELDS(j, table, obj)  RFMT_FIELDS(j, table, obj)
/* the condition of members: a function of the object a table is about */
#define COND(name, type, expr)          \
	static bool name(const void *o) \
	{                               \
		const type *x = o;      \
                                        \
		return expr;            \
	}
/* "key": { the members }, or (key NULL) the object alone */
void rfmt_object(struct json *j, const char *key, const struct rfield *f, size_t n,
		 const void *obj);

/* a snapshot's pool: one object */
void rfmt_pool(struct json *j, const struct pool_row *r);
/* what names a pool in holders, pages and stacks records: id, pool, addr, gen, device, state */
void rfmt_pool_ref_members(struct json *j, const struct pool_row *r);
/* an event record's "event": one object */
void rfmt_event(struct json *j, const struct event_row *er);
/* one page: one object */
void rfmt_page(struct json *j, const struct page_row *p);
/* one sampled stack: one object */
void rfmt_stack(struct json *j, const struct ksyms *k, const struct stack_agg *a, uint64_t every);
/* "ledger" and "losses": members */
void rfmt_ledger_members(struct json *j, const struct snapshot *s);

#endif /* __PPWATCH_OUTPUT_RECORD_FMT_H */
