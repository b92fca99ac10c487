/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef __PPWATCH_PAGES_H
#define __PPWATCH_PAGES_H

#include "model/attrib.h"
#include "lib/ksyms.h"
#include "sources/monitor.h"
#include "output/holder_table.h"

/*
 * A pool's inflight pages, oldest first: ledger pages older than older_than
 * (NAN: all) and the holders' pages from before start (only without a
 * filter; *unknown_age counts those left out). *rows is malloc'd.
 */
int pages_listing(struct monitor *m, const struct pool_row *row,
		  const struct holders_report *rep, const struct ksyms *k, double older_than,
		  size_t limit, struct page_row **rows, size_t *nrows, size_t *unknown_age);

#endif /* __PPWATCH_PAGES_H */
