/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A kernel's memory as the pure model reads it: a callback that reads
 * n bytes at a kernel virtual address (a crash dump's, sources/dump.c; a
 * buffer's in the unit tests and fuzz targets). Every read is bounded by
 * its caller; what a dump lacks (a page makedumpfile left out, an address
 * no page table maps) is an error the caller says, never a zero it
 * believes.
 */
#ifndef __PPWATCH_MODEL_KMEM_H
#define __PPWATCH_MODEL_KMEM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct kmem {
	/* 0, or -errno: -EFAULT (not in the dump), -EIO */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	void *ctx;
	uint64_t reads, failed; /* counted by kmem_read() */
};

static inline int kmem_read(struct kmem *m, uint64_t addr, void *buf, size_t n)
{
	int err;

	m->reads++;
	if (addr + n < addr) {
		m->failed++;
		return -EFAULT;
	}
	err = m->read(m->ctx, addr, buf, n);
	m->failed += err != 0;
	return err;
}

/* a little-endian u64/u32/u16 (the kernels read are little-endian 64-bit: sources/dump.c) */
static inline int kmem_u64(struct kmem *m, uint64_t addr, uint64_t *v)
{
	return kmem_read(m, addr, v, sizeof(*v));
}

static inline int kmem_u32(struct kmem *m, uint64_t addr, uint32_t *v)
{
	return kmem_read(m, addr, v, sizeof(*v));
}

/* an unsigned number of 1, 2, 4 or 8 bytes */
static inline int kmem_uint(struct kmem *m, uint64_t addr, unsigned size, uint64_t *v)
{
	uint8_t b[8] = { 0 };
	uint64_t x = 0;
	int err, i;

	if (size == 0 || size > 8)
		return -EINVAL;
	err = kmem_read(m, addr, b, size);
	if (err)
		return err;
	for (i = (int)size - 1; i >= 0; i--)
		x = x << 8 | b[i];
	*v = x;
	return 0;
}

/* a C string of at most len - 1 bytes (cut there), NUL-terminated: 0, or -errno */
static inline int kmem_str(struct kmem *m, uint64_t addr, char *buf, size_t len)
{
	size_t i;
	int err;

	if (!len)
		return -EINVAL;
	/* one read of the whole buffer may cross into a page the dump lacks: byte-wise then */
	if (!kmem_read(m, addr, buf, len - 1)) {
		buf[len - 1] = 0;
		return 0;
	}
	for (i = 0; i + 1 < len; i++) {
		err = kmem_read(m, addr + i, &buf[i], 1);
		if (err) {
			buf[i] = 0;
			return i ? 0 : err;
		}
		if (!buf[i])
			return 0;
	}
	buf[len - 1] = 0;
	return 0;
}

#endif /* __PPWATCH_MODEL_KMEM_H */
