// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "model/dump_level.h"

/* struct disk_dump_header (makedumpfile's diskdump_mod.h), x86_64 and arm64 */
#define SIG_OFF	       0
#define VERSION_OFF    8
#define BLOCK_SIZE_OFF 428 /* after utsname (6 x 65) and the 8-aligned struct timeval, status */
#define SUB_LEVEL_OFF  8   /* struct kdump_sub_header: phys_base, then dump_level */
#define DL_MAX	       31

static int32_t le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

long dl_block_size(const uint8_t *hdr, size_t len)
{
	int32_t bs;

	if (len < DL_HEADER_BYTES || memcmp(hdr + SIG_OFF, "KDUMP   ", 8))
		return -1;
	bs = le32(hdr + BLOCK_SIZE_OFF);
	/* a page size: what makedumpfile and QEMU write */
	if (bs < 512 || bs > (1 << 20) || (bs & (bs - 1)))
		return -1;
	return bs;
}

int dl_level(const uint8_t *hdr, size_t hlen, const uint8_t *sub, size_t slen)
{
	int32_t v;

	if (dl_block_size(hdr, hlen) < 0 || le32(hdr + VERSION_OFF) < 1 || slen < SUB_LEVEL_OFF + 4)
		return -1;
	v = le32(sub + SUB_LEVEL_OFF);
	return v >= 0 && v <= DL_MAX ? v : -1;
}

#define SUB_HDR_SIZE_OFF \
	432 /* blocks of the sub-header (and what follows it, before the bitmaps) */
#define BITMAP_BLOCKS_OFF 436

int dl_layout_of(const uint8_t *hdr, size_t len, struct dl_layout *o)
{
	long bs = dl_block_size(hdr, len);
	int32_t sub = bs > 0 ? le32(hdr + SUB_HDR_SIZE_OFF) : -1;
	int32_t bmb = bs > 0 ? le32(hdr + BITMAP_BLOCKS_OFF) : -1;
	uint64_t bitmap_off;

	/* 31-bit counts of blocks of at most 1 MiB: every offset fits 64 bits */
	if (bs < 0 || sub < 0 || bmb <= 0)
		return -1;
	bitmap_off = (uint64_t)(1 + sub) * (uint64_t)bs;
	o->bitmap2_len = (uint64_t)bmb * (uint64_t)bs / 2;
	o->bitmap2_off = bitmap_off + o->bitmap2_len;
	o->desc_off = bitmap_off + (uint64_t)bmb * (uint64_t)bs;
	return 0;
}

uint64_t dl_desc_end(const uint8_t *desc)
{
	uint64_t off = 0, end;
	uint32_t n = (uint32_t)le32(desc + 8);
	int i;

	for (i = 7; i >= 0; i--)
		off = off << 8 | desc[i];
	if ((int64_t)off <= 0 || __builtin_add_overflow(off, (uint64_t)n, &end))
		return 0;
	return end;
}

const char *dl_excluded(int level, char *buf, size_t len)
{
	static const char *const name[] = { "zero", "cache", "private cache", "user", "free" };
	size_t i, n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (i = 0; i < sizeof(name) / sizeof(name[0]) && level > 0; i++)
		if (level & (1 << i) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name[i]);
	return buf;
}
