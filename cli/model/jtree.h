/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Building the post-mortem report's JSON tree (jansson): the few steps
 * every part that adds to it takes, each failure for want of memory kept
 * in one flag the builder checks at its end.
 */
#ifndef __PPWATCH_MODEL_JTREE_H
#define __PPWATCH_MODEL_JTREE_H

#include <math.h>
#include <stdbool.h>

#include <jansson.h>

/* obj.key = v (its reference taken; NULL: a failed allocation); *nomem when it fails */
static inline void jt_put(bool *nomem, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v))
		*nomem = true;
}

/* a number, or null for what JSON cannot carry (NaN: unknown) */
static inline json_t *jt_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* a value shared with the tree it comes from, or null */
static inline json_t *jt_copy(const json_t *v)
{
	return v ? json_incref((json_t *)v) : json_null();
}

#endif /* __PPWATCH_MODEL_JTREE_H */
