// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A reading's sources meet here: the collector fills it from the BPF maps,
 * then the monitor adds what netlink and the item-block walk said. Pure:
 * the unit tests merge hand-made readings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/blocks.h"
#include "model/pool_stats.h"
#include "model/reading.h"

void reading_reset(struct reading *rd)
{
	struct pool_obs *pools = rd->pools;
	size_t cap = rd->cap;

	memset(rd, 0, sizeof(*rd));
	rd->pools = pools;
	rd->cap = cap;
}

void reading_free(struct reading *rd)
{
	free(rd->pools);
	memset(rd, 0, sizeof(*rd));
}

struct by_id {
	__u32 id;
	size_t idx;
};

static int by_id_cmp(const void *a, const void *b)
{
	const struct by_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int reading_add_netlink(struct reading *rd, const struct nl_pool *v, size_t n)
{
	struct by_id *idx = NULL, key, *hit;
	size_t nidx = 0, i, have = rd->n;
	int only = 0;
	struct pool_obs *o;

	if (!n)
		return 0;
	/* the BPF records netlink can name: not freed, with an id */
	if (have) {
		idx = calloc(have, sizeof(*idx));
		if (!idx)
			return -ENOMEM;
	}
	for (i = 0; i < have; i++)
		if (rd->pools[i].rec.addr && rd->pools[i].rec.id &&
		    rd->pools[i].rec.state != PPW_POOL_FREED)
			idx[nidx++] = (struct by_id){ rd->pools[i].rec.id, i };
	if (nidx)
		qsort(idx, nidx, sizeof(*idx), by_id_cmp);
	/* room for every netlink-only pool first: a failure changes nothing */
	if (have + n > rd->cap) {
		struct pool_obs *p = vec_grow(rd->pools, &rd->cap, have + n, sizeof(*p));

		if (!p) {
			free(idx);
			return -ENOMEM;
		}
		rd->pools = p;
	}
	for (i = 0; i < n; i++) {
		key.id = v[i].id;
		hit = nidx ? bsearch(&key, idx, nidx, sizeof(*idx), by_id_cmp) : NULL;
		o = hit ? &rd->pools[hit->idx] : VEC_PUSH(rd->pools, rd->n, rd->cap);
		o->has_nl = true;
		o->nl = v[i];
		only += !hit;
	}
	free(idx);
	return only;
}

void reading_add_blocks(struct reading *rd, const struct blocks_scan *bs)
{
	const struct pool_blocks *pb;
	size_t i;

	for (i = 0; i < rd->n; i++) {
		if (!rd->pools[i].rec.addr)
			continue;
		pb = blocks_find(bs, rd->pools[i].rec.addr, rd->pools[i].rec.gen);
		if (pb) {
			rd->pools[i].has_occ = true;
			rd->pools[i].occ = pb->occ;
		}
	}
}

void reading_add_stats(struct reading *rd, const struct stats_scan *ss)
{
	const struct ppw_stats_rec *r;
	size_t i;

	for (i = 0; i < rd->n; i++) {
		if (!rd->pools[i].rec.addr)
			continue;
		r = stats_find(ss, rd->pools[i].rec.addr, rd->pools[i].rec.gen);
		if (r)
			pp_stats_of_rec(&rd->pools[i].stats, r);
	}
}
