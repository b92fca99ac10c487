/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the exporter answers a request with (pure): libmicrohttpd has
 * parsed the request (lib/httpd.c); this decides on its method and path.
 * The Accept header is output/prom.c's (prom_negotiate()). Both take
 * whatever a client sends and are fuzzed (tests/fuzz/fuzz_http.c).
 */
#ifndef __PPWATCH_LIB_HTTP_H
#define __PPWATCH_LIB_HTTP_H

enum http_page {
	HTTP_PAGE_METRICS, /* /metrics */
	HTTP_PAGE_HOME,	   /* /: a pointer to /metrics */
	HTTP_PAGE_ERROR,   /* 404, 405: 'why' says what is wrong */
};

struct http_route {
	int code;
	enum http_page page;
	const char *why;
	const char *allow; /* the Allow header of a 405, else NULL */
};

/* GET and HEAD of / and /metrics; anything else is an error page */
void http_route(const char *method, const char *path, struct http_route *r);
const char *http_reason(int code);

#endif /* __PPWATCH_LIB_HTTP_H */
