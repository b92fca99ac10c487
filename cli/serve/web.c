// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "lib/log.h"
#include "lib/small_file.h"
#include "lib/util.h"
#include "serve/web.h"

static int read_pem(void *arg, const char *path, char **out)
{
	return small_file_read(path, WEB_CONFIG_MAX_BYTES, out);
}

static struct web_reader reader = { read_pem, NULL, NULL };

/* who this process reads files as, when that is not root: "user NAME (uid N)" */
static char reader_who_s[96];

void web_state_note_reader(void)
{
	struct passwd *pw;
	uid_t u = geteuid();

	reader_who_s[0] = 0;
	if (!u)
		return;
	pw = getpwuid(u);
	snprintf(reader_who_s, sizeof(reader_who_s), "user %s (uid %u)", pw ? pw->pw_name : "?",
		 (unsigned)u);
}

static const char *reader_who(void)
{
	return reader_who_s[0] ? reader_who_s : NULL;
}

void web_state_put(struct web_state *w)
{
	if (!w || --w->refs > 0)
		return;
	basic_auth_free(w->auth);
	web_config_free(&w->c);
	free(w);
}

enum httpd_auth web_authorize(void *arg, const struct sockaddr *addr, const char *user,
			      const char *password)
{
	struct web_state *w = arg;

	switch (basic_auth_check(w->auth, addr, user, password, now_mono_s())) {
	case BASIC_AUTH_OK:
		return HTTPD_AUTH_OK;
	case BASIC_AUTH_BUSY:
		return HTTPD_AUTH_BUSY;
	default:
		return HTTPD_AUTH_DENIED;
	}
}

/* GnuTLS's NORMAL priorities with the versions the config allows */
static void priorities(struct web_state *w)
{
	size_t off;
	int v;

	off = snprintf(w->priorities, sizeof(w->priorities), "NORMAL:-VERS-ALL");
	for (v = w->c.max_version; v >= w->c.min_version; v--)
		off += snprintf(w->priorities + off, sizeof(w->priorities) - off, ":+VERS-TLS1.%d",
				v - 10);
	if (w->c.prefer_server_ciphers)
		snprintf(w->priorities + off, sizeof(w->priorities) - off, ":%%SERVER_PRECEDENCE");
}

static const char *utc(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* the server's certificate and key, as GnuTLS takes them: the number of errors */
static int check_tls(const struct web_config *c, const char *path)
{
	gnutls_datum_t cert = { (void *)c->cert_pem, strlen(c->cert_pem) },
		       key = { (void *)c->key_pem, strlen(c->key_pem) };
	gnutls_certificate_credentials_t cred;
	gnutls_x509_crt_t *crts = NULL;
	unsigned int ncrts = 0, i;
	time_t now = time(NULL), t;
	char at[40];
	int r, errors = 0;

	r = gnutls_x509_crt_list_import2(&crts, &ncrts, &cert, GNUTLS_X509_FMT_PEM, 0);
	if (r < 0 || !ncrts) {
		p_err_at(path, c->cert_pos,
			 "cert_file %s: no certificate GnuTLS can read in it: %s", c->cert_file,
			 r < 0 ? gnutls_strerror(r) : "no PEM certificate");
		return 1;
	}
	/* exporter-toolkit serves an expired certificate; its clients refuse it */
	t = gnutls_x509_crt_get_expiration_time(crts[0]);
	if (t != (time_t)-1 && t < now)
		p_warn_at(path, c->cert_pos,
			  "cert_file %s: the server's certificate expired at %s: every "
			  "client that verifies it (Prometheus does) refuses to connect; renew it",
			  c->cert_file, utc(t, at, sizeof(at)));
	t = gnutls_x509_crt_get_activation_time(crts[0]);
	if (t != (time_t)-1 && t > now)
		p_warn_at(path, c->cert_pos,
			  "cert_file %s: the server's certificate is not valid before %s: "
			  "clients that verify it refuse to connect until then",
			  c->cert_file, utc(t, at, sizeof(at)));
	for (i = 0; i < ncrts; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	if (gnutls_certificate_allocate_credentials(&cred) < 0) {
		p_err("export: reading %s: %s", path, strerror(ENOMEM));
		return 1;
	}
	r = gnutls_certificate_set_x509_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
	if (r == GNUTLS_E_CERTIFICATE_KEY_MISMATCH) {
		p_err_at(path, c->key_pos,
			 "key_file %s is not the key of cert_file %s: the certificate's "
			 "public key belongs to another private key (exporter-toolkit refuses the "
			 "pair too)",
			 c->key_file, c->cert_file);
		errors++;
	} else if (r < 0) {
		p_err_at(path, c->key_pos,
			 "key_file %s with cert_file %s: GnuTLS cannot use them: %s", c->key_file,
			 c->cert_file, gnutls_strerror(r));
		errors++;
	}
	if (c->ca_pem) {
		gnutls_datum_t ca = { (void *)c->ca_pem, strlen(c->ca_pem) };

		r = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (r <= 0) {
			p_err_at(path, c->ca_pos,
				 "client_ca_file %s: no CA certificate GnuTLS can read in "
				 "it%s%s",
				 c->client_ca_file, r < 0 ? ": " : "",
				 r < 0 ? gnutls_strerror(r) : "");
			errors++;
		}
	}
	gnutls_certificate_free_credentials(cred);
	return errors;
}

/* the users' hashes that can match no password: exporter-toolkit accepts them, so a warning */
static void check_users(const struct web_config *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nusers; i++)
		if (c->users[i].never)
			p_warn_at(path, c->users[i].pos, "basic_auth_users: user '%s': the hash %s",
				  c->users[i].name, c->users[i].never);
}

/* the file, or -errno; a file that cannot be read is said here */
static int parse_file(struct web_config *c, const char *path)
{
	char *buf;
	int err, n;

	memset(c, 0, sizeof(*c));
	reader.who = reader_who();
	err = small_file_read(path, WEB_CONFIG_MAX_BYTES, &buf);
	if (err && err != ENODATA) {
		fprintf(stderr, "%s: error: cannot read the web config: %s%s%s%s\n", path,
			err == EFBIG   ? "more than 1 MiB, or a NUL byte: not YAML" :
			err == ENOTSUP ? "not a regular file" :
					 strerror(err),
			err == EACCES && reader.who ? " (read as " : "",
			err == EACCES && reader.who ? reader.who : "",
			err == EACCES && reader.who ?
				": let that user read it, and search its directories)" :
				"");
		return 1;
	}
	n = web_config_parse(c, path, buf ? buf : "", buf ? strlen(buf) : 0, stderr, &reader);
	free(buf);
	return n;
}

struct web_state *web_state_load(const char *path, const struct web_state *prev)
{
	struct web_state *w = calloc(1, sizeof(*w));
	struct basic_auth_user *u;
	size_t i;
	int n;

	if (!w) {
		p_err("export: reading %s: %s", path, strerror(ENOMEM));
		return NULL;
	}
	w->refs = 1;
	n = parse_file(&w->c, path);
	if (n < 0)
		p_err("export: reading %s: %s", path, strerror(-n));
	else if (n)
		log_note_error("%s: %d error%s in the web config", path, n, n == 1 ? "" : "s");
	if (!n && w->c.tls && !httpd_tls_available()) {
		p_err_at(path, w->c.tls_pos,
			 "tls_server_config: this ppwatch is built without TLS (make "
			 "static stands in for GnuTLS, as Debian ships no static p11-kit); serve "
			 "HTTPS with the package's or a dynamically linked ppwatch, or drop "
			 "tls_server_config (basic auth works without it)");
		n = -ENOTSUP;
	}
	if (!n && w->c.tls)
		n = check_tls(&w->c, path);
	if (n) {
		web_state_put(w);
		return NULL;
	}
	check_users(&w->c, path);
	if (w->c.tls) {
		priorities(w);
		w->tls = (struct httpd_tls){
			.cert_pem = w->c.cert_pem,
			.key_pem = w->c.key_pem,
			.ca_pem = w->c.ca_pem,
			.priorities = w->priorities,
			.cert_required = web_client_cert_required(w->c.client_auth),
			.cert_verified = web_client_cert_verified(w->c.client_auth),
		};
	}
	if (w->c.nusers) {
		u = calloc(w->c.nusers, sizeof(*u));
		for (i = 0; u && i < w->c.nusers; i++)
			u[i] = (struct basic_auth_user){ w->c.users[i].name, w->c.users[i].hash };
		w->auth = u ? basic_auth_new(u, w->c.nusers, prev ? prev->auth : NULL) : NULL;
		free(u);
		if (!w->auth) {
			p_err("export: reading %s: %s", path, strerror(ENOMEM));
			web_state_put(w);
			return NULL;
		}
		/* a wrong password's penalty runs from when its bcrypt ended */
		basic_auth_set_clock(w->auth, now_mono_s);
	}
	return w;
}

/* how much a client auth type asks: none, a certificate, a verified one */
static int cert_level(enum web_client_auth a)
{
	return web_client_cert_verified(a) * 2 + web_client_cert_required(a);
}

void web_state_warn(const struct web_state *w, const struct web_state *prev, const char *path,
		    const char *where, bool loopback)
{
	const char *when = prev ? "export: SIGHUP: " : "export: ";
	bool tls = w && w->c.tls, auth = w && w->auth;

	if (w && w->c.tls_off)
		p_warn_at(
			path, w->c.tls_pos,
			"tls_server_config names no cert_file, key_file, client_ca_file or "
			"client_auth_type: TLS is off, the block ignored (exporter-toolkit: \"TLS "
			"is disabled.\"); serving plain HTTP on %s; give cert_file and key_file "
			"to serve HTTPS",
			where);
	if (prev && prev->c.tls && !tls)
		p_warn("%s%s has no tls_server_config any more: serving plain HTTP on %s from now "
		       "on",
		       when, path, where);
	if (prev && prev->auth && !auth)
		p_warn("%s%s has no basic_auth_users any more: serving on %s without "
		       "authentication from now on",
		       when, path, where);
	if (prev && tls && prev->c.tls) {
		if (cert_level(w->c.client_auth) < cert_level(prev->c.client_auth))
			p_warn("%sclient_auth_type %s, was %s: client certificates are %s from "
			       "now on",
			       when, web_client_auth_name(w->c.client_auth),
			       web_client_auth_name(prev->c.client_auth),
			       !web_client_cert_required(w->c.client_auth) &&
					       !web_client_cert_verified(w->c.client_auth) ?
				       "not asked for" :
			       !web_client_cert_verified(w->c.client_auth) ? "not verified" :
									     "optional");
		if (w->c.min_version < prev->c.min_version)
			p_warn("%smin_version TLS%d, was TLS%d: older TLS versions are accepted from "
			       "now on",
			       when, w->c.min_version, prev->c.min_version);
	}
	if (loopback)
		return;
	if (!tls && !auth)
		p_warn("%slistening on %s, beyond loopback: whoever reaches this host reads every "
		       "pool's state, the devices and namespaces, without authentication or TLS; "
		       "keep it to a trusted network, or give --web-config (TLS, basic auth)",
		       when, where);
	else if (!tls)
		p_warn("%slistening on %s, beyond loopback, without TLS: basic auth passwords "
		       "cross the network in the clear; add tls_server_config to %s",
		       when, where, path);
}
