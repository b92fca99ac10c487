// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonp.h"
#include "lib/vec.h"

#define JV_MAX_DEPTH 64

struct parser {
	const char *s, *p;
	char *err;
	size_t errlen;
	int depth;
};

static void fail(struct parser *ps, const char *what)
{
	if (ps->err && !ps->err[0])
		snprintf(ps->err, ps->errlen, "%s at offset %zu", what, (size_t)(ps->p - ps->s));
}

static void ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

struct jv *jv_new(enum jtype t)
{
	struct jv *v = calloc(1, sizeof(*v));

	if (v)
		v->t = t;
	return v;
}

static void jv_clear(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jv_clear(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	jv_clear(v);
	free(v);
}

static struct jv *grow(struct jv *c, const char *key)
{
	if (c->n == c->cap) {
		/* items and keys grow in step: cap counts both */
		size_t icap = c->cap, kcap = c->cap;
		struct jv *items = vec_grow(c->items, &icap, c->n + 1, sizeof(*items));
		char **keys;

		if (!items)
			return NULL;
		c->items = items;
		if (c->t == JV_OBJ) {
			keys = vec_grow(c->keys, &kcap, c->n + 1, sizeof(*keys));
			if (!keys)
				return NULL;
			c->keys = keys;
		}
		c->cap = icap;
	}
	memset(&c->items[c->n], 0, sizeof(c->items[0]));
	if (c->t == JV_OBJ)
		c->keys[c->n] = strdup(key ? key : "");
	return &c->items[c->n++];
}

static int parse_value(struct parser *ps, struct jv *v);

static int hex4(const char *p, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *parse_string(struct parser *ps)
{
	size_t cap = 32, n = 0;
	char *out = malloc(cap);
	unsigned int cp;

	if (!out)
		return NULL;
	ps->p++;	/* opening quote */
	while (*ps->p && *ps->p != '"') {
		char c = *ps->p++;

		if (n + 5 >= cap) {
			char *o = vec_grow(out, &cap, n + 6, 1);

			if (!o)
				goto bad;
			out = o;
		}
		if ((unsigned char)c < 0x20) {
			fail(ps, "control character in string");
			goto bad;
		}
		if (c != '\\') {
			out[n++] = c;
			continue;
		}
		c = *ps->p++;
		switch (c) {
		case '"': case '\\': case '/': out[n++] = c; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u':
			if (hex4(ps->p, &cp)) {
				fail(ps, "bad \\u escape");
				goto bad;
			}
			ps->p += 4;
			/* UTF-8; surrogate pairs are not needed for our files */
			if (cp < 0x80) {
				out[n++] = cp;
			} else if (cp < 0x800) {
				out[n++] = 0xc0 | (cp >> 6);
				out[n++] = 0x80 | (cp & 0x3f);
			} else {
				out[n++] = 0xe0 | (cp >> 12);
				out[n++] = 0x80 | ((cp >> 6) & 0x3f);
				out[n++] = 0x80 | (cp & 0x3f);
			}
			break;
		default:
			fail(ps, "bad escape");
			goto bad;
		}
	}
	if (*ps->p != '"') {
		fail(ps, "unterminated string");
		goto bad;
	}
	ps->p++;
	out[n] = 0;
	return out;
bad:
	free(out);
	return NULL;
}

static int parse_container(struct parser *ps, struct jv *v, char close)
{
	char *key = NULL;
	struct jv *item;

	if (++ps->depth > JV_MAX_DEPTH) {
		fail(ps, "nested too deep");
		return -1;
	}
	ps->p++;
	ws(ps);
	if (*ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		ws(ps);
		if (v->t == JV_OBJ) {
			if (*ps->p != '"') {
				fail(ps, "expected a key");
				return -1;
			}
			key = parse_string(ps);
			if (!key)
				return -1;
			ws(ps);
			if (*ps->p++ != ':') {
				free(key);
				fail(ps, "expected ':'");
				return -1;
			}
		}
		item = grow(v, key);
		free(key);
		key = NULL;
		if (!item || parse_value(ps, item))
			return -1;
		ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == close) {
			ps->p++;
			ps->depth--;
			return 0;
		}
		fail(ps, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		return -1;
	}
}

static int parse_value(struct parser *ps, struct jv *v)
{
	char *end;

	ws(ps);
	switch (*ps->p) {
	case '{':
		v->t = JV_OBJ;
		return parse_container(ps, v, '}');
	case '[':
		v->t = JV_ARR;
		return parse_container(ps, v, ']');
	case '"':
		v->t = JV_STR;
		v->str = parse_string(ps);
		return v->str ? 0 : -1;
	case 't':
		if (!strncmp(ps->p, "true", 4)) {
			v->t = JV_BOOL;
			v->b = true;
			ps->p += 4;
			return 0;
		}
		break;
	case 'f':
		if (!strncmp(ps->p, "false", 5)) {
			v->t = JV_BOOL;
			ps->p += 5;
			return 0;
		}
		break;
	case 'n':
		if (!strncmp(ps->p, "null", 4)) {
			v->t = JV_NULL;
			ps->p += 4;
			return 0;
		}
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) {
			v->t = JV_NUM;
			v->num = strtod(ps->p, &end);
			if (end == ps->p)
				break;
			ps->p = end;
			return 0;
		}
	}
	fail(ps, "unexpected character");
	return -1;
}

struct jv *jv_parse(const char *text, char *err, size_t errlen)
{
	struct parser ps = { text, text, err, errlen, 0 };
	struct jv *v = jv_new(JV_NULL);

	if (err && errlen)
		err[0] = 0;
	if (!v)
		return NULL;
	if (parse_value(&ps, v)) {
		jv_free(v);
		return NULL;
	}
	ws(&ps);
	if (*ps.p) {
		fail(&ps, "trailing characters");
		jv_free(v);
		return NULL;
	}
	return v;
}

const struct jv *jv_get(const struct jv *o, const char *key)
{
	size_t i;

	if (!o || o->t != JV_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}

const struct jv *jv_at(const struct jv *a, size_t i)
{
	return a && a->t == JV_ARR && i < a->n ? &a->items[i] : NULL;
}

double jv_num(const struct jv *v, double dflt)
{
	return v && v->t == JV_NUM ? v->num : dflt;
}

const char *jv_str(const struct jv *v, const char *dflt)
{
	return v && v->t == JV_STR ? v->str : dflt;
}

bool jv_is_null(const struct jv *v)
{
	return !v || v->t == JV_NULL;
}

struct jv *jv_push(struct jv *arr)
{
	return grow(arr, NULL);
}

struct jv *jv_set(struct jv *obj, const char *key)
{
	return grow(obj, key);
}

void jv_set_num(struct jv *obj, const char *key, double v)
{
	struct jv *m = jv_set(obj, key);

	if (!m)
		return;
	if (isfinite(v)) {
		m->t = JV_NUM;
		m->num = v;
	}
}

void jv_set_str(struct jv *obj, const char *key, const char *s)
{
	struct jv *m = jv_set(obj, key);

	if (m && s) {
		m->t = JV_STR;
		m->str = strdup(s);
	}
}

void jv_set_bool(struct jv *obj, const char *key, bool b)
{
	struct jv *m = jv_set(obj, key);

	if (m) {
		m->t = JV_BOOL;
		m->b = b;
	}
}

void jv_set_null(struct jv *obj, const char *key)
{
	jv_set(obj, key);
}

struct jv *jv_copy_into(struct jv *dst, const struct jv *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	dst->t = src->t;
	dst->b = src->b;
	dst->num = src->num;
	if (src->str)
		dst->str = strdup(src->str);
	for (i = 0; i < src->n; i++) {
		struct jv *c = grow(dst, src->keys ? src->keys[i] : NULL);

		if (c)
			jv_copy_into(c, &src->items[i]);
	}
	return dst;
}

void jv_write(struct json *j, const struct jv *v)
{
	size_t i;

	switch (v->t) {
	case JV_NULL: json_put_null(j); break;
	case JV_BOOL: json_bool(j, v->b); break;
	case JV_NUM: json_f64(j, v->num); break;
	case JV_STR: json_str(j, v->str); break;
	case JV_ARR:
		json_arr_open(j);
		for (i = 0; i < v->n; i++)
			jv_write(j, &v->items[i]);
		json_arr_close(j);
		break;
	case JV_OBJ:
		json_obj_open(j);
		for (i = 0; i < v->n; i++) {
			json_key(j, v->keys[i]);
			jv_write(j, &v->items[i]);
		}
		json_obj_close(j);
		break;
	}
}
