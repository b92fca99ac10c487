/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stopping: SIGINT or SIGTERM. While a session loop runs (between
 * stop_graceful(true) and stop_graceful(false): a monitor is open), the
 * first one asks every loop to finish what it is doing and return; the
 * loops poll 'exiting'. Outside one (reading a recording, loading rules,
 * building a report: CPU-bound phases that poll nothing), and for a
 * second one, the signal ends the process at once, as its default action
 * would.
 */
#ifndef __PPWATCH_LIB_STOP_H
#define __PPWATCH_LIB_STOP_H

#include <signal.h>
#include <stdbool.h>

extern volatile sig_atomic_t exiting;
/* SIGHUP came (after stop_on_hangup()): a daemon re-reads its configuration */
extern volatile sig_atomic_t hangup;

/* install the SIGINT/SIGTERM handlers */
void stop_on_signals(void);
/* whether a loop polls 'exiting' from now on */
void stop_graceful(bool on);
/* SIGHUP sets 'hangup' instead of ending the process */
void stop_on_hangup(void);

#endif /* __PPWATCH_LIB_STOP_H */
