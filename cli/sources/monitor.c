// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"
#include "sources/monitor.h"
#include "lib/log.h"
#include "output/pool_table.h"
#include "lib/util.h"

static int on_event(void *ctx, void *data, size_t size)
{
	struct monitor *m = ctx;

	if (size < sizeof(struct ppw_event))
		return 0;
	collector_event(&m->col, data);
	if (m->on_event)
		m->on_event(m->event_arg, data);
	return 0;
}

int monitor_open(struct monitor *m, const struct monitor_opts *o)
{
	struct session_opts so = {
		.mode = env.attach,
		.max_pages = env.max_pages,
		.max_pools = env.max_pools,
		.on_event = on_event,
		.event_ctx = m,
		.holders = o->holders,
		.stack_every = o->stack_every,
	};
	int err;

	memset(m, 0, sizeof(*m));
	m->on_event = o->on_event;
	m->event_arg = o->event_arg;
	err = session_open(&m->s, &so);
	if (err)
		return err;
	if (!env.no_netlink) {
		nl_client_init(&m->nl, o->subscribe);
		if (!m->nl.available)
			p_info("netlink: %s; showing what BPF sees", m->nl.why);
		netns_scan(&m->nsl);
		nl_client_sync(&m->nl, &m->nsl);
	}
	err = collector_init(&m->col, &m->s, env.no_netlink ? NULL : &m->nl, &m->nsl);
	if (err) {
		p_err("setting up the collector: %s", strerror(-err));
		monitor_close(m);
	}
	return err;
}

int monitor_sample(struct monitor *m)
{
	struct ledger l;
	int err;

	err = collector_collect(&m->col, &l);
	if (err)
		return err;
	snapshot_free(&m->prev);
	m->prev = m->cur;
	err = snapshot_build(&m->cur, &l, m->samples ? &m->prev : NULL);
	if (err)
		return err;
	m->samples++;
	return 0;
}

void monitor_close(struct monitor *m)
{
	snapshot_free(&m->prev);
	snapshot_free(&m->cur);
	collector_free(&m->col);
	nl_client_free(&m->nl);
	netns_free(&m->nsl);
	session_close(&m->s);
}

int view_add_filter(struct view_opts *v, char *f)
{
	if (v->nfilters == VIEW_MAX_FILTERS) {
		usage_error("at most %d pool/device filters", VIEW_MAX_FILTERS);
		return -EINVAL;
	}
	v->filters[v->nfilters++] = f;
	return 0;
}

int view_parse_args(struct view_opts *v, int argc, char **argv, double *duration)
{
	int i = 0, r;

	while (i < argc) {
		r = view_parse_arg(v, &i, argc, argv);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (duration && !*duration && !parse_duration(argv[i], duration) && *duration > 0) {
			i++;
			continue;
		}
		if (view_add_filter(v, argv[i++]))
			return -EINVAL;
	}
	return 0;
}

int view_parse_arg(struct view_opts *v, int *i, int argc, char **argv)
{
	const char *a = argv[*i];
	static char buf[VIEW_MAX_FILTERS][48];

	if (!strcmp(a, "group-by")) {
		const char *g = *i + 1 < argc ? argv[*i + 1] : NULL;

		if (!g) {
			usage_error("group-by needs one of: device, pool, none");
			return -EINVAL;
		}
		if (!strcmp(g, "device") || !strcmp(g, "dev"))
			v->group_by_device = true;
		else if (!strcmp(g, "pool") || !strcmp(g, "page-pool") || !strcmp(g, "pp") ||
			 !strcmp(g, "none"))
			v->group_by_device = false;
		else {
			usage_error("group-by '%s': expected device, pool or none", g);
			return -EINVAL;
		}
		*i += 2;
		return 1;
	}
	if (!strcmp(a, "pool") || !strcmp(a, "id") || !strcmp(a, "dev") ||
	    !strcmp(a, "device") || !strcmp(a, "ifindex")) {
		const char *pfx = !strcmp(a, "ifindex") ? "ifindex:" :
				  (a[0] == 'p' || a[0] == 'i') ? "id:" : "";
		char *f;

		if (*i + 1 >= argc) {
			usage_error("'%s' needs a value", a);
			return -EINVAL;
		}
		if (v->nfilters == VIEW_MAX_FILTERS)
			return view_add_filter(v, NULL);
		f = buf[v->nfilters];
		snprintf(f, sizeof(buf[0]), "%s%s", pfx, argv[*i + 1]);
		if (view_add_filter(v, f))
			return -EINVAL;
		*i += 2;
		return 1;
	}
	return 0;
}

int view_apply(const struct view_opts *v, struct snapshot *s, struct group_row **g, size_t *ng)
{
	const char *key = v->sort;
	bool rev = v->reverse;
	int err;

	*g = NULL;
	*ng = 0;
	snapshot_filter(s, (char **)v->filters, v->nfilters);
	if (!v->show_freed)
		snapshot_drop_freed(s);
	if (v->group_by_device) {
		err = snapshot_group_by_device(s, g, ng);
		if (err)
			return err;
		if (!key) {
			key = "device";
		}
		err = render_sort_groups(*g, *ng, key, rev);
	} else {
		if (!key) {
			/* pool ids ascending */
			key = "id";
			rev = !rev;
		}
		err = render_sort_pools(s, key, rev);
	}
	if (err == -ENOENT)
		usage_error("cannot sort by '%s': not a column (see the JSON keys)", key);
	return err;
}

void view_print_text(const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng, bool header)
{
	if (v->group_by_device)
		render_groups_text(stdout, g, ng, env.wide, header);
	else
		render_pools_text(stdout, s, env.wide, header);
}

void view_print_json(const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng)
{
	if (v->group_by_device)
		render_groups_json(&jw, g, ng);
	else
		render_pools_json(&jw, s);
	render_losses_json(&jw, s);
}

void monitor_print_json_kernel(const struct monitor *m)
{
	json_key(&jw, "kernel");
	json_obj_open(&jw);
	json_kv_str(&jw, "attach", attach_mode_name(m->s.mode));
	json_kv_str(&jw, "unmap_regime", unmap_regime_name(m->s.feat.unmap));
	json_kv_bool(&jw, "netlink", m->nl.available);
	json_kv_u64(&jw, "page_size", m->s.feat.page_size);
	json_kv_bool(&jw, "item_stats", m->s.feat.item_stats);
	json_kv_bool(&jw, "item_blocks", m->s.feat.item_blocks);
	json_obj_close(&jw);
}
