// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "lib/stop.h"

volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	if (exiting) /* the second one: leave now */
		_exit(128 + sig);
	exiting = 1;
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
