/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ppvm-bpf: the records its BPF programs send to user space */
#ifndef PPVM_BPF_H
#define PPVM_BPF_H

enum ppvm_kind {
	PPVM_BLOCK_ALLOC = 1, /* v: block->pp, flags, ref, pool prealloc, pool dyn, arg dyn */
	PPVM_BLOCK_FREE,      /* same */
	PPVM_FAST_EMPTY,      /* v: inflight, items_exhausted, -, -, pool dyn */
	PPVM_DESTROY_UNMAP,   /* v: inflight, unmapped, blocks, duration_ns, prealloc, dyn */
	PPVM_BLOCK,	      /* v: flags, ref, in use, items per block */
	PPVM_BLOCKS,	      /* v: inflight, blocks, in use, prealloc, dyn, complete */
	PPVM_DMA,	      /* v: inflight, dma_map, has dma_mapped, dma_mapped empty */
	PPVM_DMA_LIVE,	      /* same at the pool's first hold (inflight -1) */
};

struct ppvm_ev {
	__u32 kind;
	__u32 id;
	__u32 nargs;
	__u32 pad;
	__u64 pool;
	__u64 block;
	__u64 v[6];
};

#endif
