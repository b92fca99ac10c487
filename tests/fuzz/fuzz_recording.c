// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recording reader (model/recording.c) on any bytes: a file from
 * another host, or one a crash cut short. Every record it gives is an
 * object with a string "type"; every line is a record, damaged, the cut
 * last one or empty; the summary reads back as JSON.
 */
#include "fuzz.h"
#include "model/recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	const struct recording_file *rf;
	struct recording r;
	json_t *rec, *sum;
	uint64_t n = 0, lines = 0;
	size_t i;
	char *text;
	int err;

	if (!f)
		abort();
	if (!size)
		fgetc(f); /* fmemopen cannot open nothing: read its one byte past */
	FUZZ_CHECK(!recording_open_stream(&r, f, "fuzz"));
	while ((err = recording_next(&r, &rec)) > 0) {
		FUZZ_CHECK(json_is_object(rec) && json_is_string(json_object_get(rec, "type")));
		json_decref(rec);
		n++;
	}
	FUZZ_CHECK(err == 0);
	rf = &r.files[0];
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	lines += size && data[size - 1] != '\n';
	FUZZ_CHECK(rf->lines == lines && rf->bytes == size && recording_records(&r) == n);
	FUZZ_CHECK(rf->records + rf->damaged + rf->cut <= rf->lines);
	FUZZ_CHECK(!rf->cut || (size && data[size - 1] != '\n' && rf->cut_from < size));
	sum = recording_summary(&r);
	FUZZ_CHECK(sum != NULL);
	text = json_dumps(sum, 0);
	FUZZ_CHECK(text != NULL);
	fuzz_check_json(text, strlen(text));
	free(text);
	json_decref(sum);
	recording_close(&r);
	fclose(f);
	return 0;
}
