// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "lib/log.h"
#include "lib/vec.h"
#include "model/rec_reader.h"

/* one JSON object per line; errors name file:line */
int rec_read(FILE *f, const char *name, struct jv ***out, size_t *n)
{
	struct jv **v = NULL, **slot;
	size_t cap = 0, len = 0, lineno = 0;
	char *line = NULL, err[128];
	ssize_t got;

	*n = 0;
	while ((got = getline(&line, &len, f)) > 0) {
		struct jv *rec;

		lineno++;
		if (got == 1 && line[0] == '\n')
			continue;
		rec = jv_parse(line, err, sizeof(err));
		if (!rec || rec->t != JV_OBJ || !jv_get(rec, "type")) {
			p_err("%s:%zu: %s", name, lineno,
			      rec ? "not a ppwatch record (an object with a \"type\")" : err);
			jv_free(rec);
			goto fail;
		}
		slot = VEC_PUSH(v, *n, cap);
		if (!slot) {
			p_err("%s:%zu: %s", name, lineno, strerror(errno));
			jv_free(rec);
			goto fail;
		}
		*slot = rec;
	}
	free(line);
	if (!*n || strcmp(jv_str(jv_get(v[0], "type"), ""), "header")) {
		p_err("%s: no header record: not a 'ppwatch record' file", name);
		*out = v;
		return -EINVAL;
	}
	*out = v;
	return 0;
fail:
	free(line);
	*out = v;
	return -EINVAL;
}

void rec_free(struct jv **recs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		jv_free(recs[i]);
	free(recs);
}
