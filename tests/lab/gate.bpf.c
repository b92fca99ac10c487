// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The lab's gate (ppkinds tcp-orphan): XDP on the receiving veth, in place
 * of xdp_pass. It drops every TCP segment whose payload starts with the
 * byte 'hole' (the segment ppkinds wants missing, and each retransmission
 * of it) before the stack sees it, so the segments after it wait in the
 * receiver's out-of-order queue; while 'closed' is set it drops every
 * packet (no ACK of the receiver's FIN); everything else passes, as
 * xdp_pass does.
 * Dropping at the sender instead does not work: TCP sees a local drop and
 * sends nothing after it.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

volatile __u8 hole; /* 0: none */
volatile __u32 closed; /* drop everything */

SEC("xdp")
int gate(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct tcphdr *tcp;
	__u8 *payload;

	if (closed)
		return XDP_DROP;
	if (!hole || (void *)(ip + 1) > end || eth->h_proto != bpf_htons(0x0800) ||
	    ip->protocol != 6 /* TCP */)
		return XDP_PASS;
	tcp = (void *)ip + ip->ihl * 4;
	if ((void *)(tcp + 1) > end)
		return XDP_PASS;
	payload = (void *)tcp + tcp->doff * 4;
	if ((void *)(payload + 1) > end)
		return XDP_PASS; /* no payload */
	return *payload == hole ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
