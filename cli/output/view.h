/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A view of a snapshot: which pools (filters), which rows (per pool or per
 * device), in which order, printed as text or JSON from the same column
 * tables (output/pool_table.c). The command-line words that set it up are
 * parsed in cli/args.c.
 */
#ifndef __PPWATCH_OUTPUT_VIEW_H
#define __PPWATCH_OUTPUT_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/json.h"
#include "model/snapshot.h"

#define VIEW_MAX_FILTERS 16

struct view_opts {
	bool group_by_device;
	const char *sort; /* a column's JSON key; NULL: id (or device when grouped) */
	bool reverse;
	bool show_freed;
	bool recycling; /* the recycling view's text (output/recycle_table.c) */
	struct pool_filter filters[VIEW_MAX_FILTERS]; /* any one matches (row_matches()) */
	int nfilters;
};

/* add a filter (parsed: pool_filter_parse()); -E2BIG when VIEW_MAX_FILTERS are set, -EINVAL */
int view_add_filter(struct view_opts *v, enum pool_filter_kind kind, const char *word);
/* no filters, or one of them matches the row */
bool view_matches(const struct view_opts *v, const struct pool_row *r);
/* the column table rows are sorted by and printed with: per device, recycling or pools */
struct oview view_oview(const struct view_opts *v, const struct snapshot *s);
/* the sort key names a column of the view (or is unset) */
bool view_sort_known(const struct view_opts *v);
/*
 * The view of src: its rows filtered and sorted into out, a copy (src stays
 * whole for the next snapshot's rates and for other views), grouped by
 * device into *g if asked. 0 or -ENOMEM; free out with snapshot_free().
 * out: zeroed, or an earlier view_apply()'s, whose rows' memory it reuses
 * (a view refreshed every second of 10,000 pools).
 */
int view_apply(const struct view_opts *v, const struct snapshot *src, struct snapshot *out,
	       struct group_row **g, size_t *ng);
void view_print_text(FILE *f, const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng, bool wide, bool header);
/* members of the current JSON object: pools|devices, ledger, losses */
void view_print_json(struct json *j, const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng);

#endif /* __PPWATCH_OUTPUT_VIEW_H */
