/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pools the discovery scan found (discover.bpf.c writes their records
 * into the pool table without events), handed on as PPW_EV_POOL_NEW events.
 */
#ifndef __PPWATCH_SOURCES_DISCOVERED_H
#define __PPWATCH_SOURCES_DISCOVERED_H

#include "sources/collector.h"

/*
 * The pools the discovery scan found since the last call, oldest first, as
 * PPW_EV_POOL_NEW events to fn (the ring buffer's callback): discovery
 * writes records without events, so a host's thousands of pools never
 * overflow the ring. fn's non-zero return (reported) ends it.
 */
int collector_discovered(struct collector *c, int (*fn)(void *ctx, void *data, size_t size),
			 void *ctx);

#endif /* __PPWATCH_SOURCES_DISCOVERED_H */
