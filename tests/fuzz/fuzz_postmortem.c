// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * postmortem end to end on any bytes: records, streamed -> report -> text,
 * JSON and YAML. Each output must be well-formed: text lines the escape leaves
 * alone, JSON that jansson reads back, YAML that libyaml loads.
 */
#include <errno.h>

#include "fuzz_report.h"
#include "model/postmortem.h"
#include "model/recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	json_t *rep, *input;
	struct recording r;
	struct pm *a;
	int err;

	if (!f)
		abort();
	if (!size)
		fgetc(f);
	FUZZ_CHECK(!recording_open_stream(&r, f, "fuzz"));
	a = pm_new();
	FUZZ_CHECK(a != NULL);
	err = pm_read(a, &r);
	FUZZ_CHECK(err == 0 || (err == -EPROTO && r.why[0]));
	input = recording_summary(&r);
	FUZZ_CHECK(input != NULL);
	rep = pm_report(a, "fuzz", input);
	FUZZ_CHECK(rep != NULL);
	pm_free(a);
	json_decref(input);
	recording_close(&r);
	fclose(f);

	fuzz_check_report(rep, size & 1); /* pretty or not, by the input */
	json_decref(rep);
	return 0;
}
