/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live kernel log: every record /dev/kmsg still holds, from the start
 * of the ring, into a kernel-log reader (model/kernel_log.h). Reading
 * takes nothing away: each open of /dev/kmsg has its own position (unlike
 * syslog(2)'s SYSLOG_ACTION_READ, which consumes what it reads), so
 * journald and dmesg see the same records after us.
 */
#ifndef __PPWATCH_SOURCES_KMSG_H
#define __PPWATCH_SOURCES_KMSG_H

#include <stdint.h>

#include "model/kernel_log.h"

struct kmsg_stats {
	uint64_t records;
	uint64_t overwritten; /* records the ring dropped while we read (EPIPE) */
};

/*
 * Every record into k (not finished: the caller does that, with the printk
 * clock's now). 0, or -errno of /dev/kmsg's open or read, not reported.
 */
int kmsg_read(struct klog *k, struct kmsg_stats *st);

#endif /* __PPWATCH_SOURCES_KMSG_H */
