/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ppwatch export's listener: the process that faces the network. OpenSSH
 * separates its privileges this way, and node_exporter runs unprivileged:
 * everything that reads what a client sends (HTTP by libmicrohttpd, TLS
 * by GnuTLS, basic auth by libcrypt) and the web config runs here, with
 * no capability in any set, no_new_privs, and a seccomp filter
 * (serve/sandbox.h), as --user or (without it) as the uid it was started
 * with, in a process of its own. The sampler (cmd/export.c), which keeps
 * what reading the kernel needs, forks it before loading anything and
 * feeds it expositions over a socketpair, one way (lib/feed.h): it reads
 * nothing the listener, nor a client, sends.
 *
 * The listener reads the web config at start (what is wrong with it ends
 * the listener with exit 2, which the sampler passes on before loading
 * BPF) and on SIGHUP, at once (lib/httpd.h: no connection dropped). It
 * says it is ready by shutting its end of the socketpair for writing,
 * and ends when the sampler's end closes (the sampler stopped) or on
 * SIGTERM or SIGINT.
 */
#ifndef __PPWATCH_SERVE_LISTENER_H
#define __PPWATCH_SERVE_LISTENER_H

#include <stdbool.h>

/* its exit status: ppwatch's EXIT_OK and EXIT_ERROR */
#define LISTENER_OK    0
#define LISTENER_ERROR 2

struct listener_opts {
	int lfd;		/* the listening socket (non-blocking) */
	int feed;		/* the listener's end of the socketpair */
	const char *web_config; /* NULL: plain HTTP, nobody to authenticate */
	unsigned int max_clients;
	double timeout;
	double interval; /* the sampler's, for the log */
};

/*
 * Run the listener in this (forked, already unprivileged) process until
 * it ends: the process's exit status (0; 2: the web config is wrong, or
 * something failed; reported).
 */
int listener_run(const struct listener_opts *o);

#endif /* __PPWATCH_SERVE_LISTENER_H */
