// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "lib/escape.h"
#include "lib/log.h"
#include "model/rec_reader.h"

static int depth(const json_t *v)
{
	const json_t *x;
	const char *k;
	int d = 0, c;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x)
		{
			c = depth(x);
			d = c > d ? c : d;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
		{
			c = depth(x);
			d = c > d ? c : d;
		}
	} else {
		return 0;
	}
	return d + 1;
}

/* a parsed line that is a record, or why not */
static const char *not_a_record(const json_t *rec)
{
	if (!json_is_object(rec) || !json_is_string(json_object_get(rec, "type")))
		return "not a ppwatch record (an object with a \"type\")";
	if (depth(rec) > REC_MAX_DEPTH)
		return "nested deeper than any ppwatch record";
	return NULL;
}

json_t *rec_read(FILE *f, const char *name)
{
	json_t *recs = json_array(), *rec;
	size_t len = 0, lineno = 0;
	char *line = NULL, buf[256], text[4 * JSON_ERROR_TEXT_LENGTH];
	const char *why, *ename;
	json_error_t err;
	ssize_t got;

	if (!recs) {
		p_err("%s: %s", name, strerror(ENOMEM));
		return NULL;
	}
	ename = esc_str(name, buf, sizeof(buf)); /* a file name may be odd too */
	while ((got = getline(&line, &len, f)) > 0) {
		lineno++;
		if (got == 1 && line[0] == '\n')
			continue;
		rec = json_loadb(line, got, JSON_REJECT_DUPLICATES, &err);
		if (!rec) {
			/* jansson quotes the input near the error: escape it */
			p_err("%s:%zu:%d: %s", ename, lineno, err.column,
			      esc_str(err.text, text, sizeof(text)));
			goto fail;
		}
		why = not_a_record(rec);
		if (why || json_array_append_new(recs, rec)) {
			p_err("%s:%zu: %s", ename, lineno, why ? why : strerror(ENOMEM));
			if (why)
				json_decref(rec);
			goto fail;
		}
	}
	free(line);
	line = NULL;
	if (ferror(f)) {
		p_err("%s: reading: %s", ename, strerror(errno));
		goto fail;
	}
	if (strcmp(rec_str(json_array_get(recs, 0), "type", ""), "header")) {
		p_err("%s: no header record: not a 'ppwatch record' file", ename);
		goto fail;
	}
	return recs;
fail:
	free(line);
	json_decref(recs);
	return NULL;
}
