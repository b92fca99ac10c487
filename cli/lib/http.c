// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A strict, small HTTP/1.x request-head parser (RFC 9112): request line,
 * header fields, the empty line. Bare LF line ends are accepted, obsolete
 * line folding and anything else malformed is a 400. No request bodies:
 * the server answers and closes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/http.h"

const char *http_reason(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return "Unknown";
}

/* RFC 9110 tchar */
static bool is_tchar(unsigned char c)
{
	return isalnum(c) || strchr("!#$%&'*+-.^_`|~", c);
}

/* the end of the head: index just past the empty line, or 0 */
static size_t head_end(const char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (b[i] != '\n')
			continue;
		if (i + 1 < len && b[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && b[i + 1] == '\r' && b[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* next line of [p, end): its length without CR LF; *next after it */
static size_t line(const char *p, const char *end, const char **next)
{
	const char *nl;
	size_t n;

	if (p >= end) {
		*next = end;
		return 0;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl) {
		*next = end;
		return end - p;
	}
	*next = nl + 1;
	n = nl - p;
	if (n && p[n - 1] == '\r')
		n--;
	return n;
}

static enum http_status bad(struct http_req *req, int code, const char *why)
{
	req->code = code;
	req->why = why;
	return HTTP_DONE;
}

static enum http_status parse_request_line(const char *p, size_t n, struct http_req *req)
{
	const char *sp1, *sp2, *target, *ver, *q;
	size_t mlen, tlen, vlen;

	sp1 = memchr(p, ' ', n);
	if (!sp1)
		return bad(req, 400, "malformed request line");
	mlen = sp1 - p;
	target = sp1 + 1;
	sp2 = memchr(target, ' ', p + n - target);
	if (!sp2)
		return bad(req, 400, "malformed request line (HTTP/0.9 is not supported)");
	tlen = sp2 - target;
	ver = sp2 + 1;
	vlen = p + n - ver;
	if (!mlen || mlen >= sizeof(req->method) || !tlen)
		return bad(req, 400, "malformed request line");
	for (q = p; q < sp1; q++)
		if (!is_tchar(*q))
			return bad(req, 400, "malformed method");
	memcpy(req->method, p, mlen);
	req->method[mlen] = 0;
	if (vlen != 8 || strncmp(ver, "HTTP/", 5) || !isdigit((unsigned char)ver[5]) ||
	    ver[6] != '.' || !isdigit((unsigned char)ver[7]))
		return bad(req, 400, "malformed HTTP version");
	if (ver[5] != '1')
		return bad(req, 505, "only HTTP/1.0 and HTTP/1.1 are spoken here");
	req->minor = ver[7] - '0';
	for (q = target; q < sp2; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return bad(req, 400, "malformed request target");
	/* absolute-form: keep the path */
	if (tlen > 7 && !strncasecmp(target, "http://", 7)) {
		q = memchr(target + 7, '/', tlen - 7);
		if (!q)
			q = "/", tlen = 1;
		else
			tlen -= q - target;
		target = q;
	}
	if (target[0] != '/')
		return bad(req, 400, "request target is not a path");
	q = memchr(target, '?', tlen);
	if (q)
		tlen = q - target;
	if (tlen >= sizeof(req->path))
		return bad(req, 404, "no such path");
	memcpy(req->path, target, tlen);
	req->path[tlen] = 0;
	req->head = !strcmp(req->method, "HEAD");
	if (strcmp(req->method, "GET") && !req->head)
		return bad(req, 405, "only GET and HEAD are allowed");
	return HTTP_DONE;
}

enum http_status http_parse(const char *buf, size_t len, struct http_req *req)
{
	const char *p = buf, *end, *next, *colon, *v;
	bool host = false;
	size_t n, hlen, vlen;
	enum http_status st;

	memset(req, 0, sizeof(*req));
	hlen = head_end(buf, len);
	if (!hlen) {
		if (len >= HTTP_MAX_HEAD)
			return bad(req, 431, "request head too large");
		return HTTP_INCOMPLETE;
	}
	if (hlen > HTTP_MAX_HEAD)
		return bad(req, 431, "request head too large");
	end = buf + hlen;
	/* RFC 9112 2.2: ignore empty lines before the request line */
	while (p < end && line(p, end, &next) == 0 && next < end)
		p = next;
	if (memchr(buf, '\0', hlen))
		return bad(req, 400, "NUL byte in the request");
	n = line(p, end, &next);
	st = parse_request_line(p, n, req);
	if (req->code)
		return st;
	for (p = next; p < end; p = next) {
		n = line(p, end, &next);
		if (!n)
			break;	/* the empty line */
		if (*p == ' ' || *p == '\t')
			return bad(req, 400, "obsolete header line folding");
		colon = memchr(p, ':', n);
		if (!colon || colon == p)
			return bad(req, 400, "malformed header field");
		for (v = p; v < colon; v++)
			if (!is_tchar(*v))
				return bad(req, 400, "malformed header field name");
		v = colon + 1;
		while (v < p + n && (*v == ' ' || *v == '\t'))
			v++;
		vlen = p + n - v;
		while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
			vlen--;
		if (colon - p == 6 && !strncasecmp(p, "accept", 6)) {
			size_t have = strlen(req->accept);

			/* repeated Accept fields combine, comma-separated */
			if (have + vlen + 2 < sizeof(req->accept)) {
				if (have)
					strcat(req->accept, ",");
				strncat(req->accept, v, vlen);
			}
		} else if (colon - p == 4 && !strncasecmp(p, "host", 4)) {
			if (host)
				return bad(req, 400, "more than one Host field");
			host = true;
		}
	}
	/* RFC 9112 3.2: HTTP/1.1 requests carry exactly one Host */
	if (req->minor >= 1 && !host)
		return bad(req, 400, "HTTP/1.1 request without a Host field");
	return HTTP_DONE;
}

int http_response(char **out, size_t *outlen, int code, const char *ctype, const char *extra,
		  const char *body, size_t body_len, bool head)
{
	char hdr[512];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "Cache-Control: no-store\r\n"
		     "Connection: close\r\n"
		     "%s"
		     "\r\n", code, http_reason(code), ctype, body_len, extra ? extra : "");
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return -EINVAL;
	*outlen = n + (head ? 0 : body_len);
	*out = malloc(*outlen ? *outlen : 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, hdr, n);
	if (!head && body_len)
		memcpy(*out + n, body, body_len);
	return 0;
}
