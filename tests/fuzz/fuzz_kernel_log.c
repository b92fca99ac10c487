// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel-log reader on any bytes (model/kernel_log.c, klog_line.c),
 * linked to a recording's pools (model/pm_klog.c), every pool's verdict
 * and its words (model/pm_verdict.c, output/pm_verdict_fmt.c), rendered
 * as text, JSON and YAML. The log's own promises: every stall line it
 * read is in one pool or counted, each pool's numbers agree with its
 * lines; every output is well-formed and escaped. The input's first byte
 * picks how: live or from a file, with the printk clock known or not.
 */
#include <math.h>

#include "fuzz_report.h"
#include "model/kernel_log.h"
#include "model/pm_klog.h"
#include "model/pm_verdict.h"
#include "model/postmortem.h"
#include "model/recording.h"
#include "output/pm_verdict_fmt.h"

/* pools for the log to meet: a zombie with an id and holders, one without, one freed */
static const char recording[] =
	"{\"type\":\"header\",\"time\":1000,\"stall_after_s\":60,\"boot_to_real_s\":900,"
	"\"stack_every\":0}\n"
	"{\"type\":\"event\",\"event\":{\"time\":1010,\"event\":\"destroy\",\"id\":9,"
	"\"addr\":\"0x1\",\"gen\":1,\"inflight\":500}}\n"
	"{\"type\":\"snapshot\",\"time\":1200,\"pools\":[{\"id\":9,\"addr\":\"0x1\",\"gen\":1,"
	"\"state\":\"zombie\",\"inflight\":480,\"detach_age_s\":190,\"driver\":\"d\\u001b\"},"
	"{\"addr\":\"0x2\",\"gen\":1,\"state\":\"zombie\",\"inflight\":-4,\"detach_age_s\":61},"
	"{\"addr\":\"0x3\",\"gen\":1,\"state\":\"freed\",\"inflight\":0,\"freed_age_s\":2,"
	"\"zombie_s\":70}]}\n"
	"{\"type\":\"holders\",\"time\":1200,\"pools\":[{\"id\":9,\"addr\":\"0x1\",\"gen\":1,"
	"\"inflight\":480,\"unattributed\":80,\"holders\":[{\"pages\":400,\"kind\":\"socket\","
	"\"holder\":\"udp\",\"remedy\":\"close it\"},{\"pages\":80,\"kind\":\"unattributed\"}]}]}\n";

/* the recording's report, as 'ppwatch postmortem FILE' makes it */
static json_t *recorded(void)
{
	FILE *f = fmemopen((void *)recording, sizeof(recording) - 1, "r");
	struct pm *a = pm_new();
	struct recording r;
	json_t *rep;

	FUZZ_CHECK(f && a && !recording_open_stream(&r, f, "rec"));
	FUZZ_CHECK(!pm_read(a, &r));
	rep = pm_report(a, "fuzz", NULL);
	recording_close(&r);
	pm_free(a);
	fclose(f);
	return rep;
}

static void check_log(const struct klog *k)
{
	uint64_t lines = 0;
	size_t i, j;

	FUZZ_CHECK(k->n <= KLOG_POOLS_MAX);
	for (i = 0; i < k->n; i++) {
		const struct klog_pool *p = &k->pools[i];

		lines += p->lines;
		FUZZ_CHECK(p->lines >= 1 && p->first.lineno <= p->last.lineno);
		FUZZ_CHECK(p->min_inflight <= p->max_inflight);
		FUZZ_CHECK(p->first.inflight >= p->min_inflight &&
			   p->last.inflight <= p->max_inflight);
		FUZZ_CHECK(klog_npoints(p) >= 1 && klog_npoints(p) <= KLOG_POINTS_MAX);
		FUZZ_CHECK(klog_point(p, 0)->inflight == p->first.inflight);
		for (j = 0; j < klog_npoints(p); j++)
			FUZZ_CHECK(klog_point(p, j)->inflight >= p->min_inflight &&
				   klog_point(p, j)->inflight <= p->max_inflight);
		FUZZ_CHECK(p->has_id == p->first.has_id && p->boot == p->last.boot);
		FUZZ_CHECK(p->boot < k->boots);
	}
	FUZZ_CHECK(lines + k->lines_not_grouped == k->stall_lines);
	FUZZ_CHECK(k->stall_lines + k->unread_lines <= k->lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct klog_link_opts o = { .drift = KLOG_DRIFT, .source = "fuzz", .year = 2025 };
	json_t *rep;
	uint8_t how = size ? data[0] : 0;
	struct klog k;

	o.live = how & 1;
	o.printk_to_unix = how & 2 ? 900 : NAN;
	o.utc_offset_s = how & 4 ? 3600 : 0;
	klog_init(&k);
	FUZZ_CHECK(!klog_feed(&k, (const char *)data + !!size, size - !!size));
	klog_finish(&k, how & 8 ? 250 : NAN);
	check_log(&k);
	rep = recorded();
	FUZZ_CHECK(rep != NULL);
	FUZZ_CHECK(!pm_add_kernel_log(rep, &k, &o));
	klog_free(&k);
	FUZZ_CHECK(!pm_add_verdicts(rep));
	FUZZ_CHECK(!postmortem_prose(rep));

	fuzz_check_report(rep, how & 16);
	json_decref(rep);
	return 0;
}
