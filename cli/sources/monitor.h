/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What 'pools' and 'top' share: a monitor (loaded BPF, netlink, collector,
 * the last two snapshots) and view options (filters, group-by, sort).
 */
#ifndef __PPWATCH_MONITOR_H
#define __PPWATCH_MONITOR_H

#include "sources/collector.h"
#include "sources/loader.h"
#include "model/snapshot.h"
#include "sources/netlink.h"
#include "sources/netns.h"

struct monitor {
	struct session s;
	struct nl_client nl;
	struct netns_list nsl;
	struct collector col;
	struct snapshot prev;
	struct snapshot cur;
	int samples;
	void (*on_event)(void *arg, const struct ppw_event *e);
	void *event_arg;
};

struct monitor_opts {
	bool subscribe;		/* netlink page-pool notifications */
	bool holders;		/* load the holder-scan iterators */
	uint32_t stack_every;	/* --stacks sampling: 1 in N, 0 off */
	/* every lifecycle event from the ring buffer, as it arrives */
	void (*on_event)(void *arg, const struct ppw_event *e);
	void *event_arg;
};

int monitor_open(struct monitor *m, const struct monitor_opts *o);
/* take a snapshot: cur becomes prev, a new cur is collected */
int monitor_sample(struct monitor *m);
void monitor_close(struct monitor *m);

#define VIEW_MAX_FILTERS 16

struct view_opts {
	bool group_by_device;
	const char *sort;
	bool reverse;
	bool show_freed;
	char *filters[VIEW_MAX_FILTERS];
	int nfilters;
};

/*
 * Consume a view keyword at argv[*i]: "group-by device|pool|none", "pool ID",
 * "dev NAME". Returns 1 if consumed (advancing *i), 0 if not a view keyword,
 * -EINVAL on a bad argument (already reported).
 */
int view_parse_arg(struct view_opts *v, int *i, int argc, char **argv);
int view_add_filter(struct view_opts *v, char *f);
/*
 * A command's whole argument list: view keywords, then pool/device filters;
 * with 'duration', the first positive duration among them is DURATION.
 * 0, or -EINVAL (already reported).
 */
int view_parse_args(struct view_opts *v, int argc, char **argv, double *duration);
/* filter and sort the snapshot, group it if asked: 0 or -errno */
int view_apply(const struct view_opts *v, struct snapshot *s, struct group_row **g, size_t *ng);
void view_print_text(const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng, bool header);
/* members of the current JSON object: pools|devices, ledger, losses */
void view_print_json(const struct view_opts *v, const struct snapshot *s,
		     const struct group_row *g, size_t ng);
/* kernel and session facts for JSON documents */
void monitor_print_json_kernel(const struct monitor *m);

#endif /* __PPWATCH_MONITOR_H */
