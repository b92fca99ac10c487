// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "model/reading.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "ppwatch.skel.h"
#include "sources/collector.h"

#define PAGE_BATCH 4096
/* a late state_release may still run after page_pool_release said 0 */
#define FREED_GRACE_NS (2 * NSEC_PER_SEC)

int collector_init(struct collector *c, struct session *s, double keep_freed_s)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->keep_freed_s = keep_freed_s;
	c->batch = PAGE_BATCH;
	c->keys = calloc(c->batch, sizeof(*c->keys));
	c->vals = calloc(c->batch, sizeof(*c->vals));
	if (!c->keys || !c->vals) {
		p_err("setting up the collector's page ledger buffers: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

void collector_free(struct collector *c)
{
	free(c->grave);
	free(c->keys);
	free(c->vals);
	free(c->pkeys);
	free(c->pvals);
	free(c->slots);
	free(c->gens);
	memset(c, 0, sizeof(*c));
}

/* keep a freed pool's last record (the newest one of its address and generation) */
static int grave_keep(struct collector *c, const struct ppw_pool *rec)
{
	struct ppw_pool *g;
	size_t i;

	for (i = 0; i < c->ngrave; i++)
		if (c->grave[i].addr == rec->addr && c->grave[i].gen == rec->gen) {
			c->grave[i] = *rec;
			return 0;
		}
	g = VEC_PUSH(c->grave, c->ngrave, c->capgrave);
	if (!g) {
		p_err("keeping the record of freed pool 0x%llx: %s", (unsigned long long)rec->addr,
		      strerror(ENOMEM));
		return -ENOMEM;
	}
	*g = *rec;
	return 0;
}

int collector_retired(struct collector *c, const struct ppw_event *e)
{
	struct ppw_pool rec = e->rec;

	/* the address now holds another pool: this one is gone */
	if (rec.state != PPW_POOL_FREED) {
		rec.state = PPW_POOL_FREED;
		rec.freed_ns = e->ts_ns;
	}
	return grave_keep(c, &rec);
}

static struct pool_obs *obs_add(struct reading *rd)
{
	struct pool_obs *o = VEC_PUSH(rd->pools, rd->n, rd->cap);

	if (!o)
		p_err("collecting the pools: %s", strerror(ENOMEM));
	return o;
}

/*
 * Read the pool table in batches, then trim it. Deleting while walking with
 * bpf_map_get_next_key() restarts the walk at the first key when the
 * current one is gone, which listed every pool before it twice.
 */
static int read_pools(struct collector *c, struct reading *rd)
{
	__u64 now = rd->now_ns;
	int fd = bpf_map__fd(c->s->skel->maps.pools), err;
	__u64 in_batch = 0, out_batch = 0;
	size_t i, ntrim = 0;
	bool first = true;
	__u32 n;

	if (!c->pkeys) {
		c->pcap = bpf_map__max_entries(c->s->skel->maps.pools);
		c->pkeys = calloc(c->pcap, sizeof(*c->pkeys));
		c->pvals = calloc(c->pcap, sizeof(*c->pvals));
		if (!c->pkeys || !c->pvals) {
			p_err("reading the pool table (map 'pools', %u entries): %s", c->pcap,
			      strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	do {
		n = c->pcap - ntrim;
		err = bpf_map_lookup_batch(fd, first ? NULL : &in_batch, &out_batch,
					   c->pkeys + ntrim, c->pvals + ntrim, &n, NULL);
		if (err && errno != ENOENT) {
			err = -errno;
			p_err("reading the pool table (map 'pools'): %s", strerror(-err));
			return err;
		}
		for (i = ntrim; i < ntrim + n; i++) {
			const struct ppw_pool *rec = &c->pvals[i];
			struct pool_obs *o;

			if (rec->state == PPW_POOL_FREED && now > rec->freed_ns + FREED_GRACE_NS) {
				/* keep it here, drop it from the kernel-side table below */
				err = grave_keep(c, rec);
				if (err)
					return err;
				c->pkeys[ntrim] = c->pkeys[i];
				c->pvals[ntrim++] = *rec;
				continue;
			}
			o = obs_add(rd);
			if (!o)
				return -ENOMEM;
			o->rec = *rec;
		}
		in_batch = out_batch;
		first = false;
	} while (!err && ntrim < c->pcap);
	for (i = 0; i < ntrim; i++) {
		struct ppw_pool again;

		/* unless the BPF side reused the slot for a new pool meanwhile */
		if (!bpf_map_lookup_elem(fd, &c->pkeys[i], &again) && again.gen == c->pvals[i].gen)
			bpf_map_delete_elem(fd, &c->pkeys[i]);
	}
	return 0;
}

/* the freed pools kept: listed for keep_freed_s, unless the table still has them */
static int list_grave(struct collector *c, struct reading *rd)
{
	__u64 now = rd->now_ns;
	__u64 keep = (__u64)(c->keep_freed_s * NSEC_PER_SEC);
	size_t i, n = 0, j;
	struct pool_obs *o;

	for (i = 0; i < c->ngrave; i++) {
		struct ppw_pool *g = &c->grave[i];

		if (g->freed_ns + keep < now)
			continue; /* expired */
		c->grave[n++] = *g;
		for (j = 0; j < rd->n; j++)
			if (rd->pools[j].rec.addr == g->addr && rd->pools[j].rec.gen == g->gen)
				break;
		if (j < rd->n)
			continue;
		o = obs_add(rd);
		if (!o)
			return -ENOMEM;
		o->rec = *g;
	}
	c->ngrave = n;
	return 0;
}

static int obs_cmp(const void *a, const void *b)
{
	const struct pool_obs *x = a, *y = b;

	if (x->rec.addr != y->rec.addr)
		return x->rec.addr < y->rec.addr ? -1 : 1;
	return x->rec.gen < y->rec.gen ? -1 : x->rec.gen > y->rec.gen;
}

static struct pool_obs *obs_find(const struct reading *rd, __u64 addr, __u32 gen)
{
	struct pool_obs key = { .rec = { .addr = addr, .gen = gen } };

	return rd->n ? bsearch(&key, rd->pools, rd->n, sizeof(*rd->pools), obs_cmp) : NULL;
}

/* ---- per-CPU pool slots ------------------------------------------------- */

/* the newer of two u32 counters (they wrap: compare by distance) */
static __u32 newer(__u32 a, __u32 b)
{
	return (__s32)(b - a) > 0 ? b : a;
}

/*
 * Fold every CPU's slots into the pool records: a pool's counters are the
 * newest any CPU saw, its sums the record's (what evicted slots gave back)
 * plus every live slot's. The event totals add every slot's events.
 */
static int fold_slots(struct collector *c, struct reading *rd)
{
	int fd = bpf_map__fd(c->s->skel->maps.pcpu_pools), ncpus = c->s->ncpus;
	struct ppw_pcpu_pool *v;
	__u32 key, cpu;

	if (!c->slots) {
		c->slots = calloc((size_t)ncpus, sizeof(*c->slots));
		if (!c->slots) {
			p_err("reading the per-CPU pool slots (map 'pcpu_pools', %d CPUs): %s",
			      ncpus, strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	v = c->slots;
	for (key = 0; key < PPW_PCPU_SLOTS; key++) {
		if (bpf_map_lookup_elem(fd, &key, v)) {
			int err = -errno;

			p_err("reading the per-CPU pool slots (map 'pcpu_pools', key %u): %s", key,
			      strerror(-err));
			return err;
		}
		for (cpu = 0; cpu < (__u32)ncpus; cpu++) {
			const struct ppw_pcpu_pool *pc = &v[cpu];
			struct pool_obs *o;

			if (!pc->pool)
				continue;
			rd->slot_holds += pc->holds;
			rd->slot_releases += pc->releases;
			o = obs_find(rd, pc->pool, pc->gen);
			if (!o)
				continue;
			o->rec.hold_cnt = newer(o->rec.hold_cnt, pc->hold);
			o->rec.release_cnt = newer(o->rec.release_cnt, pc->release);
			o->rec.unmatched_releases += pc->unmatched;
			o->rec.untracked_holds += pc->untracked;
		}
	}
	return 0;
}

/* ---- the page ledger -------------------------------------------------------- */

typedef int (*ledger_fn)(struct collector *c, __u64 netmem, const struct ppw_page *pg, void *arg);

static int gen_cmp(const void *a, const void *b)
{
	const struct gen_addr *x = a, *y = b;

	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* the ledger's slots name their pool by generation: index the pools by it */
static int index_gens(struct collector *c, const struct reading *rd)
{
	size_t i;

	if (rd->n > c->capgens) {
		struct gen_addr *v = vec_grow(c->gens, &c->capgens, rd->n, sizeof(*v));

		if (!v) {
			p_err("indexing %zu pools for the page ledger: %s", rd->n,
			      strerror(ENOMEM));
			return -ENOMEM;
		}
		c->gens = v;
	}
	c->ngens = 0;
	for (i = 0; i < rd->n; i++)
		if (rd->pools[i].rec.addr)
			c->gens[c->ngens++] =
				(struct gen_addr){ rd->pools[i].rec.gen, rd->pools[i].rec.addr };
	if (c->ngens)
		qsort(c->gens, c->ngens, sizeof(*c->gens), gen_cmp);
	return 0;
}

static __u64 pool_of_gen(const struct collector *c, __u32 gen)
{
	struct gen_addr key = { .gen = gen }, *g;

	g = c->ngens ? bsearch(&key, c->gens, c->ngens, sizeof(*c->gens), gen_cmp) : NULL;
	return g ? g->addr : 0;
}

/*
 * Hand every page of the ledger to fn: the mapped array (a slot being
 * written or cleared as we read it is skipped), then the overflow hash
 * map in batches. A non-zero return from fn stops the walk and is returned
 * (fn reports its own failures; the walk reports a failed map read).
 */
static int walk_ledger(struct collector *c, ledger_fn fn, void *arg)
{
	const struct ppw_ledger_slot *sl = c->s->ledger;
	int fd = bpf_map__fd(c->s->skel->maps.pages), err, ret;
	__u64 in_batch = 0, out_batch = 0, netmem;
	struct ppw_page pg = { 0 };
	bool first = true;
	size_t i;
	__u32 n;

	pg.cpu = (__u32)-1; /* the array does not keep it */
	pg.stack_id = -1;   /* page_stacks has it, when taken */
	for (i = 0; sl && i < c->s->ledger_slots; i++) {
		__u32 hold;

		netmem = __atomic_load_n(&sl[i].netmem, __ATOMIC_ACQUIRE);
		if (!netmem)
			continue;
		pg.gen = sl[i].gen;
		hold = __atomic_load_n(&sl[i].hold, __ATOMIC_ACQUIRE);
		if (!hold || __atomic_load_n(&sl[i].netmem, __ATOMIC_ACQUIRE) != netmem)
			continue;
		pg.hold_ns = c->s->epoch_ns + ((__u64)hold << PPW_LEDGER_TIME_SHIFT);
		pg.pool = pool_of_gen(c, pg.gen);
		ret = fn(c, netmem, &pg, arg);
		if (ret)
			return ret;
	}
	do {
		n = c->batch;
		err = bpf_map_lookup_batch(fd, first ? NULL : &in_batch, &out_batch, c->keys,
					   c->vals, &n, NULL);
		if (err && errno != ENOENT) {
			err = -errno;
			p_err("reading the page ledger's overflow (map 'pages'): %s",
			      strerror(-err));
			return err;
		}
		for (i = 0; i < n; i++) {
			ret = fn(c, c->keys[i], &c->vals[i], arg);
			if (ret)
				return ret;
		}
		in_batch = out_batch;
		first = false;
	} while (!err);
	return 0;
}

/* count, oldest hold and ages per pool */
static int count_page(struct collector *c, __u64 netmem, const struct ppw_page *pg, void *arg)
{
	struct reading *rd = arg;
	struct pool_obs *o = obs_find(rd, pg->pool, pg->gen);

	rd->pages_used++;
	if (!o)
		return 0;
	o->ledger_pages++;
	if (!o->oldest_hold_ns || pg->hold_ns < o->oldest_hold_ns)
		o->oldest_hold_ns = pg->hold_ns;
	o->age_hist[pool_age_bucket(rd->now_ns > pg->hold_ns ? (rd->now_ns - pg->hold_ns) / 1e9 :
							       0)]++;
	return 0;
}

int collector_collect(struct collector *c, struct reading *rd)
{
	int err;

	reading_reset(rd);
	rd->now_ns = now_boot_ns();
	err = read_pools(c, rd);
	err = err ?: list_grave(c, rd);
	if (err)
		return err;
	if (rd->n)
		qsort(rd->pools, rd->n, sizeof(*rd->pools), obs_cmp);
	err = fold_slots(c, rd);
	err = err ?: index_gens(c, rd);
	err = err ?: walk_ledger(c, count_page, rd);
	err = err ?: session_counters(c->s, rd->counters, PPW_CNT_MAX);
	if (err)
		return err;
	rd->counters[PPW_CNT_HOLD] += rd->slot_holds;
	rd->counters[PPW_CNT_RELEASE] += rd->slot_releases;
	rd->level = c->s->opts.level;
	rd->sample_rate = 1U << c->s->opts.sample_shift;
	rd->page_size = c->s->feat.page_size;
	rd->detach_time_is_ns = c->s->feat.detach_time_is_ns;
	rd->regime = c->s->feat.unmap;
	/* what it can hold: the array's slots and the overflow map's entries */
	rd->max_pages = c->s->ledger_pages ?
				c->s->ledger_slots + bpf_map__max_entries(c->s->skel->maps.pages) :
				0;
	rd->ledger_bytes = session_map_bytes(c->s, c->s->skel->maps.ledger) +
			   session_map_bytes(c->s, c->s->skel->maps.pages);
	return 0;
}

struct pages_of {
	__u64 pool;
	__u32 gen;
	struct ledger_page *v;
	size_t cnt, cap;
};

static int collect_pages_of(struct collector *c, __u64 netmem, const struct ppw_page *pg, void *arg)
{
	struct pages_of *p = arg;
	struct ledger_page *lp;

	if (pg->pool != p->pool || pg->gen != p->gen)
		return 0;
	lp = VEC_PUSH(p->v, p->cnt, p->cap);
	if (!lp) {
		p_err("listing the pages of pool 0x%llx: %s", (unsigned long long)p->pool,
		      strerror(ENOMEM));
		return -ENOMEM;
	}
	lp->netmem = netmem;
	lp->v = *pg;
	return 0;
}

int collector_ledger_of(struct collector *c, __u64 pool, __u32 gen, struct ledger_page **out,
			size_t *n)
{
	struct pages_of p = { .pool = pool, .gen = gen };
	int err = walk_ledger(c, collect_pages_of, &p);

	if (err) {
		free(p.v);
		return err;
	}
	*out = p.v;
	*n = p.cnt;
	return 0;
}
