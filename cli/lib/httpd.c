// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#include "lib/escape.h"
#include "lib/httpd.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/sniff.h"
#include "lib/util.h"
#include "lib/vec.h"

#define ACCEPT_BATCH 64	   /* connections taken per run */
#define ACCEPT_PAUSE 0.1   /* s the listener rests when descriptors run out */
#define CONN_MEMORY  10240 /* per connection: a request head of up to about 9 KiB */
#define WARN_EVERY   10.0  /* s between two warnings of one kind */

struct httpd;

/*
 * One libmicrohttpd daemon: the one new connections go to, and those a
 * restart left to finish what their connections are doing (draining).
 */
struct hdaemon {
	struct httpd *h;
	struct MHD_Daemon *d;
	int efd;
	struct httpd_opts o;
	size_t conns; /* its connections */
	bool draining;
};

/* one connection libmicrohttpd serves */
struct hconn {
	struct hdaemon *dm;
	struct MHD_Connection *c;
	int fd;
	double since;	       /* when the current wait began: the connection, or the last answer */
	bool busy;	       /* its request head arrived: being answered */
	bool gone;	       /* shut down here; libmicrohttpd closes it at its next run */
	unsigned int requests; /* answered on this connection */
};

struct httpd {
	struct hdaemon *dms[HTTPD_DAEMONS]; /* [0]: the current one */
	size_t ndms;
	struct httpd_opts o; /* the current one's */
	char why[256];	     /* libmicrohttpd's last complaint: why a start failed */
	int lfd, spare;
	struct hconn **conns;
	size_t n, cap;
	double paused_until; /* the listener rests (descriptors ran out) */
	double warned;	     /* the last accept warning */
	unsigned long accept_errors;
	struct sniffer sniff; /* new connections of a TLS daemon, until they speak */
	double http_warned;   /* the last warning of plain HTTP on the TLS port */
	unsigned long http_on_tls;
};

static const char fds_503[] = "HTTP/1.1 503 Service Unavailable\r\n"
			      "Content-Type: text/plain; charset=utf-8\r\n"
			      "Content-Length: 28\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
			      "503 out of file descriptors\n";
static const char slow_408[] = "HTTP/1.1 408 Request Timeout\r\n"
			       "Content-Type: text/plain; charset=utf-8\r\n"
			       "Content-Length: 39\r\nConnection: close\r\n\r\n"
			       "408 the request did not arrive in time\n";

/* ---- connections ---------------------------------------------------------------- */

static struct hconn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/*
 * best effort: never wait for a client that is being turned away; with
 * TLS nothing, as plain text would be garbage inside a TLS stream
 */
static void say(struct httpd *h, const struct httpd_opts *o, int fd, const char *msg, size_t len,
		int code)
{
	if (o->tls)
		return;
	if (send(fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		p_dbg("export: %d: %s", code, strerror(errno));
	h->o.count(h->o.arg, code);
}

/*
 * End a connection libmicrohttpd serves: shut the socket down, and
 * libmicrohttpd sees the end and closes it. A client that never sent a
 * whole request gets 408 first; nothing is being written to it then.
 */
static void evict(struct httpd *h, struct hconn *hc)
{
	if (!hc->busy && !hc->requests)
		say(h, &hc->dm->o, hc->fd, slow_408, sizeof(slow_408) - 1, 408);
	shutdown(hc->fd, SHUT_RDWR);
	hc->gone = true;
}

/*
 * How long a connection may wait without a whole request before a new
 * one, at max_clients, takes its place: a client on a working network
 * sends its request head well within it.
 */
static double grace(const struct httpd *h)
{
	return h->o.timeout < 0.2 ? h->o.timeout / 2 : 0.1;
}

/* connections not on their way out; *oldest: the one waiting longest for a request */
static size_t live(const struct httpd *h, struct hconn **oldest)
{
	size_t i, n = 0;

	*oldest = NULL;
	for (i = 0; i < h->n; i++) {
		struct hconn *hc = h->conns[i];

		if (hc->gone)
			continue;
		n++;
		if (!hc->busy && (!*oldest || hc->since < (*oldest)->since))
			*oldest = hc;
	}
	return n;
}

/*
 * Room for one more connection? Under max_clients, yes; at it, the
 * connection that has waited longest without a whole request goes once
 * it has waited grace(), so slow or idle clients cannot keep scrapes out.
 * Otherwise (every one is being answered, or just came) the new one waits
 * in the listen backlog for a moment. 'take': make the room.
 */
static bool room(struct httpd *h, bool take)
{
	struct hconn *oldest;

	/* the connections still being sniffed count: they are let in too */
	if (live(h, &oldest) + h->sniff.n < h->o.max_clients)
		return true;
	if (!oldest || now_mono_s() < oldest->since + grace(h))
		return false;
	if (take) {
		p_dbg("export: at --max-clients: the connection waiting longest goes");
		evict(h, oldest);
	}
	return true;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *i;
	struct hdaemon *dm = cls;
	struct httpd *h = dm->h;
	struct hconn *hc, **slot;
	size_t k;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		dm->conns++;
		i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		hc = calloc(1, sizeof(*hc));
		slot = hc && i ? VEC_PUSH(h->conns, h->n, h->cap) : NULL;
		if (!slot) {
			/* untracked: libmicrohttpd's own timeout still ends it */
			free(hc);
			return;
		}
		*hc = (struct hconn){ .dm = dm, .c = c, .fd = i->connect_fd, .since = now_mono_s() };
		*slot = hc;
		*socket_context = hc;
		return;
	}
	dm->conns--;
	hc = *socket_context;
	for (k = 0; hc && k < h->n; k++) {
		if (h->conns[k] == hc) {
			h->conns[k] = h->conns[--h->n];
			break;
		}
	}
	free(hc);
	*socket_context = NULL;
}

/* ---- requests ------------------------------------------------------------------- */

struct accept_buf {
	char s[1024];
	size_t len;
};

/* every Accept field, comma-joined (RFC 9110 5.3) */
static enum MHD_Result add_accept(void *cls, enum MHD_ValueKind kind, const char *key,
				  const char *value)
{
	struct accept_buf *a = cls;
	int n;

	if (strcasecmp(key, "Accept") || a->len >= sizeof(a->s) - 1)
		return MHD_YES;
	n = snprintf(a->s + a->len, sizeof(a->s) - a->len, "%s%s", a->len ? "," : "", value);
	a->len = n < 0 ? a->len : a->len + n >= sizeof(a->s) ? sizeof(a->s) - 1 : a->len + n;
	return MHD_YES;
}

static int head_arrived, answered; /* markers for libmicrohttpd's per-request pointer */

/* "Jan  2 15:04:05 2006 UTC" */
static const char *when(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/*
 * What the client certificate policy finds wrong with this connection,
 * or NULL: as Go's crypto/tls with exporter-toolkit's settings, a
 * certificate is verified against the CAs for the clientAuth purpose (a
 * certificate with extended key usages must list clientAuth), and one
 * that has expired or is not valid yet is said to be.
 */
static const char *cert_problem(const struct hdaemon *dm, struct MHD_Connection *c, char *why,
				size_t len)
{
	const struct httpd_tls *t = dm->o.tls;
	gnutls_typed_vdata_st purpose = { .type = GNUTLS_DT_KEY_PURPOSE_OID,
					  .data = (void *)GNUTLS_KP_TLS_WWW_CLIENT };
	const union MHD_ConnectionInfo *i;
	unsigned int n = 0, status = 0;
	const gnutls_datum_t *peers;
	gnutls_x509_crt_t crt;
	gnutls_datum_t text;
	gnutls_session_t s;
	char at[40];

	if (!t || (!t->cert_required && !t->cert_verified))
		return NULL;
	i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	s = i ? i->tls_session : NULL;
	if (!s)
		return "no TLS session";
	peers = gnutls_certificate_get_peers(s, &n);
	if (!peers || !n)
		return t->cert_required ? "a client certificate is required" : NULL;
	if (!t->cert_verified)
		return NULL;
	if (gnutls_certificate_verify_peers(s, &purpose, 1, &status) < 0)
		return "the client certificate could not be verified";
	if (!status)
		return NULL;
	if (status & (GNUTLS_CERT_EXPIRED | GNUTLS_CERT_NOT_ACTIVATED) &&
	    !gnutls_x509_crt_init(&crt)) {
		if (!gnutls_x509_crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER))
			snprintf(why, len,
				 status & GNUTLS_CERT_EXPIRED ?
					 "the client certificate expired at %s" :
					 "the client certificate is not valid before %s",
				 when(status & GNUTLS_CERT_EXPIRED ?
					      gnutls_x509_crt_get_expiration_time(crt) :
					      gnutls_x509_crt_get_activation_time(crt),
				      at, sizeof(at)));
		else
			snprintf(why, len,
				 "the client certificate has expired or is not valid yet");
		gnutls_x509_crt_deinit(crt);
		return why;
	}
	if (status & GNUTLS_CERT_PURPOSE_MISMATCH)
		return "the client certificate is not for client authentication (its extended key "
		       "usage lacks clientAuth)";
	if (status & (GNUTLS_CERT_SIGNER_NOT_FOUND | GNUTLS_CERT_SIGNER_NOT_CA))
		return "the client certificate does not verify against client_ca_file";
	if (!gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0)) {
		snprintf(why, len, "the client certificate does not verify: %s", text.data);
		gnutls_free(text.data);
		return why;
	}
	return "the client certificate does not verify against client_ca_file";
}

/* the request's basic auth, by the callback */
static enum httpd_auth check_auth(const struct httpd *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *addr = ci ? ci->client_addr : NULL;
	enum httpd_auth r = HTTPD_AUTH_DENIED;
#if MHD_VERSION >= 0x00097701
	struct MHD_BasicAuthInfo *bi = MHD_basic_auth_get_username_password3(c);

	if (bi && bi->username && bi->password)
		r = h->o.auth(h->o.arg, addr, bi->username, bi->password);
	if (bi && bi->password)
		explicit_bzero(bi->password, bi->password_len);
	MHD_free(bi);
#else
	char *pass = NULL, *user = MHD_basic_auth_get_username_password(c, &pass);

	if (user && pass)
		r = h->o.auth(h->o.arg, addr, user, pass);
	if (pass)
		explicit_bzero(pass, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
#endif
	return r;
}

/* a refusal before any answer: 401, 403 or 429, the connection closed but for 401 */
static enum MHD_Result refuse(struct hdaemon *dm, struct MHD_Connection *c, int code,
			      const char *text)
{
	struct httpd *h = dm->h;
	struct MHD_Response *r;
	enum MHD_Result ret;
	char body[192];
	size_t len;

	len = snprintf(body, sizeof(body), "%d %s\n", code, text);
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (code == MHD_HTTP_TOO_MANY_REQUESTS)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	if (code != MHD_HTTP_UNAUTHORIZED || dm->draining)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (code == MHD_HTTP_UNAUTHORIZED)
#if MHD_VERSION >= 0x00097701
		ret = MHD_queue_basic_auth_required_response3(c, dm->o.realm, MHD_YES, r);
#else
		ret = MHD_queue_basic_auth_fail_response(c, dm->o.realm, r);
#endif
	else
		ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	if (ret == MHD_YES)
		h->o.count(h->o.arg, code);
	return ret;
}

/*
 * A request: the client certificate by the policy of the daemon whose
 * handshake it made, basic auth by the web config in force now (as
 * exporter-toolkit reads its config for every request), the answer by
 * the current handler. A draining daemon's answers close their
 * connection, so it ends once they are out.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct httpd_answer ans = { 0 };
	struct accept_buf acc = { .len = 0 };
	struct hconn *hc = conn_of(c);
	struct hdaemon *dm = cls;
	struct httpd *h = dm->h;
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *why;
	char buf[192];

	if (!*req) {
		/*
		 * The head is here. Answer on the next call: a response queued
		 * in the first one makes libmicrohttpd close the connection.
		 */
		*req = &head_arrived;
		if (hc) {
			hc->busy = true;
			hc->since = now_mono_s();
		}
		return MHD_YES;
	}
	if (*upload_size || *req == &answered) {
		/* a body is read and dropped; the answer comes after it, on the last call */
		*upload_size = 0;
		return MHD_YES;
	}
	*req = &answered;
	why = cert_problem(dm, c, buf, sizeof(buf));
	if (why) {
		p_dbg("export: %s %s: 403: %s", method, url, why);
		return refuse(dm, c, MHD_HTTP_FORBIDDEN, why);
	}
	if (h->o.auth) {
		switch (check_auth(h, c)) {
		case HTTPD_AUTH_OK:
			break;
		case HTTPD_AUTH_BUSY:
			return refuse(dm, c, MHD_HTTP_TOO_MANY_REQUESTS,
				      "too many password checks from this address just now; try "
				      "again");
		default:
			return refuse(dm, c, MHD_HTTP_UNAUTHORIZED, "authentication required");
		}
	}
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_accept, &acc);
	h->o.handle(h->o.arg,
		    &(struct httpd_request){ .method = method, .path = url, .accept = acc.s },
		    &ans);
	r = MHD_create_response_from_buffer_with_free_callback(ans.len, ans.body, free);
	if (!r) {
		free(ans.body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ans.ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (ans.allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, ans.allow);
	if (dm->draining)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, ans.code, r);
	MHD_destroy_response(r);
	if (ret == MHD_YES)
		h->o.count(h->o.arg, ans.code);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req,
			 enum MHD_RequestTerminationCode toe)
{
	struct hconn *hc = conn_of(c);

	if (hc && *req) {
		hc->busy = false;
		hc->since = now_mono_s();
		hc->requests++;
	}
	*req = NULL;
}

/*
 * libmicrohttpd's messages, at debug level (a client can make any number
 * of them). It answers malformed requests on its own (400, 431, 505) and
 * says so only here: "... (HTTP response code is 431 (...))"; they are
 * counted with the others.
 */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct httpd *h = ((struct hdaemon *)cls)->h;
	char msg[256], e[1024];
	unsigned int code;
	const char *p;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	esc_buf(h->why, sizeof(h->why), msg, strlen(msg));
	p = strstr(msg, "HTTP response code is ");
	if (p && sscanf(p + 22, "%u", &code) == 1 && code >= 400 && code < 600)
		h->o.count(h->o.arg, code);
	p_dbg("export: libmicrohttpd: %s", esc_str(msg, e, sizeof(e)));
}

/* ---- accepting -------------------------------------------------------------------- */

static void warn_accept(struct httpd *h, int err, const char *what)
{
	double now = now_mono_s();

	h->accept_errors++;
	if (h->warned && now - h->warned < WARN_EVERY)
		return;
	h->warned = now;
	p_warn("export: accepting a connection: %s%s (%lu so far)", strerror(err), what,
	       h->accept_errors);
}

/*
 * Out of descriptors: the listener stays readable while clients wait, so
 * it rests a moment; and the spare descriptor, closed for a moment, lets
 * one waiting client in to be told 503 instead of left hanging.
 */
static void out_of_descriptors(struct httpd *h, int err)
{
	int fd;

	warn_accept(h, err, "; new connections wait");
	if (h->spare >= 0) {
		close(h->spare);
		fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			say(h, &h->o, fd, fds_503, sizeof(fds_503) - 1, 503);
			close(fd);
		}
		h->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	h->paused_until = now_mono_s() + ACCEPT_PAUSE;
}

/* a sniffed connection that speaks TLS (or what TLS will refuse): the daemon's */
static void to_daemon(void *arg, int fd, const struct sockaddr_storage *ss, socklen_t sl)
{
	struct httpd *h = arg;

	/* closes fd itself when it cannot take it */
	if (MHD_add_connection(h->dms[0]->d, fd, (const struct sockaddr *)ss, sl) != MHD_YES)
		warn_accept(h, errno, " (libmicrohttpd did not take it)");
}

/* plain HTTP on the TLS port: answered 400 (sniff.c); said, once in a while */
static void http_on_tls(void *arg, const struct sockaddr_storage *ss)
{
	struct httpd *h = arg;
	double now = now_mono_s();
	char peer[128];

	h->http_on_tls++;
	h->o.count(h->o.arg, 400);
	if (h->http_warned && now - h->http_warned < WARN_EVERY)
		return;
	h->http_warned = now;
	httpd_sockaddr_name(ss, peer, sizeof(peer));
	p_warn("export: %s sent plain HTTP to this TLS port (%lu so far): answered 400 \"Client "
	       "sent an HTTP request to an HTTPS server\"; scrape https:// (Prometheus: "
	       "scheme: https)",
	       peer, h->http_on_tls);
}

static void accept_all(struct httpd *h)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, k, err;

	/* room is made (an eviction) only for a connection that is there */
	for (k = 0; k < ACCEPT_BATCH && room(h, false); k++) {
		sl = sizeof(ss);
		fd = accept4(h->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				return;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				out_of_descriptors(h, errno);
			else
				warn_accept(h, errno, "");
			return;
		}
		room(h, true);
		if (!h->dms[0]->o.tls) {
			to_daemon(h, fd, &ss, sl);
			continue;
		}
		/* TLS: what it speaks first (sniff.h) */
		err = sniff_add(&h->sniff, fd, &ss, sl, now_mono_s());
		if (err)
			warn_accept(h, -err, " (holding it until it speaks)");
	}
}

/* ---- the server --------------------------------------------------------------------- */

bool httpd_tls_available(void)
{
	/* make static's stand-ins for GnuTLS know no version */
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES && gnutls_check_version(NULL);
}

/* a libmicrohttpd daemon with the options o, for h's listener: it, or NULL (reported) */
static struct hdaemon *daemon_start(struct httpd *h, const struct httpd_opts *o)
{
	const struct httpd_tls *t = o->tls;
	struct MHD_OptionItem tls[] = {
		{ t ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0,
		  t ? (void *)t->cert_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, t ? (void *)t->key_pem : NULL },
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, t ? (void *)t->priorities : NULL },
		{ t && t->ca_pem ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0,
		  t ? (void *)t->ca_pem : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	const union MHD_DaemonInfo *di;
	struct hdaemon *dm;

	if (t && !httpd_tls_available()) {
		p_err("export: this ppwatch cannot serve HTTPS: it is built without GnuTLS");
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		p_err("export: starting the HTTP server: %s", strerror(ENOMEM));
		return NULL;
	}
	dm->h = h;
	dm->o = *o;
	h->why[0] = 0;
	dm->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG |
					 (t ? MHD_USE_TLS : 0),
				 0, NULL, NULL, on_request, dm, MHD_OPTION_EXTERNAL_LOGGER, on_log,
				 dm,
				 /* room for connections on their way out after an eviction */
				 MHD_OPTION_CONNECTION_LIMIT, 2 * o->max_clients + 16,
				 /* a backstop: the deadlines here are shorter */
				 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)ceil(o->timeout) + 1,
				 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				 MHD_OPTION_NOTIFY_CONNECTION, on_connection, dm,
				 MHD_OPTION_NOTIFY_COMPLETED, on_completed, dm,
				 MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_SIGPIPE_HANDLED_BY_APP,
				 1, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
	di = dm->d ? MHD_get_daemon_info(dm->d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	if (!di) {
		if (t)
			p_err("export: libmicrohttpd would not serve HTTPS with the web config's "
			      "certificate and key: %s",
			      h->why[0] ? h->why : "no reason given (see -d)");
		else
			p_err("export: libmicrohttpd would not start in epoll mode%s%s",
			      h->why[0] ? ": " : "", h->why);
		if (dm->d)
			MHD_stop_daemon(dm->d);
		free(dm);
		return NULL;
	}
	dm->efd = di->epoll_fd;
	return dm;
}

/* a daemon stopped: its connections end, each through on_connection() */
static void daemon_stop(struct hdaemon *dm)
{
	MHD_stop_daemon(dm->d);
	if (dm->o.release)
		dm->o.release(dm->o.arg);
	free(dm);
}

int httpd_start(struct httpd **out, int lfd, const struct httpd_opts *o)
{
	struct httpd *h = calloc(1, sizeof(*h));

	if (!h) {
		close(lfd);
		return -ENOMEM;
	}
	h->o = *o;
	h->lfd = lfd;
	sniff_init(&h->sniff);
	h->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	h->dms[0] = daemon_start(h, o);
	if (!h->dms[0]) {
		httpd_stop(h);
		return -EINVAL;
	}
	h->ndms = 1;
	*out = h;
	return 0;
}

int httpd_restart(struct httpd *h, const struct httpd_opts *o)
{
	struct hdaemon *dm = daemon_start(h, o);
	size_t i;

	if (!dm)
		return -EINVAL;
	/* at the most daemons at once: the oldest one's connections end now */
	if (h->ndms == HTTPD_DAEMONS) {
		p_warn("export: %d web config reloads while connections of the earlier ones "
		       "are still open: those of the oldest are closed",
		       HTTPD_DAEMONS);
		daemon_stop(h->dms[--h->ndms]);
	}
	for (i = h->ndms; i > 0; i--)
		h->dms[i] = h->dms[i - 1];
	h->dms[0] = dm;
	h->ndms++;
	for (i = 1; i < h->ndms; i++)
		h->dms[i]->draining = true;
	h->o = *o;
	return 0;
}

size_t httpd_pollfds(struct httpd *h, struct pollfd *pfd)
{
	size_t n = 0, i;

	for (i = 0; i < h->ndms; i++)
		pfd[n++] = (struct pollfd){ h->dms[i]->efd, POLLIN };
	if (sniff_pollfd(&h->sniff) >= 0)
		pfd[n++] = (struct pollfd){ sniff_pollfd(&h->sniff), POLLIN };
	/* not while resting, nor while there is no room: it would stay readable */
	if (now_mono_s() >= h->paused_until && room(h, false))
		pfd[n++] = (struct pollfd){ h->lfd, POLLIN };
	return n;
}

double httpd_deadline(struct httpd *h)
{
	double t = INFINITY, now = now_mono_s();
	MHD_UNSIGNED_LONG_LONG ms;
	struct hconn *oldest;
	size_t i;

	for (i = 0; i < h->ndms; i++)
		if (MHD_get_timeout(h->dms[i]->d, &ms) == MHD_YES &&
		    now + (ms < 3600000 ? ms : 3600000) / 1e3 < t)
			t = now + (ms < 3600000 ? ms : 3600000) / 1e3;
	for (i = 0; i < h->n; i++)
		if (!h->conns[i]->gone && h->conns[i]->since + h->o.timeout < t)
			t = h->conns[i]->since + h->o.timeout;
	if (h->paused_until > now && h->paused_until < t)
		t = h->paused_until;
	if (sniff_deadline(&h->sniff, h->o.timeout) < t)
		t = sniff_deadline(&h->sniff, h->o.timeout);
	/* at max_clients: when the longest waiting connection may make room */
	if (live(h, &oldest) >= h->o.max_clients && oldest && oldest->since + grace(h) < t)
		t = oldest->since + grace(h);
	return t;
}

void httpd_run(struct httpd *h, const struct pollfd *pfd, size_t n)
{
	double now;
	size_t i;

	for (i = 0; i < n; i++)
		if (pfd[i].fd == h->lfd && (pfd[i].revents & POLLIN))
			accept_all(h);
	sniff_run(&h->sniff, now_mono_s(), h->o.timeout, to_daemon, http_on_tls, h);
	for (i = 0; i < h->ndms; i++)
		MHD_run(h->dms[i]->d);
	/* one deadline for a whole request head, and one for its answer */
	now = now_mono_s();
	for (i = 0; i < h->n; i++)
		if (!h->conns[i]->gone && now >= h->conns[i]->since + h->o.timeout)
			evict(h, h->conns[i]);
	/* drained daemons stop */
	for (i = 1; i < h->ndms;) {
		if (h->dms[i]->conns) {
			i++;
			continue;
		}
		daemon_stop(h->dms[i]);
		memmove(&h->dms[i], &h->dms[i + 1], (h->ndms - i - 1) * sizeof(h->dms[0]));
		h->ndms--;
	}
}

size_t httpd_connections(const struct httpd *h)
{
	return h->n;
}

size_t httpd_daemons(const struct httpd *h)
{
	return h->ndms;
}

void httpd_stop(struct httpd *h)
{
	size_t i;

	if (!h)
		return;
	sniff_free(&h->sniff);
	for (i = 0; i < h->ndms; i++)
		daemon_stop(h->dms[i]);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->spare >= 0)
		close(h->spare);
	free(h->conns);
	free(h);
}
