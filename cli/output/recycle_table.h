/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Allocation and recycling (CONFIG_PAGE_POOL_STATS): the recycling view of
 * 'pools --recycling' and 'top --recycling' (one column table for its
 * text), and the "stats" member of a pool's JSON, which every view has.
 */
#ifndef __PPWATCH_OUTPUT_RECYCLE_TABLE_H
#define __PPWATCH_OUTPUT_RECYCLE_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/json.h"
#include "model/snapshot.h"
#include "output/table.h"

/* the recycling view over snapshot rows (text; its JSON is the pool view's) */
struct oview recycle_oview(void);
void render_recycle_text(FILE *f, const struct snapshot *s, bool wide, bool header);
/* "stats": the pool's counters, or null where unknown ("not available") */
void render_pool_stats_json(struct json *j, const struct pool_row *r);
/*
 * The same member as a recording writes it (output/record_fmt.c): left out
 * where unknown, and so are its unknown members (call it only for a pool
 * whose stats are known: pool_stats_known()).
 */
void record_pool_stats(struct json *j, const char *key, const void *pool_row);
bool pool_stats_known(const void *pool_row);

#endif /* __PPWATCH_OUTPUT_RECYCLE_TABLE_H */
