/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The incidents a recording keeps however much rotates past them: for
 * each pool destroyed and not yet freed, and the last few freed ones,
 * copies of the records that tell its story, the lines of FILE.incidents
 * (ppwatch-record(8) INCIDENTS), rewritten whole as they change:
 *
 *   its destroy, stalled, unmap and freed events, its latest retry;
 *   its snapshot row after the destroy and the latest one;
 *   its holder scan entry and oldest pages after the destroy, after the
 *   stall, and the latest ones; its stacks at the end.
 *
 * The copies are records as the recording has them (the same type, time
 * and seq), cut down to the incident's pool: a snapshot of that pool, a
 * holder scan of that pool. postmortem reads FILE.incidents before the
 * rest: what the set still has is newer and wins.
 *
 * Within a budget (bytes, header included), what goes first when there
 * is not room: what a recorder before this one left, then freed incidents
 * past the last keep_closed and the oldest freed ones, then the latest
 * copies and the stall's of open ones (their destroy's last), then the
 * oldest open incidents. What was left out is counted (inc_dropped()).
 *
 * Pure: text in, text out.
 */
#ifndef __PPWATCH_MODEL_INCIDENTS_H
#define __PPWATCH_MODEL_INCIDENTS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum inc_slot {
	/* the destroy's, kept longest */
	IS_DESTROY,	  /* the destroy event */
	IS_ROW_FIRST,	  /* the first snapshot row after it */
	IS_HOLDERS_FIRST, /* the first holder scan entry after it */
	IS_PAGES_FIRST,	  /* and the oldest pages */
	IS_STALLED,
	IS_UNMAP,
	IS_FREED,
	IS_RETRY, /* the latest retry */
	/* the stall's */
	IS_HOLDERS_STALL,
	IS_PAGES_STALL,
	/* the latest, replaced as they come */
	IS_ROW_LAST,
	IS_HOLDERS_LAST,
	IS_PAGES_LAST,
	IS_STACKS,
	IS_MAX,
};

struct inc_line {
	char *text; /* one or more whole lines (a record's parts) */
	size_t len;
	double time;
	uint64_t seq;
};

struct incident {
	__u64 addr;
	__u32 gen;
	bool stalled, freed;
	double began; /* the destroy's time */
	struct inc_line slot[IS_MAX];
};

struct incidents {
	struct incident *v; /* oldest first */
	size_t n, cap;
	size_t budget;
	unsigned keep_closed;
	char *before; /* what the file held when this recorder began, its header's run and all */
	size_t before_len;
	bool dirty;
	uint64_t dropped; /* incidents left out of the last render */
};

void inc_init(struct incidents *x, size_t budget, unsigned keep_closed);
void inc_free(struct incidents *x);
/* what the file a recorder before this one left held (its lines, whole): kept while room */
int inc_before(struct incidents *x, const char *text, size_t len);
/* the incident of pool (addr, gen): NULL if none (and, create, none could be made) */
struct incident *inc_get(struct incidents *x, __u64 addr, __u32 gen, bool create, double now);
/* a slot's copy: text (whole lines, copied) of the record at time/seq; -ENOMEM or 0 */
int inc_keep(struct incidents *x, struct incident *i, enum inc_slot s, const char *text, size_t len,
	     double time, uint64_t seq);
/* does the slot hold a copy already? (the first-after slots are kept once) */
static inline bool inc_has(const struct incident *i, enum inc_slot s)
{
	return i->slot[s].text != NULL;
}
/*
 * The file's text: what a recorder before this one left (under its own
 * header) if there is room, header (whole lines), then what else there
 * is room for in the budget, the copies in time order: malloc'd, *len;
 * x->dropped: the incidents left out. NULL without memory.
 */
char *inc_render(struct incidents *x, const char *header, size_t hlen, size_t *len);

#endif /* __PPWATCH_MODEL_INCIDENTS_H */
