/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The argument words commands share (after getopt): view keywords
 * ("group-by device", "pool ID", "dev NAME", "ifindex N"), pool/device
 * filters, a DURATION, and bcc's INTERVAL [COUNT]. Errors are reported
 * with usage_error(); every function returns 0 or -EINVAL.
 */
#ifndef __PPWATCH_ARGS_H
#define __PPWATCH_ARGS_H

#include <stdint.h>

#include "lib/private_file.h"
#include "output/view.h"

/*
 * Consume a view keyword at argv[*i]. Returns 1 if consumed (advancing
 * *i), 0 if argv[*i] is not a view keyword, -EINVAL on a bad argument.
 */
int args_view_word(struct view_opts *v, int *i, int argc, char **argv);
/* a pool/device filter word */
int args_filter(struct view_opts *v, const char *word);
/*
 * A command's whole argument list: view keywords, then pool/device
 * filters; with 'duration', the first positive duration among them is the
 * DURATION. Checks the sort key.
 */
int args_view(struct view_opts *v, int argc, char **argv, double *duration);
/*
 * View keywords and filters, then INTERVAL [COUNT] (bcc): an interval of at
 * least min_interval seconds, then a count. With 'first_is_filter', the
 * first plain word is a filter (a command that needs a pool) and later
 * ones are INTERVAL and COUNT.
 */
int args_view_interval(struct view_opts *v, int argc, char **argv, bool first_is_filter,
		       double min_interval, double *interval, uint64_t *count);

/* -s/--sort KEY, -r/--reverse, -a/--all, --recycling: the view options of pools and top */
#define ARGS_OPT_RECYCLING 0x180
#define ARGS_VIEW_LOPTS                                                                  \
	{ "sort", required_argument, NULL, 's' }, { "reverse", no_argument, NULL, 'r' }, \
		{ "all", no_argument, NULL, 'a' },                                       \
	{                                                                                \
		"recycling", no_argument, NULL, ARGS_OPT_RECYCLING                       \
	}
#define ARGS_VIEW_SOPTS "s:ra"
#define ARGS_VIEW_HELP                                                                    \
	"  -s, --sort KEY     sort by a column, by its JSON key (default %s)\n"           \
	"  -r, --reverse      reverse the sort\n"                                         \
	"  --recycling        the recycling view: each pool's allocation and recycling\n" \
	"                     counters (CONFIG_PAGE_POOL_STATS) and ynltool's ratio\n"
/* one of them: 0, or -ENOENT for an option that is not */
int args_view_opt(struct view_opts *v, int o, const char *arg);

/* an option's DURATION (5s, 500ms, 2m): 0 or -EINVAL (reported) */
int args_duration(const char *opt, const char *arg, double *out);
/* -S/--stacks[=N]: 1 in N events, STACKS_DEFAULT_EVERY without N */
int args_stack_every(const char *arg, uint32_t *every);
/* --group GROUP (name or number): the files ppwatch writes readable by it (0640) */
int args_group(const char *arg, struct file_perm *perm);

#endif /* __PPWATCH_ARGS_H */
