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
/* "zero, cache, private cache, user, free": the classes level leaves out ("" for 0) */
const char *dl_excluded(int level, char *buf, size_t len);

#endif /* __PPWATCH_MODEL_DUMP_LEVEL_H */
