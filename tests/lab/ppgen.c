// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppgen: the lab's traffic source and page holder.
 *
 *   ppgen send  --netns NS --to ADDR:PORT [--count N] [--size BYTES] [--timeout SEC]
 *   ppgen hold  --netns NS --bind ADDR:PORT [--rcvbuf BYTES] [--ready FILE] [--lifetime SEC]
 *   ppgen hold  --netns NS --packet IFNAME [--rcvbuf BYTES] [--ready FILE] [--lifetime SEC]
 *               [--name BYTES]
 *   ppgen flood --from NS --netns NS --to ADDR:PORT [--seconds S] [--cycles C]
 *               [--count N] [--size BYTES]
 *
 * 'hold' binds a UDP socket in NS and never reads it: every datagram that
 * arrives through a veth with XDP keeps its page_pool page in the receive
 * queue. It writes "pid inode port" to FILE once bound, closes the socket on
 * SIGTERM/SIGINT/SIGUSR1 (the pages return to the pool) and exits. With
 * --packet it is an AF_PACKET socket on IFNAME instead, which keeps clones of
 * every frame it sees, as a capture that stops reading would. With --name,
 * the holder renames itself (prctl PR_SET_NAME, as any process may) to
 * the given bytes, UTF-8 or not, for the tests of untrusted names. 'flood'
 * repeats fill-then-close cycles to make hold and release events for
 * benchmarks. Every loop is bounded in count and time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

#include "labutil.h"

static volatile sig_atomic_t stop;
static const char *comm; /* hold --name */

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ppgen send  --netns NS --to ADDR:PORT [--count N] [--size BYTES] [--timeout SEC]\n"
		"       ppgen hold  --netns NS --bind ADDR:PORT [--rcvbuf BYTES] [--ready FILE] [--lifetime SEC]\n"
		"       ppgen hold  --netns NS --packet IFNAME [--rcvbuf BYTES] [--ready FILE] [--lifetime SEC]\n"
		"                   [--name BYTES]\n"
		"       ppgen flood --from NS --netns NS --to ADDR:PORT [--seconds S] [--cycles C]\n"
		"                   [--count N] [--size BYTES]\n");
	exit(2);
}

/* Send 'count' datagrams of 'size' bytes; returns the number sent. */
static long send_burst(int fd, const struct sockaddr_in *to, long count, long size, double deadline)
{
	static char payload[65507];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	long sent = 0;
	int i, n, r;

	memset(payload, 0x5a, sizeof(payload));
	while (sent < count && !stop && now_s() < deadline) {
		n = count - sent < BATCH ? count - sent : BATCH;
		for (i = 0; i < n; i++) {
			iov[i].iov_base = payload;
			iov[i].iov_len = size;
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_name = (void *)to;
			msgs[i].msg_hdr.msg_namelen = sizeof(*to);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) {
				usleep(100);
				continue;
			}
			die("sendmmsg");
		}
		sent += r;
	}
	return sent;
}

static int udp_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	return fd;
}

static int bind_sink(const struct sockaddr_in *at, int rcvbuf)
{
	int fd = udp_socket(), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUFFORCE");
	if (bind(fd, (const struct sockaddr *)at, sizeof(*at)))
		die("bind");
	return fd;
}

static int cmd_send(const char *ns, const char *to, long count, long size, long timeout)
{
	struct sockaddr_in sa;
	long sent;
	int fd;

	if (!to)
		usage();
	parse_addr(to, &sa);
	enter_netns(ns);
	fd = udp_socket();
	sent = send_burst(fd, &sa, count, size, now_s() + timeout);
	close(fd);
	printf("%ld\n", sent);
	return sent == count ? 0 : 1;
}

static int packet_sink(const char *ifname, int rcvbuf)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (fd < 0)
		die("socket(AF_PACKET)");
	ll.sll_ifindex = if_nametoindex(ifname);
	if (!ll.sll_ifindex)
		die(ifname);
	if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUFFORCE");
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)))
		die("bind(AF_PACKET)");
	return fd;
}

static int cmd_hold(const char *ns, const char *bind_to, const char *packet, long rcvbuf,
		    const char *ready, long lifetime)
{
	struct sockaddr_in sa = { 0 };
	double deadline;
	struct stat st;
	int fd;

	if (!bind_to == !packet)
		usage();
	if (bind_to)
		parse_addr(bind_to, &sa);
	enter_netns(ns);
	fd = packet ? packet_sink(packet, rcvbuf) : bind_sink(&sa, rcvbuf);
	if (fstat(fd, &st))
		die("fstat");
	if (comm && prctl(PR_SET_NAME, comm, 0, 0, 0))
		die("prctl(PR_SET_NAME)");
	if (ready) {
		char line[64];

		snprintf(line, sizeof(line), "%d %lu %u\n", getpid(), (unsigned long)st.st_ino,
			 ntohs(sa.sin_port));
		write_ready(ready, line);
	}
	deadline = now_s() + lifetime;
	while (!stop && now_s() < deadline)
		usleep(20000);
	close(fd);
	return 0;
}

static int cmd_flood(const char *from, const char *ns, const char *to, long seconds, long cycles,
		     long count, long size)
{
	double deadline = now_s() + seconds;
	long c, sent = 0;
	struct sockaddr_in sa;
	int tx, here, there;

	if (!to || !ns)
		usage();
	parse_addr(to, &sa);
	here = self_netns();
	enter_netns(from);
	tx = udp_socket();
	if (setns(here, CLONE_NEWNET))
		die("setns");
	enter_netns(ns);
	there = self_netns();
	for (c = 0; c < cycles && !stop && now_s() < deadline; c++) {
		int rx;

		if (setns(there, CLONE_NEWNET))
			die("setns");
		rx = bind_sink(&sa, 256 << 20);
		sent += send_burst(tx, &sa, count, size, deadline);
		usleep(2000);
		close(rx); /* every queued page goes back: release events */
	}
	close(tx);
	printf("%ld cycles %ld datagrams\n", c, sent);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "bind", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "ready", required_argument, NULL, 'R' },
		{ "lifetime", required_argument, NULL, 'L' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "cycles", required_argument, NULL, 'C' },
		{ "packet", required_argument, NULL, 'P' },
		{ "name", required_argument, NULL, 'N' },
		{ 0 },
	};
	const char *ns = NULL, *from = NULL, *to = NULL, *bind_to = NULL, *ready = NULL;
	const char *packet = NULL;
	long count = 1000, size = 1000, timeout = 30, rcvbuf = 256 << 20;
	long lifetime = 600, seconds = 3, cycles = 1000;
	const char *cmd;
	int o;

	lab_tool = "ppgen";
	if (argc < 2)
		usage();
	cmd = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			ns = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 't':
			to = optarg;
			break;
		case 'b':
			bind_to = optarg;
			break;
		case 'c':
			count = parse_num(optarg, "count");
			break;
		case 's':
			size = parse_num(optarg, "size");
			break;
		case 'T':
			timeout = parse_num(optarg, "timeout");
			break;
		case 'r':
			rcvbuf = parse_num(optarg, "rcvbuf");
			break;
		case 'R':
			ready = optarg;
			break;
		case 'L':
			lifetime = parse_num(optarg, "lifetime");
			break;
		case 'S':
			seconds = parse_num(optarg, "seconds");
			break;
		case 'C':
			cycles = parse_num(optarg, "cycles");
			break;
		case 'P':
			packet = optarg;
			break;
		case 'N':
			comm = optarg;
			break;
		default:
			usage();
		}
	}
	if (size < 1 || size > 65507) {
		fprintf(stderr, "ppgen: size must be 1..65507\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGUSR1, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(cmd, "send"))
		return cmd_send(ns, to, count, size, timeout);
	if (!strcmp(cmd, "hold"))
		return cmd_hold(ns, bind_to, packet, rcvbuf, ready, lifetime);
	if (!strcmp(cmd, "flood"))
		return cmd_flood(from, ns, to, seconds, cycles, count, size);
	usage();
	return 2;
}
