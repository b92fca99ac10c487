/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Model fixtures shared by the unit tests of the views over snapshots. */
#ifndef __PPWATCH_FIXTURES_H
#define __PPWATCH_FIXTURES_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/snapshot.h"

/*
 * A BPF-observed pool of 'dev' (ifindex 3, one netns) with every inflight
 * page in the ledger, 'oldest' s old; no rates yet, never detached.
 */
static inline struct pool_row fixture_row(__u32 id, const char *dev, enum row_state st,
					  __s64 inflight, double oldest)
{
	struct pool_row r;

	memset(&r, 0, sizeof(r));
	r.addr = 0xffff888100000000ULL + id * 0x1000;
	r.gen = 1;
	r.id = id;
	pool_row_name(&r, 0);
	r.has_record = true;
	r.state = st;
	snprintf(r.ifname, sizeof(r.ifname), "%s", dev);
	snprintf(r.device, sizeof(r.device), "%s", dev);
	r.ifindex = 3;
	r.netns_ino = 4026532246U;
	r.inflight = inflight;
	r.inflight_bytes = inflight * 4096;
	r.ledger_pages = inflight;
	r.hold_per_s = r.release_per_s = NAN;
	r.oldest_age_s = inflight ? oldest : NAN;
	r.detach_age_s = r.freed_age_s = r.zombie_s = NAN;
	return r;
}

#endif /* __PPWATCH_FIXTURES_H */
