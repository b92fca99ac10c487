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

static int age_cmp(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	bool xn = isnan(x->age_s), yn = isnan(y->age_s);

	if (xn || yn)
		return xn - yn;
	if (x->age_at_least != y->age_at_least)
		return x->age_at_least - y->age_at_least; /* exact ages first */
	return x->age_s < y->age_s ? 1 : x->age_s > y->age_s ? -1 : 0;
}

static void fill_common(struct page_row *pr, struct monitor *m, const struct holders_report *rep,
			const struct ksyms *k, __u64 netmem)
{
	const struct ppw_rec_page *hp = attrib_page_holder(rep, netmem);
	__u64 vm = m->s.skel->bss->used_vmemmap;
	long psz = m->s.feat.struct_page_size;
	__u64 ips[PPW_STACK_DEPTH];
	__s32 stack;
	int nf;

	pr->netmem = netmem;
	if (vm && psz > 0 && !(netmem & 1) && netmem >= vm)
		pr->pfn = (netmem - vm) / psz;
	if (hp) {
		pr->where = where_name(hp->where);
		holder_desc_of(pr->holder, sizeof(pr->holder), rep, hp);
	}
	/* the ledger keeps no stack: page_stacks has the pages that took one */
	if (pr->stack_id < 0 && pr->in_ledger && k &&
	    bpf_map_lookup_elem(bpf_map__fd(m->s.skel->maps.page_stacks), &netmem, &stack))
		pr->stack_id = -1;
	else if (pr->stack_id < 0 && pr->in_ledger && k)
		pr->stack_id = stack;
	if (pr->stack_id >= 0 && k) {
		nf = stack_frames(&m->s, k, pr->stack_id, ips, PPW_STACK_DEPTH);
		if (nf > 0)
			stack_fmt(k, ips, nf, 8, pr->stack, sizeof(pr->stack));
	}
}

int page_list_build(struct page_list *l, struct monitor *m, const struct pool_row *row,
		    const struct holders_report *rep, const struct ksyms *k, double older_than,
		    size_t limit)
{
	struct ledger_page *lp = NULL;
	struct page_row *pr;
	size_t n = 0, i;
	int err;

	memset(l, 0, sizeof(*l));
	err = collector_ledger_of(&m->col, row->addr, row->gen, &lp, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		double age = ((double)m->cur.ts_ns - (double)lp[i].hold_ns) / 1e9;

		if (!isnan(older_than) && age < older_than)
			continue;
		pr = VEC_PUSH(l->rows, l->n, l->cap);
		if (!pr)
			goto nomem;
		pr->age_s = age;
		pr->in_ledger = true;
		pr->cpu = lp[i].cpu;
		pr->stack_id = lp[i].stack_id;
		fill_common(pr, m, rep, k, lp[i].netmem);
	}
	/* pages a holder has that the ledger does not: out before we looked */
	for (i = 0; i < rep->npage_idx; i++) {
		const struct ppw_rec_page *hp = rep->page_idx[i];

		if (hp->pool != row->addr || (i && rep->page_idx[i - 1]->netmem == hp->netmem))
			continue;
		if (hp->in_ledger && hp->gen == row->gen)
			continue;
		if (!isnan(older_than)) {
			l->unknown_age++;
			continue;
		}
		pr = VEC_PUSH(l->rows, l->n, l->cap);
		if (!pr)
			goto nomem;
		pr->age_s = row->seen_age_s;
		pr->age_at_least = true;
		pr->cpu = -1;
		pr->stack_id = -1;
		fill_common(pr, m, rep, k, hp->netmem);
	}
	free(lp);
	if (row->inflight > 0 && (size_t)row->inflight > l->n + l->unknown_age)
		l->unseen = (size_t)row->inflight - l->n - l->unknown_age;
	if (l->n)
		qsort(l->rows, l->n, sizeof(*l->rows), age_cmp);
	if (limit && l->n > limit)
		l->n = limit;
	return 0;
nomem:
	p_err("listing the pages of pool %s: %s", row->ident, strerror(ENOMEM));
	free(lp);
	page_list_free(l);
	return -ENOMEM;
}

void page_list_free(struct page_list *l)
{
	free(l->rows);
	memset(l, 0, sizeof(*l));
}
