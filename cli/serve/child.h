/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The listener (serve/listener.h) as the sampler sees it: a process it
 * forks before loading anything, with only standard input, output and
 * error, the listening socket and its end of a socketpair; it waits until
 * the listener has read the web config (the listener shuts its end for
 * writing; the sampler reads nothing from it), feeds it expositions
 * (lib/feed.h), passes SIGHUP on, and says how it ended.
 */
#ifndef __PPWATCH_SERVE_CHILD_H
#define __PPWATCH_SERVE_CHILD_H

#include <sys/types.h>

#include "lib/feed.h"
#include "serve/listener.h"

struct listener_proc {
	pid_t pid;	     /* -1: none */
	int feed;	     /* the sampler's end of the socketpair, non-blocking */
	struct feed_out out; /* frames on their way */
};

/*
 * Fork the listener on lfd (closed here) with o (its lfd and feed filled
 * in): in the child, drop(arg) takes its privileges (0, or it exits 2),
 * then it serves. Returns once it has read its web config: 0, or the exit
 * status it ended with (it said why).
 */
int listener_start(struct listener_proc *lp, int lfd, const struct listener_opts *o,
		   int (*drop)(void *arg), void *arg);
/* asked to stop (SIGTERM, then SIGKILL after 5 s): its exit status, 0 or 2 (said) */
int listener_stop(struct listener_proc *lp);
/* it ended on its own (its end closed): how, said; 2 */
int listener_lost(struct listener_proc *lp);

#endif /* __PPWATCH_SERVE_CHILD_H */
