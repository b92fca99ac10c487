// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The lab's XDP program. Attaching any native XDP program to a veth makes
 * its receive path build skbs on pages from a per-queue page_pool
 * (veth_xdp_rcv_skb -> skb_pp_cow_data); detaching it destroys the pools.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
