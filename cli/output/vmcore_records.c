// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "model/contract.h"
#include "output/record_build.h"
#include "output/vmcore_records.h"

static int put(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -EIO;
}

/* the built parts p as one record of TYPE (seq SEQ) at time t, then freed */
static int emit(FILE *f, struct rparts *p, const char *type, double t, uint64_t seq)
{
	char *prefix = p->nomem ? NULL : rbuild_prefix(type, t, seq);
	uint64_t dropped = 0;
	unsigned parts = 0;
	int err;

	err = prefix ? rparts_emit(p, prefix, RECORDING_MAX_RECORD, put, f, &parts, &dropped) :
		       -ENOMEM;
	free(prefix);
	rparts_free(p);
	return err;
}

int vmcore_records_write(FILE *f, const struct vmcore_walk *w, const struct snapshot *s,
			 const struct scan_result *scan, const char *release, double stall_after)
{
	double t = isnan(w->real_s) ? 0 : w->real_s;
	struct rbuild_header h = {
		.run = "vmcore",
		.hostname = w->hostname,
		.release = release ? release : w->release,
		.attach = "vmcore",
		.unmap = w->rd.regime,
		.page_size = w->rd.page_size,
		.boot_to_real = w->clock ? w->real_s - (double)w->rd.now_ns / 1e9 : NAN,
		.stall_after = stall_after,
		.max_record = RECORDING_MAX_RECORD,
	};
	struct rparts p;
	struct holders_report rep = { 0 };
	char *text;
	size_t len;
	int err;

	text = rbuild_header(&h, t, 1, &len);
	if (!text)
		return -ENOMEM;
	err = put(f, text, len);
	free(text);
	if (err)
		return err;
	rbuild_snapshot(&p, s);
	err = emit(f, &p, "snapshot", t, 2);
	if (err || !scan)
		return err;
	/* who holds the pages, attributed as a recorder's holder scan is */
	err = attrib_build(&rep, scan, s,
			   &(struct attrib_params){ .now_ns = w->rd.now_ns,
						    .page_size = w->rd.page_size });
	if (!err) {
		rbuild_holders(&p, &rep);
		err = emit(f, &p, "holders", t, 3);
	}
	attrib_free(&rep);
	return err;
}
