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
 *
 * gate_out (ppkinds nfs-mount) drops the same segments as they leave the
 * sender (tcx egress on A's veth, while 'hole_out' is set): set once the
 * segments behind the hole are in, it keeps the hole open after XDP (and
 * with it 'gate') is gone from the receiver, the connection otherwise
 * alive (A answers B's keepalives and its FIN).
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

volatile __u8 hole;	/* 0: none */
volatile __u32 closed;	/* drop everything */
volatile __u8 hole_out; /* 0: none (gate_out) */

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

SEC("tc")
int gate_out(struct __sk_buff *skb)
{
	struct iphdr ip;
	struct tcphdr tcp;
	__u8 first;
	__u32 off;

	if (!hole_out || skb->protocol != bpf_htons(0x0800) ||
	    bpf_skb_load_bytes(skb, sizeof(struct ethhdr), &ip, sizeof(ip)) || ip.protocol != 6)
		return 0; /* TCX_PASS */
	off = sizeof(struct ethhdr) + ip.ihl * 4;
	if (bpf_skb_load_bytes(skb, off, &tcp, sizeof(tcp)))
		return 0;
	off += tcp.doff * 4;
	if (off >= skb->len || bpf_skb_load_bytes(skb, off, &first, 1))
		return 0; /* no payload */
	return first == hole_out ? 2 /* TCX_DROP */ : 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
