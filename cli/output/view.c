// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/pool_table.h"
#include "output/recycle_table.h"
#include "output/view.h"

int view_add_filter(struct view_opts *v, enum pool_filter_kind kind, const char *word)
{
	int err;

	if (v->nfilters == VIEW_MAX_FILTERS)
		return -E2BIG;
	err = pool_filter_parse(&v->filters[v->nfilters], kind, word);
	if (!err)
		v->nfilters++;
	return err;
}

bool view_matches(const struct view_opts *v, const struct pool_row *r)
{
	int i;

	if (!v->nfilters)
		return true;
	for (i = 0; i < v->nfilters; i++)
		if (row_matches(r, &v->filters[i]))
			return true;
	return false;
}

static const char *sort_key(const struct view_opts *v, bool *rev)
{
	*rev = v->reverse;
	if (v->sort)
		return v->sort;
	if (v->group_by_device)
		return "device";
	/* pool ids ascending: the sort is descending by default */
	*rev = !*rev;
	return "id";
}

struct oview view_oview(const struct view_opts *v, const struct snapshot *s)
{
	if (v->group_by_device)
		return group_oview();
	return v->recycling ? recycle_oview() : pool_oview(s);
}

bool view_sort_known(const struct view_opts *v)
{
	struct snapshot none = { 0 };
	struct oview ov = view_oview(v, &none);
	bool rev;

	return ocol_find(&ov, sort_key(v, &rev)) >= 0;
}

int view_apply(const struct view_opts *v, const struct snapshot *src, struct snapshot *out,
	       struct group_row **g, size_t *ng)
{
	struct oview ov;
	const char *key;
	bool rev;
	int err;

	*g = NULL;
	*ng = 0;
	err = snapshot_copy_into(out, src);
	if (err)
		return err;
	snapshot_filter(out, v->filters, v->nfilters);
	if (!v->show_freed)
		snapshot_drop_freed(out);
	key = sort_key(v, &rev);
	if (!v->group_by_device) {
		ov = view_oview(v, out);
		out_sort(out->rows, out->n, sizeof(*out->rows), &ov, key, rev);
		return 0;
	}
	err = snapshot_group_by_device(out, g, ng);
	if (err) {
		snapshot_free(out);
		return err;
	}
	ov = group_oview();
	out_sort(*g, *ng, sizeof(**g), &ov, key, rev);
	return 0;
}

void view_print_text(FILE *f, const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng, bool wide, bool header)
{
	if (v->group_by_device)
		render_groups_text(f, g, ng, wide, header);
	else if (v->recycling)
		render_recycle_text(f, s, wide, header);
	else
		render_pools_text(f, s, wide, header);
}

void view_print_json(struct json *j, const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng)
{
	if (v->group_by_device)
		render_groups_json(j, g, ng);
	else
		render_pools_json(j, s);
	render_losses_json(j, s);
}
