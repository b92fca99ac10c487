/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small JSON reader (a DOM) for ppwatch's own record files, and the
 * value tree 'postmortem' builds its report in (text, JSON and YAML are
 * rendered from the same tree).
 */
#ifndef __PPWATCH_LIB_JSONP_H
#define __PPWATCH_LIB_JSONP_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/json.h"

enum jtype { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jtype t;
	bool b;
	double num;
	char *str;
	struct jv *items;	/* array elements or object values */
	char **keys;		/* object keys */
	size_t n, cap;
};

/* parse one JSON text; NULL on error with a message in err (position included) */
struct jv *jv_parse(const char *text, char *err, size_t errlen);
void jv_free(struct jv *v);

/* lookups: NULL / defaults when absent or of another type */
const struct jv *jv_get(const struct jv *obj, const char *key);
const struct jv *jv_at(const struct jv *arr, size_t i);
double jv_num(const struct jv *v, double dflt);
const char *jv_str(const struct jv *v, const char *dflt);
bool jv_is_null(const struct jv *v);

/* building */
struct jv *jv_new(enum jtype t);
struct jv *jv_push(struct jv *arr);			/* a new JV_NULL element */
struct jv *jv_set(struct jv *obj, const char *key);	/* a new JV_NULL member */
void jv_set_num(struct jv *obj, const char *key, double v);
void jv_set_str(struct jv *obj, const char *key, const char *s);
void jv_set_bool(struct jv *obj, const char *key, bool b);
void jv_set_null(struct jv *obj, const char *key);
struct jv *jv_copy_into(struct jv *dst, const struct jv *src);

void jv_write(struct json *j, const struct jv *v);

#endif /* __PPWATCH_LIB_JSONP_H */
