/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTTP/1.0 and 1.1 subset ppwatch export speaks: a request head parsed
 * from a byte buffer, and a complete response composed into one. Pure; the
 * sockets are cmd/export.c's.
 */
#ifndef __PPWATCH_LIB_HTTP_H
#define __PPWATCH_LIB_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_MAX_HEAD 8192	/* request line and headers */

enum http_status {
	HTTP_INCOMPLETE,	/* need more bytes */
	HTTP_DONE,		/* a request head, possibly with an error code to answer */
};

struct http_req {
	int code;		/* 0: valid; else the error status to answer with */
	const char *why;	/* what was wrong, for the error body */
	char method[16];
	char path[256];		/* without the query */
	int minor;		/* HTTP/1.minor */
	char accept[512];
	bool head;		/* HEAD: headers only */
};

/*
 * Parse the request head in buf[0..len). Returns HTTP_INCOMPLETE until the
 * empty line that ends it has arrived (or the head is over HTTP_MAX_HEAD:
 * then HTTP_DONE with code 431). On HTTP_DONE, req->code is 0 for a
 * well-formed GET or HEAD, else the status to answer: 400 malformed, 405
 * another method, 505 not HTTP/1.x.
 */
enum http_status http_parse(const char *buf, size_t len, struct http_req *req);

const char *http_reason(int code);

/*
 * A complete response: status line, Content-Type, Content-Length,
 * Connection: close, extra header lines (each ending in \r\n, may be
 * NULL), then the body unless 'head'. *out is malloc'd. 0 or -ENOMEM.
 */
int http_response(char **out, size_t *outlen, int code, const char *ctype, const char *extra,
		  const char *body, size_t body_len, bool head);

#endif /* __PPWATCH_LIB_HTTP_H */
