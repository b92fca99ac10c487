// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/close_range.h>

#include "lib/spawn.h"

int child_spawn(struct child *c, const char *cmd, bool stdout_to_stderr, char *err, size_t errlen)
{
	int pfd[2], e;

	c->pid = -1;
	c->errfd = c->pidfd = -1;
	if (pipe2(pfd, O_CLOEXEC)) {
		e = errno;
		snprintf(err, errlen, "pipe: %s", strerror(e));
		return -e;
	}
	fflush(stdout);
	fflush(stderr);
	c->pid = fork();
	if (c->pid < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
		snprintf(err, errlen, "fork: %s", strerror(e));
		return -e;
	}
	if (!c->pid) {
		/* none of ppwatch's descriptors (BPF, netlink) go to the command */
		syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (stdout_to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	c->errfd = pfd[0];
	c->pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	if (c->pidfd >= 0)
		fcntl(c->pidfd, F_SETFD, FD_CLOEXEC);
	return 0;
}

bool child_exec_failed(struct child *c, char *err, size_t errlen)
{
	int e;

	if (read(c->errfd, &e, sizeof(e)) == sizeof(e)) {
		snprintf(err, errlen, "/bin/sh: %s", strerror(e));
		return true;
	}
	return false;
}

void child_close(struct child *c)
{
	if (c->errfd >= 0)
		close(c->errfd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->errfd = c->pidfd = -1;
}
