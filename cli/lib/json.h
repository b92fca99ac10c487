/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small streaming JSON writer. Compact output is one line per document,
 * so a stream of documents is JSON Lines; -p pretty-prints.
 */
#ifndef __PPWATCH_LIB_JSON_H
#define __PPWATCH_LIB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	bool pretty;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_open(struct json *j);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j);
void json_arr_close(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_s64(struct json *j, int64_t v);
void json_f64(struct json *j, double v); /* non-finite -> null */
void json_bool(struct json *j, bool v);
void json_put_null(struct json *j);
/* end of a top-level document: newline and flush */
void json_end(struct json *j);

static inline void json_kv_str(struct json *j, const char *k, const char *v)
{
	json_key(j, k);
	json_str(j, v);
}

static inline void json_kv_u64(struct json *j, const char *k, uint64_t v)
{
	json_key(j, k);
	json_u64(j, v);
}

static inline void json_kv_s64(struct json *j, const char *k, int64_t v)
{
	json_key(j, k);
	json_s64(j, v);
}

static inline void json_kv_f64(struct json *j, const char *k, double v)
{
	json_key(j, k);
	json_f64(j, v);
}

static inline void json_kv_bool(struct json *j, const char *k, bool v)
{
	json_key(j, k);
	json_bool(j, v);
}

#endif /* __PPWATCH_LIB_JSON_H */
