/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Phantoms: ledger pages whose release was lost (a full page log, a slot
 * skipped), found each refresh the collector reads the ledger, as
 * model/reconcile.h says: by the kernel's word on each page where it can
 * tell (prog 'page_check', after new release losses, once a second at
 * most), else by the kernel's counts.
 */
#ifndef __PPWATCH_SOURCES_PHANTOMS_H
#define __PPWATCH_SOURCES_PHANTOMS_H

#include "sources/collector.h"

/*
 * Mark the phantoms among rd's pools' ledger pages (rd counted already):
 * the pages newly marked (the caller counts the pools again), or -errno
 * (reported).
 */
long collector_find_phantoms(struct collector *c, struct reading *rd);

#endif /* __PPWATCH_SOURCES_PHANTOMS_H */
