// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/util.h"
#include "sources/web.h"

void web_state_free(struct web_state *w)
{
	if (!w)
		return;
	basic_auth_free(w->auth);
	web_config_free(&w->c);
	free(w);
}

enum httpd_auth web_authorize(void *arg, const char *user, const char *password)
{
	struct web_state *w = arg;

	switch (basic_auth_check(w->auth, user, password, now_mono_s())) {
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

/* --web-config read and made ready: the state, or NULL (what is wrong printed) */
struct web_state *web_state_load(const char *path)
{
	struct web_state *w = calloc(1, sizeof(*w));
	struct basic_auth_user *u;
	size_t i;
	int n;

	if (!w) {
		p_err("export: reading %s: %s", path, strerror(ENOMEM));
		return NULL;
	}
	n = web_config_load(&w->c, path, stderr);
	if (n < 0)
		p_err("export: reading %s: %s", path, strerror(-n));
	else if (n)
		log_note_error("%s: %d error%s in the web config", path, n, n == 1 ? "" : "s");
	if (!n && w->c.tls && !httpd_tls_available()) {
		p_err("%s:%d:%d: tls_server_config: this ppwatch is built without TLS (make "
		      "static stands in for GnuTLS, as Debian ships no static p11-kit); serve "
		      "HTTPS with the package's or a dynamically linked ppwatch, or drop "
		      "tls_server_config (basic auth works without it)",
		      path, w->c.tls_pos.line, w->c.tls_pos.col);
		n = -ENOTSUP;
	}
	if (n) {
		web_state_free(w);
		return NULL;
	}
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
		w->auth = u ? basic_auth_new(u, w->c.nusers) : NULL;
		free(u);
		if (!w->auth) {
			p_err("export: reading %s: %s", path, strerror(ENOMEM));
			web_state_free(w);
			return NULL;
		}
	}
	return w;
}
