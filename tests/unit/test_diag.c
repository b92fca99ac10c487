// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Load failures, read back from what libbpf printed (logs as libbpf 1.1
 * and the 6.1 to 6.18 verifiers write them): the program and what the
 * kernel lacks, without -d.
 */
#include <errno.h>

#include "unit.h"

#include "lib/bpf_diag.h"

static const char core_log[] =
	"prog 'scan_pools': BPF program load failed: Invalid argument\n"
	"prog 'scan_pools': -- BEGIN PROG LOAD LOG --\n"
	"0: R1=ctx() R10=fp0\n"
	"; nodes = read_u64(...)\n"
	"31: <invalid CO-RE relocation>\n"
	"failed to resolve CO-RE relocation <byte_off> [2345] struct net_hotdata___defer.skb_defer_nodes (0:12 @ offset 40)\n"
	"processed 31 insns (limit 1000000) max_states_per_insn 0 total_states 2 peak_states 2 mark_read 1\n"
	"-- END PROG LOAD LOG --\n"
	"prog 'scan_pools': failed to load: -22\n"
	"failed to load object 'ppwatch_bpf'\n";

static const char helper_log[] =
	"prog 'hold_btf': BPF program load failed: Invalid argument\n"
	"prog 'hold_btf': -- BEGIN PROG LOAD LOG --\n"
	"0: (85) call bpf_map_lookup_percpu_elem#195\n"
	"unknown func bpf_map_lookup_percpu_elem#195\n"
	"processed 1 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n"
	"-- END PROG LOAD LOG --\n";

static const char verifier_log[] =
	"prog 'hold_btf': BPF program load failed: Permission denied\n"
	"prog 'hold_btf': -- BEGIN PROG LOAD LOG --\n"
	"2: (bf) r1 = r7                       ; R1=trusted_ptr_page_pool() R7=trusted_ptr_page_pool()\n"
	"3: (77) r1 >>= 6\n"
	"R1 pointer arithmetic with >>= operator prohibited\n"
	"processed 4 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n"
	"-- END PROG LOAD LOG --\n";

static void test_core_relo(void)
{
	struct bpf_diag d;
	char buf[512];

	bpf_diag_parse(core_log, -EINVAL, &d);
	CHECK_INT(d.kind, DIAG_CORE_RELO);
	CHECK_STR(d.prog, "scan_pools");
	/* the flavour suffix is ppwatch's, not the kernel's */
	CHECK_STR(d.what, "struct net_hotdata.skb_defer_nodes");
	bpf_diag_str(&d, buf, sizeof(buf));
	CHECK(strstr(buf,
		     "prog 'scan_pools': this kernel has no struct net_hotdata.skb_defer_nodes"),
	      "%s", buf);
}

static void test_helper_and_verifier(void)
{
	struct bpf_diag a, b;
	char buf[512];

	bpf_diag_parse(helper_log, -EINVAL, &a);
	CHECK_INT(a.kind, DIAG_HELPER);
	CHECK_STR(a.what, "bpf_map_lookup_percpu_elem#195");
	bpf_diag_parse(verifier_log, -EACCES, &b);
	/* EACCES from the verifier is not a missing privilege */
	CHECK_INT(b.kind, DIAG_VERIFIER);
	CHECK_STR(b.what, "R1 pointer arithmetic with >>= operator prohibited");
	CHECK(strstr(bpf_diag_str(&b, buf, sizeof(buf)), "the verifier rejected it"), "%s", buf);
	CHECK(!bpf_diag_same(&a, &b), "different reasons");
	bpf_diag_parse(helper_log, -EINVAL, &b);
	CHECK(bpf_diag_same(&a, &b), "the same reason twice");
}

static void test_privilege_and_memory(void)
{
	struct bpf_diag d;

	bpf_diag_parse("failed to load object 'ppwatch_bpf'\n", -EPERM, &d);
	CHECK_INT(d.kind, DIAG_PRIVILEGE);
	bpf_diag_parse("Error in bpf_create_map_xattr(pages):Argument list too long(-7).\n", -E2BIG,
		       &d);
	CHECK_INT(d.kind, DIAG_MEMORY);
	bpf_diag_parse(NULL, -ENOENT, &d);
	CHECK_INT(d.kind, DIAG_UNKNOWN);
	/* a truncated log still gives what it has */
	bpf_diag_parse("prog 'x", -EINVAL, &d);
	CHECK_STR(d.prog, "x");
}

int main(void)
{
	TEST(test_core_relo);
	TEST(test_helper_and_verifier);
	TEST(test_privilege_and_memory);
	return unit_done();
}
