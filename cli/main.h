/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The front end: global options, the command table, usage errors. Commands
 * (cli/cmd/) and the shared argument words (cli/args.c) include it; nothing
 * below them does.
 */
#ifndef __PPWATCH_MAIN_H
#define __PPWATCH_MAIN_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/json.h"
#include "lib/stop.h"
#include "sources/loader.h"

/* Exit codes (ppwatch(8) EXIT STATUS). */
enum {
	EXIT_OK = 0,	 /* done; for check: every rule holds */
	EXIT_FAILED = 1, /* check: a rule failed */
	EXIT_ERROR = 2,	 /* could not run: usage, privileges, kernel support */
};

/* Options every command accepts, before or after the command word. */
struct env {
	bool json;
	bool pretty;
	bool wide;
	enum attach_mode attach;
	uint64_t max_pages;
	uint32_t max_pools;
	bool no_netlink;
	enum ppw_level level;  /* --level, else the command's default */
	bool level_set;	       /* --level was given */
	uint32_t sample_shift; /* --sample-rate 2^N */
	const char *prog;      /* argv[0] basename */
	const char *cmd;       /* the command being run */
};

extern struct env env;
/* the JSON writer on stdout, when env.json */
extern struct json stdout_json;

/* a monitor_opts initializer for what the global options set */
#define ENV_MONITOR_OPTS                                                            \
	.mode = env.attach, .max_pages = env.max_pages, .max_pools = env.max_pools, \
	.no_netlink = env.no_netlink, .level = env.level, .sample_shift = env.sample_shift

struct command {
	const char *name;
	enum ppw_level level; /* what it records unless --level says (ppwatch(8)) */
	const char *synopsis; /* after "ppwatch NAME " */
	const char *summary;
	const struct option *lopts; /* command's own options, may be NULL */
	const char *sopts;
	/* one option of the command's own; 0 or -EINVAL */
	int (*opt)(int c, const char *arg);
	/* positional arguments only, options already consumed */
	int (*run)(int argc, char **argv);
	void (*help)(void); /* extra help text, may be NULL */
};

extern const struct command cmd_pools, cmd_top, cmd_holders, cmd_pages, cmd_stacks, cmd_watch;
extern const struct command cmd_record, cmd_postmortem;
extern const struct command cmd_check, cmd_export, cmd_blocks;

void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* __PPWATCH_MAIN_H */
