/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ppwatch check's rules: a YAML file (libyaml) parsed against one table of
 * keys, and their evaluation against a snapshot. Pure: no BPF, no syscalls
 * beyond stdio; the unit tests drive it with strings and hand-made
 * snapshots.
 *
 *   rules:
 *     - name: vb-inflight
 *       match: { device: vb, state: live }
 *       max_inflight: 4096
 *       max_oldest_age: 30s
 *
 * Every rule has a name, an optional 'match' (which pools; none: all), and
 * one or more limits. Each limit of each rule is one check with its own
 * result (pass, fail, or could not check).
 */
#ifndef __PPWATCH_RULES_H
#define __PPWATCH_RULES_H

#include <stdbool.h>
#include <stdio.h>

#include "model/snapshot.h"

enum limit_kind {
	LIM_MAX_INFLIGHT,
	LIM_MAX_INFLIGHT_BYTES,
	LIM_MAX_OLDEST_AGE,
	LIM_MAX_ZOMBIE_AGE,
	LIM_MAX_ITEM_SLOW_FAILED,
	LIM_MAX_LOSSES,
	LIM_MIN_POOLS,
	LIM_NR,
};

/* A position in the rules file, 1-based (0: none). */
struct rpos {
	int line;
	int col;
};

struct rule_match {
	char *device;		/* glob on device, ifname or dev_name; NULL: any */
	char *driver;		/* glob on the driver name */
	bool has_pool;
	__u32 pool;
	bool has_ifindex;
	__u32 ifindex;
	char *netns;		/* as written: /run/netns name, path, or inode */
	__u32 netns_ino;	/* resolved (rules_resolve_netns); 0: any */
	struct rpos netns_pos;
	int state;		/* -1 any, else ROW_LIVE or ROW_ZOMBIE */
};

struct rule {
	char *name;
	char *description;
	struct rpos pos;
	bool has_match;
	struct rule_match match;
	bool has[LIM_NR];
	double limit[LIM_NR];
	struct rpos limit_pos[LIM_NR];
};

struct ruleset {
	char *file;
	struct rule *rules;
	size_t n;
};

/*
 * Parse a rules document. Diagnostics go to 'diag', one per line, as
 * "FILE:LINE:COL: error: what was found; what was expected". Returns the
 * number of errors (0: *rs is valid), or -ENOMEM.
 */
int rules_parse(struct ruleset *rs, const char *file, const char *buf, size_t len, FILE *diag);
/* the same from a file; a file that cannot be read is one error */
int rules_load(struct ruleset *rs, const char *path, FILE *diag);
void rules_free(struct ruleset *rs);

/*
 * Turn netns names into inode numbers with 'resolve' (returns 0 and the
 * inode, or -errno). Errors are reported to diag with the key's position;
 * returns the number of errors.
 */
int rules_resolve_netns(struct ruleset *rs, int (*resolve)(const char *name, __u32 *ino),
			FILE *diag);

/* The schema, for help texts and docs: key, what it takes, what it means. */
struct rules_key_help {
	const char *section;	/* "rule", "match", "file" */
	const char *key;
	const char *type;
	const char *help;
};
size_t rules_schema(const struct rules_key_help **out);
const char *limit_key(enum limit_kind k);

/* ---- results ------------------------------------------------------------ */

enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_ERROR };

const char *verdict_name(enum verdict v);

struct finding {		/* one pool over a limit */
	__u32 pool_id;
	char device[48];
	double value;
	bool at_least;		/* value is a lower bound */
};

struct check_result {
	char name[96];		/* rule name, or "run" */
	char what[96];		/* "max_inflight <= 4096" */
	const char *key;	/* the limit's key, "run" for --run */
	double limit;		/* the limit's value (pages, bytes, seconds, count) */
	enum verdict v;
	char summary[256];	/* one line */
	char *details;		/* more lines, or NULL (malloc'd) */
	size_t npools;		/* pools the check looked at */
	struct finding *findings;	/* pools over the limit (malloc'd) */
	size_t nfindings;
};

struct check_report {
	struct check_result *r;
	size_t n, cap;
};

/* evaluate every limit of every rule on s (freed pools are ignored) */
int rules_eval(const struct ruleset *rs, const struct snapshot *s, struct check_report *rep);
/* a new, zeroed result at the end of the report; NULL: out of memory */
struct check_result *report_add(struct check_report *rep);
void report_free(struct check_report *rep);
/* 0 all passed, 1 one failed, 2 none failed but one could not be checked */
int report_exit_code(const struct check_report *rep);
void report_count(const struct check_report *rep, size_t *pass, size_t *fail, size_t *err);

#endif /* __PPWATCH_RULES_H */
