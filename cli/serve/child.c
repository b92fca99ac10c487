// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "serve/child.h"

/* every descriptor but stdio, the listener's socket (then 3) and the feed (then 4) closed */
static int only_fds(int *lfd, int *fd)
{
	int a = fcntl(*lfd, F_DUPFD, 10), b = fcntl(*fd, F_DUPFD, 10);
	long max, i;

	if (a < 0 || b < 0 || dup2(a, 3) != 3 || dup2(b, 4) != 4)
		return -errno;
	if (syscall(SYS_close_range, 5, ~0U, 0)) {
		max = sysconf(_SC_OPEN_MAX);
		for (i = 5; i < (max > 0 && max < 65536 ? max : 65536); i++)
			close(i);
	}
	*lfd = 3;
	*fd = 4;
	return 0;
}

/* the forked listener's life: what it exits with */
static int child(int lfd, int fd, pid_t sampler, const struct listener_opts *lo,
		 int (*drop)(void *arg), void *arg)
{
	struct listener_opts o = *lo;
	int err;

	err = only_fds(&lfd, &fd);
	if (err) {
		p_err("export: the listener's descriptors: %s", strerror(-err));
		return LISTENER_ERROR;
	}
	if (drop(arg))
		return LISTENER_ERROR;
	/* the parent-death signal, after the change of user (which clears it) */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != sampler)
		return LISTENER_OK;
	p_info("export: the listener (pid %d) runs as uid %u with no capabilities, "
	       "no_new_privs and a seccomp filter",
	       (int)getpid(), (unsigned int)getuid());
	o.lfd = lfd;
	o.feed = fd;
	return listener_run(&o);
}

/* how the listener ended, said; LISTENER_OK only when it was asked to stop and did */
static int reap(struct listener_proc *lp, bool asked)
{
	int st = 0, i;
	pid_t r;

	if (lp->pid < 0)
		return LISTENER_OK;
	/* asked to stop, it ends within a bcrypt check: else it is made to */
	for (i = 0; asked && i < 500; i++) {
		r = waitpid(lp->pid, &st, WNOHANG);
		if (r == lp->pid || (r < 0 && errno != EINTR))
			break;
		usleep(10000);
	}
	if (i == 500) {
		p_warn("export: the listener (pid %d) did not stop in 5s: killed", (int)lp->pid);
		kill(lp->pid, SIGKILL);
	}
	if (!asked || i == 500)
		while (waitpid(lp->pid, &st, 0) < 0 && errno == EINTR)
			;
	lp->pid = -1;
	if (WIFEXITED(st) && (asked || WEXITSTATUS(st) == LISTENER_ERROR))
		return WEXITSTATUS(st) ? LISTENER_ERROR : LISTENER_OK;
	if (WIFEXITED(st))
		p_err("export: the listener exited (status %d): serving stopped", WEXITSTATUS(st));
	else if (WIFSIGNALED(st) && (!asked || WTERMSIG(st) != SIGTERM))
		p_err("export: the listener was killed by signal %d (%s)%s", WTERMSIG(st),
		      strsignal(WTERMSIG(st)),
		      WTERMSIG(st) == SIGSYS ? ": its seccomp filter stopped a system call" : "");
	else
		return LISTENER_OK;
	return LISTENER_ERROR;
}

static void close_feed(struct listener_proc *lp)
{
	if (lp->feed >= 0)
		close(lp->feed);
	lp->feed = -1;
	feed_out_free(&lp->out);
}

int listener_stop(struct listener_proc *lp)
{
	if (lp->pid > 0)
		kill(lp->pid, SIGTERM);
	close_feed(lp);
	return reap(lp, true);
}

int listener_lost(struct listener_proc *lp)
{
	close_feed(lp);
	return reap(lp, false) ?: LISTENER_ERROR;
}

int listener_start(struct listener_proc *lp, int lfd, const struct listener_opts *o,
		   int (*drop)(void *arg), void *arg)
{
	int sv[2], sndbuf = 4 << 20, st;
	pid_t sampler = getpid();
	struct pollfd pfd;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		p_err("export: a socketpair for the listener: %s", strerror(errno));
		close(lfd);
		return LISTENER_ERROR;
	}
	fflush(stderr);
	lp->pid = fork();
	if (lp->pid < 0) {
		p_err("export: forking the listener: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		close(lfd);
		return LISTENER_ERROR;
	}
	if (!lp->pid) {
		close(sv[0]);
		_exit(child(lfd, sv[1], sampler, o, drop, arg));
	}
	close(sv[1]);
	close(lfd);
	lp->feed = sv[0];
	/* ready: its end shut for writing (or closed, when it ended); nothing read */
	pfd = (struct pollfd){ lp->feed, POLLRDHUP };
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		if (exiting)
			return listener_stop(lp);
	if (pfd.revents & POLLHUP)
		return listener_lost(lp);
	if (waitpid(lp->pid, &st, WNOHANG) == lp->pid) { /* reaped already */
		lp->pid = -1;
		close_feed(lp);
		return WIFEXITED(st) && WEXITSTATUS(st) ? WEXITSTATUS(st) : LISTENER_ERROR;
	}
	fcntl(lp->feed, F_SETFL, fcntl(lp->feed, F_GETFL) | O_NONBLOCK);
	setsockopt(lp->feed, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	return 0;
}
