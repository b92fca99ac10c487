/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Members of a parsed JSON object (jansson), read leniently: what a
 * recording or a report has, with a default for what it lacks or holds
 * as another type (a record is anyone's text).
 */
#ifndef __PPWATCH_LIB_JSON_READ_H
#define __PPWATCH_LIB_JSON_READ_H

#include <jansson.h>

/* a member's number (integer or real), or dflt when absent or not a number */
static inline double jnum(const json_t *obj, const char *key, double dflt)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* a member's string, or dflt when absent or not a string */
static inline const char *jstr(const json_t *obj, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : dflt;
}

#endif /* __PPWATCH_LIB_JSON_READ_H */
