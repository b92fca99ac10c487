// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppvm-tool: the small pieces of user space the VM tests need, in one
 * static binary with no library but libc (no iproute2 BPF loader, no
 * python in the guest).
 *
 *   ppvm-tool xdp-attach IFNAME       attach an XDP_PASS program (driver mode)
 *   ppvm-tool xdp-detach IFNAME       detach it
 *   ppvm-tool sink ADDR PORT          bind a UDP socket with a large receive
 *                                     buffer and never read it: the queued
 *                                     datagrams hold their pages until the
 *                                     process is killed (SIGTERM/SIGKILL)
 *   ppvm-tool send ADDR PORT COUNT SIZE
 *                                     send COUNT datagrams of SIZE bytes,
 *                                     paced in bursts (bounded, ~COUNT ms)
 *
 * Addresses are the guest's test addresses (192.0.2.0/24); nothing leaves
 * the guest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef XDP_FLAGS_DRV_MODE
#define XDP_FLAGS_DRV_MODE (1U << 2)
#endif

static int die(const char *what)
{
	fprintf(stderr, "ppvm-tool: %s: %s\n", what, strerror(errno));
	return 1;
}

static int xdp_pass_prog(void)
{
	/* r0 = XDP_PASS; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_XDP;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uintptr_t)"GPL";
	strncpy(attr.prog_name, "ppvm_xdp_pass", sizeof(attr.prog_name) - 1);
	return syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

/* RTM_SETLINK ifindex { IFLA_XDP { IFLA_XDP_FD fd, IFLA_XDP_FLAGS drv } } */
static int xdp_set(const char *ifname, int prog_fd)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char buf[64];
	} req;
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
		char buf[256];
	} ack;
	struct rtattr *xdp, *rta;
	__u32 flags = XDP_FLAGS_DRV_MODE;
	int fd, ifindex, len;

	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return die(ifname);

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_SETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = ifindex;

	xdp = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	xdp->rta_type = IFLA_XDP | NLA_F_NESTED;
	xdp->rta_len = RTA_LENGTH(0);
	rta = (struct rtattr *)((char *)xdp + RTA_ALIGN(xdp->rta_len));
	rta->rta_type = IFLA_XDP_FD;
	rta->rta_len = RTA_LENGTH(sizeof(int));
	memcpy(RTA_DATA(rta), &prog_fd, sizeof(int));
	xdp->rta_len += RTA_ALIGN(rta->rta_len);
	rta = (struct rtattr *)((char *)xdp + RTA_ALIGN(xdp->rta_len));
	rta->rta_type = IFLA_XDP_FLAGS;
	rta->rta_len = RTA_LENGTH(sizeof(flags));
	memcpy(RTA_DATA(rta), &flags, sizeof(flags));
	xdp->rta_len += RTA_ALIGN(rta->rta_len);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(xdp->rta_len);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return die("netlink socket");
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return die("netlink send");
	len = recv(fd, &ack, sizeof(ack), 0);
	close(fd);
	if (len < (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || ack.nh.nlmsg_type != NLMSG_ERROR)
		return die("netlink ack");
	if (ack.err.error) {
		errno = -ack.err.error;
		return die(prog_fd >= 0 ? "attach XDP" : "detach XDP");
	}
	return 0;
}

static int cmd_xdp_attach(const char *ifname)
{
	int prog = xdp_pass_prog();

	if (prog < 0)
		return die("BPF_PROG_LOAD");
	return xdp_set(ifname, prog);
}

static int udp_socket(const char *addr, int port, struct sockaddr_in *sin)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "ppvm-tool: bad address %s\n", addr);
		exit(2);
	}
	return fd;
}

static int cmd_sink(const char *addr, int port)
{
	int rcvbuf = 256 << 20;
	struct sockaddr_in sin;
	int fd = udp_socket(addr, port, &sin);

	if (fd < 0)
		return die("socket");
	/* root: ignore net.core.rmem_max; the kernel doubles the value */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		return die("SO_RCVBUFFORCE");
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		return die("bind");
	printf("sink ready %s:%d pid %d\n", addr, port, getpid());
	fflush(stdout);
	for (;;)
		pause();
}

static int cmd_send(const char *addr, int port, long count, long size)
{
	struct timespec gap = { 0, 2 * 1000 * 1000 };
	static char payload[65000];
	struct sockaddr_in sin;
	long sent = 0, fail = 0;
	int fd = udp_socket(addr, port, &sin);

	if (fd < 0)
		return die("socket");
	if (size < 1 || size > (long)sizeof(payload) || count < 1 || count > 1000000) {
		fprintf(stderr, "ppvm-tool: bad count/size\n");
		return 2;
	}
	memset(payload, 0xa5, size);
	while (sent < count) {
		/* bursts of 16, then 2 ms: keeps rx rings from overflowing */
		for (int i = 0; i < 16 && sent < count; i++, sent++)
			if (sendto(fd, payload, size, 0, (struct sockaddr *)&sin,
				   sizeof(sin)) < 0)
				fail++;
		nanosleep(&gap, NULL);
	}
	printf("sent %ld datagrams of %ld bytes to %s:%d (%ld send errors)\n",
	       sent - fail, size, addr, port, fail);
	close(fd);
	return fail == count;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "xdp-attach") && argc == 3)
		return cmd_xdp_attach(argv[2]);
	if (!strcmp(cmd, "xdp-detach") && argc == 3)
		return xdp_set(argv[2], -1);
	if (!strcmp(cmd, "sink") && argc == 4)
		return cmd_sink(argv[2], atoi(argv[3]));
	if (!strcmp(cmd, "send") && argc == 6)
		return cmd_send(argv[2], atoi(argv[3]), atol(argv[4]), atol(argv[5]));
	fprintf(stderr,
		"usage: ppvm-tool xdp-attach IF | xdp-detach IF | sink ADDR PORT |\n"
		"                 send ADDR PORT COUNT SIZE\n");
	return 2;
}
