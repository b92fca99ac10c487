/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A kernel's memory made by hand for the crash-dump readers' unit tests
 * (model/kmem.h's read callback): regions at kernel addresses, each read
 * only whole within one region, as a dump gives what it has.
 */
#ifndef __PPWATCH_FAKE_MEM_H
#define __PPWATCH_FAKE_MEM_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* a kernel's memory: regions at addresses */
struct region {
	uint64_t addr;
	uint8_t *buf;
	size_t len;
};

struct fake {
	struct region r[48];
	size_t n;
};

static inline int fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct fake *f = ctx;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (addr >= f->r[i].addr && addr + n <= f->r[i].addr + f->r[i].len) {
			memcpy(buf, f->r[i].buf + (addr - f->r[i].addr), n);
			return 0;
		}
	return -EFAULT;
}

static inline uint8_t *region(struct fake *f, uint64_t addr, size_t len)
{
	struct region *r = &f->r[f->n++];

	r->addr = addr;
	r->len = len;
	r->buf = calloc(1, len);
	return r->buf;
}

static inline void fake_free(struct fake *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->r[i].buf);
	f->n = 0;
}

#endif /* __PPWATCH_FAKE_MEM_H */
