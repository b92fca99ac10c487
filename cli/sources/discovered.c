// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "ppwatch.skel.h"
#include "sources/discovered.h"

static int gen_order(const void *a, const void *b)
{
	const struct ppw_pool *x = a, *y = b;

	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/*
 * The records the discovery scan created since the last call: their
 * generations are above every earlier scan's (next_gen() only grows, and
 * the scans run one after another), and nothing is read unless the
 * generation counter moved.
 */
int collector_discovered(struct collector *c, int (*fn)(void *ctx, void *data, size_t size),
			 void *ctx)
{
	int fd = bpf_map__fd(c->s->skel->maps.pools), err = 0;
	__u64 in_batch = 0, out_batch = 0, seq = 0;
	__u32 zero = 0, n, nnew = 0, i, end;
	bool first = true;

	if (bpf_map_lookup_elem(bpf_map__fd(c->s->skel->maps.pool_seq), &zero, &seq)) {
		err = -errno;
		p_err("reading the pool generation (map 'pool_seq'): %s", strerror(-err));
		return err;
	}
	if (seq == c->seen_seq)
		return 0;
	err = collector_pool_buffers(c);
	if (err)
		return err;
	do {
		n = c->pcap - nnew;
		err = bpf_map_lookup_batch(fd, first ? NULL : &in_batch, &out_batch,
					   c->pkeys + nnew, c->pvals + nnew, &n, NULL);
		if (err && errno != ENOENT) {
			err = -errno;
			p_err("reading the pool table (map 'pools'): %s", strerror(-err));
			return err;
		}
		for (i = nnew, end = nnew + n; i < end; i++)
			if ((c->pvals[i].flags & PPW_PF_DISCOVERED) &&
			    (__s32)(c->pvals[i].gen - c->disc_gen) > 0)
				c->pvals[nnew++] = c->pvals[i];
		in_batch = out_batch;
		first = false;
	} while (!err && nnew < c->pcap);
	c->seen_seq = seq;
	if (nnew)
		qsort(c->pvals, nnew, sizeof(*c->pvals), gen_order);
	for (i = 0; i < nnew; i++) {
		struct ppw_event e = {
			.type = PPW_EV_POOL_NEW,
			.ts_ns = c->pvals[i].first_seen_ns,
			.inflight = c->pvals[i].last_inflight,
			.rec = c->pvals[i],
		};

		c->disc_gen = e.rec.gen;
		err = fn(ctx, &e, sizeof(e));
		if (err)
			return err; /* reported */
	}
	return 0;
}
