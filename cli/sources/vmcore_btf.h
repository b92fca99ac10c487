/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A crash dump's kernel BTF: the kernel's own .BTF section, in its memory
 * between __start_BTF and __stop_BTF, parsed by libbpf (btf__new()
 * validates every type), and the members a dump walk reads found in it by
 * name (model/vmcore_layout.h), as CO-RE finds them: anonymous structs and
 * unions looked into, bitfields read as bitfields, nothing assumed of a
 * kernel's version. The BTF is untrusted: at most VB_MAX_BYTES are read.
 */
#ifndef __PPWATCH_SOURCES_VMCORE_BTF_H
#define __PPWATCH_SOURCES_VMCORE_BTF_H

#include <stddef.h>

#include "model/kmem.h"
#include "model/vmcore_layout.h"

#define VB_MAX_BYTES (64u << 20)

struct btf;

/* the BTF between start and stop: 0, or -errno with why */
int vmcore_btf_read(struct kmem *m, uint64_t start, uint64_t stop, struct btf **out, char *why,
		    size_t whylen);
/* a BTF from bytes (the fuzz target's way in): 0, or -errno */
int vmcore_btf_parse(const void *data, size_t len, struct btf **out);
/*
 * The layout: 0, or -ENOENT with why naming what the kernel lacks (no
 * struct page_pool, no page_pools xarray's types)
 */
int vmcore_layout_of(const struct btf *btf, struct vmcore_layout *l, char *why, size_t whylen);

#endif /* __PPWATCH_SOURCES_VMCORE_BTF_H */
