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
	CHECK_INT(d.kind, BPF_DIAG_CORE_RELO);
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
	CHECK_INT(a.kind, BPF_DIAG_HELPER);
	CHECK_STR(a.what, "bpf_map_lookup_percpu_elem#195");
	bpf_diag_parse(verifier_log, -EACCES, &b);
	/* EACCES from the verifier is not a missing privilege */
	CHECK_INT(b.kind, BPF_DIAG_VERIFIER);
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
	CHECK_INT(d.kind, BPF_DIAG_PRIVILEGE);
	bpf_diag_parse("Error in bpf_create_map_xattr(pages):Argument list too long(-7).\n", -E2BIG,
		       &d);
	CHECK_INT(d.kind, BPF_DIAG_MEMORY);
	bpf_diag_parse(NULL, -ENOENT, &d);
	CHECK_INT(d.kind, BPF_DIAG_UNKNOWN);
	/* a truncated log still gives what it has */
	bpf_diag_parse("prog 'x", -EINVAL, &d);
	CHECK_STR(d.prog, "x");
}

/* a verifier log far larger than the capture keeps its program and its verdict */
static void test_long_log(void)
{
	static char cap[64 * 1024];
	static const char first[] = "prog 'hold_btf': BPF program load failed: Permission denied\n";
	static const char verdict[] =
		"116: (77) r8 >>= 6\n"
		"R8 pointer arithmetic with >>= operator prohibited\n"
		"processed 1392 insns (limit 1000000) max_states_per_insn 2 total_states 64\n"
		"-- END PROG LOAD LOG --\n";
	size_t n = 0, used, i;
	struct bpf_diag d;
	char *log;

	log = malloc(300 * 1024);
	CHECK(log != NULL, "malloc");
	if (!log)
		return;
	n += (size_t)sprintf(log, "prog 'hold_btf': -- BEGIN PROG LOAD LOG --\n");
	for (i = 0; n < 290 * 1024; i++)
		n += (size_t)sprintf(log + n, "%zu: (bf) r1 = r10 ; frame1: R1_w=fp0 R10=fp0\n", i);
	n += (size_t)sprintf(log + n, "%s", verdict);
	used = bpf_diag_append(cap, sizeof(cap), 0, first, strlen(first));
	used = bpf_diag_append(cap, sizeof(cap), used, log, n);
	CHECK_INT(used, sizeof(cap) - 1);
	CHECK_INT(strlen(cap), used);
	CHECK(strstr(cap, "[...]") != NULL, "the middle is cut");
	bpf_diag_parse(cap, -EACCES, &d);
	CHECK_INT(d.kind, BPF_DIAG_VERIFIER);
	CHECK_STR(d.prog, "hold_btf");
	CHECK_STR(d.what, "R8 pointer arithmetic with >>= operator prohibited");
	/* a full buffer takes no more and stays terminated */
	CHECK_INT(bpf_diag_append(cap, sizeof(cap), used, "more", 4), used);
	free(log);
}

int main(void)
{
	TEST(test_core_relo);
	TEST(test_helper_and_verifier);
	TEST(test_privilege_and_memory);
	TEST(test_long_log);
	return unit_done();
}
