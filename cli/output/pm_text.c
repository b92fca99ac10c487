// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/json_read.h"
#include "output/pm_text.h"

/* a recorded count: whole, or in %g form past 1e15 (a recording may hold any number) */
const char *count_str(char *buf, size_t len, double v)
{
	snprintf(buf, len, fabs(v) < 1e15 ? "%.0f" : "%.3g", v);
	return buf;
}

/* a recorded string, escaped; dflt when there is none */
void put_str(FILE *f, const json_t *o, const char *key, const char *dflt)
{
	const char *s = jstr(o, key, dflt);

	esc_put(f, s, strlen(s), NULL);
}

void put_frames(FILE *f, const json_t *frames)
{
	const json_t *fr;
	size_t j;

	json_array_foreach(frames, j, fr)
	{
		const char *s = json_string_value(fr);

		if (j == 8)
			break;
		fputs(j ? " < " : " ", f);
		s = s ? s : "?";
		esc_put(f, s, strlen(s), NULL);
	}
	fputc('\n', f);
}
