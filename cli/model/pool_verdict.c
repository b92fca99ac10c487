// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>

#include "model/pool_verdict.h"

const char *pool_verdict_name(enum pv_code c)
{
	static const char *const name[] = {
		[PV_UNKNOWN] = "unknown", [PV_ACCOUNTING_BUG] = "accounting_bug",
		[PV_FREED] = "freed",	  [PV_DRAINING] = "draining",
		[PV_HELD] = "held",	  [PV_LEAKED] = "leaked",
		[PV_STUCK] = "stuck",
	};

	return (unsigned)c < sizeof(name) / sizeof(name[0]) ? name[c] : "unknown";
}

void pool_verdict_decide(const struct pv_in *in, struct pool_verdict *out)
{
	double span = in->to_age - in->from_age, fell = in->from - in->to;

	out->code = PV_UNKNOWN;
	out->rate_per_s = out->eta_s = NAN;
	out->span_s = span >= 0 ? span : NAN;
	if (in->negative || in->inflight < 0) {
		out->code = PV_ACCOUNTING_BUG;
		return;
	}
	if (in->freed || in->inflight == 0) {
		out->code = PV_FREED;
		return;
	}
	if (span >= 1 && fell > 0 && in->recent > in->to) {
		out->code = PV_DRAINING;
		out->rate_per_s = fell / span;
	} else if (in->release_per_s > 0) {
		out->code = PV_DRAINING;
		out->rate_per_s = in->release_per_s;
	}
	if (out->code == PV_DRAINING) {
		double left = !isnan(in->inflight) ? in->inflight : in->to;

		out->eta_s = left / out->rate_per_s;
		return;
	}
	if (in->scanned) {
		out->code = in->attributed > 0 ? PV_HELD : PV_LEAKED;
		return;
	}
	out->code = span >= PV_STUCK_S ? PV_STUCK : PV_UNKNOWN;
}
