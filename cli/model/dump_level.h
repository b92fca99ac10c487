/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * makedumpfile's dump level (-d): which pages a kdump-compressed dump left
 * out, read from its own headers (makedumpfile's diskdump_mod.h: struct
 * disk_dump_header, then at block_size its struct kdump_sub_header, whose
 * dump_level follows phys_base since header_version 1). QEMU's
 * dump-guest-memory -z writes level 1 (zero pages left out); an ELF dump
 * has no level (every page). Pure: the headers' bytes in, bounded.
 *
 * What each level's pages are to ppwatch: it reads struct pages
 * (vmemmap), slab objects (sockets, skbs, files, tasks), page_pool structs
 * and skb_shared_info at the end of an skb's head, all kernel memory that
 * no level excludes: zero pages (1; a page holding a struct ppwatch reads
 * is not all zeros), the page cache (2, 4), user pages (8: anonymous
 * memory) and free pages (16: a page back in the buddy allocator is no
 * pool's).
 */
#ifndef __PPWATCH_MODEL_DUMP_LEVEL_H
#define __PPWATCH_MODEL_DUMP_LEVEL_H

#include <stddef.h>
#include <stdint.h>

#define DL_HEADER_BYTES 464 /* struct disk_dump_header, 64-bit */
#define DL_SUB_BYTES	16  /* phys_base, dump_level (and split) */

/* the header's block size (where the sub-header is), or -1: no kdump-compressed header */
long dl_block_size(const uint8_t *hdr, size_t len);
/* the sub-header's dump level (0..31), or -1 (a header_version 0 file has none) */
int dl_level(const uint8_t *hdr, size_t hlen, const uint8_t *sub, size_t slen);
/*
 * Where a kdump-compressed file's parts are (the header, then its
 * sub-header, then two bitmaps of bitmap_blocks / 2 blocks each, the
 * second the pages dumped, one bit a pfn, then a 24-byte page descriptor
 * for each page dumped, in pfn order, each giving the offset and size of
 * its data): 0, or -1 when the header is no kdump-compressed one.
 */
struct dl_layout {
	uint64_t bitmap2_off, bitmap2_len; /* the dumped pages' bitmap */
	uint64_t desc_off;		   /* the first page descriptor */
};
#define DL_DESC_BYTES 24 /* struct page_desc: offset, size, flags, page_flags */

int dl_layout_of(const uint8_t *hdr, size_t len, struct dl_layout *o);
/* the end of the page data descriptor desc (DL_DESC_BYTES) says, or 0 if it says none */
uint64_t dl_desc_end(const uint8_t *desc);

/* "zero, cache, private cache, user, free": the classes level leaves out ("" for 0) */
const char *dl_excluded(int level, char *buf, size_t len);

#endif /* __PPWATCH_MODEL_DUMP_LEVEL_H */
