// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/vec.h"
#include "ppwatch.skel.h"
#include "sources/page_list.h"
#include "sources/stacks.h"

/* ---- the set: the ledger's pages of a document's pools, one walk ------------------------ */

static int by_gen_oldest(const void *a, const void *b)
{
	const struct ledger_page *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return x->hold_ns < y->hold_ns ? -1 : x->hold_ns > y->hold_ns;
}

static int by_netmem(const void *a, const void *b)
{
	const struct page_stack *x = a, *y = b;

	return x->netmem < y->netmem ? -1 : x->netmem > y->netmem;
}

/*
 * page_stacks whole, in batches (one syscall a batch, not one a page):
 * 0, or -errno (EINVAL/ENOTSUP: a kernel without batch lookups on hash
 * maps; the pages then look their stacks up one by one).
 */
static int read_stacks(struct page_set *ps, int fd, __u32 max)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 *keys = calloc(max ? max : 1, sizeof(*keys));
	__s32 *vals = calloc(max ? max : 1, sizeof(*vals));
	__u64 in = 0, out = 0;
	bool first = true;
	size_t got = 0, i;
	int err = keys && vals ? 0 : -ENOMEM;

	while (!err && got < max) {
		__u32 cnt = max - got;

		err = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, keys + got, vals + got,
					   &cnt, &opts);
		err = err ? -errno : 0;
		got += cnt;
		first = false;
		in = out;
		if (err == -ENOENT) { /* the end */
			err = 0;
			break;
		}
	}
	if (!err) {
		ps->stacks = calloc(got ? got : 1, sizeof(*ps->stacks));
		err = ps->stacks ? 0 : -ENOMEM;
	}
	for (i = 0; !err && i < got; i++)
		ps->stacks[i] = (struct page_stack){ keys[i], vals[i] };
	if (!err) {
		ps->nstacks = got;
		qsort(ps->stacks, got, sizeof(*ps->stacks), by_netmem);
	}
	free(keys);
	free(vals);
	return err;
}

struct gens {
	__u32 *v;
	size_t n, cap;
};

int page_set_build(struct page_set *ps, struct monitor *m,
		   bool (*keep)(const struct pool_row *r, void *arg), void *arg, bool stacks)
{
	struct gens g = { 0 };
	size_t i;
	int err = 0;

	memset(ps, 0, sizeof(*ps));
	for (i = 0; i < m->cur.n && !err; i++) {
		const struct pool_row *r = &m->cur.rows[i];
		__u32 *p;

		if (!r->has_record || !keep(r, arg))
			continue;
		p = VEC_PUSH(g.v, g.n, g.cap);
		if (p)
			*p = r->gen;
		else
			err = -ENOMEM;
	}
	if (err) {
		p_err("listing the pools whose pages to read: %s", strerror(-err));
		free(g.v);
		return err;
	}
	err = collector_ledger_pages(&m->col, g.v, g.n, &ps->v, &ps->n);
	free(g.v);
	if (err)
		return err; /* reported */
	qsort(ps->v, ps->n, sizeof(*ps->v), by_gen_oldest);
	if (stacks) {
		const struct bpf_map *map = m->s.skel->maps.page_stacks;

		err = read_stacks(ps, bpf_map__fd(map), bpf_map__max_entries(map));
		if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP) {
			p_dbg("reading map 'page_stacks' in batches: %s; a lookup a page",
			      strerror(-err));
			err = 0;
		} else if (err) {
			p_err("reading the sampled stacks (map 'page_stacks'): %s", strerror(-err));
			page_set_free(ps);
			return err;
		} else {
			ps->stacks_read = true;
		}
	}
	return 0;
}

void page_set_free(struct page_set *ps)
{
	free(ps->v);
	free(ps->stacks);
	memset(ps, 0, sizeof(*ps));
}

/* ---- one pool's list ---------------------------------------------------------------------- */

/* a page picked for the list, before its row is built */
struct pick {
	__u64 netmem;
	double age;
	bool at_least;
	const struct ledger_page *lp; /* NULL: a page the holder scan found */
};

static int pick_cmp(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;
	bool xn = isnan(x->age), yn = isnan(y->age);

	if (xn || yn)
		return xn - yn;
	if (x->age != y->age)
		return x->age < y->age ? 1 : -1; /* oldest first */
	if (x->at_least != y->at_least)
		return y->at_least - x->at_least; /* at least as old as an exact one */
	return x->netmem < y->netmem ? -1 : x->netmem > y->netmem;
}

static __s32 stack_of(const struct page_set *ps, struct monitor *m, __u64 netmem)
{
	struct page_stack key = { .netmem = netmem }, *hit;
	__s32 stack;

	if (ps->stacks_read) {
		hit = ps->nstacks ? bsearch(&key, ps->stacks, ps->nstacks, sizeof(key), by_netmem) :
				    NULL;
		return hit ? hit->stack_id : -1;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(m->s.skel->maps.page_stacks), &netmem, &stack))
		return -1;
	return stack;
}

static void fill_row(struct page_row *pr, struct monitor *m, const struct page_set *ps,
		     const struct holders_report *rep, const struct ksyms *k, const struct pick *p)
{
	const struct ppw_rec_page *hp = attrib_page_holder(rep, p->netmem);
	__u64 vm = m->s.skel->bss->used_vmemmap;
	long psz = m->s.feat.struct_page_size;
	__u64 ips[PPW_STACK_DEPTH];
	int nf;

	memset(pr, 0, sizeof(*pr));
	pr->netmem = p->netmem;
	pr->age_s = p->age;
	pr->age_at_least = p->at_least;
	pr->in_ledger = p->lp != NULL;
	pr->cpu = p->lp ? p->lp->cpu : -1;
	pr->stack_id = p->lp ? p->lp->stack_id : -1;
	if (vm && psz > 0 && !(p->netmem & 1) && p->netmem >= vm)
		pr->pfn = (p->netmem - vm) / psz;
	if (hp) {
		pr->where = where_name(hp->where);
		holder_desc_of(pr->holder, sizeof(pr->holder), rep, hp);
	}
	/* the ledger keeps no stack: page_stacks has the pages that took one */
	if (pr->stack_id < 0 && pr->in_ledger && k)
		pr->stack_id = stack_of(ps, m, p->netmem);
	if (pr->stack_id >= 0 && k) {
		nf = stack_frames(&m->s, k, pr->stack_id, ips, PPW_STACK_DEPTH);
		if (nf > 0)
			stack_fmt(k, ips, nf, 8, pr->stack, sizeof(pr->stack));
	}
}

/* the set's pages of generation gen: [*first, return) */
static size_t gen_range(const struct page_set *ps, __u32 gen, size_t *first)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ps->v[mid].gen < gen)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < ps->n && ps->v[hi].gen == gen)
		hi++;
	return hi > lo ? hi : lo;
}

int page_list_build(struct page_list *l, struct monitor *m, const struct page_set *ps,
		    const struct pool_row *row, const struct holders_report *rep,
		    const struct ksyms *k, double older_than, size_t limit)
{
	struct pick *v = NULL, *p;
	size_t n = 0, cap = 0, first, end, i, found = 0;
	bool filter = !isnan(older_than);

	memset(l, 0, sizeof(*l));
	end = row->has_record ? gen_range(ps, row->gen, &first) : (first = 0);
	for (i = first; i < end; i++) {
		const struct ledger_page *lp = &ps->v[i];
		double age = ((double)m->cur.ts_ns - (double)lp->hold_ns) / 1e9;

		found++;
		if (filter && age < older_than)
			continue;
		p = VEC_PUSH(v, n, cap);
		if (!p)
			goto nomem;
		*p = (struct pick){ lp->netmem, age, false, lp };
	}
	/* pages a holder has that the ledger does not: taken before ppwatch saw them */
	for (i = 0; i < rep->npage_idx; i++) {
		const struct ppw_rec_page *hp = rep->page_idx[i];

		if (hp->pool != row->addr || (i && rep->page_idx[i - 1]->netmem == hp->netmem))
			continue;
		if (hp->in_ledger && hp->gen == row->gen)
			continue;
		found++;
		/* listed when its lower bound is over the limit; else not known to be */
		if (filter && !(row->unseen_age_s >= older_than)) {
			l->unknown_age++;
			continue;
		}
		p = VEC_PUSH(v, n, cap);
		if (!p)
			goto nomem;
		*p = (struct pick){ hp->netmem, row->unseen_age_s, true, NULL };
	}
	if (row->inflight > 0 && (size_t)row->inflight > found)
		l->unseen = (size_t)row->inflight - found;
	/* the oldest first, and only the ones kept get a row */
	if (n)
		qsort(v, n, sizeof(*v), pick_cmp);
	if (limit && n > limit)
		n = limit;
	l->rows = n ? calloc(n, sizeof(*l->rows)) : NULL;
	if (n && !l->rows)
		goto nomem;
	l->n = l->cap = n;
	for (i = 0; i < n; i++)
		fill_row(&l->rows[i], m, ps, rep, k, &v[i]);
	free(v);
	return 0;
nomem:
	p_err("listing the pages of pool %s: %s", row->ident, strerror(ENOMEM));
	free(v);
	page_list_free(l);
	return -ENOMEM;
}

void page_list_free(struct page_list *l)
{
	free(l->rows);
	memset(l, 0, sizeof(*l));
}
