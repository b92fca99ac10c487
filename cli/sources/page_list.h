/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pool's inflight pages, oldest first, as page rows (output/holder_table.h):
 * the page ledger's entries (exact ages, the CPU, the sampled hold stack)
 * and the pages a holder scan found that the ledger does not have (out
 * before ppwatch started: ages are lower bounds). 'pages' lists them,
 * the recording writer keeps the oldest of destroyed pools.
 */
#ifndef __PPWATCH_SOURCES_PAGE_LIST_H
#define __PPWATCH_SOURCES_PAGE_LIST_H

#include "lib/ksyms.h"
#include "model/attrib.h"
#include "output/holder_table.h"
#include "sources/monitor.h"

struct page_list {
	struct page_row *rows;
	size_t n, cap;
	size_t unknown_age; /* pages of unknown age left out by older_than */
	size_t unseen;	    /* inflight pages neither the ledger nor a holder scan found */
};

/*
 * The pages of 'row' older than older_than (NAN: all; pages of unknown age
 * are then only counted), at most 'limit' (0: all). k symbolises sampled
 * stacks (NULL: none). 0 or -errno; free with page_list_free().
 */
int page_list_build(struct page_list *l, struct monitor *m, const struct pool_row *row,
		    const struct holders_report *rep, const struct ksyms *k, double older_than,
		    size_t limit);
void page_list_free(struct page_list *l);

#endif /* __PPWATCH_SOURCES_PAGE_LIST_H */
