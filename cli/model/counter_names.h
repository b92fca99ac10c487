/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The names every output gives ppwatch's counters (bpf/ppwatch.h's
 * PPW_CNT_*) by group: -j, text, the exporter and recordings all list them
 * from here. Each lookup returns the i-th counter's key and sets *idx to
 * its index into a counters array; NULL past the end.
 */
#ifndef __PPWATCH_MODEL_COUNTER_NAMES_H
#define __PPWATCH_MODEL_COUNTER_NAMES_H

#include <stddef.h>

/* events lost: ledger_full, pools_full, ringbuf_drop, discovery_truncated */
const char *loss_counter(size_t i, int *idx);
/* ledger_full's kinds (hold, release, slot skipped): parts of it, never summed with it */
const char *loss_kind(size_t i, int *idx);
/* what the fold decided or found: ties, lost, phantom_pages */
const char *ledger_note(size_t i, int *idx);

#endif /* __PPWATCH_MODEL_COUNTER_NAMES_H */
