// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/lifecycle.h"

static const char *const kind_names[LE_KIND_MAX] = {
	[LE_NEW] = "new",
	[LE_DESTROY] = "destroy",
	[LE_RETRY] = "retry",
	[LE_STALLED] = "stalled",
	[LE_UNMAP] = "unmap",
	[LE_FREED] = "freed",
	[LE_NID] = "nid",
	[LE_NL_ADD] = "netlink_add",
	[LE_NL_CHANGE] = "netlink_change",
	[LE_NL_DEL] = "netlink_del",
	[LE_BLOCK_ALLOC] = "block_alloc",
	[LE_BLOCK_FREE] = "block_free",
	[LE_SLOW_FAILED] = "item_slow_failed",
};

const char *life_kind_name(enum life_kind k)
{
	return k > 0 && k < LE_KIND_MAX ? kind_names[k] : "?";
}

int life_kind_parse(const char *s)
{
	int k;

	for (k = 1; k < LE_KIND_MAX; k++)
		if (!strcmp(s, kind_names[k]))
			return k;
	return -EINVAL;
}

void life_init(struct lifecycle *lc, double stall_after_s, size_t max_freed)
{
	memset(lc, 0, sizeof(*lc));
	lc->stall_after_s = stall_after_s;
	lc->max_freed = max_freed;
}

void life_free(struct lifecycle *lc)
{
	free(lc->v);
	memset(lc, 0, sizeof(*lc));
}

struct pool_life *life_find(struct lifecycle *lc, __u64 addr, __u32 gen)
{
	size_t i;

	for (i = 0; i < lc->n; i++)
		if (lc->v[i].addr == addr && lc->v[i].gen == gen)
			return &lc->v[i];
	return NULL;
}

static struct pool_life *find_id(struct lifecycle *lc, __u32 id)
{
	size_t i;

	for (i = lc->n; i > 0; i--) /* newest first: ids are not reused soon */
		if (lc->v[i - 1].id == id)
			return &lc->v[i - 1];
	return NULL;
}

/* drop the oldest freed pools beyond the bound */
static void trim_freed(struct lifecycle *lc)
{
	size_t freed = 0, i, n = 0, drop;

	for (i = 0; i < lc->n; i++)
		freed += lc->v[i].freed_ns != 0;
	if (freed <= lc->max_freed)
		return;
	drop = freed - lc->max_freed;
	for (i = 0; i < lc->n; i++) {
		if (drop && lc->v[i].freed_ns) {
			drop--;
			continue;
		}
		lc->v[n++] = lc->v[i];
	}
	lc->n = n;
}

static struct pool_life *get(struct lifecycle *lc, __u64 addr, __u32 gen, __u64 ts)
{
	struct pool_life *p = life_find(lc, addr, gen);

	if (p)
		return p;
	p = VEC_PUSH(lc->v, lc->n, lc->cap);
	if (!p)
		return NULL;
	p->addr = addr;
	p->gen = gen;
	p->first_ns = ts;
	return p;
}

/* keep the first events and the latest: retries beyond the bound replace the last slot */
static void keep(struct pool_life *p, const struct life_event *e)
{
	if (p->nevents < LIFE_MAX_EVENTS) {
		p->events[p->nevents++] = *e;
		return;
	}
	p->dropped_events++;
	p->events[LIFE_MAX_EVENTS - 1] = *e;
}

int life_on_bpf(struct lifecycle *lc, const struct ppw_event *e, double detach_age_s,
		struct life_event *out)
{
	struct pool_life *p;

	memset(out, 0, sizeof(*out));
	out->ts_ns = e->ts_ns;
	out->pool = e->rec.addr;
	out->gen = e->rec.gen;
	out->id = e->rec.id;
	out->inflight = e->inflight;
	out->nid = e->rec.nid;
	out->rec = e->rec;
	out->detach_age_s = detach_age_s;
	switch (e->type) {
	case PPW_EV_POOL_NEW:
		out->kind = LE_NEW;
		break;
	case PPW_EV_DESTROY:
		out->kind = LE_DESTROY;
		break;
	case PPW_EV_RETRY:
		out->kind = LE_RETRY;
		break;
	case PPW_EV_FREED:
		out->kind = LE_FREED;
		break;
	case PPW_EV_NID:
		out->kind = LE_NID;
		break;
	case PPW_EV_UNMAP:
		out->kind = LE_UNMAP;
		break;
	case PPW_EV_BLOCK_ALLOC:
		out->kind = LE_BLOCK_ALLOC;
		break;
	case PPW_EV_BLOCK_FREE:
		out->kind = LE_BLOCK_FREE;
		break;
	case PPW_EV_SLOW_FAILED:
		out->kind = LE_SLOW_FAILED;
		break;
	default:
		return 0; /* PPW_EV_POOL_RETIRED: the collector's business */
	}
	p = get(lc, e->rec.addr, e->rec.gen, e->ts_ns);
	if (!p)
		return -ENOMEM;
	p->id = e->rec.id;
	p->rec = e->rec;
	switch (out->kind) {
	case LE_DESTROY:
		p->destroy_ns = e->ts_ns;
		break;
	case LE_RETRY:
		/* destroy_cnt counts page_pool_release() calls: 1 is the destroy */
		out->retry = p->retries = e->rec.destroy_cnt > 1 ? e->rec.destroy_cnt - 1 :
								   p->retries + 1;
		if (!p->first_retry_ns)
			p->first_retry_ns = e->ts_ns;
		p->last_retry_ns = e->ts_ns;
		break;
	case LE_FREED:
		p->freed_ns = e->ts_ns;
		break;
	case LE_UNMAP:
		p->unmap_ns = e->ts_ns;
		break;
	default:
		break;
	}
	keep(p, out);
	life_sample(lc, e->rec.addr, e->rec.gen, e->ts_ns, e->inflight);
	if (out->kind == LE_FREED)
		trim_freed(lc);
	return 1;
}

int life_on_netlink(struct lifecycle *lc, int cmd, __u32 id, __u64 now_ns, struct life_event *out)
{
	struct pool_life *p = find_id(lc, id);

	memset(out, 0, sizeof(*out));
	out->ts_ns = now_ns;
	out->id = id;
	out->detach_age_s = NAN;
	switch (cmd) {
	case 6:
		out->kind = LE_NL_ADD;
		break; /* PAGE_POOL_ADD_NTF */
	case 7:
		out->kind = LE_NL_DEL;
		break; /* PAGE_POOL_DEL_NTF */
	case 8:
		out->kind = LE_NL_CHANGE;
		break; /* PAGE_POOL_CHANGE_NTF */
	default:
		return 0;
	}
	if (p) {
		out->pool = p->addr;
		out->gen = p->gen;
		out->rec = p->rec;
		keep(p, out);
	}
	return 1;
}

int life_tick(struct lifecycle *lc, __u64 now_ns,
	      double (*detach_age_s)(const struct pool_life *, void *), void *arg,
	      struct life_event *out, int max)
{
	int n = 0;
	size_t i;

	for (i = 0; i < lc->n && n < max; i++) {
		struct pool_life *p = &lc->v[i];
		double age;

		if (p->stalled_ns || p->freed_ns)
			continue;
		age = detach_age_s(p, arg);
		if (isnan(age) || age < lc->stall_after_s)
			continue;
		p->stalled_ns = now_ns;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].kind = LE_STALLED;
		out[n].ts_ns = now_ns;
		out[n].pool = p->addr;
		out[n].gen = p->gen;
		out[n].id = p->id;
		out[n].rec = p->rec;
		out[n].inflight = p->rec.last_inflight;
		out[n].retry = p->retries;
		out[n].detach_age_s = age;
		keep(p, &out[n]);
		n++;
	}
	return n;
}

void life_sample(struct lifecycle *lc, __u64 addr, __u32 gen, __u64 ts_ns, __s32 inflight)
{
	struct pool_life *p = life_find(lc, addr, gen);
	size_t i;

	if (!p)
		return;
	if (p->nsamples && p->samples[p->nsamples - 1].inflight == inflight && p->nsamples > 1 &&
	    p->samples[p->nsamples - 2].inflight == inflight) {
		p->samples[p->nsamples - 1].ts_ns = ts_ns; /* a flat stretch: extend it */
		return;
	}
	if (p->nsamples == LIFE_MAX_SAMPLES) {
		/* halve the resolution: keep every other sample */
		for (i = 0; i < LIFE_MAX_SAMPLES / 2; i++)
			p->samples[i] = p->samples[2 * i + 1];
		p->nsamples = LIFE_MAX_SAMPLES / 2;
	}
	p->samples[p->nsamples].ts_ns = ts_ns;
	p->samples[p->nsamples].inflight = inflight;
	p->nsamples++;
}
