/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A crash dump's item blocks (pure; kernels with the page_pool item-block
 * series): each pool's blocks counted as the live walk counts them
 * (bpf/blocks.bpf.c), into the reading's occupancy (pool_obs.occ), so a
 * dump's report has the same block_occupancy a live 'pools -j' has. A
 * pre-allocated block's item is in use when the page it points to points
 * back at it (page->pp_item); a dynamic block's are its refcount less the
 * current block's items not handed out yet. Every list walk is bounded
 * (PPW_MAX_BLOCKS, as live) and every read checked: a block the dump does
 * not have ends its pool's walk, which is then marked truncated.
 */
#ifndef __PPWATCH_MODEL_VMCORE_BLOCKS_H
#define __PPWATCH_MODEL_VMCORE_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/kmem.h"
#include "model/reading.h"
#include "model/vmcore_layout.h"

struct vmcore_bstats {
	bool kernel_has;     /* the kernel's BTF has the item-block series' types */
	uint64_t pools;	     /* pools whose blocks were walked */
	uint64_t blocks;     /* blocks read */
	uint64_t unreadable; /* blocks (or lists) the dump does not have: their pool truncated */
};

/*
 * Count the blocks of every pool of rd into its occ (has_occ set): 0, or
 * -ENOMEM; 0 with st->kernel_has false on a kernel without item blocks
 * (nothing done).
 * vmemmap: the struct page of pfn 0 (0: unknown, every item pointer read);
 * page_size: the dump's (a block is one page).
 */
int vmcore_blocks(struct kmem *m, const struct vmcore_layout *l, uint64_t vmemmap,
		  uint32_t page_size, struct reading *rd, struct vmcore_bstats *st);

#endif /* __PPWATCH_MODEL_VMCORE_BLOCKS_H */
