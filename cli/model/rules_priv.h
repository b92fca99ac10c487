/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What cli/rules.c (the file) and cli/rules_eval.c (the checks) share. */
#ifndef __PPWATCH_RULES_PRIV_H
#define __PPWATCH_RULES_PRIV_H

#include <stddef.h>

#include "model/rules.h"

enum vtype {
	VT_STR,		/* any non-empty string */
	VT_COUNT,	/* whole number */
	VT_BYTES,	/* size with k/M/G */
	VT_DURATION,	/* 30s, 500ms, 2m */
	VT_STATE,	/* live | zombie | any */
	VT_NETNS,	/* name, path or inode */
	VT_U32,
	VT_VERSION,	/* the file format version: 1 */
	VT_RULES,	/* a list of rules */
	VT_MATCH,	/* a mapping of match keys */
};

struct keydef {
	const char *key;
	enum vtype t;
	int lim;		/* enum limit_kind, or -1 */
	ptrdiff_t off;		/* destination in struct rule / struct rule_match; -1: none */
	ptrdiff_t has_off;	/* bool set when given; -1: none */
	const char *help;
};

/* the schema entry of a limit */
const struct keydef *rules_limit_def(enum limit_kind k);

#endif /* __PPWATCH_RULES_PRIV_H */
