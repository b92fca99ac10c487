/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How a struct page says it is page_pool's: page->pp_magic holds
 * PP_SIGNATURE (include/net/page_pool/types.h: 0x40 + POISON_POINTER_DELTA)
 * while the page belongs to a pool, cleared when it goes back to the page
 * allocator (page_pool_clear_pp_info()). Since "page_pool: Track
 * DMA-mapped pages and unmap them when destroying the pool" its bits 7..38
 * also carry the page's DMA index, and the low two bits are left to
 * others, so a compare masks both. POISON_POINTER_DELTA is
 * CONFIG_ILLEGAL_POINTER_VALUE: 0xdead000000000000 on x86_64 and arm64.
 * Used by the live scan (the BPF side's rodata, sources/loader.c) and by
 * the crash-dump page scan (model/vmcore_walk.c).
 */
#ifndef __PPWATCH_MODEL_PP_MAGIC_H
#define __PPWATCH_MODEL_PP_MAGIC_H

#include <stdbool.h>
#include <stdint.h>

#define PPW_POISON_DELTA      0xdead000000000000ULL
#define PPW_PP_SIGNATURE      (0x40ULL + PPW_POISON_DELTA)
#define PPW_PP_DMA_INDEX_MASK (0xffffffffULL << 7)
#define PPW_PP_MAGIC_MASK     (~(PPW_PP_DMA_INDEX_MASK | 0x3ULL))

static inline bool pp_magic_is_pool(uint64_t magic)
{
	return (magic & PPW_PP_MAGIC_MASK) == PPW_PP_SIGNATURE;
}

#endif /* __PPWATCH_MODEL_PP_MAGIC_H */
