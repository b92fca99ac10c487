/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a reading's sources meet (model/reading.c): the collector fills a
 * struct reading (model/snapshot.h) from the BPF maps, then the monitor
 * adds what netlink and the item-block walk said.
 */
#ifndef __PPWATCH_MODEL_READING_H
#define __PPWATCH_MODEL_READING_H

#include "model/snapshot.h"

/*
 * A reading is reused from one collection to the next (its pools array
 * keeps its memory): reset before filling it, free it once.
 */
void reading_reset(struct reading *rd);
void reading_free(struct reading *rd);
/*
 * Netlink's pools into the reading: a pool netlink lists under the id of
 * a BPF record that is not freed gains netlink's view; the others join as
 * pools known from netlink only: how many, or -ENOMEM (the reading keeps
 * what it had).
 */
int reading_add_netlink(struct reading *rd, const struct nl_pool *v, size_t n);
struct blocks_scan;
/* each pool's item-block occupancy, from a walk of every pool's blocks */
void reading_add_blocks(struct reading *rd, const struct blocks_scan *bs);

struct stats_scan;
/* each pool's allocation and recycling counters, from the stats walk */
void reading_add_stats(struct reading *rd, const struct stats_scan *ss);

#endif /* __PPWATCH_MODEL_READING_H */
