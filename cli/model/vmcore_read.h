/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a dumped kernel's members where its BTF says they are
 * (model/vmcore_layout.h), for the walks of model/vmcore_walk.c and
 * model/vmcore_holders.c: every read bounded and checked.
 */
#ifndef __PPWATCH_MODEL_VMCORE_READ_H
#define __PPWATCH_MODEL_VMCORE_READ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "model/kmem.h"
#include "model/vmcore_layout.h"

/*
 * the kernel half of x86_64 (4-level paging: from 0xffff800000000000;
 * 5-level, as "-cpu max" and Ice Lake and later boot: from
 * 0xff00000000000000) and arm64: the lowest of them; a non-canonical
 * address in between fails its read
 */
#define KERNEL_PTR(p) ((p) >= 0xff00000000000000ULL)

/* a member of a struct read into buf (len bytes): 0, or -ENOENT (absent) / -ERANGE */
static inline int vm_field_of(const uint8_t *buf, size_t len, struct vm_field f, uint64_t *v)
{
	uint64_t x = 0, byte;
	unsigned size, i;

	if (!vm_has(f))
		return -ENOENT;
	if (f.bit_size) {
		byte = (uint64_t)f.bit_off / 8;
		size = ((unsigned)(f.bit_off % 8) + f.bit_size + 7) / 8;
		if (f.bit_size > 57 || byte + size > len)
			return -ERANGE;
		for (i = size; i-- > 0;)
			x = x << 8 | buf[byte + i];
		*v = (x >> (f.bit_off % 8)) & ((1ULL << f.bit_size) - 1);
		return 0;
	}
	byte = vm_off(f);
	if (f.size == 0 || f.size > 8 || byte + f.size > len)
		return -ERANGE;
	for (i = f.size; i-- > 0;)
		x = x << 8 | buf[byte + i];
	*v = x;
	return 0;
}

/* a member of the struct at addr, read alone */
static inline int vm_read_field(struct kmem *m, uint64_t addr, struct vm_field f, uint64_t *v)
{
	if (!vm_has(f) || f.bit_size)
		return -ENOENT;
	return kmem_uint(m, addr + vm_off(f), f.size, v);
}

/* a member of the struct at addr that may be a bitfield (head_frag) */
static inline int vm_read_bits(struct kmem *m, uint64_t addr, struct vm_field f, uint64_t *v)
{
	uint8_t b[16];
	uint64_t byte = (uint64_t)f.bit_off / 8;
	size_t n;

	if (!vm_has(f))
		return -ENOENT;
	if (!f.bit_size)
		return vm_read_field(m, addr, f, v);
	n = ((size_t)(f.bit_off % 8) + f.bit_size + 7) / 8;
	if (n > sizeof(b) || kmem_read(m, addr + byte, b, n))
		return -EFAULT;
	f.bit_off %= 8;
	return vm_field_of(b, n, f, v);
}

#endif /* __PPWATCH_MODEL_VMCORE_READ_H */
