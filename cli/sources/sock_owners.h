/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What holds the sockets of a scan that no process has an fd for, from
 * what the kernel says besides the walk: every io_uring's registered
 * socket files (each ring's /proc/PID/fdinfo/FD, model/ring_files.h), read
 * when a socket has a file and no fd; the function that reads each kernel
 * socket (its encap_rcv or sk_data_ready, named by /proc/kallsyms).
 */
#ifndef __PPWATCH_SOURCES_SOCK_OWNERS_H
#define __PPWATCH_SOURCES_SOCK_OWNERS_H

#include "model/attrib.h"

/* into scan->ring_files and scan->hooks; 0, or -ENOMEM (what cannot be read is left out) */
int sock_owners_read(struct scan_result *scan);

#endif /* __PPWATCH_SOURCES_SOCK_OWNERS_H */
