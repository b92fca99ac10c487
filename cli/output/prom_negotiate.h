/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The exposition formats ppwatch export serves, and the choice between them. */
#ifndef __PPWATCH_OUTPUT_PROM_NEGOTIATE_H
#define __PPWATCH_OUTPUT_PROM_NEGOTIATE_H

enum prom_format {
	PROM_TEXT,	  /* text/plain; version=0.0.4 */
	PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* From an Accept header (NULL: none): OpenMetrics only when asked for. */
enum prom_format prom_negotiate(const char *accept);
const char *prom_content_type(enum prom_format f);

#endif /* __PPWATCH_OUTPUT_PROM_NEGOTIATE_H */
