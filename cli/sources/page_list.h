/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pool's inflight pages, oldest first, as page rows (output/holder_table.h):
 * the page ledger's entries (exact ages, the CPU, the sampled hold stack)
 * and the pages a holder scan found that the ledger does not have (taken
 * before ppwatch saw them: their ages are lower bounds, the pool row's
 * unseen_age_s, model/ages.h). 'pages' lists them, the recording writer
 * keeps the oldest of destroyed pools.
 *
 * Of one instant, at a bounded cost: a page set is the ledger's pages of
 * every pool a document lists, read in one walk right after the sample
 * (nothing folds in between, so they are the sample's), and the sampled
 * stacks' map read in batches; a list picks the pages it keeps (older
 * than, the N oldest) before it builds a row for any.
 */
#ifndef __PPWATCH_SOURCES_PAGE_LIST_H
#define __PPWATCH_SOURCES_PAGE_LIST_H

#include "lib/ksyms.h"
#include "model/attrib.h"
#include "output/holder_table.h"
#include "sources/monitor.h"

struct page_stack {
	__u64 netmem;
	__s32 stack_id;
};

struct page_set {
	struct ledger_page *v; /* by generation, oldest first */
	size_t n;
	struct page_stack *stacks; /* page_stacks, by netmem (stacks_read) */
	size_t nstacks;
	bool stacks_read; /* read whole; else a lookup a page */
};

/*
 * The ledger's pages of the rows of m->cur keep() says yes to, and with
 * stacks the sampled stacks: 0 or -errno (reported); free with
 * page_set_free().
 */
int page_set_build(struct page_set *ps, struct monitor *m,
		   bool (*keep)(const struct pool_row *r, void *arg), void *arg, bool stacks);
void page_set_free(struct page_set *ps);

struct page_list {
	struct page_row *rows;
	size_t n, cap;
	size_t unknown_age; /* pages older_than leaves out: not known to be that old */
	size_t unseen;	    /* inflight pages neither the ledger nor a holder scan found */
};

/*
 * The pages of 'row' (one of the set's) older than older_than (NAN: all;
 * a page whose lower bound is under it is only counted), the 'limit'
 * oldest (0: all), ages at m->cur's instant. k symbolises sampled stacks
 * (NULL: none). 0 or -errno; free with page_list_free().
 */
int page_list_build(struct page_list *l, struct monitor *m, const struct page_set *ps,
		    const struct pool_row *row, const struct holders_report *rep,
		    const struct ksyms *k, double older_than, size_t limit);
void page_list_free(struct page_list *l);

#endif /* __PPWATCH_SOURCES_PAGE_LIST_H */
