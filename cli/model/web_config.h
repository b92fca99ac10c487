/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * 'ppwatch export --web-config FILE': the Prometheus exporter-toolkit's
 * web configuration file (its docs/web-configuration.md), so the exporter
 * is secured the way every other one is:
 *
 *   tls_server_config:
 *     cert_file: server.crt        # relative paths: to FILE's directory
 *     key_file: server.key
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: ca.crt
 *     min_version: TLS12           # TLS10 .. TLS13; max_version too
 *   http_server_config:
 *     http2: false                 # accepted either way: HTTP/1.1 is served
 *   basic_auth_users:
 *     prometheus: $2y$10$...       # bcrypt, as htpasswd -B makes them
 *
 * Parsed with libyaml like the rules file (model/rules.c): every error at
 * FILE:LINE:COL, unknown keys refused with what was expected, keys of the
 * toolkit this exporter cannot honour (cipher_suites, curve_preferences,
 * client_allowed_sans, inline cert/key, headers, rate_limit) refused with
 * why: never silently weaker than the file says. The certificate, key and
 * CA files are read through the caller's reader (struct web_reader: the
 * I/O is the caller's), so a file that cannot be read is an error of the
 * configuration, at the key that names it. Pure: no file, no network, no
 * TLS library; what GnuTLS makes of the PEM is serve/web.c's to say.
 */
#ifndef __PPWATCH_MODEL_WEB_CONFIG_H
#define __PPWATCH_MODEL_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/diag.h"

/* exporter-toolkit's names, as Go's crypto/tls has them */
enum web_client_auth {
	WEB_NO_CLIENT_CERT,
	WEB_REQUEST_CLIENT_CERT,
	WEB_REQUIRE_ANY_CLIENT_CERT,
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

/* TLS 1.0 .. 1.3 as 10 .. 13 */
#define WEB_TLS_MIN_DEFAULT 12
#define WEB_TLS_MAX_DEFAULT 13

/* a web config larger than this is no web config */
#define WEB_CONFIG_MAX_BYTES (1 << 20)

struct web_user {
	char *name;
	char *hash; /* bcrypt: $2a$, $2b$ or $2y$, cost, salt and hash */
	struct rpos pos;
	/*
	 * why the hash can match no password (the example's placeholder, or
	 * bits bcrypt never sets), or NULL: a warning, as exporter-toolkit
	 * accepts it
	 */
	const char *never;
};

struct web_config {
	char *file;
	bool tls; /* tls_server_config says anything */
	struct rpos tls_pos;
	/*
	 * tls_server_config is there with no file and no client_auth_type
	 * (min_version alone, say): TLS is off, the block ignored (its
	 * versions back to the defaults), as exporter-toolkit does ("TLS is
	 * disabled."); the caller says so, at tls_pos
	 */
	bool tls_off;
	char *cert_file, *key_file, *client_ca_file; /* resolved */
	char *cert_pem, *key_pem, *ca_pem;	     /* their contents */
	struct rpos cert_pos, key_pos, ca_pos;	     /* where the keys are */
	enum web_client_auth client_auth;
	int min_version, max_version;
	bool prefer_server_ciphers; /* GnuTLS's %SERVER_PRECEDENCE (default true) */
	struct web_user *users;
	size_t nusers;
};

/*
 * What reads the files the config names: 0 and *out (malloc'd, NUL-
 * terminated), or a positive errno: EFBIG (more than
 * WEB_CONFIG_MAX_BYTES, or a NUL inside), ENODATA (empty), ENOTSUP (not a
 * regular file), or the system's.
 */
struct web_reader {
	int (*read)(void *arg, const char *path, char **out);
	void *arg;
	/* who reads the files ("user nobody (uid 65534)"): said with EACCES; NULL: not said */
	const char *who;
};

/*
 * Parse a web config document (file names the file, and is the directory
 * relative paths are taken from); the files it names are read with rd
 * (NULL: not read, their contents left NULL). Diagnostics go to 'diag'
 * as "FILE:LINE:COL: error: ...". Returns the number of errors (0: *c
 * is valid), or -ENOMEM.
 */
int web_config_parse(struct web_config *c, const char *file, const char *buf, size_t len,
		     FILE *diag, const struct web_reader *rd);
/* the key is wiped from memory */
void web_config_free(struct web_config *c);

const char *web_client_auth_name(enum web_client_auth a);
/* does the client have to send a certificate / is one it sends verified? */
bool web_client_cert_required(enum web_client_auth a);
bool web_client_cert_verified(enum web_client_auth a);

#endif /* __PPWATCH_MODEL_WEB_CONFIG_H */
