/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Kernel text symbols from /proc/kallsyms, for symbolising stacks. */
#ifndef __PPWATCH_LIB_KSYMS_H
#define __PPWATCH_LIB_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	struct ksym *v;
	size_t n, cap;
};

/* 0, or -errno; addresses all zero (kptr_restrict) gives -EPERM */
int ksyms_load(struct ksyms *k, const char *path);
void ksyms_free(struct ksyms *k);
/* "func+0x1e4", or "0xffffffff81234567" when unknown */
const char *ksyms_fmt(const struct ksyms *k, uint64_t addr, char *buf, size_t len);

#endif /* __PPWATCH_LIB_KSYMS_H */
