// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppkinds: the lab's holders that a non-reading UDP socket (ppgen) is not.
 *
 *   ppkinds tcp-reset  --netns B --from A --bind ADDR:PORT [--bytes N] --ready FILE
 *   ppkinds tcp-pending | tcp-pending-reset
 *                      --netns B --from A --bind ADDR:PORT [--bytes N] --ready FILE
 *   ppkinds tcp-orphan | tcp-orphan-fw2
 *                      --netns B --from A --bind ADDR:PORT [--segments N] --dev DEV
 *                      --ready FILE
 *   ppkinds scm        --netns B --from A --bind ADDR:PORT [--count N] [--size BYTES]
 *                      --ready FILE
 *   ppkinds uring      --netns B --from A --bind ADDR:PORT [--count N] [--size BYTES]
 *                      --ready FILE
 *   ppkinds frags      --from A --to ADDR [--count N] [--size BYTES] [--id ID]
 *   ppkinds l2tp-ctl   --from A --bind ADDR:PORT --to ADDR:PORT [--count N] [--size BYTES]
 *
 * tcp-reset: a listener in B accepts a connection from A and never reads;
 * A sends N bytes, then closes with SO_LINGER 0, so a RST ends the
 * connection: the accepted socket is CLOSE, in no hash table, with its
 * unread data, and its fd stays open (the production report's case).
 *
 * tcp-pending: the same connection, but the listener never accept()s it:
 * the child waits in the listener's accept queue with A's N bytes, with
 * no fd and no struct socket. tcp-pending-reset: then A's RST makes it
 * CLOSE, in no hash table, still in the accept queue (accept() would hand
 * it out, data and all). SIGUSR1 closes the listener (what ppwatch's
 * remedy says), which frees the child; the ready line's inode is the
 * listener's.
 *
 * tcp-orphan: A sends one segment, then one more that a gate in B drops
 * with each of its retransmissions (gate.bpf.c, XDP on DEV in place of
 * xdp_pass, knows it by its payload), then N more that wait out of order
 * behind the hole; then the gate drops everything, so nothing acknowledges
 * B's FIN (an acknowledged orphan would become a timewait minisock). B
 * reads what is in order and closes: its socket is an orphan in FIN-WAIT-1
 * whose out-of-order queue keeps the pages until TCP gives up on it
 * (B's namespace gets net.ipv4.tcp_orphan_retries 15: minutes, not the
 * default's ~100 s). The gate stays on DEV (lab down removes it).
 * tcp-orphan-fw2: the same, but the gate lets A acknowledge B's FIN, and
 * B's namespace has net.ipv4.tcp_fin_timeout 600: an orphan in
 * FIN-WAIT-2 with its out-of-order queue, for 540 s (then a timewait
 * minisock, which has no queue).
 *
 * scm: a UDP socket in B receives N datagrams it never reads; its fd is
 * sent over a unix socketpair (SCM_RIGHTS) that nobody receives from, and
 * closed: the only reference to the socket is that message.
 *
 * uring: a UDP socket in B receives N datagrams it never reads; it is
 * registered as slot 0 of an io_uring's fixed files and its fd closed: the
 * ring is its only reference. SIGUSR1 unregisters the ring's files (what
 * ppwatch's remedy says), so the socket goes; the ring's fd stays open.
 *
 * frags: N IPv4 fragments (raw socket, IP_HDRINCL) of one UDP datagram
 * from A to ADDR, the last one never sent: they wait in ADDR's reassembly
 * queue until net.ipv4.ipfrag_time.
 *
 * l2tp-ctl: N datagrams from A's ADDR:PORT to ADDR:PORT whose payload
 * starts with an L2TPv3 control message header (T and L set, version 3):
 * a kernel L2TP tunnel's UDP socket ('ip l2tp add tunnel ... encap udp',
 * made in the kernel) passes control messages up to UDP for a user-space
 * daemon to read, so with none they wait in the kernel socket's receive
 * queue until the tunnel is deleted.
 *
 * tcp-churn: for --lifetime seconds (or until SIGTERM), A connects to a
 * listener in B, sends --bytes and closes, as fast as it can (eight
 * clients), while B accepts each connection, never reads it, and keeps the
 * 256 newest open, closing the oldest as each new one comes: TCP sockets
 * whose pages come and go while a walk looks at them, and always some
 * there (a client whose SYN the full accept queue dropped waits a second).
 * B writes a journal to --journal: "open INODE FD NS" when it accepts,
 * "close INODE FD NS" when it closes (CLOCK_BOOTTIME ns), the truth a
 * walk's socket owners are checked against; the ready file gets "pid
 * inode port connections" at the end.
 *
 * nfs-mount: a kernel TCP socket (sunrpc's, made by sock_create_kern): an
 * NFSv4.1 mount in B (mount(2) itself: no mount.nfs) of a server at --to
 * in A that is ppkinds, which reads the client's first call, answers
 * nothing and sends a segment the gate drops (each retransmission too),
 * then N that wait out of order behind it in the client's socket; from
 * then on A's own copies of the hole are dropped as they leave A (gate_out,
 * tcx egress on A's end of the pair, 6.6), so the hole stays open when XDP
 * (and the gate with it) is gone from B, and the connection lives (A
 * answers the client's keepalives). The mount waits for its reply (timeo
 * 600 s); killing it (what ppwatch's remedy says) closes the transport: A
 * acknowledges the client's FIN, the socket becomes a timewait minisock
 * and the pages go back. The ready line: the mount's pid, the client
 * socket's inode and local port.
 *
 * The holders write "pid inode port" to FILE when they are set up (scm
 * adds the inode of the unix socket that carries the message, uring the
 * ring's fd), then wait
 * for SIGTERM, at most --lifetime seconds. Every loop is bounded.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/io_uring.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <net/if.h>

#include "gate.skel.h"
#include "labutil.h"

#define TCP_CLOSE_STATE 7 /* include/net/tcp_states.h */

static volatile sig_atomic_t stop, usr1;

static void on_signal(int sig)
{
	stop = 1;
}

static void on_usr1(int sig)
{
	usr1 = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ppkinds tcp-reset  --netns B --from A --bind ADDR:PORT [--bytes N] --ready FILE\n"
		"       ppkinds tcp-pending | tcp-pending-reset\n"
		"                          --netns B --from A --bind ADDR:PORT [--bytes N] --ready FILE\n"
		"       ppkinds tcp-orphan | tcp-orphan-fw2\n"
		"                          --netns B --from A --bind ADDR:PORT [--segments N] --dev DEV\n"
		"                          --ready FILE\n"
		"       ppkinds scm        --netns B --from A --bind ADDR:PORT [--count N] [--size BYTES]\n"
		"                          --ready FILE\n"
		"       ppkinds uring      --netns B --from A --bind ADDR:PORT [--count N] [--size BYTES]\n"
		"                          --ready FILE\n"
		"       ppkinds frags      --from A --to ADDR [--count N] [--size BYTES] [--id ID]\n"
		"       ppkinds l2tp-ctl   --from A --bind ADDR:PORT --to ADDR:PORT [--count N]\n"
		"                          [--size BYTES]\n"
		"       ppkinds nfs-mount  --netns B --from A --to ADDR:PORT --dev DEV [--segments N]\n"
		"                          --ready FILE [--lifetime SECONDS]\n"
		"       ppkinds tcp-churn  --netns B --from A --bind ADDR:PORT [--bytes N]\n"
		"                          --journal FILE --lifetime SECONDS --ready FILE\n");
	exit(2);
}

static unsigned long ino_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		die("fstat");
	return st.st_ino;
}

static int tcp_state(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		die("TCP_INFO");
	return ti.tcpi_state;
}

/* a listener in 'ns' at 'at' (the caller's namespace is kept) */
static int listener_in(const char *ns, const struct sockaddr_in *at, int rcvbuf)
{
	int here = self_netns(), fd, one = 1;

	enter_netns(ns);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUFFORCE");
	if (bind(fd, (const struct sockaddr *)at, sizeof(*at)) || listen(fd, 1024))
		die("bind/listen");
	if (setns(here, CLONE_NEWNET))
		die("setns");
	close(here);
	return fd;
}

/* a connected TCP socket from namespace 'ns' to 'to' */
static int connect_from(const char *ns, const struct sockaddr_in *to)
{
	int here = self_netns(), fd, one = 1;

	enter_netns(ns);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)to, sizeof(*to)))
		die("connect");
	if (setns(here, CLONE_NEWNET))
		die("setns");
	close(here);
	return fd;
}

static void send_fill(int fd, long bytes, int fill)
{
	static char buf[16384];
	long done = 0;
	ssize_t n;

	memset(buf, fill, sizeof(buf));
	while (done < bytes) {
		n = send(fd, buf,
			 bytes - done < (long)sizeof(buf) ? (size_t)(bytes - done) : sizeof(buf),
			 0);
		if (n < 0)
			die("send");
		done += n;
	}
}

static void send_all(int fd, long bytes)
{
	send_fill(fd, bytes, 0x5a);
}

static void ready_line(const char *ready, int fd, unsigned int port, unsigned long extra)
{
	char line[96];

	snprintf(line, sizeof(line), "%d %lu %u %lu\n", getpid(), ino_of(fd), port, extra);
	write_ready(ready, line);
}

static void wait_for_stop(long lifetime)
{
	double deadline = now_s() + lifetime;

	while (!stop && now_s() < deadline)
		usleep(20000);
}

/* wait up to 5 s for fd's TCP state to become 'want' */
static void wait_state(int fd, int want, const char *what)
{
	int i;

	for (i = 0; i < 500 && tcp_state(fd) != want; i++)
		usleep(10000);
	if (tcp_state(fd) != want) {
		fprintf(stderr, "ppkinds: %s: TCP state %d, want %d\n", what, tcp_state(fd), want);
		exit(1);
	}
}

static long snmp_counter(const char *proto, const char *field);

/* A's RST, and B's TCP has taken it (B's Tcp EstabResets went up; 5 s: a hang) */
static void reset_from_a(int cfd, const char *ns)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int here = self_netns(), i;
	long base;

	enter_netns(ns);
	base = snmp_counter("Tcp", "EstabResets");
	if (setsockopt(cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		die("SO_LINGER");
	close(cfd); /* RST */
	for (i = 0; i < 500 && snmp_counter("Tcp", "EstabResets") <= base; i++)
		usleep(10000);
	if (snmp_counter("Tcp", "EstabResets") <= base) {
		fprintf(stderr, "ppkinds: %s took no reset in 5 s\n", ns);
		exit(1);
	}
	if (setns(here, CLONE_NEWNET))
		die("setns");
	close(here);
}

/* tcp-reset (accepted), tcp-pending and tcp-pending-reset (never accepted) */
static int cmd_tcp_conn(const char *ns, const char *from, const struct sockaddr_in *at, long bytes,
			bool accepted, bool reset, const char *ready, long lifetime)
{
	int lfd, cfd, afd = -1, i, left = -1;

	lfd = listener_in(ns, at, 16 << 20);
	cfd = connect_from(from, at);
	if (accepted && (afd = accept(lfd, NULL, NULL)) < 0)
		die("accept");
	send_all(cfd, bytes);
	/* everything acknowledged, so in the receiver's queue, before a reset */
	for (i = 0; i < 500 && (ioctl(cfd, SIOCOUTQ, &left) || left > 0); i++)
		usleep(10000);
	if (left) {
		fprintf(stderr, "ppkinds: %d bytes not acknowledged in 5 s\n", left);
		exit(1);
	}
	if (reset)
		reset_from_a(cfd, ns);
	if (accepted) {
		wait_state(afd, TCP_CLOSE_STATE, "reset socket");
		close(lfd);
		ready_line(ready, afd, ntohs(at->sin_port), 0);
		wait_for_stop(lifetime);
		close(afd);
		return 0;
	}
	signal(SIGUSR1, on_usr1);
	ready_line(ready, lfd, ntohs(at->sin_port), 0);
	for (i = 0; i < lifetime * 50 && !stop && !usr1; i++)
		usleep(20000);
	close(lfd); /* SIGUSR1: the remedy; frees the child */
	wait_for_stop(lifetime);
	if (!reset)
		close(cfd);
	return 0;
}

#define CHURN_OPEN    256
#define CHURN_CLIENTS 8

static unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* A's side of tcp-churn: connect, send, close, until the deadline; exits */
static void churn_client(int lfd, FILE *j, const struct sockaddr_in *at, const char *from,
			 long bytes, double deadline)
{
	int fd;

	/* the listener and the journal are B's: a walk names B as their owner */
	close(lfd);
	fclose(j);
	enter_netns(from);
	while (!stop && now_s() < deadline) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("socket");
		if (connect(fd, (const struct sockaddr *)at, sizeof(*at))) {
			close(fd); /* the listener's queue is full: again */
			usleep(1000);
			continue;
		}
		send_all(fd, bytes);
		close(fd);
	}
	_exit(0);
}

static int cmd_tcp_churn(const char *ns, const char *from, const struct sockaddr_in *at, long bytes,
			 const char *journal, const char *ready, long lifetime)
{
	int open_fd[CHURN_OPEN];
	unsigned long open_ino[CHURN_OPEN];
	double deadline = now_s() + lifetime;
	long accepted = 0;
	int lfd, n = 0, i, status;
	pid_t kids[CHURN_CLIENTS];
	FILE *j;

	j = fopen(journal, "w");
	if (!j)
		die(journal);
	setvbuf(j, NULL, _IOLBF, 0);
	lfd = listener_in(ns, at, 0);
	/* several clients: one whose SYN the full accept queue dropped waits a second */
	for (i = 0; i < CHURN_CLIENTS; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			die("fork");
		if (!kids[i])
			churn_client(lfd, j, at, from, bytes, deadline);
	}
	while (!stop && now_s() < deadline) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };

		/* room for the next: the oldest goes */
		if (n == CHURN_OPEN) {
			fprintf(j, "close %lu %d %llu\n", open_ino[0], open_fd[0], boot_ns());
			close(open_fd[0]);
			n--;
			memmove(open_fd, open_fd + 1, n * sizeof(open_fd[0]));
			memmove(open_ino, open_ino + 1, n * sizeof(open_ino[0]));
		}
		if (poll(&pfd, 1, 5) <= 0)
			continue;
		open_fd[n] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (open_fd[n] < 0)
			continue;
		open_ino[n] = ino_of(open_fd[n]);
		fprintf(j, "open %lu %d %llu\n", open_ino[n], open_fd[n], boot_ns());
		n++;
		accepted++;
	}
	stop = 1;
	for (i = 0; i < CHURN_CLIENTS; i++) {
		kill(kids[i], SIGKILL); /* it may be in a connect() the full queue holds */
		waitpid(kids[i], &status, 0);
	}
	for (i = 0; i < n; i++) {
		fprintf(j, "close %lu %d %llu\n", open_ino[i], open_fd[i], boot_ns());
		close(open_fd[i]);
	}
	fclose(j);
	ready_line(ready, lfd, ntohs(at->sin_port), (unsigned long)accepted);
	close(lfd);
	return 0;
}

/* the gate as DEV's XDP program, in namespace NS (the caller's is kept) */
static struct gate_bpf *gate_on(const char *ns, const char *dev)
{
	int here = self_netns(), ifindex;
	struct gate_bpf *g;

	enter_netns(ns);
	g = gate_bpf__open_and_load();
	if (!g)
		die("loading the gate");
	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die(dev);
	/* in place of the lab's xdp_pass: veth keeps its page pools */
	if (bpf_xdp_attach(ifindex, bpf_program__fd(g->progs.gate), XDP_FLAGS_DRV_MODE, NULL))
		die("attaching the gate");
	if (setns(here, CLONE_NEWNET))
		die("setns");
	close(here);
	return g;
}

/*
 * The first socket of ns's /proc/net/tcp that is no listener, with local
 * port lport and peer port rport (0: any): its local port, TCP state
 * (include/net/tcp_states.h) and inode into those not NULL; false if none
 */
static bool tcp_sock_in(const char *ns, unsigned int lport, unsigned int rport,
			unsigned int *lp_out, unsigned int *st_out, unsigned long *ino_out)
{
	int here = self_netns();
	unsigned int lp, rp, st;
	unsigned long ino;
	bool found = false;
	char line[512];
	FILE *f;

	enter_netns(ns);
	f = fopen("/proc/net/tcp", "r");
	while (!found && f && fgets(line, sizeof(line), f))
		found = sscanf(line, " %*d: %*x:%x %*x:%x %x %*x:%*x %*x:%*x %*x %*u %*u %lu", &lp,
			       &rp, &st, &ino) == 4 &&
			(!lport || lp == lport) && (!rport || rp == rport) && st != 10 /* LISTEN */;
	if (f)
		fclose(f);
	if (setns(here, CLONE_NEWNET))
		die("setns");
	close(here);
	if (found && lp_out)
		*lp_out = lp;
	if (found && st_out)
		*st_out = st;
	if (found && ino_out)
		*ino_out = ino;
	return found;
}

/* the TCP state of ns's socket on local port, not its listener; -1 */
static int tcp_state_in(const char *ns, unsigned int port)
{
	unsigned int st;

	return tcp_sock_in(ns, port, 0, NULL, &st, NULL) ? (int)st : -1;
}

/* net.ipv4.NAME of namespace ns (TCP's are per namespace) */
static void ipv4_sysctl_in(const char *ns, const char *name, int value)
{
	int here = self_netns();
	char path[96];
	FILE *f;

	enter_netns(ns);
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", value) < 0 || fclose(f))
		die(path);
	if (setns(here, CLONE_NEWNET))
		die("setns");
	close(here);
}

/* a segment the gate drops (each retransmission too), then N out of order behind it */
static void send_hole(struct gate_bpf *g, int fd, long segments)
{
	long i;

	g->bss->hole = 'H';
	send_fill(fd, 1000, 'H');
	usleep(50000);
	for (i = 0; i < segments; i++) {
		send_all(fd, 1000);
		usleep(2000);
	}
	usleep(200000);
}

static int cmd_tcp_orphan(const char *ns, const char *from, const struct sockaddr_in *at,
			  long segments, const char *dev, bool fw2, const char *ready,
			  long lifetime)
{
	struct gate_bpf *g;
	int lfd, cfd, afd, i;
	struct tcp_info ti;
	unsigned long ino;
	char buf[2048], line[96];
	socklen_t len;

	if (!dev)
		usage();
	g = gate_on(ns, dev);
	/* an orphan whose FIN was acknowledged stays a full socket in FIN-WAIT-2
	 * only while its fin timeout is over TCP_TIMEWAIT_LEN (60 s), else it
	 * becomes a timewait minisock at once (tcp_rcv_state_process) */
	if (fw2)
		ipv4_sysctl_in(ns, "tcp_fin_timeout", 600);
	/* one in FIN-WAIT-1 resends its FIN tcp_orphan_retries times (0: 8,
	 * about 100 s with the backoff), then goes: 15 keeps it for minutes */
	else
		ipv4_sysctl_in(ns, "tcp_orphan_retries", 15);
	lfd = listener_in(ns, at, 16 << 20);
	cfd = connect_from(from, at);
	afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		die("accept");
	send_all(cfd, 1000); /* in order: B reads it */
	usleep(100000);
	send_hole(g, cfd, segments);
	if (!fw2)
		g->bss->closed = 1; /* no ACK of B's FIN: B stays in FIN-WAIT-1, a full socket */
	while (recv(afd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(afd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		die("TCP_INFO");
	ino = ino_of(afd);
	close(lfd);
	close(afd); /* an orphan in FIN-WAIT-1 with its out-of-order queue */
	/* fw2: A acknowledges the FIN (the gate drops only the hole): FIN-WAIT-2 */
	for (i = 0; fw2 && i < 500 && tcp_state_in(ns, ntohs(at->sin_port)) != 5; i++)
		usleep(10000);
	if (fw2 && (i = tcp_state_in(ns, ntohs(at->sin_port))) != 5) {
		fprintf(stderr, "ppkinds: the orphan's TCP state is %d, not FIN-WAIT-2 (5)\n", i);
		exit(1);
	}
	snprintf(line, sizeof(line), "%d %lu %u %u\n", getpid(), ino, ntohs(at->sin_port),
		 ti.tcpi_rcv_ooopack);
	write_ready(ready, line);
	wait_for_stop(lifetime);
	close(cfd);
	gate_bpf__destroy(g);
	return 0;
}

/* ns's established TCP socket whose peer port is rport: its inode (0: none) and local port */
static unsigned long tcp_peer_in(const char *ns, unsigned int rport, unsigned int *lport)
{
	unsigned int st;
	unsigned long ino;

	if (!tcp_sock_in(ns, 0, rport, lport, &st, &ino) || st != 1 /* ESTABLISHED */)
		return 0;
	return ino;
}

/* the one device of this namespace besides lo (the lab's end of its veth pair) */
static int lab_device(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int found = 0;

	for (i = ifs; i && i->if_index; i++)
		if (strcmp(i->if_name, "lo")) {
			if (found)
				die("more than one device besides lo");
			found = (int)i->if_index;
		}
	if (ifs)
		if_freenameindex(ifs);
	if (!found)
		die("no device besides lo");
	return found;
}

static int cmd_nfs_mount(const char *ns, const char *from, const struct sockaddr_in *srv,
			 long segments, const char *dev, const char *ready, long lifetime)
{
	char dir[] = "/tmp/ppkinds-nfs.XXXXXX", src[64], opts[160], buf[4096], line[96];
	int here = self_netns(), lfd, afd, out, i;
	unsigned int lport = 0;
	struct pollfd pfd;
	struct gate_bpf *g;
	unsigned long ino;
	pid_t pid;

	if (!dev || !mkdtemp(dir))
		die(dev ? "mkdtemp" : "--dev");
	g = gate_on(ns, dev);
	lfd = listener_in(from, srv, 0);
	snprintf(src, sizeof(src), "%s:/", inet_ntoa(srv->sin_addr));
	snprintf(opts, sizeof(opts), "vers=4.1,proto=tcp,addr=%s,port=%u,timeo=6000,retrans=2",
		 inet_ntoa(srv->sin_addr), ntohs(srv->sin_port));
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		enter_netns(ns);
		mount(src, dir, "nfs4", 0, opts); /* waits for the reply that never comes */
		fprintf(stderr, "ppkinds: mount -t nfs4 %s (%s): %s\n", src, opts, strerror(errno));
		_exit(1);
	}
	/* the kernel's connection (20 s; a mount that fails at once says why) */
	pfd.fd = lfd;
	pfd.events = POLLIN;
	for (i = 0; i < 200 && poll(&pfd, 1, 100) == 0; i++)
		if (waitpid(pid, NULL, WNOHANG) == pid)
			exit(1);
	afd = accept(lfd, NULL, NULL);
	if (afd < 0) {
		kill(pid, SIGKILL);
		die("the NFS client's connection");
	}
	usleep(300000);
	while (recv(afd, buf, sizeof(buf), MSG_DONTWAIT) > 0) /* its call, unanswered */
		;
	send_hole(g, afd, segments);
	/* from now on A's copies of the hole go nowhere: tcx egress on A's
	 * device to the client (BPF_TCX_EGRESS, 47: uapi 6.6, newer than
	 * the headers this builds with) */
	enter_netns(from);
	out = bpf_link_create(bpf_program__fd(g->progs.gate_out), lab_device(),
			      (enum bpf_attach_type)47, NULL);
	if (out < 0) {
		kill(pid, SIGKILL);
		die("attaching gate_out (tcx egress)");
	}
	if (setns(here, CLONE_NEWNET))
		die("setns");
	close(here);
	g->bss->hole_out = 'H';
	ino = tcp_peer_in(ns, ntohs(srv->sin_port), &lport);
	if (!ino) {
		kill(pid, SIGKILL);
		fprintf(stderr, "ppkinds: no established socket to port %u in %s\n",
			ntohs(srv->sin_port), ns);
		exit(1);
	}
	snprintf(line, sizeof(line), "%d %lu %u 0\n", (int)pid, ino, lport);
	write_ready(ready, line);
	wait_for_stop(lifetime);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(out);
	close(afd);
	close(lfd);
	gate_bpf__destroy(g);
	rmdir(dir);
	return 0;
}

static int cmd_scm(const char *ns, const char *from, const struct sockaddr_in *at, long count,
		   long size, const char *ready, long lifetime)
{
	char ctl[CMSG_SPACE(sizeof(int))], byte = 'x', data[65507];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { 0 };
	struct cmsghdr *cm;
	int here = self_netns(), ufd, tx, pair[2], i, rcvbuf = 64 << 20;
	unsigned long ino;

	enter_netns(ns);
	ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ufd < 0 || setsockopt(ufd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    bind(ufd, (const struct sockaddr *)at, sizeof(*at)))
		die("udp socket");
	if (setns(here, CLONE_NEWNET))
		die("setns");
	enter_netns(from);
	tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (tx < 0)
		die("socket");
	memset(data, 0x5a, sizeof(data));
	for (i = 0; i < count; i++)
		if (sendto(tx, data, size, 0, (const struct sockaddr *)at, sizeof(*at)) < 0)
			die("sendto");
	close(tx);
	usleep(200000);
	ino = ino_of(ufd);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair))
		die("socketpair");
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &ufd, sizeof(int));
	if (sendmsg(pair[0], &msg, 0) != 1)
		die("sendmsg(SCM_RIGHTS)");
	close(ufd); /* the message is its only reference now */
	{
		char line[96];

		snprintf(line, sizeof(line), "%d %lu %u %lu\n", getpid(), ino, ntohs(at->sin_port),
			 ino_of(pair[1]));
		write_ready(ready, line);
	}
	wait_for_stop(lifetime);
	close(pair[0]);
	close(pair[1]);
	return 0;
}

/*
 * A counter of this namespace's /proc/net/snmp ("Ip", "InDelivers"), or -1:
 * IP counts each datagram it hands to UDP (after reassembly), which counts
 * only those read (InDatagrams), so a datagram waiting unread is in the first
 */
static long snmp_counter(const char *proto, const char *field)
{
	char line[2048], names[2048] = "", *tok, *sn, *sv, *vt;
	size_t plen = strlen(proto);
	long v = -1;
	FILE *f = fopen("/proc/net/snmp", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, proto, plen) || line[plen] != ':')
			continue;
		if (!names[0]) {
			snprintf(names, sizeof(names), "%s", line);
			continue;
		}
		/* the value in the column the header names field */
		tok = strtok_r(names, " \n", &sn);
		vt = strtok_r(line, " \n", &sv);
		while (tok && vt && strcmp(tok, field)) {
			tok = strtok_r(NULL, " \n", &sn);
			vt = strtok_r(NULL, " \n", &sv);
		}
		if (tok && vt)
			v = strtol(vt, NULL, 10);
		break;
	}
	if (f)
		fclose(f);
	return v;
}

static int cmd_uring(const char *ns, const char *from, const struct sockaddr_in *at, long count,
		     long size, const char *ready, long lifetime)
{
	struct io_uring_params p = { 0 };
	int here = self_netns(), ufd, tx, ring, i, rcvbuf = 64 << 20;
	static char data[65507];
	unsigned long ino;
	long base, now;
	char line[96];

	enter_netns(ns);
	ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ufd < 0 || setsockopt(ufd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    bind(ufd, (const struct sockaddr *)at, sizeof(*at)))
		die("udp socket");
	base = snmp_counter("Ip", "InDelivers");
	if (setns(here, CLONE_NEWNET))
		die("setns");
	enter_netns(from);
	tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (tx < 0)
		die("socket");
	memset(data, 0x5a, sizeof(data));
	for (i = 0; i < count; i++)
		if (sendto(tx, data, size, 0, (const struct sockaddr *)at, sizeof(*at)) < 0)
			die("sendto");
	close(tx);
	/* until B's IP has handed them all to UDP (the kernel's count; 10 s: a hang) */
	enter_netns(ns);
	for (i = 0; i < 1000 && (now = snmp_counter("Ip", "InDelivers")) >= 0 && now - base < count;
	     i++)
		usleep(10000);
	if (setns(here, CLONE_NEWNET))
		die("setns");
	ino = ino_of(ufd);
	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		die("io_uring_setup");
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_FILES, &ufd, 1))
		die("IORING_REGISTER_FILES");
	close(ufd); /* the ring's registered file is its only reference now */
	signal(SIGUSR1, on_usr1);
	snprintf(line, sizeof(line), "%d %lu %u %d\n", getpid(), ino, ntohs(at->sin_port), ring);
	write_ready(ready, line);
	for (i = 0; i < lifetime * 50 && !stop && !usr1; i++)
		usleep(20000);
	if (usr1 && syscall(__NR_io_uring_register, ring, IORING_UNREGISTER_FILES, NULL, 0))
		die("IORING_UNREGISTER_FILES");
	wait_for_stop(lifetime);
	close(ring);
	return 0;
}

static int cmd_l2tp_ctl(const char *from, const char *bind_to, const char *to, long count,
			long size)
{
	struct sockaddr_in src = { 0 }, dst = { 0 };
	static char data[65507];
	int fd, i;

	if (!from || !bind_to || !to || size < 12)
		usage();
	parse_addr(bind_to, &src);
	parse_addr(to, &dst);
	enter_netns(from);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (const struct sockaddr *)&src, sizeof(src)))
		die("udp socket");
	memset(data, 0, sizeof(data));
	data[0] = (char)0xc8; /* T, L */
	data[1] = 0x03;	      /* version 3 */
	data[2] = (char)(size >> 8);
	data[3] = (char)size;
	for (i = 0; i < count; i++)
		if (sendto(fd, data, size, 0, (const struct sockaddr *)&dst, sizeof(dst)) < 0)
			die("sendto");
	close(fd);
	return 0;
}

static unsigned short csum(const void *p, size_t len)
{
	const unsigned short *w = p;
	unsigned long sum = 0;

	for (; len > 1; len -= 2)
		sum += *w++;
	if (len)
		sum += *(const unsigned char *)w;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

static int cmd_frags(const char *from, const char *to, long count, long size, long id)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	char pkt[1500];
	struct iphdr *ip = (void *)pkt;
	int fd, one = 1, i;
	long chunk = size & ~7L;

	if (!to || chunk < 8 || chunk > 1400)
		usage();
	if (inet_pton(AF_INET, to, &dst.sin_addr) != 1)
		usage();
	enter_netns(from);
	fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)))
		die("raw socket");
	for (i = 0; i < count; i++) { /* offsets 0, chunk, 2 chunk ...: all with MF */
		memset(pkt, 0x5a, sizeof(pkt));
		memset(ip, 0, sizeof(*ip));
		ip->ihl = 5;
		ip->version = 4;
		ip->tot_len = htons(sizeof(*ip) + chunk);
		ip->id = htons(id);
		ip->frag_off = htons(IP_MF | ((i * chunk) >> 3));
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		ip->daddr = dst.sin_addr.s_addr;
		ip->check = 0; /* the kernel fills saddr and the checksum (IP_HDRINCL) */
		if (!i) {      /* the UDP header, in the first fragment */
			unsigned short *udp = (void *)(pkt + sizeof(*ip));

			udp[0] = htons(40000);
			udp[1] = htons(9);
			udp[2] = htons(8 + chunk * (count + 1));
			udp[3] = 0;
		}
		ip->check = csum(ip, sizeof(*ip));
		if (sendto(fd, pkt, sizeof(*ip) + chunk, 0, (struct sockaddr *)&dst, sizeof(dst)) <
		    0)
			die("sendto");
	}
	close(fd);
	printf("%d\n", i);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "bind", required_argument, NULL, 'b' },
		{ "to", required_argument, NULL, 't' },
		{ "bytes", required_argument, NULL, 'B' },
		{ "segments", required_argument, NULL, 'S' },
		{ "dev", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "id", required_argument, NULL, 'i' },
		{ "ready", required_argument, NULL, 'R' },
		{ "lifetime", required_argument, NULL, 'L' },
		{ "journal", required_argument, NULL, 'J' },
		{ 0 },
	};
	const char *ns = NULL, *from = NULL, *bind_to = NULL, *to = NULL, *ready = NULL;
	const char *dev = NULL, *journal = NULL, *cmd;
	long bytes = 400000, segments = 20, count = 20, size = 1000, id = 4242, lifetime = 600;
	struct sockaddr_in at = { 0 };
	int o;

	lab_tool = "ppkinds";
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
		case 'b':
			bind_to = optarg;
			break;
		case 't':
			to = optarg;
			break;
		case 'B':
			bytes = parse_num(optarg, "bytes");
			break;
		case 'S':
			segments = parse_num(optarg, "segments");
			break;
		case 'd':
			dev = optarg;
			break;
		case 'c':
			count = parse_num(optarg, "count");
			break;
		case 's':
			size = parse_num(optarg, "size");
			break;
		case 'i':
			id = parse_num(optarg, "id");
			break;
		case 'R':
			ready = optarg;
			break;
		case 'L':
			lifetime = parse_num(optarg, "lifetime");
			break;
		case 'J':
			journal = optarg;
			break;
		default:
			usage();
		}
	}
	if (count > 100000 || segments > 10000 || bytes > (64L << 20) || size > 65507)
		usage(); /* bounded */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "frags"))
		return cmd_frags(from, to, count, size, id);
	if (!strcmp(cmd, "l2tp-ctl"))
		return cmd_l2tp_ctl(from, bind_to, to, count, size);
	if (!strcmp(cmd, "nfs-mount") && ns && from && to && ready) {
		parse_addr(to, &at);
		return cmd_nfs_mount(ns, from, &at, segments, dev, ready, lifetime);
	}
	if (!ns || !from || !bind_to || !ready)
		usage();
	parse_addr(bind_to, &at);
	if (!strcmp(cmd, "tcp-reset"))
		return cmd_tcp_conn(ns, from, &at, bytes, true, true, ready, lifetime);
	if (!strcmp(cmd, "tcp-pending") || !strcmp(cmd, "tcp-pending-reset"))
		return cmd_tcp_conn(ns, from, &at, bytes, false, !strcmp(cmd, "tcp-pending-reset"),
				    ready, lifetime);
	if (!strcmp(cmd, "tcp-orphan") || !strcmp(cmd, "tcp-orphan-fw2"))
		return cmd_tcp_orphan(ns, from, &at, segments, dev, !strcmp(cmd, "tcp-orphan-fw2"),
				      ready, lifetime);
	if (!strcmp(cmd, "scm"))
		return cmd_scm(ns, from, &at, count, size, ready, lifetime);
	if (!strcmp(cmd, "uring"))
		return cmd_uring(ns, from, &at, count, size, ready, lifetime);
	if (!strcmp(cmd, "tcp-churn") && journal)
		return cmd_tcp_churn(ns, from, &at, bytes, journal, ready, lifetime);
	usage();
	return 2;
}
