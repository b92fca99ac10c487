// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What of the exporter's HTTP handling is ours, given whatever a client
 * sends: the route of a method and path, and the Accept negotiation.
 * Input: METHOD \0 PATH \0 ACCEPT.
 */
#include "fuzz.h"
#include "lib/http.h"
#include "output/prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 3), *method, *path, *accept;
	struct http_route r;
	enum prom_format f;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = s[size + 1] = s[size + 2] = 0;
	/* three NULs past the end: each field ends within the buffer */
	method = s;
	path = method + strlen(method) + 1;
	accept = path + strlen(path) + 1;

	http_route(method, path, &r);
	FUZZ_CHECK(r.code == 200 || r.code == 404 || r.code == 405);
	FUZZ_CHECK(r.code != 405 || (r.allow && !strcmp(r.allow, "GET, HEAD")));
	FUZZ_CHECK(r.code == 200 ? r.page != HTTP_PAGE_ERROR : r.page == HTTP_PAGE_ERROR && r.why);
	f = prom_negotiate(accept);
	FUZZ_CHECK(f == PROM_TEXT || f == PROM_OPENMETRICS);
	FUZZ_CHECK(prom_negotiate(NULL) == PROM_TEXT);
	FUZZ_CHECK(strstr(prom_content_type(f), "charset=utf-8") != NULL);
	free(s);
	return 0;
}
