// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "lib/stop.h"

volatile sig_atomic_t exiting;
volatile sig_atomic_t hangup;
static volatile sig_atomic_t graceful;

static void on_signal(int sig)
{
	if (graceful && !exiting) {
		exiting = 1;
		return;
	}
	/*
	 * Nothing polls 'exiting', or this is the second signal: the default
	 * action, so the parent sees "killed by SIGTERM". The signal is
	 * blocked while its handler runs; it is delivered on return.
	 */
	signal(sig, SIG_DFL);
	raise(sig);
}

void stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void stop_graceful(bool on)
{
	graceful = on;
}

static void on_hangup(int sig)
{
	hangup = 1;
}

void stop_on_hangup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_hangup;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
}
