/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exporter's HTTP server: libmicrohttpd parses requests (HTTP/1.0 and
 * 1.1, strict about Host and line folding), answers HEAD, keeps
 * connections alive, bounds each connection's memory (a request head over
 * about 9 KiB gets 431) and times idle ones out. It runs on the caller's
 * loop, not a thread of its own: MHD_USE_EPOLL in external mode, so the
 * caller polls what httpd_pollfds() gives (libmicrohttpd's epoll
 * descriptor and the listener) in sources/monitor.c's monitor_wait(),
 * and calls httpd_run() when one is ready or httpd_deadline() has come.
 *
 * What this file adds, because libmicrohttpd cannot do it:
 *  - It accepts, and hands each connection over (MHD_add_connection), so
 *    that running out of descriptors (EMFILE, ENFILE) pauses the listener
 *    and sheds one waiting client with a 503 through a spare descriptor,
 *    instead of leaving the listener readable and spinning.
 *  - At max_clients, new connections wait in the listen backlog, and the
 *    connection that has waited longest without a whole request makes
 *    room once it has waited a moment (a tenth of a second; 408 if it never
 *    asked anything): slow or idle clients cannot keep scrapes out, and a
 *    burst of scrapes is served in turn.
 *  - Each request head has one deadline in all ('timeout'), and so does
 *    each answer: libmicrohttpd's own timeout restarts with every byte,
 *    so a client sending a byte a second would never meet it.
 *  - Every response is counted by status, libmicrohttpd's own error
 *    answers (400, 431, 505) included.
 *
 * With 'tls', HTTPS only (libmicrohttpd's GnuTLS): a client speaking
 * plain HTTP fails its handshake and is closed. Client certificates are
 * asked for when there are CAs to name (libmicrohttpd requests one only
 * then); what the policy needs of them (there at all, verified against
 * those CAs) is checked before any answer, and a request without it gets
 * 403 and a closed connection: verified for the clientAuth purpose, and
 * an expired or not yet valid one said to be. With 'auth', every request
 * needs HTTP basic auth that the callback accepts (401 with
 * WWW-Authenticate otherwise, 429 when it will not check for that client
 * address just now).
 *
 * httpd_restart() takes other options (SIGHUP: a web config re-read) on
 * the same listener without dropping a connection: a new libmicrohttpd
 * daemon takes the new connections, and the earlier ones drain: they
 * finish what their connections asked, answer with "Connection: close",
 * and stop when their last connection ends (idle ones at 'timeout'), up
 * to HTTPD_DAEMONS at once. A request on a draining daemon's connection
 * is authenticated by the options in force now; its client certificate
 * was checked by the policy of its handshake (exporter-toolkit reads its
 * config per connection and per request alike).
 */
#ifndef __PPWATCH_LIB_HTTPD_H
#define __PPWATCH_LIB_HTTPD_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* daemons at once: the current one and those draining after restarts */
#define HTTPD_DAEMONS 4
#define HTTPD_POLLFDS (HTTPD_DAEMONS + 2) /* the daemons, the listener, the sniffer */

struct httpd_request {
	const char *method;
	const char *path;   /* decoded, without the query */
	const char *accept; /* every Accept field, comma-joined; "" if none */
};

struct httpd_answer {
	int code;
	const char *ctype;
	const char *allow; /* an Allow header, or NULL */
	char *body;	   /* malloc'd; the server frees it */
	size_t len;
};

struct httpd_tls {
	const char *cert_pem, *key_pem; /* the server's */
	const char *ca_pem;	/* CAs to name and verify client certificates by; NULL: none */
	const char *priorities; /* GnuTLS priority string (versions, precedence) */
	bool cert_required;	/* no certificate: 403 */
	bool cert_verified;	/* one that does not verify against ca_pem: 403 */
};

enum httpd_auth {
	HTTPD_AUTH_OK,
	HTTPD_AUTH_DENIED, /* 401 */
	HTTPD_AUTH_BUSY,   /* 429 */
};

struct httpd_opts {
	unsigned int max_clients;
	double timeout; /* seconds for a request head, and again for its answer */
	/* a whole request head arrived: fill in the answer */
	void (*handle)(void *arg, const struct httpd_request *req, struct httpd_answer *ans);
	/* a response was sent with this status */
	void (*count)(void *arg, int code);
	void *arg;
	const struct httpd_tls *tls; /* NULL: plain HTTP; kept while the server runs */
	/*
	 * NULL: no authentication; else each request's basic auth user and
	 * password, and the client's address
	 */
	enum httpd_auth (*auth)(void *arg, const struct sockaddr *addr, const char *user,
				const char *password);
	const char *realm; /* for WWW-Authenticate */
	/* NULL, or: the daemon that ran with these options stopped (arg is let go) */
	void (*release)(void *arg);
};

struct httpd;

/*
 * serve on the listening socket lfd (non-blocking; the server closes it):
 * 0 or -errno (reported, with what libmicrohttpd or GnuTLS said)
 */
int httpd_start(struct httpd **h, int lfd, const struct httpd_opts *o);
/*
 * the same listener with other options, no connection dropped: 0, or
 * -errno (reported) and the old ones kept
 */
int httpd_restart(struct httpd *h, const struct httpd_opts *o);
/* can this binary serve HTTPS? (make static's cannot: GnuTLS is stood in for) */
bool httpd_tls_available(void);
/* the descriptors to poll for input, at most HTTPD_POLLFDS: how many */
size_t httpd_pollfds(struct httpd *h, struct pollfd *pfd);
/* when httpd_run() is due at the latest (now_mono_s() clock) */
double httpd_deadline(struct httpd *h);
/* accept, serve, expire: after a wait on httpd_pollfds() (their revents set) */
void httpd_run(struct httpd *h, const struct pollfd *pfd, size_t n);
/* connections open now */
size_t httpd_connections(const struct httpd *h);
/* libmicrohttpd daemons running now: 1, and those draining after restarts */
size_t httpd_daemons(const struct httpd *h);
void httpd_stop(struct httpd *h);

#endif /* __PPWATCH_LIB_HTTPD_H */
