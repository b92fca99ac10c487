/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The listener's seccomp filter (libseccomp): once the listener holds no
 * capability and no_new_privs is set, the system calls it may make are
 * the ones serving needs: reading its descriptors and the web config's
 * files (opened read-only), accepting on the listener it was handed,
 * answering on its connections, epoll, time, memory, signals to itself.
 * Nothing that makes a socket, connects, writes a file, executes, traces
 * or signals another process. A call outside the list stops the process
 * with SIGSYS, after saying which call it was (a bug to report: the list
 * is short of something the libraries do on some system).
 */
#ifndef __PPWATCH_SERVE_SANDBOX_H
#define __PPWATCH_SERVE_SANDBOX_H

/* install the filter on this process: 0, or -errno (reported) */
int sandbox_enter(void);

#endif /* __PPWATCH_SERVE_SANDBOX_H */
