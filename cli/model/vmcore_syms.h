/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A dumped kernel's symbols, found without its vmlinux (pure):
 *
 *  - its own kallsyms tables, in its memory, where VMCOREINFO says they
 *    are (SYMBOL(kallsyms_names), _num_syms, _token_table, _token_index,
 *    _offsets, and kallsyms_relative_base on kernels whose offsets are
 *    relative to it): each name decoded as kernel/kallsyms.c does, each
 *    address by the tables' own scheme (place-relative offsets; relative
 *    to the base; or, where any offset is negative, absolute per-CPU
 *    symbols and negative offsets below the base);
 *  - or a System.map (Debian's is in linux-image-RELEASE-dbg: /boot's is a
 *    placeholder, refused as one), its link-time
 *    addresses moved by VMCOREINFO's KERNELOFFSET (KASLR), checked
 *    against VMCOREINFO's own SYMBOL() lines so that another kernel's map
 *    is refused.
 *
 * Only the few names the caller asks for are kept. Everything read is
 * untrusted and bounded: VS_MAX_SYMS symbols, names of KSYM_NAME_LEN.
 */
#ifndef __PPWATCH_MODEL_VMCORE_SYMS_H
#define __PPWATCH_MODEL_VMCORE_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/kmem.h"
#include "model/vmcoreinfo.h"

#define VS_MAX_SYMS (4u << 20)
#define VS_NAME_LEN 512
#define VS_MAP_MAX  (64u << 20) /* System.map bytes read */

/* the names wanted, and what was found of each */
struct vs_want {
	const char *name;
	uint64_t addr; /* 0: not found */
	unsigned seen; /* times the name is in the table (a static name may repeat) */
};

struct vs_result {
	uint64_t syms;	  /* symbols the table has */
	uint64_t decoded; /* of them, read before every name was found */
	const char *how;  /* "kallsyms" or "System.map" */
	char why[256];	  /* the reason of a failure */
};

/* do the dump's VMCOREINFO lines name the kallsyms tables? */
bool vs_have_kallsyms(const struct vmcoreinfo *vi);
/* each want[] from the dump's kallsyms: 0, or -errno with r->why */
int vs_kallsyms(struct kmem *m, const struct vmcoreinfo *vi, struct vs_want *want, size_t n,
		struct vs_result *r);
/*
 * each want[] from a System.map's text (len bytes), moved by KERNELOFFSET:
 * 0, or -errno with r->why (-ESTALE: the map is not this kernel's)
 */
int vs_system_map(const char *text, size_t len, const struct vmcoreinfo *vi, struct vs_want *want,
		  size_t n, struct vs_result *r);

#endif /* __PPWATCH_MODEL_VMCORE_SYMS_H */
