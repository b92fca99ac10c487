// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The baseline for bench/: counting-only programs on the same tracepoints
 * as ppwatch's ledger, attached the same way (tp_btf). Their run time per
 * event is the floor every tracepoint program pays; ppwatch's cost is
 * reported as a ratio to it, measured in the same run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 holds, releases;

SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(count_hold)
{
	__sync_fetch_and_add(&holds, 1);
	return 0;
}

SEC("tp_btf/page_pool_state_release")
int BPF_PROG(count_release)
{
	__sync_fetch_and_add(&releases, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
