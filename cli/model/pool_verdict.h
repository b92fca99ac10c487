/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What is the matter with a destroyed pool whose pages have not come back
 * (pure): one verdict from what is known of it, for postmortem (from a
 * recording, the live host and the kernel log) and check --run. The model
 * gives a code and its numbers; output/pool_verdict_fmt.c says it in words.
 *
 *   accounting_bug  inflight went negative: a page was released twice (a
 *                   driver bug; the kernel's WARN "Negative(N) inflight")
 *   freed           its pages came back and the pool is gone
 *   draining        inflight falling: done in eta_s at the recent rate
 *   held            holders ppwatch walked (sockets, qdiscs, queues) hold pages
 *   leaked          a holder scan found nothing that holds them: the driver
 *                   or a hardware ring (a TX ring that is never reaped, pages
 *                   the driver lost)
 *   stuck           inflight has not moved, and no holder scan says who has
 *                   them (a log alone): held or leaked
 *   unknown         one sighting: no trend, no scan
 */
#ifndef __PPWATCH_MODEL_POOL_VERDICT_H
#define __PPWATCH_MODEL_POOL_VERDICT_H

#include <stdbool.h>

enum pv_code {
	PV_UNKNOWN,
	PV_ACCOUNTING_BUG,
	PV_FREED,
	PV_DRAINING,
	PV_HELD,
	PV_LEAKED,
	PV_STUCK,
};

/* how far inflight is looked back at for the recent rate */
#define PV_WINDOW_S 600.0
/* draining: inflight fell within this long of the latest sighting (two warnings) */
#define PV_RECENT_S 130.0
/* constant this long (two warnings a minute apart), unscanned: stuck, not unknown */
#define PV_STUCK_S 55.0

struct pv_in {
	double inflight; /* the latest; NAN: unknown */
	bool negative;	 /* inflight was below 0 */
	bool freed;	 /* came back (or, probable: the log stopped naming it) */
	/*
	 * inflight at two ages since the destroy: the latest known (to) and the
	 * last value at least PV_WINDOW_S before it, or the first known
	 * (from); recent: the value PV_RECENT_S before the latest (or the
	 * first); NAN: fewer than two sightings
	 */
	double from_age, from, to_age, to, recent;
	double steady_s;     /* how long inflight has been what it is now; NAN: unknown */
	bool scanned;	     /* a holder scan saw the pool */
	double attributed;   /* pages its walkable holders hold */
	double unattributed; /* pages nothing it walked holds */
	/* live: pages coming back now (release/s); NAN: not known */
	double release_per_s;
};

struct pool_verdict {
	enum pv_code code;
	double rate_per_s; /* draining: pages back a second; NAN otherwise */
	double eta_s;	   /* draining: until none is out at that rate */
	double span_s;	   /* the ages the trend spans; NAN: none */
};

void pool_verdict_decide(const struct pv_in *in, struct pool_verdict *out);
const char *pool_verdict_name(enum pv_code c);

#endif /* __PPWATCH_MODEL_POOL_VERDICT_H */
