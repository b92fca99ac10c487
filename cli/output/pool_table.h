/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Views over the model: the pool table and the per-device table, each one
 * column list feeding both the text table and JSON.
 */
#ifndef __PPWATCH_OUTPUT_POOL_TABLE_H
#define __PPWATCH_OUTPUT_POOL_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/json.h"
#include "model/snapshot.h"
#include "output/table.h"

/* the pool view over s's rows (s: the snapshot they come from), the per-device view */
struct oview pool_oview(const struct snapshot *s);
struct oview group_oview(void);

void render_pools_text(FILE *f, const struct snapshot *s, bool wide, bool header);
void render_groups_text(FILE *f, const struct group_row *g, size_t n, bool wide, bool header);
/* "pools": [...] / "devices": [...] members of the current object */
void render_pools_json(struct json *j, const struct snapshot *s);
/* what names a pool in other views' JSON: id (null before pool ids), pool, addr, gen, device, state */
void render_pool_ref_json(struct json *j, const struct pool_row *r);
void render_groups_json(struct json *j, const struct group_row *g, size_t n);

/* ledger use and every loss counter: one line of text / a JSON member */
void render_losses_text(FILE *f, const struct snapshot *s);
void render_losses_json(struct json *j, const struct snapshot *s);
/* "kernel": what this kernel and session offer */
void render_kernel_json(struct json *j, const struct kernel_facts *k);

#endif /* __PPWATCH_OUTPUT_POOL_TABLE_H */
