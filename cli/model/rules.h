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
#ifndef __PPWATCH_MODEL_RULES_H
#define __PPWATCH_MODEL_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/diag.h"
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

struct rule_match {
	char *device; /* glob on device, ifname or dev_name; NULL: any */
	char *driver; /* glob on the driver name */
	char *pool;   /* the pool's name (its id, x<XDP mem id>, @<address>); NULL: any */
	bool has_ifindex;
	__u32 ifindex;
	char *netns;	 /* as written: /run/netns name, path, or inode */
	__u32 netns_ino; /* resolved (rules_resolve_netns); 0: any */
	struct rpos netns_pos;
	int state; /* -1 any, else ROW_LIVE or ROW_ZOMBIE */
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
 * A rules file longer than this is refused: 16 MiB is half a million rules
 * (one that is right is a few KiB), and the bound keeps '-f <(yes)' from
 * growing without end.
 */
#define RULES_MAX_MIB	16
#define RULES_MAX_BYTES (RULES_MAX_MIB << 20)

/*
 * Parse a rules document (the caller reads the file: lib/util.h read_file()). Diagnostics go to 'diag', one per line, as
 * "FILE:LINE:COL: error: what was found; what was expected". Returns the
 * number of errors (0: *rs is valid), or -ENOMEM.
 */
int rules_parse(struct ruleset *rs, const char *file, const char *buf, size_t len, FILE *diag);
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
	const char *section; /* "rule", "match", "file" */
	const char *key;
	const char *type;
	const char *help;
};
size_t rules_schema(const struct rules_key_help **out);
const char *limit_key(enum limit_kind k);

/* ---- the key table (rules.c), shared with rules_eval.c ---------------------- */

enum vtype {
	VT_STR,	     /* any non-empty string */
	VT_COUNT,    /* whole number */
	VT_BYTES,    /* size with k/M/G */
	VT_DURATION, /* 30s, 500ms, 2m */
	VT_STATE,    /* live | zombie | any */
	VT_NETNS,    /* name, path or inode */
	VT_U32,
	VT_POOL,    /* a pool as struct pool_row's ident names it */
	VT_VERSION, /* the file format version: 1 */
	VT_RULES,   /* a list of rules */
	VT_MATCH,   /* a mapping of match keys */
};

struct keydef {
	const char *key;
	enum vtype t;
	int lim;	   /* enum limit_kind, or -1 */
	ptrdiff_t off;	   /* destination in struct rule / struct rule_match; -1: none */
	ptrdiff_t has_off; /* bool set when given; -1: none */
	const char *help;
};

/* the schema entry of a limit */
const struct keydef *rules_limit_def(enum limit_kind k);

#endif /* __PPWATCH_MODEL_RULES_H */
