// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch check's rules: YAML -> struct ruleset through one table of keys
 * (key, type, destination, help). model/rules_eval.c checks them.
 *
 * libyaml builds the node tree (yaml_parser_load); every node carries its
 * start mark, so each error names the file, the 1-based line and column of
 * the offending node, what was found and what was expected. Errors do not
 * stop the walk: every problem in the file is reported in one go.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "lib/util.h"
#include "lib/vec.h"
#include "model/rules.h"
#include "model/rules_schema.h"
#include "model/yaml_walk.h"

/* ---- diagnostics (model/diag.h), by the YAML walker (model/yaml_walk.h) ---- */

struct pctx {
	struct ywalk y;
};

#define perr(c, pos, ...) ywerr(&(c)->y, pos, __VA_ARGS__)
#define node_pos	  ywalk_pos

/* what a node is, for "got ..." (scalars quoted, long ones cut) */
static const char *node_desc(const yaml_node_t *n, char *buf, size_t len)
{
	char e[DIAG_ECHO_MAX + 4];

	if (n->type == YAML_SCALAR_NODE && n->data.scalar.length) {
		snprintf(buf, len, "'%s'",
			 diag_echo((const char *)n->data.scalar.value, n->data.scalar.length, e));
		return buf;
	}
	return ywalk_kind(n);
}

static void unknown_key(struct pctx *c, const yaml_node_t *k, const char *where,
			const struct keydef *keys)
{
	ywalk_unknown_key(&c->y, k, where, keys, sizeof(*keys), -1);
}

/* ---- values --------------------------------------------------------------------- */

static char *xstrdup(struct pctx *c, const char *s)
{
	return ywalk_strdup(&c->y, s);
}

/* A scalar's text; reports and returns NULL for anything else or nothing. */
static const char *scalar(struct pctx *c, const yaml_node_t *v, const char *key, enum vtype t)
{
	return ywalk_scalar(&c->y, v, key, vtype_expect(t));
}

/* "13", "x7" or "@05dfd800": how struct pool_row's ident names a pool */
static bool pool_name_valid(const char *s)
{
	uint64_t u;
	size_t n;

	if (*s == 'x')
		return !parse_u64(s + 1, 1, UINT32_MAX, &u);
	if (*s != '@')
		return !parse_u64(s, 0, UINT32_MAX, &u);
	n = strlen(++s);
	return n >= 1 && n <= 8 && strspn(s, "0123456789abcdef") == n;
}

/* Parse a scalar of type t into *num or *str; 0 or -EINVAL (reported). */
static int parse_value(struct pctx *c, const yaml_node_t *v, const char *key, enum vtype t,
		       double *num, char **str)
{
	const char *s = scalar(c, v, key, t);
	char buf[64];
	uint64_t u;
	double d;

	if (!s)
		return -EINVAL;
	switch (t) {
	case VT_POOL:
		if (!pool_name_valid(s))
			break;
		/* fall through */
	case VT_STR:
	case VT_NETNS:
		*str = xstrdup(c, s);
		return 0;
	case VT_COUNT:
		if (parse_u64(s, 0, 1ULL << 53, &u))
			break;
		*num = (double)u;
		return 0;
	case VT_U32:
	case VT_VERSION:
		if (parse_u64(s, t == VT_VERSION ? 1 : 0, t == VT_VERSION ? 1 : UINT32_MAX, &u))
			break;
		*num = (double)u;
		return 0;
	case VT_BYTES:
		if (parse_size(s, &u) || u > 1ULL << 53)
			break;
		*num = (double)u;
		return 0;
	case VT_DURATION:
		if (parse_duration(s, &d) || d > 10 * 365 * 86400.0)
			break;
		*num = d;
		return 0;
	case VT_STATE:
		if (!strcmp(s, "live"))
			*num = ROW_LIVE;
		else if (!strcmp(s, "zombie"))
			*num = ROW_ZOMBIE;
		else if (!strcmp(s, "any"))
			*num = -1;
		else
			break;
		return 0;
	default:
		break;
	}
	perr(c, node_pos(v), "%s: expected %s, got %s", key, vtype_expect(t),
	     node_desc(v, buf, sizeof(buf)));
	return -EINVAL;
}

static yaml_node_t *node(struct pctx *c, int idx)
{
	return ywalk_node(&c->y, idx);
}

typedef void (*pair_fn)(struct pctx *c, const struct keydef *d, yaml_node_t *k, yaml_node_t *v,
			void *dst);

/*
 * Walk a mapping against a key table: unknown and duplicate keys are
 * errors; each known key goes to fn. seen[] gets each key's position.
 */
static void walk_mapping(struct pctx *c, yaml_node_t *map, const char *where,
			 const struct keydef *keys, struct rpos *seen, pair_fn fn, void *dst)
{
	yaml_node_pair_t *p;
	const struct keydef *d;
	yaml_node_t *k, *v;
	char buf[64];
	int i;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		k = node(c, p->key);
		v = node(c, p->value);
		if (!k || !v)
			continue;
		if (k->type != YAML_SCALAR_NODE) {
			perr(c, node_pos(k), "a key in %s must be a plain word, got %s", where,
			     node_desc(k, buf, sizeof(buf)));
			continue;
		}
		for (d = keys, i = 0; d->key; d++, i++)
			if (!strcmp(d->key, (const char *)k->data.scalar.value))
				break;
		if (!d->key) {
			unknown_key(c, k, where, keys);
			continue;
		}
		if (seen[i].line) {
			perr(c, node_pos(k),
			     "duplicate key '%s' in %s (first at line %d, "
			     "column %d)",
			     d->key, where, seen[i].line, seen[i].col);
			continue;
		}
		seen[i] = node_pos(k);
		fn(c, d, k, v, dst);
	}
}

static void set_field(struct pctx *c, const struct keydef *d, yaml_node_t *v, void *base)
{
	double num = 0;
	char *str = NULL;

	if (parse_value(c, v, d->key, d->t, &num, &str))
		return;
	if (d->has_off >= 0)
		*(bool *)((char *)base + d->has_off) = true;
	switch (d->t) {
	case VT_STR:
	case VT_NETNS:
	case VT_POOL:
		*(char **)((char *)base + d->off) = str;
		break;
	case VT_U32:
		*(__u32 *)((char *)base + d->off) = (__u32)num;
		break;
	case VT_STATE:
		*(int *)((char *)base + d->off) = (int)num;
		break;
	default:
		free(str);
		break;
	}
}

static void match_pair(struct pctx *c, const struct keydef *d, yaml_node_t *k, yaml_node_t *v,
		       void *dst)
{
	struct rule_match *m = dst;

	set_field(c, d, v, m);
	if (!strcmp(d->key, "netns"))
		m->netns_pos = node_pos(v);
}

static void rule_pair(struct pctx *c, const struct keydef *d, yaml_node_t *k, yaml_node_t *v,
		      void *dst)
{
	struct rpos seen[RULES_MAX_KEYS] = {};
	struct rule *r = dst;
	char buf[64];

	if (d->lim >= 0) {
		if (!parse_value(c, v, d->key, d->t, &r->limit[d->lim], NULL)) {
			r->has[d->lim] = true;
			r->limit_pos[d->lim] = node_pos(k);
		}
		return;
	}
	if (d->t == VT_MATCH) {
		if (v->type != YAML_MAPPING_NODE) {
			perr(c, node_pos(v), "match: expected %s, got %s", vtype_expect(d->t),
			     node_desc(v, buf, sizeof(buf)));
			return;
		}
		r->has_match = true;
		walk_mapping(c, v, "match", match_keys, seen, match_pair, &r->match);
		return;
	}
	set_field(c, d, v, r);
}

static void parse_rule(struct pctx *c, yaml_node_t *n, struct ruleset *rs)
{
	struct rpos seen[RULES_MAX_KEYS] = {};
	struct rule *r = &rs->rules[rs->n];
	char buf[64], e[DIAG_ECHO_MAX + 4];
	const struct keydef *d;
	int errors = c->y.d.errors;
	bool any = false;
	size_t i;
	int k;

	if (n->type != YAML_MAPPING_NODE) {
		perr(c, node_pos(n), "a rule: expected a mapping with 'name' and limits, got %s",
		     node_desc(n, buf, sizeof(buf)));
		return;
	}
	memset(r, 0, sizeof(*r));
	r->pos = node_pos(n);
	r->match.state = -1;
	rs->n++;
	walk_mapping(c, n, "a rule", rule_keys, seen, rule_pair, r);
	if (!seen[0].line)
		perr(c, r->pos,
		     "this rule has no 'name'; every rule needs one (it names the "
		     "checks in the output)");
	for (k = 0; k < LIM_NR; k++)
		any |= r->has[k];
	for (d = rule_keys, i = 0; d->key; d++, i++)
		any |= d->lim >= 0 && seen[i].line; /* given, even if its value was bad */
	if (!any && errors == c->y.d.errors) {
		char list[256];
		size_t off = 0;

		for (d = rule_keys; d->key; d++)
			if (d->lim >= 0)
				off += snprintf(list + off, sizeof(list) - off, "%s%s",
						off ? ", " : "", d->key);
		perr(c, r->pos, "rule '%s' checks nothing; give at least one of: %s",
		     r->name ? diag_echo(r->name, strlen(r->name), e) : "?", list);
	}
	if (r->has[LIM_MAX_LOSSES] && r->has_match)
		perr(c, r->limit_pos[LIM_MAX_LOSSES],
		     "max_losses counts ppwatch's losses on the "
		     "whole host; it cannot be combined with 'match' (put it in a rule of its "
		     "own)");
}

static int name_cmp(const void *a, const void *b)
{
	const struct rule *x = *(const struct rule *const *)a, *y = *(const struct rule *const *)b;
	int r = strcmp(x->name, y->name);

	return r ? r : x < y ? -1 : x > y;
}

/* rule names are unique: sorted, so 40000 rules take a moment, not n^2 compares */
static void check_duplicates(struct pctx *c, struct ruleset *rs)
{
	struct rule **v = calloc(rs->n ? rs->n : 1, sizeof(*v));
	char e[DIAG_ECHO_MAX + 4];
	size_t i, n = 0, first = 0;

	if (!v) {
		c->y.d.nomem = true;
		return;
	}
	for (i = 0; i < rs->n; i++)
		if (rs->rules[i].name)
			v[n++] = &rs->rules[i];
	qsort(v, n, sizeof(*v), name_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(v[i]->name, v[first]->name)) {
			first = i;
			continue;
		}
		perr(c, v[i]->pos, "duplicate rule name '%s' (first at line %d)",
		     diag_echo(v[i]->name, strlen(v[i]->name), e), v[first]->pos.line);
	}
	free(v);
}

static void file_pair(struct pctx *c, const struct keydef *d, yaml_node_t *k, yaml_node_t *v,
		      void *dst)
{
	struct ruleset *rs = dst;
	yaml_node_item_t *it;
	double ver;
	char buf[64];
	size_t n;

	if (d->t == VT_VERSION) {
		parse_value(c, v, d->key, d->t, &ver, NULL);
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		perr(c, node_pos(v), "rules: expected a list of rules ('- name: ...'), got %s",
		     node_desc(v, buf, sizeof(buf)));
		return;
	}
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if (!n) {
		perr(c, node_pos(v), "rules: the list is empty; expected at least one rule");
		return;
	}
	rs->rules = calloc(n, sizeof(*rs->rules));
	if (!rs->rules) {
		c->y.d.nomem = true;
		return;
	}
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
		if (node(c, *it))
			parse_rule(c, node(c, *it), rs);
	check_duplicates(c, rs);
}

/* deeper than any rules file goes: the top, rules, a rule, match, a value */
static const struct ywalk_opts rules_yaml = {
	.max_depth = 16,
	.needs = "a rules file needs 4 (rules, a rule, match, a value)",
	.aliases = "rules files do not",
	.alias_anchor = true,
	.context = true,
};

int rules_parse(struct ruleset *rs, const char *file, const char *buf, size_t len, FILE *diag)
{
	struct rpos seen[RULES_MAX_KEYS] = {};
	struct pctx c;
	yaml_node_t *root;
	char dbuf[64];
	bool ok;
	int n;

	memset(rs, 0, sizeof(*rs));
	rs->file = strdup(file);
	if (!rs->file) {
		rules_free(rs);
		return -ENOMEM;
	}
	root = ywalk_load(&c.y, &rules_yaml, file, diag, buf, len, &ok);
	if (!ok) {
		/* refused: said */
	} else if (!root) {
		perr(&c, (struct rpos){ 1, 1 },
		     "the file is empty; expected a mapping with a "
		     "'rules' list");
	} else if (root->type != YAML_MAPPING_NODE) {
		perr(&c, node_pos(root),
		     "expected a mapping with a 'rules' list at the top, "
		     "got %s",
		     node_desc(root, dbuf, sizeof(dbuf)));
	} else {
		walk_mapping(&c, root, "the top level", file_keys, seen, file_pair, rs);
		if (!seen[1].line)
			perr(&c, node_pos(root),
			     "no 'rules' list; expected 'rules:' with at least "
			     "one rule");
		ywalk_second_document(&c.y, true);
	}
	n = ywalk_end(&c.y);
	if (n < 0) {
		rules_free(rs);
		return -ENOMEM;
	}
	if (n) {
		char *f = rs->file;

		rs->file = NULL;
		rules_free(rs);
		rs->file = f;
	}
	return n;
}

void rules_free(struct ruleset *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		struct rule *r = &rs->rules[i];

		free(r->name);
		free(r->description);
		free(r->match.device);
		free(r->match.driver);
		free(r->match.pool);
		free(r->match.netns);
	}
	free(rs->rules);
	free(rs->file);
	memset(rs, 0, sizeof(*rs));
}

int rules_resolve_netns(struct ruleset *rs, int (*resolve)(const char *name, __u32 *ino),
			FILE *diag)
{
	char e[DIAG_ECHO_MAX + 4];
	int errors = 0, err;
	uint64_t v;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		struct rule_match *m = &rs->rules[i].match;

		if (!m->netns)
			continue;
		if (!parse_u64(m->netns, 1, UINT32_MAX, &v)) {
			m->netns_ino = v;
			continue;
		}
		err = resolve(m->netns, &m->netns_ino);
		if (err) {
			errors++;
			if (diag)
				fprintf(diag,
					"%s:%d:%d: error: netns '%s': %s; expected a name "
					"under /run/netns, a path or an inode number\n",
					rs->file, m->netns_pos.line, m->netns_pos.col,
					diag_echo(m->netns, strlen(m->netns), e), strerror(-err));
		}
	}
	return errors;
}

/* ---- evaluation ------------------------------------------------------------------ */
