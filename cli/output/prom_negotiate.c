// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which exposition format a scrape asked for (its Accept header), and the
 * content type that names it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/prom_negotiate.h"

/* RFC 9110 qvalue: "0" or "1", up to three decimals, nothing more (-1 when not one) */
static double qvalue(const char *q)
{
	size_t n = 1;

	if (q[0] != '0' && q[0] != '1')
		return -1;
	if (q[1] == '.')
		for (n = 2; n < 5 && q[n] >= '0' && q[n] <= '9'; n++)
			if (q[0] == '1' && q[n] != '0')
				return -1;
	if (q[n] && !strchr("; \t,", q[n]))
		return -1;
	return strtod(q, NULL);
}

/* the q parameter of a media range (1 without one; 0 for one that is not a qvalue) */
static double media_q(const char *params)
{
	const char *q = params;
	double v;

	while ((q = strchr(q, ';'))) {
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if ((q[0] == 'q' || q[0] == 'Q') && q[1] == '=') {
			v = qvalue(q + 2);
			return v < 0 ? 0 : v;
		}
	}
	return 1;
}

/* version parameter of a media range, into buf ("" if none) */
static void media_version(const char *params, char *buf, size_t len)
{
	const char *v = params, *end;

	buf[0] = 0;
	while ((v = strchr(v, ';'))) {
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		if (!strncasecmp(v, "version=", 8)) {
			v += 8;
			end = v + strcspn(v, "; \t");
			snprintf(buf, len, "%.*s", (int)(end - v), v);
			return;
		}
	}
}

enum prom_format prom_negotiate(const char *accept)
{
	double om = 0, text = 0, q;
	char range[256], ver[32];
	const char *p = accept, *end;
	size_t n;

	if (!accept)
		return PROM_TEXT;
	while (*p) {
		end = p + strcspn(p, ",");
		n = end - p < (long)sizeof(range) - 1 ? (size_t)(end - p) : sizeof(range) - 1;
		memcpy(range, p, n);
		range[n] = 0;
		p = *end ? end + 1 : end;
		while (*range && (range[0] == ' ' || range[0] == '\t'))
			memmove(range, range + 1, strlen(range));
		q = media_q(range);
		media_version(range, ver, sizeof(ver));
		if (!strncasecmp(range, "application/openmetrics-text", 28)) {
			/* 1.0.0, or unversioned; 0.0.1 is a different grammar */
			if ((!ver[0] || !strcmp(ver, "1.0.0")) && q > om)
				om = q;
		} else if (!strncasecmp(range, "text/plain", 10) || !strncmp(range, "*/*", 3) ||
			   !strncasecmp(range, "text/*", 6)) {
			if (q > text)
				text = q;
		}
	}
	return om > 0 && om >= text ? PROM_OPENMETRICS : PROM_TEXT;
}

const char *prom_content_type(enum prom_format f)
{
	return f == PROM_OPENMETRICS ?
		       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		       "text/plain; version=0.0.4; charset=utf-8";
}
