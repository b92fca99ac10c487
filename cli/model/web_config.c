// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <libgen.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "lib/util.h"
#include "lib/vec.h"
#include "model/web_config.h"
#include "model/yaml_walk.h"

enum {
	K_TLS = 1,
	K_HTTP,
	K_USERS,
	K_CERT_FILE,
	K_KEY_FILE,
	K_CA_FILE,
	K_CLIENT_AUTH,
	K_MIN_VERSION,
	K_MAX_VERSION,
	K_PREFER_SERVER,
	K_HTTP2,
};

struct wkey {
	const char *key;
	int id;
	const char *unsupported; /* why ppwatch refuses it, rather than ignore it */
};

static const struct wkey top_keys[] = {
	{ "tls_server_config", K_TLS },
	{ "http_server_config", K_HTTP },
	{ "basic_auth_users", K_USERS },
	{ "rate_limit", 0,
	  "not supported by ppwatch (--max-clients bounds the connections, and a scrape "
	  "renders the last sample)" },
	{ NULL },
};

static const struct wkey tls_keys[] = {
	{ "cert_file", K_CERT_FILE },
	{ "key_file", K_KEY_FILE },
	{ "client_ca_file", K_CA_FILE },
	{ "client_auth_type", K_CLIENT_AUTH },
	{ "min_version", K_MIN_VERSION },
	{ "max_version", K_MAX_VERSION },
	{ "prefer_server_cipher_suites", K_PREFER_SERVER },
	{ "cert", 0, "inline PEM is not supported by ppwatch; give cert_file" },
	{ "key", 0, "inline PEM is not supported by ppwatch; give key_file" },
	{ "client_ca", 0, "inline PEM is not supported by ppwatch; give client_ca_file" },
	{ "cipher_suites", 0,
	  "not supported by ppwatch: GnuTLS's NORMAL priorities choose the ciphers" },
	{ "curve_preferences", 0,
	  "not supported by ppwatch: GnuTLS's NORMAL priorities choose the curves" },
	{ "client_allowed_sans", 0,
	  "not checked by ppwatch, so refused rather than ignored: verify clients by "
	  "client_ca_file" },
	{ NULL },
};

static const struct wkey http_keys[] = {
	{ "http2", K_HTTP2 },
	{ "headers", 0, "not supported by ppwatch: its answers set their own headers" },
	{ NULL },
};

static const char *const auth_names[] = {
	[WEB_NO_CLIENT_CERT] = "NoClientCert",
	[WEB_REQUEST_CLIENT_CERT] = "RequestClientCert",
	[WEB_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
	[WEB_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEB_REQUIRE_AND_VERIFY_CLIENT_CERT] = "RequireAndVerifyClientCert",
};

const char *web_client_auth_name(enum web_client_auth a)
{
	return a < ARRAY_SIZE(auth_names) ? auth_names[a] : "?";
}

bool web_client_cert_required(enum web_client_auth a)
{
	return a == WEB_REQUIRE_ANY_CLIENT_CERT || a == WEB_REQUIRE_AND_VERIFY_CLIENT_CERT;
}

bool web_client_cert_verified(enum web_client_auth a)
{
	return a == WEB_VERIFY_CLIENT_CERT_IF_GIVEN || a == WEB_REQUIRE_AND_VERIFY_CLIENT_CERT;
}

/* ---- the walk --------------------------------------------------------------------- */

struct wctx {
	struct ywalk y;
	const struct web_reader *rd;
	struct web_config *c;
	struct rpos pos[K_HTTP2 + 1]; /* where each key was: "first at line ..." */
	size_t users_cap;
};

#define werr(w, p, ...) ywerr(&(w)->y, p, __VA_ARGS__)
#define node_pos	ywalk_pos

static yaml_node_t *node(struct wctx *w, int idx)
{
	return ywalk_node(&w->y, idx);
}

/* a scalar's text, or NULL (reported: a list, a mapping, nothing, a NUL) */
static const char *scalar(struct wctx *w, const yaml_node_t *v, const char *key,
			  const char *expected)
{
	return ywalk_scalar(&w->y, v, key, expected);
}

static char *xstrdup(struct wctx *w, const char *s)
{
	return ywalk_strdup(&w->y, s);
}

static void unknown_key(struct wctx *w, const yaml_node_t *k, const char *where,
			const struct wkey *keys)
{
	ywalk_unknown_key(&w->y, k, where, keys, sizeof(*keys), offsetof(struct wkey, unsupported));
}

/* a path as the config names it: relative to the config's directory */
static char *resolve(struct wctx *w, const char *path)
{
	char *dir, *out;

	if (path[0] == '/')
		return xstrdup(w, path);
	dir = xstrdup(w, w->c->file);
	if (!dir)
		return NULL;
	if (asprintf(&out, "%s/%s", dirname(dir), path) < 0) {
		w->y.d.nomem = true;
		out = NULL;
	}
	free(dir);
	return out;
}

static void set_file(struct wctx *w, const yaml_node_t *v, const char *key, char **path, char **pem)
{
	char e[DIAG_ECHO_MAX + 4], e2[DIAG_ECHO_MAX + 4];
	const char *s = scalar(w, v, key, "a file name");
	int err;

	if (!s)
		return;
	*path = resolve(w, s);
	if (!*path)
		return;
	if (!w->rd)
		return; /* not read: the fuzz targets */
	*pem = NULL;
	err = w->rd->read(w->rd->arg, *path, pem);
	if (err)
		werr(w, node_pos(v), "%s '%s': cannot read %s: %s%s%s%s", key,
		     diag_echo(s, strlen(s), e), diag_echo(*path, strlen(*path), e2),
		     err == EFBIG   ? "more than 1 MiB, or a NUL byte: not PEM" :
		     err == ENODATA ? "it is empty" :
		     err == ENOTSUP ? "not a regular file" :
				      strerror(err),
		     err == EACCES && w->rd->who ? " (read as " : "",
		     err == EACCES && w->rd->who ? w->rd->who : "",
		     err == EACCES && w->rd->who ?
			     ": let that user read it, and search its directories)" :
			     "");
}

static int tls_version(struct wctx *w, const yaml_node_t *v, const char *key)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	char e[DIAG_ECHO_MAX + 4];
	const char *s = scalar(w, v, key, "TLS10, TLS11, TLS12 or TLS13");
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return 10 + i;
	if (s)
		werr(w, node_pos(v), "%s: '%s'; expected TLS10, TLS11, TLS12 or TLS13", key,
		     diag_echo(s, strlen(s), e));
	return 0;
}

static bool boolean(struct wctx *w, const yaml_node_t *v, const char *key, bool *out)
{
	char e[DIAG_ECHO_MAX + 4];
	const char *s = scalar(w, v, key, "true or false");

	if (s && (!strcmp(s, "true") || !strcmp(s, "false"))) {
		*out = !strcmp(s, "true");
		return true;
	}
	if (s)
		werr(w, node_pos(v), "%s: '%s'; expected true or false", key,
		     diag_echo(s, strlen(s), e));
	return false;
}

static void client_auth(struct wctx *w, const yaml_node_t *v)
{
	char e[DIAG_ECHO_MAX + 4];
	const char *s = scalar(w, v, "client_auth_type", "a client auth type");
	size_t i;

	if (!s)
		return;
	if (!strcmp(s, "RequireClientCert")) { /* exporter-toolkit's old name */
		w->c->client_auth = WEB_REQUIRE_ANY_CLIENT_CERT;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(auth_names); i++) {
		if (!strcmp(s, auth_names[i])) {
			w->c->client_auth = i;
			return;
		}
	}
	werr(w, node_pos(v),
	     "client_auth_type: '%s'; expected NoClientCert, RequestClientCert, "
	     "RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert",
	     diag_echo(s, strlen(s), e));
}

/* 'ppwatch' and a bcrypt hash: $2a$, $2b$ or $2y$, a cost of 04..31, 53 characters */
static bool bcrypt_hash(const char *h)
{
	static const char b64[] =
		"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' ||
	    h[6] != '$' || h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9')
		return false;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	return cost >= 4 && cost <= 31 && strspn(h + 7, b64) == 53;
}

/* the bcrypt alphabet's value of a character */
static int b64_value(char ch)
{
	static const char b64[] =
		"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	const char *p = strchr(b64, ch);

	return p && ch ? (int)(p - b64) : -1;
}

/*
 * Why a hash of the right shape can match no password, or NULL. bcrypt
 * writes its 16-byte salt in 22 characters and its 23-byte hash in 31, so
 * the last character of each has bits no byte sets: one that sets them is
 * written by no bcrypt, and what crypt(3) computes never equals it
 * (exporter-toolkit accepts such a hash, and every login fails).
 */
static const char *never_matches(const char *h)
{
	if (strstr(h, "REPLACE"))
		return "is the example's placeholder, not a hash: every login as this user "
		       "fails; put the hash 'htpasswd -nBC 10 USER' prints";
	if (b64_value(h[28]) % 16 || b64_value(h[59]) % 4)
		return "can match no password (its salt or hash ends in a character bcrypt "
		       "never writes): every login as this user fails; make it again with "
		       "'htpasswd -nBC 10 USER'";
	return NULL;
}

static void users(struct wctx *w, yaml_node_t *map)
{
	char e[DIAG_ECHO_MAX + 4], e2[DIAG_ECHO_MAX + 4];
	yaml_node_pair_t *pr;
	struct web_user *u;
	const char *name, *hash;
	size_t i;

	if (map->type == YAML_SCALAR_NODE && !map->data.scalar.length)
		return; /* basic_auth_users: (none) */
	if (map->type != YAML_MAPPING_NODE) {
		werr(w, node_pos(map), "basic_auth_users: expected a mapping of user: bcrypt hash");
		return;
	}
	for (pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(w, pr->key), *v = node(w, pr->value);

		name = scalar(w, k, "basic_auth_users", "a user name");
		hash = scalar(w, v, "basic_auth_users", "a bcrypt hash (htpasswd -nB USER)");
		if (!name || !hash)
			continue;
		for (i = 0; i < w->c->nusers; i++)
			if (!strcmp(w->c->users[i].name, name))
				break;
		if (i < w->c->nusers) {
			werr(w, node_pos(k), "basic_auth_users: user '%s' twice",
			     diag_echo(name, strlen(name), e));
			continue;
		}
		if (strchr(name, ':')) {
			werr(w, node_pos(k),
			     "basic_auth_users: user '%s': a name with ':' cannot be sent in "
			     "basic auth",
			     diag_echo(name, strlen(name), e));
			continue;
		}
		if (!bcrypt_hash(hash)) {
			werr(w, node_pos(v),
			     "basic_auth_users: user '%s': '%s' is no bcrypt hash; expected "
			     "$2y$ (or $2a$, $2b$), a cost, and 53 characters, as 'htpasswd -nB "
			     "USER' prints",
			     diag_echo(name, strlen(name), e), diag_echo(hash, strlen(hash), e2));
			continue;
		}
		u = VEC_NEXT(w->c->users, w->c->nusers, w->users_cap);
		if (!u || !(u->name = xstrdup(w, name)) || !(u->hash = xstrdup(w, hash))) {
			if (u)
				free(u->name);
			w->y.d.nomem = true;
			return;
		}
		u->pos = node_pos(v);
		u->never = never_matches(hash);
		w->c->nusers++;
	}
}

/* one key of a section: 0, or the key's id */
static int lookup(struct wctx *w, const yaml_node_t *k, const char *where, const struct wkey *keys)
{
	char e[DIAG_ECHO_MAX + 4];
	const struct wkey *kd;
	const char *s;

	s = scalar(w, k, where, "a key");
	if (!s)
		return 0;
	for (kd = keys; kd->key && strcmp(kd->key, s); kd++)
		;
	if (!kd->key) {
		unknown_key(w, k, where, keys);
		return 0;
	}
	if (kd->unsupported) {
		werr(w, node_pos(k), "%s: %s", diag_echo(s, strlen(s), e), kd->unsupported);
		return 0;
	}
	if (w->pos[kd->id].line) {
		werr(w, node_pos(k), "%s: given twice (first at line %d)", kd->key,
		     w->pos[kd->id].line);
		return 0;
	}
	w->pos[kd->id] = node_pos(k);
	return kd->id;
}

static void section(struct wctx *w, yaml_node_t *map, const char *where, const struct wkey *keys)
{
	struct web_config *c = w->c;
	yaml_node_pair_t *pr;
	bool b;

	if (map->type == YAML_SCALAR_NODE && !map->data.scalar.length)
		return; /* an empty section */
	if (map->type != YAML_MAPPING_NODE) {
		werr(w, node_pos(map), "%s: expected a mapping", where);
		return;
	}
	for (pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(w, pr->key), *v = node(w, pr->value);

		switch (lookup(w, k, where, keys)) {
		case K_TLS:
			c->tls_pos = node_pos(k);
			section(w, v, "tls_server_config", tls_keys);
			break;
		case K_HTTP:
			section(w, v, "http_server_config", http_keys);
			break;
		case K_USERS:
			users(w, v);
			break;
		case K_CERT_FILE:
			set_file(w, v, "cert_file", &c->cert_file, &c->cert_pem);
			break;
		case K_KEY_FILE:
			set_file(w, v, "key_file", &c->key_file, &c->key_pem);
			break;
		case K_CA_FILE:
			set_file(w, v, "client_ca_file", &c->client_ca_file, &c->ca_pem);
			break;
		case K_CLIENT_AUTH:
			client_auth(w, v);
			break;
		case K_MIN_VERSION:
			c->min_version = tls_version(w, v, "min_version") ?: c->min_version;
			break;
		case K_MAX_VERSION:
			c->max_version = tls_version(w, v, "max_version") ?: c->max_version;
			break;
		case K_PREFER_SERVER:
			if (boolean(w, v, "prefer_server_cipher_suites", &b))
				c->prefer_server_ciphers = b;
			break;
		case K_HTTP2:
			boolean(w, v, "http2", &b); /* HTTP/1.1 either way */
			break;
		}
	}
}

/* what the keys say together */
static void check_tls(struct wctx *w)
{
	struct web_config *c = w->c;
	struct rpos at = c->tls_pos;

	c->tls = w->pos[K_CERT_FILE].line || w->pos[K_KEY_FILE].line || w->pos[K_CA_FILE].line ||
		 w->pos[K_CLIENT_AUTH].line;
	c->cert_pos = w->pos[K_CERT_FILE];
	c->key_pos = w->pos[K_KEY_FILE];
	c->ca_pos = w->pos[K_CA_FILE];
	if (!c->tls) {
		/* a block with nothing that turns TLS on: ignored, and said by the caller */
		c->tls_off = c->tls_pos.line > 0;
		c->min_version = WEB_TLS_MIN_DEFAULT;
		c->max_version = WEB_TLS_MAX_DEFAULT;
		return;
	}
	if (!w->pos[K_CERT_FILE].line)
		werr(w, at, "tls_server_config: no cert_file; TLS needs the server's certificate");
	if (!w->pos[K_KEY_FILE].line)
		werr(w, at, "tls_server_config: no key_file; TLS needs the server's key");
	if (w->pos[K_CA_FILE].line && c->client_auth == WEB_NO_CLIENT_CERT)
		werr(w, w->pos[K_CA_FILE],
		     "client_ca_file without a client_auth_type that asks for certificates; "
		     "expected client_auth_type: RequireAndVerifyClientCert");
	if (c->client_auth != WEB_NO_CLIENT_CERT && !w->pos[K_CA_FILE].line)
		werr(w, w->pos[K_CLIENT_AUTH], "client_auth_type %s needs client_ca_file: %s",
		     web_client_auth_name(c->client_auth),
		     web_client_cert_verified(c->client_auth) ?
			     "the CAs to verify client certificates against" :
			     "libmicrohttpd asks clients for a certificate only with a list of "
			     "CAs to name");
	if (c->min_version > c->max_version)
		werr(w, w->pos[K_MIN_VERSION], "min_version TLS%d is above max_version TLS%d",
		     c->min_version, c->max_version);
}

/* ---- the document ---------------------------------------------------------------- */

/* the top, a section, a value: deeper is no web config */
static const struct ywalk_opts web_yaml = {
	.max_depth = 8,
	.needs = "a web config needs 3",
	.aliases = "a web config does not",
};

int web_config_parse(struct web_config *c, const char *file, const char *buf, size_t len,
		     FILE *diag, const struct web_reader *rd)
{
	struct wctx w = { .c = c, .rd = rd };
	yaml_node_t *root;
	bool ok;
	int n;

	memset(c, 0, sizeof(*c));
	c->min_version = WEB_TLS_MIN_DEFAULT;
	c->max_version = WEB_TLS_MAX_DEFAULT;
	c->prefer_server_ciphers = true;
	c->file = strdup(file);
	if (!c->file) {
		web_config_free(c);
		return -ENOMEM;
	}
	root = ywalk_load(&w.y, &web_yaml, file, diag, buf, len, &ok);
	if (ok) {
		/* an empty file: no TLS, no users, as exporter-toolkit has it */
		if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
			section(&w, root, "the top level", top_keys);
		ywalk_second_document(&w.y, false);
		check_tls(&w);
	}
	n = ywalk_end(&w.y);
	if (n < 0)
		web_config_free(c);
	return n;
}

static void wipe(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

void web_config_free(struct web_config *c)
{
	size_t i;

	for (i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		wipe(c->users[i].hash);
	}
	free(c->users);
	free(c->file);
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	free(c->cert_pem);
	wipe(c->key_pem);
	free(c->ca_pem);
	memset(c, 0, sizeof(*c));
}
