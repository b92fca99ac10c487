// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "model/reading.h"
#include "model/reconcile.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "ppwatch.skel.h"
#include "sources/collector.h"
#include "sources/phantoms.h"

/* a late state_release may still run after page_pool_release said 0 */
#define FREED_GRACE_NS (2 * NSEC_PER_SEC)
/* the whole table at least this often, events or not */
#define FULL_READ_NS (60 * NSEC_PER_SEC)
/* more pools named since than this: the whole table, not one lookup each */
#define MAX_DIRTY 4096

int collector_init(struct collector *c, struct session *s, double keep_freed_s)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->keep_freed_s = keep_freed_s;
	return page_log_open(&c->log, s);
}

void collector_free(struct collector *c)
{
	page_log_close(&c->log);
	free(c->grave);
	free(c->pkeys);
	free(c->pvals);
	free(c->rkeys);
	free(c->slots);
	free(c->gens);
	free(c->recs);
	free(c->dirty);
	memset(c, 0, sizeof(*c));
}

/*
 * Keep a freed pool's last record: appended, the newest of an address and
 * generation winning when list_grave() sorts them (a search here made a
 * host's thousands of pools destroyed at once n^2).
 */
static int grave_keep(struct collector *c, const struct ppw_pool *rec)
{
	struct ppw_pool *g;

	g = VEC_PUSH(c->grave, c->ngrave, c->capgrave);
	if (!g) {
		p_err("keeping the record of freed pool 0x%llx: %s", (unsigned long long)rec->addr,
		      strerror(ENOMEM));
		return -ENOMEM;
	}
	*g = *rec;
	return 0;
}

void collector_note_all(struct collector *c)
{
	c->full = true;
}

void collector_note_event(struct collector *c, const struct ppw_event *e)
{
	__u64 *d;

	/* a new record, a new generation at an address: the table itself */
	if (c->full || e->type == PPW_EV_POOL_NEW || e->type == PPW_EV_POOL_RETIRED ||
	    c->ndirty >= MAX_DIRTY) {
		c->full = true;
		return;
	}
	d = VEC_PUSH(c->dirty, c->ndirty, c->capdirty);
	if (d)
		*d = e->rec.addr;
	else
		c->full = true;
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

/* the pool table's batch buffers, the table's size, on first use */
int collector_pool_buffers(struct collector *c)
{
	if (c->pkeys)
		return 0;
	c->pcap = bpf_map__max_entries(c->s->skel->maps.pools);
	c->pkeys = calloc(c->pcap, sizeof(*c->pkeys));
	c->pvals = calloc(c->pcap, sizeof(*c->pvals));
	if (!c->pkeys || !c->pvals) {
		p_err("reading the pool table (map 'pools', %u entries): %s", c->pcap,
		      strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* a freed record past its grace: the collector keeps it, the table drops it */
static bool trimmed(const struct ppw_pool *rec, __u64 now)
{
	return rec->state == PPW_POOL_FREED && now > rec->freed_ns + FREED_GRACE_NS;
}

struct rec_key {
	__u64 addr;
	__u32 gen;
	__u32 i;
};

static int rec_key_cmp(const void *a, const void *b)
{
	const struct rec_key *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/*
 * Read the pool table in batches, then trim it. Deleting while walking with
 * bpf_map_get_next_key() restarts the walk at the first key when the
 * current one is gone, which listed every pool before it twice. The
 * records join the reading sorted by (address, generation): small keys
 * are sorted, each record copied once.
 */
static int read_pools(struct collector *c, struct reading *rd)
{
	__u64 now = rd->now_ns;
	int fd = bpf_map__fd(c->s->skel->maps.pools), err;
	__u64 in_batch = 0, out_batch = 0;
	size_t i, total = 0, nkeys = 0, ntrim = 0;
	struct rec_key *k;
	bool first = true;
	__u32 n;

	err = collector_pool_buffers(c);
	if (err)
		return err;
	do {
		n = c->pcap - total;
		err = bpf_map_lookup_batch(fd, first ? NULL : &in_batch, &out_batch,
					   c->pkeys + total, c->pvals + total, &n, NULL);
		if (err && errno != ENOENT) {
			err = -errno;
			p_err("reading the pool table (map 'pools'): %s", strerror(-err));
			return err;
		}
		total += n;
		in_batch = out_batch;
		first = false;
	} while (!err && total < c->pcap);
	if (total > c->capkeys) {
		k = vec_grow(c->rkeys, &c->capkeys, total, sizeof(*k));
		if (!k) {
			p_err("sorting the %zu pools read: %s", total, strerror(ENOMEM));
			return -ENOMEM;
		}
		c->rkeys = k;
	}
	k = c->rkeys;
	for (i = 0; i < total; i++) {
		const struct ppw_pool *rec = &c->pvals[i];

		if (trimmed(rec, now)) {
			/* keep it here, drop it from the kernel-side table below */
			err = grave_keep(c, rec);
			if (err)
				return err;
			continue;
		}
		k[nkeys++] = (struct rec_key){ rec->addr, rec->gen, (__u32)i };
	}
	if (nkeys)
		qsort(k, nkeys, sizeof(*k), rec_key_cmp);
	if (nkeys > c->caprecs) {
		struct ppw_pool *v = vec_grow(c->recs, &c->caprecs, nkeys, sizeof(*v));

		if (!v) {
			p_err("keeping the %zu pools read: %s", nkeys, strerror(ENOMEM));
			return -ENOMEM;
		}
		c->recs = v;
	}
	c->nrecs = 0;
	c->next_trim_ns = 0;
	for (i = 0; i < nkeys; i++) {
		const struct ppw_pool *rec = &c->pvals[k[i].i];

		c->recs[c->nrecs++] = *rec;
		if (rec->state == PPW_POOL_FREED &&
		    (!c->next_trim_ns || rec->freed_ns + FREED_GRACE_NS < c->next_trim_ns))
			c->next_trim_ns = rec->freed_ns + FREED_GRACE_NS;
	}
	c->full_reads++;
	c->full = false;
	c->ndirty = 0;
	c->gens_valid = false;
	c->next_full_ns = now + FULL_READ_NS;
	/* the trimmed ones to the front (the others are copied out now) */
	for (i = 0; i < total; i++)
		if (trimmed(&c->pvals[i], now)) {
			c->pkeys[ntrim] = c->pkeys[i];
			c->pvals[ntrim++] = c->pvals[i];
		}
	for (i = 0; i < ntrim; i++) {
		struct ppw_pool again;

		/* unless the BPF side reused the slot for a new pool meanwhile */
		if (!bpf_map_lookup_elem(fd, &c->pkeys[i], &again) && again.gen == c->pvals[i].gen)
			bpf_map_delete_elem(fd, &c->pkeys[i]);
	}
	return 0;
}

static int rec_addr_cmp(const void *a, const void *b)
{
	const struct ppw_pool *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The records events named since the last collect, read again one by one
 * into the kept table: 1 when that is not enough (a record gone from the
 * table, a new generation at an address), 0, or -errno (reported).
 */
static int read_dirty(struct collector *c)
{
	int fd = bpf_map__fd(c->s->skel->maps.pools);
	struct ppw_pool rec, *at;
	size_t i, n = 0;

	if (!c->ndirty)
		return 0;
	qsort(c->dirty, c->ndirty, sizeof(*c->dirty), u64_cmp);
	for (i = 0; i < c->ndirty; i++) {
		if (i && c->dirty[i] == c->dirty[i - 1])
			continue;
		n++;
		if (bpf_map_lookup_elem(fd, &c->dirty[i], &rec)) {
			if (errno == ENOENT)
				return 1;
			p_err("reading pool 0x%llx (map 'pools'): %s",
			      (unsigned long long)c->dirty[i], strerror(errno));
			return -errno;
		}
		at = c->nrecs ? bsearch(&rec, c->recs, c->nrecs, sizeof(*c->recs), rec_addr_cmp) :
				NULL;
		if (!at || at->gen != rec.gen)
			return 1;
		*at = rec;
		if (rec.state == PPW_POOL_FREED &&
		    (!c->next_trim_ns || rec.freed_ns + FREED_GRACE_NS < c->next_trim_ns))
			c->next_trim_ns = rec.freed_ns + FREED_GRACE_NS;
	}
	p_dbg("collector: %zu pools read again, not the table's %zu", n, c->nrecs);
	c->ndirty = 0;
	return 0;
}

/* the kept table into the reading, each record an observation */
static int recs_to_reading(struct collector *c, struct reading *rd)
{
	size_t i;

	if (c->nrecs > rd->cap) {
		struct pool_obs *v = vec_grow(rd->pools, &rd->cap, c->nrecs, sizeof(*v));

		if (!v) {
			p_err("collecting the pools: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
		rd->pools = v;
	}
	for (i = 0; i < c->nrecs; i++) {
		struct pool_obs *o = &rd->pools[i];

		memset(o, 0, sizeof(*o));
		o->rec = c->recs[i];
	}
	rd->n = c->nrecs;
	return 0;
}

static int obs_cmp(const void *a, const void *b)
{
	const struct pool_obs *x = a, *y = b;

	if (x->rec.addr != y->rec.addr)
		return x->rec.addr < y->rec.addr ? -1 : 1;
	return x->rec.gen < y->rec.gen ? -1 : x->rec.gen > y->rec.gen;
}

/*
 * The freed pools kept: listed for keep_freed_s, unless the table still
 * has them (rd's pools are sorted: found by bsearch, then sorted again
 * with what joined).
 */
static int grave_cmp(const void *a, const void *b)
{
	const struct ppw_pool *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	/* the same pool kept twice (a trim that did not take): the later record last */
	if (x->last_release_ns != y->last_release_ns)
		return x->last_release_ns < y->last_release_ns ? -1 : 1;
	return x->freed_ns < y->freed_ns ? -1 : x->freed_ns > y->freed_ns;
}

static int list_grave(struct collector *c, struct reading *rd)
{
	__u64 now = rd->now_ns;
	__u64 keep = (__u64)(c->keep_freed_s * NSEC_PER_SEC);
	size_t i, n = 0, have = rd->n;
	struct pool_obs *o, key;

	/* by address and generation, each kept once: its newest record */
	if (c->ngrave > 1)
		qsort(c->grave, c->ngrave, sizeof(*c->grave), grave_cmp);
	for (i = 0; i < c->ngrave; i++) {
		struct ppw_pool *g = &c->grave[i];

		if (i + 1 < c->ngrave && g[1].addr == g->addr && g[1].gen == g->gen)
			continue; /* a newer one follows */
		if (g->freed_ns + keep < now)
			continue; /* expired */
		c->grave[n++] = *g;
		key.rec.addr = g->addr;
		key.rec.gen = g->gen;
		if (have && bsearch(&key, rd->pools, have, sizeof(*rd->pools), obs_cmp))
			continue;
		o = obs_add(rd);
		if (!o)
			return -ENOMEM;
		o->rec = *g;
	}
	c->ngrave = n;
	if (rd->n > have)
		vec_sort(rd->pools, rd->n, sizeof(*rd->pools), obs_cmp);
	return 0;
}

static struct pool_obs *obs_find(const struct reading *rd, __u64 addr, __u32 gen)
{
	struct pool_obs key = { .rec = { .addr = addr, .gen = gen } };

	return rd->n ? bsearch(&key, rd->pools, rd->n, sizeof(*rd->pools), obs_cmp) : NULL;
}

/* ---- per-CPU pool slots ------------------------------------------------- */

/*
 * Fold every CPU's slots into the pool records: a pool's counters are the
 * newest any CPU saw, its sums the record's (what evicted slots gave back)
 * plus every live slot's. The event totals add every slot's events.
 */
static int fold_slots(struct collector *c, struct reading *rd)
{
	int ncpus = c->s->ncpus, err;
	__u32 key, cpu;

	if (!c->slots) {
		c->slots = calloc((size_t)PPW_PCPU_SLOTS * ncpus, sizeof(*c->slots));
		if (!c->slots) {
			p_err("reading the per-CPU pool slots (map 'pcpu_pools', %d CPUs): %s",
			      ncpus, strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	err = session_percpu_rows(c->s, c->s->skel->maps.pcpu_pools, PPW_PCPU_SLOTS, c->slots);
	if (err)
		return err;
	for (key = 0; key < PPW_PCPU_SLOTS; key++) {
		for (cpu = 0; cpu < (__u32)ncpus; cpu++) {
			const struct ppw_pcpu_pool *pc = &c->slots[(size_t)key * ncpus + cpu];
			struct pool_obs *o;

			if (!pc->pool)
				continue;
			rd->slot_holds += pc->holds;
			rd->slot_releases += pc->releases;
			o = obs_find(rd, pc->pool, pc->gen);
			if (!o)
				continue;
			o->rec.hold_cnt = u32_newer(o->rec.hold_cnt, pc->hold);
			o->rec.release_cnt = u32_newer(o->rec.release_cnt, pc->release);
			o->rec.lost_releases += pc->rel_lost;
			o->rec.untracked_holds += pc->untracked;
		}
	}
	return 0;
}

/* ---- the page ledger -------------------------------------------------------- */

static int gen_cmp(const void *a, const void *b)
{
	const struct gen_addr *x = a, *y = b;

	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* the ledger names pools by generation: index the pools by it */
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

/* a pool the reading has (by generation), or one newer than any it has */
static bool gen_kept(void *arg, __u32 gen)
{
	const struct collector *c = arg;

	return pool_of_gen(c, gen) || !c->ngens || gen > c->gens[c->ngens - 1].gen;
}

static void page_of(const struct collector *c, const struct pl_page *p, struct ledger_page *out)
{
	out->netmem = p->netmem;
	out->pool = pool_of_gen(c, p->gen);
	out->gen = p->gen;
	out->cpu = p->cpu;
	out->hold_ns = page_log_ns(&c->log, p->t);
	out->stack_id = -1; /* page_stacks has it, when one was taken */
}

struct count_arg {
	struct collector *c;
	struct reading *rd;
	size_t orphans;
};

/* count, oldest hold and ages per pool */
static int count_page(void *arg, const struct pl_page *p)
{
	struct count_arg *a = arg;
	struct reading *rd = a->rd;
	struct ledger_page lp;
	struct pool_obs *o;

	page_of(a->c, p, &lp);
	o = obs_find(rd, lp.pool, lp.gen);
	rd->pages_used++;
	if (!o) {
		a->orphans++;
		return 0;
	}
	if (p->flags & PL_F_PHANTOM) {
		o->phantoms++;
		return 0;
	}
	o->ledger_pages++;
	if (!o->oldest_hold_ns || lp.hold_ns < o->oldest_hold_ns)
		o->oldest_hold_ns = lp.hold_ns;
	o->age_hist[pool_age_bucket(rd->now_ns > lp.hold_ns ? (rd->now_ns - lp.hold_ns) / 1e9 :
							      0)]++;
	return 0;
}

/* per pool: the ledger's pages, their ages, its phantoms (one walk) */
static int count_pages(struct collector *c, struct reading *rd, size_t *orphans)
{
	struct count_arg a = { .c = c, .rd = rd };
	bool bound = !page_log_exact(&c->log);
	size_t i;
	int err;

	rd->pages_used = 0;
	for (i = 0; i < rd->n; i++) {
		struct pool_obs *o = &rd->pools[i];

		o->ledger_pages = o->oldest_hold_ns = o->phantoms = 0;
		memset(o->age_hist, 0, sizeof(o->age_hist));
	}
	err = pl_collect(&c->log.led, count_page, &a);
	/* phantoms the counts chose (not the kernel): the ages left are lower bounds */
	for (i = 0; i < rd->n; i++)
		rd->pools[i].ages_bound = bound || (c->cannot_check && rd->pools[i].phantoms);
	*orphans = a.orphans;
	return err;
}

/*
 * The ledger into the reading: its pages per pool, reconciled with the
 * kernel's counts, and what the fold counts per pool (releases of pages
 * held before start, holds it had no room for, ties, losses) added to the
 * BPF side's. Pages of pools gone from the reading are the ones whose
 * release a full log lost: forgotten.
 */
static int read_ledger(struct collector *c, struct reading *rd)
{
	struct page_ledger *l = &c->log.led;
	__u64 unmatched, untracked, sum = 0, holds, rels, skipped, phantoms = 0;
	size_t i, orphans;
	long marked;
	int err;

	if (!c->log.on)
		return 0;
	err = count_pages(c, rd, &orphans);
	if (err)
		return err;
	for (i = 0; i < rd->n; i++) {
		struct pool_obs *o = &rd->pools[i];
		struct ppw_pool *r = &o->rec;

		if (!r->addr)
			continue;
		pl_gen_counts(l, r->gen, &unmatched, &untracked);
		pl_gen_losses(l, r->gen, &o->ties, &o->lost);
		r->unmatched_releases += unmatched;
		r->untracked_holds += untracked;
		sum += unmatched;
	}
	marked = collector_find_phantoms(c, rd);
	if (marked < 0)
		return (int)marked;
	if (marked) /* the pools' counts and ages again, without them */
		err = count_pages(c, rd, &orphans);
	if (err)
		return err;
	for (i = 0; i < rd->n; i++)
		phantoms += rd->pools[i].phantoms;
	if (orphans)
		pl_prune(l, gen_kept, c);
	page_log_losses(&c->log, &holds, &rels, &skipped);
	rd->counters[PPW_CNT_UNMATCHED] = sum;
	rd->counters[PPW_CNT_HOLD_LOST] = holds + l->full - l->full_releases;
	rd->counters[PPW_CNT_RELEASE_LOST] = rels + l->full_releases;
	rd->counters[PPW_CNT_SLOT_SKIPPED] = skipped;
	rd->counters[PPW_CNT_LEDGER_FULL] += l->full + holds + rels + skipped;
	rd->counters[PPW_CNT_TIES] = l->ties;
	rd->counters[PPW_CNT_LOST] = l->lost;
	rd->counters[PPW_CNT_PHANTOMS] = phantoms;
	return 0;
}

/*
 * The whole table when what changed cannot be told from the events: pools
 * came or went (POOL_NEW, RETIRED, discovery found some), a per-CPU slot
 * gave its sums back to a record (an eviction: no event), events were lost
 * (the ring was full: what they named is not known), the kernel counts
 * items (counters that move with no event ppwatch hooks), a freed record's
 * grace is over (trimmed from the table), or FULL_READ_NS passed.
 */
static bool full_read_due(const struct collector *c, const struct reading *rd)
{
	const struct features *f = &c->s->feat;

	return c->full || !c->full_reads || rd->now_ns >= c->next_full_ns ||
	       (c->next_trim_ns && rd->now_ns >= c->next_trim_ns) ||
	       rd->counters[PPW_CNT_PCPU_EVICT] != c->evictions ||
	       rd->counters[PPW_CNT_RINGBUF_DROP] != c->ring_drops || f->item_stats ||
	       f->item_blocks;
}

int collector_collect(struct collector *c, struct reading *rd)
{
	size_t before;
	int err;

	reading_reset(rd);
	/* the logs first: every pool their records name is in the table then */
	err = page_log_drain(&c->log);
	if (err)
		return err;
	rd->now_ns = now_boot_ns();
	err = session_counters(c->s, rd->counters, PPW_CNT_MAX);
	if (err)
		return err;
	err = full_read_due(c, rd) ? 1 : read_dirty(c);
	if (err > 0) {
		c->evictions = rd->counters[PPW_CNT_PCPU_EVICT];
		c->ring_drops = rd->counters[PPW_CNT_RINGBUF_DROP];
		err = read_pools(c, rd); /* sorted, trimmed */
	}
	err = err ?: recs_to_reading(c, rd);
	if (err)
		return err;
	before = rd->n;
	err = list_grave(c, rd);
	if (!err && rd->n - before != c->last_grave) {
		c->last_grave = rd->n - before;
		c->gens_valid = false;
	}
	err = err ?: fold_slots(c, rd);
	if (!err && !c->gens_valid) {
		err = index_gens(c, rd);
		c->gens_valid = !err;
	}
	rd->level = c->s->opts.level;
	err = err ?: read_ledger(c, rd);
	if (err)
		return err;
	rd->counters[PPW_CNT_HOLD] += rd->slot_holds;
	rd->counters[PPW_CNT_RELEASE] += rd->slot_releases;
	rd->sample_rate = 1U << c->s->opts.sample_shift;
	rd->page_size = c->s->feat.page_size;
	rd->detach_time_is_ns = c->s->feat.detach_time_is_ns;
	rd->regime = c->s->feat.unmap;
	rd->max_pages = c->log.on ? c->s->ledger_pages : 0;
	rd->ledger_bytes = page_log_bytes(&c->log);
	return 0;
}

struct pages_of {
	struct collector *c;
	const __u32 *gens; /* sorted */
	size_t ngens;
	struct ledger_page *v;
	size_t cnt, cap;
};

static int u32_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static int collect_pages_of(void *arg, const struct pl_page *pg)
{
	struct pages_of *p = arg;
	struct ledger_page *lp;

	if (!bsearch(&pg->gen, p->gens, p->ngens, sizeof(*p->gens), u32_cmp) ||
	    (pg->flags & PL_F_PHANTOM))
		return 0;
	lp = VEC_PUSH(p->v, p->cnt, p->cap);
	if (!lp) {
		p_err("listing the inflight pages of %zu pools: %s", p->ngens, strerror(ENOMEM));
		return -ENOMEM;
	}
	page_of(p->c, pg, lp);
	return 0;
}

int collector_ledger_pages(struct collector *c, __u32 *gens, size_t ngens, struct ledger_page **out,
			   size_t *n)
{
	struct pages_of p = { .c = c, .gens = gens, .ngens = ngens };
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!c->log.on || !ngens)
		return 0;
	qsort(gens, ngens, sizeof(*gens), u32_cmp);
	err = pl_collect(&c->log.led, collect_pages_of, &p);
	if (err) {
		free(p.v);
		return err;
	}
	*out = p.v;
	*n = p.cnt;
	return 0;
}

void collector_mark_pages(struct collector *c, struct ppw_rec_page *v, size_t n)
{
	const struct pl_page *p;
	size_t i;

	for (i = 0; c->log.on && i < n; i++) {
		/* found in a holder: whatever the counts said, not a phantom */
		pl_confirm(&c->log.led, v[i].netmem);
		p = pl_find(&c->log.led, v[i].netmem);
		if (!p || !(p->flags & PL_F_HOLD))
			continue;
		v[i].in_ledger = 1;
		v[i].gen = p->gen;
		v[i].hold_ns = page_log_ns(&c->log, p->t);
	}
}

double collector_due(const struct collector *c)
{
	return page_log_due(&c->log);
}

int collector_tick(struct collector *c)
{
	return page_log_tick(&c->log);
}
