/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stopping: SIGINT or SIGTERM asks every loop to finish what it is doing
 * and return; a second one ends the process at once. Long loops poll
 * 'exiting' (the session loop in sources/monitor.c, CPU-bound phases).
 */
#ifndef __PPWATCH_LIB_STOP_H
#define __PPWATCH_LIB_STOP_H

#include <signal.h>

extern volatile sig_atomic_t exiting;

/* install the SIGINT/SIGTERM handlers */
void stop_on_signals(void);

#endif /* __PPWATCH_LIB_STOP_H */
