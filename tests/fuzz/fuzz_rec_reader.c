// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The recording reader (model/rec_reader.c) on any bytes: a file from another host. */
#include "fuzz.h"
#include "model/rec_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	json_t *recs, *rec;
	size_t i;

	if (!f)
		abort();
	if (!size)
		fgetc(f); /* fmemopen cannot open nothing: read its one byte past */
	recs = rec_read(f, "fuzz");
	fclose(f);
	json_array_foreach(recs, i, rec)
	{
		/* what the reader promises: objects with a string "type", a header first */
		FUZZ_CHECK(json_is_object(rec) && json_is_string(json_object_get(rec, "type")));
		FUZZ_CHECK(i || !strcmp(rec_str(rec, "type", ""), "header"));
	}
	json_decref(recs);
	return 0;
}
