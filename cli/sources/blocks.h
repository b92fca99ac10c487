/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Running the item-block walk (bpf/blocks.bpf.c) into a model/blocks.h scan. */
#ifndef __PPWATCH_SOURCES_BLOCKS_H
#define __PPWATCH_SOURCES_BLOCKS_H

#include "model/blocks.h"
#include "sources/loader.h"

/* this session can walk item blocks (the kernel has them; the walk loaded) */
bool blocks_available(const struct session *s);
/*
 * Walk every pool's blocks (pool 0: totals only) or one pool's (totals and
 * each block) into *out, which the caller frees with blocks_scan_free().
 * 0, or -errno (reported).
 */
int blocks_scan_run(struct session *s, __u64 pool, struct blocks_scan *out);

#endif /* __PPWATCH_SOURCES_BLOCKS_H */
