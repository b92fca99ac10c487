/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A record within the record bound: one that would be longer than the
 * bound (a holder scan of a big host, a snapshot of thousands of pools
 * on a small --max-size) is written as parts, each a record of its own
 * of at most the bound, with "part": k and "parts": n, sharing its "seq"
 * (docs/schema/recording/, ppwatch-record(8) RECORD TYPES):
 *
 *   {"type":T,"time":..,"seq":S,"part":1,"parts":2, EACH, ONCE, KEY:[e1,e2]}
 *   {"type":T,"time":..,"seq":S,"part":2,"parts":2, EACH, KEY:[e3]}
 *
 * EACH are the members every part repeats (a pages record's pool), ONCE
 * those of the first part only (a snapshot's ledger), KEY the array that
 * is split. An element of KEY may be a group, an object with an array of
 * its own (a holder scan's pool and its holders): a group that does not
 * fit is split too, its members repeated in each part with a piece of
 * its array. An element that alone would pass the bound is left out and
 * counted ("elements_dropped" in the part it belonged to): said, never
 * silent. A record that fits is written whole, with no part members.
 *
 * Pure: pieces of JSON text in, bytes out through a callback.
 */
#ifndef __PPWATCH_OUTPUT_RECORD_PARTS_H
#define __PPWATCH_OUTPUT_RECORD_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"

/* JSON text: an object's members (no braces), or one whole value */
struct rp_piece {
	char *s;
	size_t n;
};

struct rp_group {
	struct rp_piece head; /* a whole element; or, with inner_key, its members */
	const char *inner_key;
	struct rp_piece *inner;
	size_t ninner, cap;
};

struct rparts {
	struct rp_piece each, once;
	const char *key;
	struct rp_group *g;
	size_t ng, cap;
	bool nomem; /* an add failed: the record is incomplete (the caller says so) */
};

/* capturing JSON text into a piece: rp_capture_begin(), write, rp_capture_end() */
struct rp_capture {
	FILE *f;
	char *s;
	size_t n;
	struct json j;
};

/* a writer to capture one value into: NULL without memory */
struct json *rp_capture_begin(struct rp_capture *c);
/* the text captured: a whole value, or (members) an object's members without its braces */
int rp_capture_end(struct rp_capture *c, struct rp_piece *out, bool members);

void rparts_init(struct rparts *p, const char *key);
void rparts_free(struct rparts *p);
/* an element of key (taken: freed with p) */
void rparts_add(struct rparts *p, struct rp_piece whole);
/* a group element: its members, and inner_key's array to come with rparts_inner() */
void rparts_group(struct rparts *p, struct rp_piece members, const char *inner_key);
void rparts_inner(struct rparts *p, struct rp_piece item);

/*
 * Write the record: prefix is its start, '{' and the members every record
 * begins with ("type", "time", "seq"); each part at most limit bytes with
 * its newline. out() takes each part whole; its error stops the rest.
 * Returns 0 or out()'s error; *parts and *dropped say how many were
 * written and how many elements were left out.
 */
int rparts_emit(const struct rparts *p, const char *prefix, size_t limit,
		int (*out)(void *arg, const char *buf, size_t len), void *arg, unsigned *parts,
		uint64_t *dropped);

#endif /* __PPWATCH_OUTPUT_RECORD_PARTS_H */
