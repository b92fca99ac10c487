/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * VMCOREINFO (pure): the KEY=VALUE lines a kernel keeps for its dumps
 * (kernel/vmcore_info.c): OSRELEASE, PAGESIZE, KERNELOFFSET, SYMBOL(name)
 * (run-time addresses, KASLR included), OFFSET(struct.member),
 * SIZE(type), NUMBER(name), and on kernels that have them the kallsyms_*
 * symbols. The text comes from a dump: untrusted. At most
 * VMCOREINFO_MAX_BYTES are read, at most VMCOREINFO_MAX_KEYS lines kept,
 * each line at most VMCOREINFO_LINE_MAX bytes (a longer one is skipped and
 * counted); a key seen twice keeps its first value.
 */
#ifndef __PPWATCH_MODEL_VMCOREINFO_H
#define __PPWATCH_MODEL_VMCOREINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VMCOREINFO_MAX_BYTES (64 * 1024)
#define VMCOREINFO_MAX_KEYS  1024
#define VMCOREINFO_LINE_MAX  512

struct vmcoreinfo {
	char *text; /* a copy, NUL-terminated at each '=' and line end */
	struct vci_kv {
		const char *key, *value;
	} * kv;
	size_t n;
	size_t skipped; /* lines that are no KEY=VALUE, too long, or past the key bound */
};

/* 0, -ENOMEM, or -ENODATA (no KEY=VALUE line at all) */
int vmcoreinfo_parse(struct vmcoreinfo *vi, const char *text, size_t len);
void vmcoreinfo_free(struct vmcoreinfo *vi);
/* the value of KEY, or NULL */
const char *vmcoreinfo_get(const struct vmcoreinfo *vi, const char *key);
/* a hexadecimal value (SYMBOL(...), KERNELOFFSET: no 0x): 0, or -ENOENT / -EINVAL */
int vmcoreinfo_hex(const struct vmcoreinfo *vi, const char *key, uint64_t *out);
/* a decimal value (PAGESIZE, NUMBER(...), OFFSET(...), SIZE(...)) */
int vmcoreinfo_dec(const struct vmcoreinfo *vi, const char *key, int64_t *out);
/* SYMBOL(name)'s address: 0, or -ENOENT / -EINVAL */
int vmcoreinfo_symbol(const struct vmcoreinfo *vi, const char *name, uint64_t *out);

#endif /* __PPWATCH_MODEL_VMCOREINFO_H */
