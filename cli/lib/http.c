// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "lib/http.h"

const char *http_reason(int code)
{
	switch (code) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	case 505:
		return "HTTP Version Not Supported";
	}
	return "Unknown";
}

void http_route(const char *method, const char *path, struct http_route *r)
{
	*r = (struct http_route){ .code = 200, .page = HTTP_PAGE_ERROR };
	if (!method || (strcmp(method, "GET") && strcmp(method, "HEAD"))) {
		r->code = 405;
		r->why = "only GET and HEAD are allowed";
		r->allow = "GET, HEAD";
	} else if (path && !strcmp(path, "/metrics")) {
		r->page = HTTP_PAGE_METRICS;
	} else if (path && !strcmp(path, "/")) {
		r->page = HTTP_PAGE_HOME;
	} else {
		r->code = 404;
		r->why = "no such path; the metrics are at /metrics";
	}
}
