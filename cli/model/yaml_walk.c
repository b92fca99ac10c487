// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/yaml_walk.h"

struct rpos ywalk_pos(const yaml_node_t *n)
{
	return (struct rpos){ (int)n->start_mark.line + 1, (int)n->start_mark.column + 1 };
}

struct rpos ywalk_mark_pos(yaml_mark_t m)
{
	return (struct rpos){ (int)m.line + 1, (int)m.column + 1 };
}

yaml_node_t *ywalk_node(struct ywalk *y, int idx)
{
	return yaml_document_get_node(&y->doc, idx);
}

const char *ywalk_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return n->data.scalar.length ? "a value" : "nothing";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

const char *ywalk_scalar(struct ywalk *y, const yaml_node_t *v, const char *key,
			 const char *expected)
{
	if (v->type != YAML_SCALAR_NODE || !v->data.scalar.length) {
		ywerr(y, ywalk_pos(v), "%s: expected %s, got %s", key, expected, ywalk_kind(v));
		return NULL;
	}
	if (strlen((const char *)v->data.scalar.value) != v->data.scalar.length) {
		ywerr(y, ywalk_pos(v), "%s: a NUL byte in the value; expected %s", key, expected);
		return NULL;
	}
	return (const char *)v->data.scalar.value;
}

char *ywalk_strdup(struct ywalk *y, const char *s)
{
	char *r = strdup(s);

	if (!r)
		y->d.nomem = true;
	return r;
}

void ywalk_unknown_key(struct ywalk *y, const yaml_node_t *k, const char *where, const void *keys,
		       size_t stride, long skip_off)
{
	const char *key = (const char *)k->data.scalar.value, *best = NULL, *name;
	size_t bestd = strlen(key) >= 8 ? 4 : 3, d, off = 0;
	char list[512], e[DIAG_ECHO_MAX + 4];
	const char *kd;

	list[0] = 0;
	for (kd = keys; (name = *(const char *const *)kd); kd += stride) {
		if (skip_off >= 0 && *(const char *const *)(kd + skip_off))
			continue;
		off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s%s",
				off ? ", " : "", name);
		d = diag_distance(key, name);
		if (d < bestd) {
			bestd = d;
			best = name;
		}
	}
	key = diag_echo(key, k->data.scalar.length, e);
	if (best)
		ywerr(y, ywalk_pos(k),
		      "unknown key '%s' in %s; did you mean '%s'? (expected one of: %s)", key,
		      where, best, list);
	else
		ywerr(y, ywalk_pos(k), "unknown key '%s' in %s; expected one of: %s", key, where,
		      list);
}

/*
 * libyaml's scanner keeps a possible simple key per flow level and looks
 * at all of them at every token, so deep flow nesting is quadratic (200 KB
 * of '[' took minutes); and the loader resolves an alias to the node it
 * names, so a list of aliases hands the same mapping to the walk again and
 * again (200 KB grew past 10 GB of diagnostics). One pass over the events
 * refuses both before the load pays for them: it stops at the first level
 * too deep or the first alias. Syntax errors are left to the load, which
 * reports them.
 */
static bool prescan(struct ywalk *y, const char *buf, size_t len)
{
	char e[DIAG_ECHO_MAX + 4];
	yaml_parser_t p;
	yaml_event_t ev;
	bool ok = true, end = false;
	int depth = 0;

	if (!yaml_parser_initialize(&p)) {
		y->d.nomem = true;
		return false;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (ok && !end && yaml_parser_parse(&p, &ev)) {
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth <= y->o->max_depth)
				break;
			ywerr(y, ywalk_mark_pos(ev.start_mark), "nested deeper than %d levels; %s",
			      y->o->max_depth, y->o->needs);
			ok = false;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_ALIAS_EVENT:
			if (y->o->alias_anchor)
				ywerr(y, ywalk_mark_pos(ev.start_mark),
				      "an alias (*%s): %s expand aliases; write the value out",
				      diag_echo((const char *)ev.data.alias.anchor,
						strlen((const char *)ev.data.alias.anchor), e),
				      y->o->aliases);
			else
				ywerr(y, ywalk_mark_pos(ev.start_mark),
				      "an alias: %s expand aliases; write the value out",
				      y->o->aliases);
			ok = false;
			break;
		case YAML_STREAM_END_EVENT:
			end = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	if (p.error == YAML_MEMORY_ERROR)
		y->d.nomem = true;
	yaml_parser_delete(&p);
	return ok;
}

/* libyaml's own errors: problem at a mark, maybe with a context */
static void yaml_error(struct ywalk *y)
{
	const yaml_parser_t *p = &y->p;
	struct rpos pos = ywalk_mark_pos(p->problem_mark);

	if (p->error == YAML_MEMORY_ERROR) {
		y->d.nomem = true;
		return;
	}
	if (y->o->context && p->context)
		ywerr(y, pos, "invalid YAML: %s %s (line %d, column %d)", p->problem ?: "error",
		      p->context, (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	else
		ywerr(y, pos, "invalid YAML: %s", p->problem ?: "error");
}

yaml_node_t *ywalk_load(struct ywalk *y, const struct ywalk_opts *o, const char *file, FILE *diag,
			const char *buf, size_t len, bool *ok)
{
	yaml_node_t *root;

	memset(y, 0, sizeof(*y));
	y->d = (struct diags){ .file = file, .out = diag };
	y->o = o;
	*ok = false;
	if (!yaml_parser_initialize(&y->p)) {
		y->d.nomem = true;
		return NULL;
	}
	y->parser = true;
	yaml_parser_set_input_string(&y->p, (const unsigned char *)buf, len);
	if (!prescan(y, buf, len))
		return NULL;
	if (!yaml_parser_load(&y->p, &y->doc)) {
		yaml_error(y);
		return NULL;
	}
	y->loaded = true;
	*ok = true;
	root = yaml_document_get_root_node(&y->doc);
	return root;
}

void ywalk_second_document(struct ywalk *y, bool errors)
{
	yaml_document_t extra;

	if (yaml_parser_load(&y->p, &extra)) {
		if (yaml_document_get_root_node(&extra))
			ywerr(y, ywalk_mark_pos(extra.start_mark),
			      "a second YAML document; expected one document per file");
		yaml_document_delete(&extra);
	} else if (errors) {
		yaml_error(y);
	}
}

int ywalk_end(struct ywalk *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	if (y->parser)
		yaml_parser_delete(&y->p);
	y->loaded = y->parser = false;
	diag_flush(&y->d);
	return y->d.nomem ? -ENOMEM : y->d.errors;
}
