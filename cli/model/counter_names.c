// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The names of ppwatch's counters, by group (counter_names.h). */
#include "model/counter_names.h"

#include "ppwatch.h"

struct counter_name {
	const char *key;
	int idx;
};

/* events not recorded: each counts in losses */
static const struct counter_name loss_counters[] = {
	{ "ledger_full", PPW_CNT_LEDGER_FULL },
	{ "pools_full", PPW_CNT_POOLS_FULL },
	{ "ringbuf_drop", PPW_CNT_RINGBUF_DROP },
	{ "discovery_truncated", PPW_CNT_DISCOVERY_TRUNC },
};

/* what ledger_full lumps, by kind: its parts, never summed with it */
static const struct counter_name loss_kinds[] = {
	{ "ledger_hold_lost", PPW_CNT_HOLD_LOST },
	{ "ledger_release_lost", PPW_CNT_RELEASE_LOST },
	{ "ledger_slot_skipped", PPW_CNT_SLOT_SKIPPED },
};

/* what the fold decided or found: ties, settled losses, phantoms now */
static const struct counter_name ledger_notes[] = {
	{ "ties", PPW_CNT_TIES },
	{ "lost", PPW_CNT_LOST },
	{ "phantom_pages", PPW_CNT_PHANTOMS },
};

static const char *nth(const struct counter_name *t, size_t n, size_t i, int *idx)
{
	if (i >= n)
		return NULL;
	*idx = t[i].idx;
	return t[i].key;
}

#define NTH(t, i, idx) nth(t, sizeof(t) / sizeof(t[0]), i, idx)

const char *loss_counter(size_t i, int *idx)
{
	return NTH(loss_counters, i, idx);
}

const char *loss_kind(size_t i, int *idx)
{
	return NTH(loss_kinds, i, idx);
}

const char *ledger_note(size_t i, int *idx)
{
	return NTH(ledger_notes, i, idx);
}
