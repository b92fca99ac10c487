/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one YAML walker of the files ppwatch reads (the rules file,
 * model/rules.c; the exporter's web config, model/web_config.c): libyaml
 * builds the node tree, and this is what both do with it.
 *
 *  - ywalk_load(): a prescan refuses what would make libyaml's load pay
 *    too much before it runs (deep flow nesting is quadratic in its
 *    scanner; an alias hands the same node to the walk again and again),
 *    then the load, its syntax errors at LINE:COL;
 *  - positions (ywalk_pos()), one node of the document (ywalk_node()),
 *    a scalar's text (ywalk_scalar(): a list, a mapping, nothing or a NUL
 *    byte reported), an unknown key with the key it looks like
 *    (ywalk_unknown_key());
 *  - ywalk_second_document(): a second document would be ignored
 *    silently, so it is refused;
 *  - ywalk_end(): everything let go, the diagnostics printed in file
 *    order (model/diag.h).
 *
 * What differs between the files (the depth one needs, how its messages
 * name the file) is in struct ywalk_opts; the messages are those each
 * parser always gave. Pure: a buffer in, no file I/O.
 */
#ifndef __PPWATCH_MODEL_YAML_WALK_H
#define __PPWATCH_MODEL_YAML_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <yaml.h>

#include "model/diag.h"

struct ywalk_opts {
	int max_depth;	   /* deeper nesting is refused by the prescan */
	const char *needs; /* "a rules file needs 4 (...)", after "nested deeper than N levels; " */
	const char *aliases; /* "rules files do not", before " expand aliases" */
	bool alias_anchor;   /* name the alias: "an alias (*x)" */
	bool context;	     /* libyaml's context in "invalid YAML" messages */
};

struct ywalk {
	struct diags d;
	const struct ywalk_opts *o;
	yaml_parser_t p;
	yaml_document_t doc;
	bool parser, loaded;
};

#define ywerr(y, p, ...) diag_add(&(y)->d, p, __VA_ARGS__)

/*
 * Start a walk of buf as file (diagnostics to diag; NULL: counted only):
 * the document's root, or NULL with *ok false when the prescan or the
 * load refused it (reported), or with *ok true for an empty document.
 */
yaml_node_t *ywalk_load(struct ywalk *y, const struct ywalk_opts *o, const char *file, FILE *diag,
			const char *buf, size_t len, bool *ok);
/* a second document after the first: refused; with 'errors', libyaml's errors in it reported */
void ywalk_second_document(struct ywalk *y, bool errors);
/* everything let go, the diagnostics printed: the number of errors, or -ENOMEM */
int ywalk_end(struct ywalk *y);

struct rpos ywalk_pos(const yaml_node_t *n);
struct rpos ywalk_mark_pos(yaml_mark_t m);
yaml_node_t *ywalk_node(struct ywalk *y, int idx);
/* "a list", "a mapping", "nothing" (an empty scalar too), "a value" */
const char *ywalk_kind(const yaml_node_t *n);
/* a scalar's text, or NULL (reported as "KEY: expected EXPECTED, got ...") */
const char *ywalk_scalar(struct ywalk *y, const yaml_node_t *v, const char *key,
			 const char *expected);
/*
 * "unknown key 'K' in WHERE; did you mean 'X'? (expected one of: ...)":
 * the keys are the 'key' member at the start of each struct of a table
 * of 'stride' bytes ending at a NULL key; those whose pointer at
 * 'skip_off' is not NULL are not offered (-1: none skipped)
 */
void ywalk_unknown_key(struct ywalk *y, const yaml_node_t *k, const char *where, const void *keys,
		       size_t stride, long skip_off);
/* strdup, or NULL with the walk's out-of-memory noted */
char *ywalk_strdup(struct ywalk *y, const char *s);

#endif /* __PPWATCH_MODEL_YAML_WALK_H */
