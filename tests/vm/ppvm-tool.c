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
 *   ppvm-tool flood ADDR PORT COUNT SIZE
 *                                     the same without pacing, as fast as
 *                                     sendto() returns; prints the time it
 *                                     took: "flood sent=N errors=N ns=N"
 *   ppvm-tool live PORT COUNT HOLD_S [DRAIN_MS SECS]
 *                                     a real page_pool on any kernel since
 *                                     5.18: BPF_PROG_TEST_RUN with
 *                                     BPF_F_TEST_XDP_LIVE_FRAMES runs an
 *                                     XDP_PASS program on COUNT frames of a
 *                                     UDP datagram to 127.0.0.1:PORT; the
 *                                     run's own page_pool (one page per
 *                                     frame) hands each page to an skb on
 *                                     the loopback device, and a socket on
 *                                     PORT that never reads holds them. The
 *                                     run ends with page_pool_destroy(): the
 *                                     pool stays a zombie while the socket
 *                                     holds its pages, HOLD_S seconds (or
 *                                     until SIGTERM), then the socket closes
 *                                     and the pool is freed.
 *                                     With DRAIN_MS and SECS: a live pool
 *                                     instead, for SECS seconds (COUNT is
 *                                     the socket's receive buffer in KiB): a
 *                                     child drains the socket every DRAIN_MS,
 *                                     so pages keep entering (hold) and
 *                                     leaving (release) the pool.
 *   ppvm-tool live-tx IFNAME COUNT    the same test run with an XDP program
 *                                     that redirects every frame to IFNAME
 *                                     (ndo_xdp_xmit): the frames wait in its
 *                                     TX ring until the driver reaps them.
 *                                     Before "xdp: recycle Page Pool backed
 *                                     skbs built from XDP frames" (v6.4) an
 *                                     skb built from an XDP frame gives its
 *                                     page up, so a ring is what holds pages
 *                                     on 6.1 (virtio_net with napi_tx=0 reaps
 *                                     XDP frames only at its next transmit).
 *   ppvm-tool kexec-crash KERNEL INITRD CMDLINE
 *                                     load KERNEL and INITRD as the crash
 *                                     kernel (kexec_file_load with
 *                                     KEXEC_FILE_ON_CRASH: no kexec-tools,
 *                                     whose Debian build needs Xen's
 *                                     libraries), for the real kdump
 *                                     capture of the crash-dump test
 *
 * Addresses are the guest's test addresses (192.0.2.0/24); nothing leaves
 * the guest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char gpl[] = "GPL";

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
	attr.license = (uintptr_t)gpl;
	strncpy(attr.prog_name, "ppvm_xdp_pass", sizeof(attr.prog_name) - 1);
	return syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

/* r1 = ifindex; r2 = 0; r0 = bpf_redirect(r1, r2); exit */
static int xdp_redirect_prog(int ifindex)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1, .imm = ifindex },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 2, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_XDP;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (uintptr_t)gpl;
	strncpy(attr.prog_name, "ppvm_xdp_redir", sizeof(attr.prog_name) - 1);
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

/*
 * The VM's time budget (tests/vm/run.sh sums it per test): the traffic a
 * command made, "traffic NAME START END" in seconds since boot (the clock
 * of /proc/uptime) appended to /tmp/ppvm.acct.
 */
static double boottime(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void budget(const char *name, double t0)
{
	FILE *f = fopen("/tmp/ppvm.acct", "a");

	if (!f)
		return;
	fprintf(f, "traffic %s %.3f %.3f\n", name, t0, boottime());
	fclose(f);
}

static int cmd_send(const char *addr, int port, long count, long size, bool paced)
{
	struct timespec gap = { 0, 2 * 1000 * 1000 }, t0, t1;
	static char payload[65000];
	struct sockaddr_in sin;
	long sent = 0, fail = 0;
	int fd = udp_socket(addr, port, &sin);
	double start;

	if (fd < 0)
		return die("socket");
	if (size < 1 || size > (long)sizeof(payload) || count < 1 || count > 1000000) {
		fprintf(stderr, "ppvm-tool: bad count/size\n");
		return 2;
	}
	memset(payload, 0xa5, size);
	start = boottime();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sent < count) {
		/* bursts of 16, then 2 ms: keeps rx rings from overflowing */
		for (int i = 0; i < 16 && sent < count; i++, sent++)
			if (sendto(fd, payload, size, 0, (struct sockaddr *)&sin, sizeof(sin)) < 0)
				fail++;
		if (paced)
			nanosleep(&gap, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (paced)
		printf("sent %ld datagrams of %ld bytes to %s:%d (%ld send errors)\n", sent - fail,
		       size, addr, port, fail);
	else
		printf("flood sent=%ld errors=%ld ns=%lld\n", sent - fail, fail,
		       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
			       (t1.tv_nsec - t0.tv_nsec));
	close(fd);
	budget(paced ? "send" : "flood", start);
	return fail == count;
}

/* ---- live frames: the test run's own page_pool ------------------------------ */

#ifndef BPF_F_TEST_XDP_LIVE_FRAMES
#define BPF_F_TEST_XDP_LIVE_FRAMES (1U << 1)
#endif
#define LIVE_PAYLOAD 1000

static uint16_t ip_csum(const void *p, int len)
{
	const uint16_t *w = p;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *w++;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* Ethernet (to lo's all-zero address: PACKET_HOST) + IPv4 + UDP from
 * 127.0.0.2 (not an address of this host: a received packet from a local
 * address is a martian) to 127.0.0.1:port, UDP checksum 0 (none) */
static int live_packet(unsigned char *pkt, int port)
{
	int ulen = 8 + LIVE_PAYLOAD, tot = 20 + ulen;
	unsigned char *ip = pkt + 14, *udp = ip + 20;
	uint16_t v;

	memset(pkt, 0, 14 + tot);
	pkt[12] = 0x08; /* ETH_P_IP */
	ip[0] = 0x45;
	v = htons(tot);
	memcpy(ip + 2, &v, 2);
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	ip[12] = 127;
	ip[15] = 2; /* 127.0.0.2 -> 127.0.0.1 */
	ip[16] = 127;
	ip[19] = 1;
	v = ip_csum(ip, 20);
	memcpy(ip + 10, &v, 2);
	v = htons(9999);
	memcpy(udp, &v, 2);
	v = htons(port);
	memcpy(udp + 2, &v, 2);
	v = htons(ulen);
	memcpy(udp + 4, &v, 2);
	memset(udp + 8, 0x5a, LIVE_PAYLOAD);
	return 14 + tot;
}

static void on_alarm(int sig)
{
	(void)sig; /* only interrupts BPF_PROG_TEST_RUN (EINTR) */
}

static volatile sig_atomic_t stop;
static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int live_sink(int port, int rcvbuf)
{
	struct sockaddr_in sin;
	int fd = udp_socket("127.0.0.1", port, &sin);
	FILE *f;

	/* a packet to 127/8 that arrives (rather than being looped back with its
	 * route attached) is routed as input: only with route_localnet (IP_LOCALNET
	 * drop otherwise); this network namespace's lo only */
	f = fopen("/proc/sys/net/ipv4/conf/lo/route_localnet", "w");
	if (!f || fputs("1", f) < 0 || fclose(f))
		return die("route_localnet") ? -1 : -1;
	if (fd < 0)
		return die("socket") ? -1 : -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		return die("SO_RCVBUFFORCE") ? -1 : -1;
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		return die("bind") ? -1 : -1;
	return fd;
}

/* one BPF_PROG_TEST_RUN with live frames; returns 0 or -errno */
static int live_run(int prog, unsigned char *pkt, int len, uint32_t repeat, uint32_t *done_ns)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = prog;
	attr.test.data_in = (uintptr_t)pkt;
	attr.test.data_size_in = len;
	attr.test.repeat = repeat;
	attr.test.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
	attr.test.batch_size = 64;
	if (syscall(SYS_bpf, BPF_PROG_TEST_RUN, &attr, sizeof(attr)))
		return -errno;
	*done_ns = attr.test.duration;
	return 0;
}

static int cmd_live(int port, long count, long hold_s, long drain_ms, long secs)
{
	static unsigned char pkt[2048];
	struct sigaction sa;
	int prog, fd, len, err, q = 0;
	uint32_t ns = 0;
	pid_t child = -1;
	double start;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_alarm; /* no SA_RESTART: the test run returns EINTR */
	sigaction(SIGALRM, &sa, NULL);
	prog = xdp_pass_prog();
	if (prog < 0)
		return die("BPF_PROG_LOAD");
	len = live_packet(pkt, port);
	if (drain_ms <= 0) {
		/* zombie: COUNT pages held, then the run's pool is destroyed */
		fd = live_sink(port, 256 << 20);
		if (fd < 0)
			return 1;
		start = boottime();
		err = live_run(prog, pkt, len, count, &ns);
		if (err) {
			errno = -err;
			return die("BPF_PROG_TEST_RUN (live frames)");
		}
		budget("live", start);
		if (ioctl(fd, FIONREAD, &q) < 0)
			q = -1;
		printf("live: %ld frames run, pool destroyed, socket holds them (first datagram %d bytes) pid %d\n",
		       count, q, getpid());
		fflush(stdout);
		for (long t = 0; t < hold_s * 10 && !stop; t++)
			usleep(100 * 1000);
		close(fd);
		printf("live: socket closed\n");
		return 0;
	}
	/* live pool: a bounded socket, drained every drain_ms by a child */
	fd = live_sink(port, (int)count * 1024);
	if (fd < 0)
		return 1;
	child = fork();
	if (child == 0) {
		static char buf[65536];

		for (;;) {
			usleep(drain_ms * 1000);
			while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
		}
	}
	printf("live: pool running for %ld s, drained every %ld ms, pid %d\n", secs, drain_ms,
	       getpid());
	fflush(stdout);
	start = boottime();
	alarm(secs);
	err = live_run(prog, pkt, len, 0x7fffffff, &ns);
	alarm(0);
	budget("live", start);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd);
	if (err && err != -EINTR) {
		errno = -err;
		return die("BPF_PROG_TEST_RUN (live frames)");
	}
	printf("live: run ended (%s), pool destroyed\n", err ? "interrupted" : "done");
	return 0;
}

static int cmd_live_tx(const char *ifname, long count)
{
	static unsigned char pkt[2048];
	int ifindex = if_nametoindex(ifname), prog, len, err;
	uint32_t ns = 0;
	double start;

	if (!ifindex)
		return die(ifname);
	prog = xdp_redirect_prog(ifindex);
	if (prog < 0)
		return die("BPF_PROG_LOAD (redirect)");
	len = live_packet(pkt, 9); /* discard port; the frames never reach a stack */
	start = boottime();
	err = live_run(prog, pkt, len, count, &ns);
	if (err) {
		errno = -err;
		return die("BPF_PROG_TEST_RUN (live frames, redirect)");
	}
	budget("live-tx", start);
	printf("live-tx: %ld frames run, redirected to %s (ifindex %d), pool destroyed\n", count,
	       ifname, ifindex);
	return 0;
}

#ifndef KEXEC_FILE_ON_CRASH
#define KEXEC_FILE_ON_CRASH 0x00000002
#endif

static int cmd_kexec_crash(const char *kernel, const char *initrd, const char *cmdline)
{
	int kfd = open(kernel, O_RDONLY | O_CLOEXEC), ifd = open(initrd, O_RDONLY | O_CLOEXEC);

	if (kfd < 0 || ifd < 0)
		return die(kfd < 0 ? kernel : initrd);
	/* the command line's length counts its NUL */
	if (syscall(SYS_kexec_file_load, kfd, ifd, strlen(cmdline) + 1, cmdline,
		    KEXEC_FILE_ON_CRASH))
		return die("kexec_file_load (KEXEC_FILE_ON_CRASH)");
	printf("kexec-crash: %s and %s loaded as the crash kernel\n", kernel, initrd);
	return 0;
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
	if (!strcmp(cmd, "live") && (argc == 5 || argc == 7))
		return cmd_live(atoi(argv[2]), atol(argv[3]), atol(argv[4]),
				argc == 7 ? atol(argv[5]) : 0, argc == 7 ? atol(argv[6]) : 0);
	if (!strcmp(cmd, "live-tx") && argc == 4)
		return cmd_live_tx(argv[2], atol(argv[3]));
	if (!strcmp(cmd, "send") && argc == 6)
		return cmd_send(argv[2], atoi(argv[3]), atol(argv[4]), atol(argv[5]), true);
	if (!strcmp(cmd, "flood") && argc == 6)
		return cmd_send(argv[2], atoi(argv[3]), atol(argv[4]), atol(argv[5]), false);
	if (!strcmp(cmd, "kexec-crash") && argc == 5)
		return cmd_kexec_crash(argv[2], argv[3], argv[4]);
	fprintf(stderr,
		"usage: ppvm-tool xdp-attach IF | xdp-detach IF | sink ADDR PORT |\n"
		"                 send|flood ADDR PORT COUNT SIZE |\n"
		"                 live PORT COUNT HOLD_S [DRAIN_MS SECS] |\n"
		"                 live-tx IFNAME COUNT | kexec-crash KERNEL INITRD CMDLINE\n");
	return 2;
}
