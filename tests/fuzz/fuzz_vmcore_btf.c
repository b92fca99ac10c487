// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A crash dump's BTF on any bytes: libbpf's btf__new() takes it or
 * refuses it (sources/vmcore_btf.c), and the layout found in what it
 * takes (members by name, into anonymous structs, bitfields) must hold
 * together: every member a walk reads inside its struct's size, an
 * xarray node's slots a bounded array. This target links libbpf and the
 * one source file it fuzzes, not only the pure objects.
 */
#include <errno.h>

#include <bpf/btf.h>

#include "fuzz.h"
#include "sources/vmcore_btf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmcore_layout l;
	struct btf *btf = NULL;
	char why[256];

	if (vmcore_btf_parse(data, size, &btf))
		return 0;
	if (!vmcore_layout_of(btf, &l, why, sizeof(why))) {
		FUZZ_CHECK(l.pool_size > 0 && l.pool_size <= 64 * 1024);
		FUZZ_CHECK(l.xa_chunk > 0);
		FUZZ_CHECK(vm_has(l.id) && vm_has(l.xa_head));
		FUZZ_CHECK(!vm_has(l.hold) || l.hold.size <= 1 << 20);
	} else {
		FUZZ_CHECK(why[0]);
	}
	btf__free(btf);
	return 0;
}
