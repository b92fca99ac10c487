/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A shell command as a child process (check --run): started with none of
 * our descriptors, with a pidfd to poll for its end, and a way to tell a
 * failed exec from the command's own failure.
 */
#ifndef __PPWATCH_LIB_SPAWN_H
#define __PPWATCH_LIB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int errfd; /* exec's errno, or EOF when exec worked */
	int pidfd; /* readable when the child exits; -1: none (kernel < 5.3) */
};

/* /bin/sh -c cmd: 0, or -errno with the reason in err */
int child_spawn(struct child *c, const char *cmd, bool stdout_to_stderr, char *err, size_t errlen);
/* after the child has exited: did exec fail? (the reason in err) */
bool child_exec_failed(struct child *c, char *err, size_t errlen);
void child_close(struct child *c);

#endif /* __PPWATCH_LIB_SPAWN_H */
