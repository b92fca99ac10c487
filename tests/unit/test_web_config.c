// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* export --web-config: exporter-toolkit's web config file (model/web_config.h). */
#include <errno.h>
#include <unistd.h>

#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "lib/small_file.h"
#include "lib/util.h"
#include "model/web_config.h"

static char dir[] = "/tmp/ppwatch-webcfg.XXXXXX";

/* bcrypt of the test password "test", cost 5 (crypt(3) with a $2y$ salt) */
#define HASH "$2y$05$87H1fbG9APAkTIE028.n5eOQETVQW8i6Kf1uBI1iKiha50ucOSzlq"

static const char *at(const char *name)
{
	static char buf[2][128];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put_file(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	fputs(text, f);
	fclose(f);
}

static int read_pem(void *arg, const char *path, char **out)
{
	return small_file_read(path, WEB_CONFIG_MAX_BYTES, out);
}

static const struct web_reader reader = { read_pem, NULL };

/* parse text as DIR/web.yml; *diag gets what it says */
static int parse(struct web_config *c, const char *text, char **diag)
{
	FILE *f, *err;
	size_t len;
	int n;

	err = open_memstream(diag, &len);
	f = err;
	n = web_config_parse(c, at("web.yml"), text, strlen(text), f, &reader);
	fclose(err);
	return n;
}

static void test_good(void)
{
	struct web_config c;
	char *diag;

	put_file("server.crt", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
	put_file("server.key", "-----BEGIN PRIVATE KEY-----\nk\n-----END PRIVATE KEY-----\n");
	put_file("ca.crt", "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n");
	CHECK_INT(parse(&c,
			"tls_server_config:\n"
			"  cert_file: server.crt\n"
			"  key_file: server.key\n"
			"  client_auth_type: RequireAndVerifyClientCert\n"
			"  client_ca_file: ca.crt\n"
			"  min_version: TLS13\n"
			"http_server_config:\n"
			"  http2: false\n"
			"basic_auth_users:\n"
			"  prometheus: " HASH "\n"
			"  alice: '" HASH "'\n",
			&diag),
		  0);
	CHECK_STR(diag, "");
	CHECK(c.tls, "TLS");
	CHECK_STR(c.cert_file, at("server.crt")); /* relative to the config's directory */
	CHECK(strstr(c.key_pem, "PRIVATE KEY") != NULL, "the key read");
	CHECK(strstr(c.ca_pem, "\nca\n") != NULL, "the CAs read");
	CHECK_INT(c.client_auth, WEB_REQUIRE_AND_VERIFY_CLIENT_CERT);
	CHECK(web_client_cert_required(c.client_auth) && web_client_cert_verified(c.client_auth),
	      "required and verified");
	CHECK_INT(c.min_version, 13);
	CHECK_INT(c.max_version, 13);
	CHECK(c.prefer_server_ciphers, "the default");
	CHECK_INT(c.nusers, 2);
	CHECK_STR(c.users[1].name, "alice");
	CHECK_STR(c.users[1].hash, HASH);
	web_config_free(&c);
	free(diag);

	/* nothing at all: plain HTTP, nobody to authenticate */
	CHECK_INT(parse(&c, "", &diag), 0);
	CHECK(!c.tls && !c.nusers, "empty");
	web_config_free(&c);
	free(diag);
	CHECK_INT(parse(&c, "basic_auth_users:\n  u: " HASH "\ntls_server_config:\n", &diag), 0);
	CHECK(!c.tls && c.nusers == 1, "basic auth without TLS");
	CHECK_INT(c.min_version, WEB_TLS_MIN_DEFAULT);
	web_config_free(&c);
	free(diag);
	/*
	 * a block with versions and nothing that turns TLS on: off, ignored
	 * (exporter-toolkit's "TLS is disabled."), its versions not kept (the
	 * fuzzer found max TLS11 under the default min TLS12 returned)
	 */
	CHECK_INT(parse(&c, "tls_server_config:\n  max_version: TLS11\n", &diag), 0);
	CHECK(!c.tls && c.tls_off, "TLS off, and to be said");
	CHECK(c.tls_pos.line == 1, "where");
	CHECK(c.min_version <= c.max_version, "no impossible range");
	CHECK_INT(c.max_version, WEB_TLS_MAX_DEFAULT);
	web_config_free(&c);
	free(diag);
}

static void test_bad(void)
{
	static const struct {
		const char *what, *text, *diag;
	} bad[] = {
		{ "unknown key", "tls_server_config:\n  cert_fil: x\n",
		  "web.yml:2:3: error: unknown key 'cert_fil' in tls_server_config; did you mean "
		  "'cert_file'?" },
		{ "unknown top key", "tls:\n  x: 1\n",
		  "web.yml:1:1: error: unknown key 'tls' in the top level" },
		{ "unsupported key",
		  "tls_server_config:\n  cipher_suites: [a]\n  cert_file: nope\n",
		  "web.yml:2:3: error: cipher_suites: not supported by ppwatch" },
		{ "inline cert", "tls_server_config:\n  cert: x\n", "inline PEM is not supported" },
		{ "SANs", "tls_server_config:\n  client_allowed_sans: [a]\n",
		  "refused rather than ignored" },
		{ "rate limit", "rate_limit:\n  burst: 1\n",
		  "web.yml:1:1: error: rate_limit: not supported" },
		{ "headers", "http_server_config:\n  headers: {}\n", "headers: not supported" },
		{ "no key", "tls_server_config:\n  cert_file: server.crt\n",
		  "web.yml:1:1: error: tls_server_config: no key_file" },
		{ "unreadable",
		  "tls_server_config:\n  cert_file: nope.crt\n  key_file: /nonexistent/k\n",
		  "web.yml:2:14: error: cert_file 'nope.crt': cannot read " },
		{ "empty cert", "tls_server_config:\n  cert_file: empty\n  key_file: server.key\n",
		  "it is empty" },
		{ "bad auth type", "tls_server_config:\n  client_auth_type: Sure\n",
		  "client_auth_type: 'Sure'; expected NoClientCert" },
		{ "CA without auth",
		  "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: ca.crt\n",
		  "web.yml:4:3: error: client_ca_file without a client_auth_type" },
		{ "verify without CA",
		  "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: VerifyClientCertIfGiven\n",
		  "needs client_ca_file: the CAs to verify" },
		{ "request without CA",
		  "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequestClientCert\n",
		  "libmicrohttpd asks clients for a certificate only with a list of CAs" },
		{ "versions",
		  "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS13\n  max_version: TLS12\n",
		  "min_version TLS13 is above max_version TLS12" },
		{ "bad version", "tls_server_config:\n  min_version: SSL3\n",
		  "expected TLS10, TLS11" },
		{ "not bcrypt", "basic_auth_users:\n  u: $6$salt$hash\n",
		  "web.yml:2:6: error: basic_auth_users: user 'u': '$6$salt$hash' is no bcrypt hash" },
		{ "plaintext", "basic_auth_users:\n  u: secret\n", "is no bcrypt hash" },
		{ "user twice", "basic_auth_users:\n  u: " HASH "\n  u: " HASH "\n",
		  "user 'u' twice" },
		{ "colon", "basic_auth_users:\n  'a:b': " HASH "\n", "a name with ':'" },
		{ "key twice", "tls_server_config:\n  min_version: TLS12\n  min_version: TLS13\n",
		  "min_version: given twice (first at line 2)" },
		{ "not a mapping", "- a\n", "the top level: expected a mapping" },
		{ "alias", "x: &a 1\ny: *a\n", "an alias" },
		{ "deep", "a: [[[[[[[[[[1]]]]]]]]]]\n", "nested deeper than 8 levels" },
		{ "two documents", "basic_auth_users:\n---\nb: 1\n", "a second YAML document" },
		{ "YAML", "a: [\n", "invalid YAML" },
		{ "escaped", "tls_server_config:\n  \"\\e[31m\": 1\n", "unknown key '\\x1b[31m'" },
	};
	struct web_config c;
	char *diag;
	size_t i;

	put_file("empty", "");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(parse(&c, bad[i].text, &diag) > 0, "%s: accepted", bad[i].what);
		CHECK(strstr(diag, bad[i].diag) != NULL, "%s: '%s'", bad[i].what, diag);
		CHECK(!strchr(diag, '\x1b'), "%s: escaped", bad[i].what);
		web_config_free(&c);
		free(diag);
	}
}

/* the files a config names, read at the edge (lib/small_file.h) */
static void test_files(void)
{
	struct web_config c;
	char *buf, *diag;

	CHECK_INT(small_file_read(at("none.yml"), 100, &buf), ENOENT);
	CHECK(buf == NULL, "nothing read");
	CHECK_INT(small_file_read(at("empty"), 100, &buf), ENODATA);
	CHECK_INT(small_file_read(dir, 100, &buf), ENOTSUP);
	put_file("nul.yml", "a");
	CHECK_INT(small_file_read(at("nul.yml"), 100, &buf), 0);
	CHECK_STR(buf, "a");
	free(buf);
	CHECK_INT(small_file_read(at("nul.yml"), 0, &buf), EFBIG);
	CHECK(!mkfifo(at("fifo"), 0600), "mkfifo");
	/* a FIFO with no writer: refused at once, not waited on */
	CHECK_INT(small_file_read(at("fifo"), 100, &buf), ENOTSUP);
	unlink(at("fifo"));
	put_file("users.yml", "basic_auth_users:\n  u: " HASH "\n");
	CHECK_INT(small_file_read(at("users.yml"), 1000, &buf), 0);
	CHECK_INT(web_config_parse(&c, at("users.yml"), buf, strlen(buf), NULL, &reader), 0);
	CHECK_INT(c.nusers, 1);
	CHECK(c.users[0].never == NULL, "a real hash can match");
	CHECK_INT(c.users[0].pos.line, 2);
	CHECK_INT(c.users[0].pos.col, 6);
	web_config_free(&c);
	free(buf);
	/* without a reader (the fuzz targets), files are not read and that is no error */
	CHECK_INT(parse(&c, "tls_server_config:\n  cert_file: x\n  key_file: y\n", &diag), 2);
	free(diag);
	web_config_free(&c);
	buf = "tls_server_config:\n  cert_file: x\n  key_file: y\n";
	CHECK_INT(web_config_parse(&c, at("web.yml"), buf, strlen(buf), NULL, NULL), 0);
	CHECK(c.tls && !c.cert_pem && c.cert_pos.line == 2 && c.key_pos.line == 3, "positions");
	web_config_free(&c);
}

/* hashes of the right shape that no password matches: accepted, and said */
static void test_hashes_that_never_match(void)
{
	static const struct {
		const char *hash, *why;
	} cases[] = {
		/* the example's placeholder */
		{ "$2y$10$REPLACE.THIS.WITH.A.REAL.BCRYPT.HASH.OF.53.CHARACTERS", "placeholder" },
		/* HASH with its salt's last character moved by one: bits bcrypt never sets */
		{ "$2y$05$87H1fbG9APAkTIE028.n5fOQETVQW8i6Kf1uBI1iKiha50ucOSzlq", "can match no" },
		/* and its hash's */
		{ "$2y$05$87H1fbG9APAkTIE028.n5eOQETVQW8i6Kf1uBI1iKiha50ucOSzlr", "can match no" },
	};
	struct web_config c;
	char text[160], *diag;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), "basic_auth_users:\n  prometheus: %s\n",
			 cases[i].hash);
		CHECK_INT(parse(&c, text, &diag), 0);
		CHECK(c.nusers == 1 && c.users[0].never && strstr(c.users[0].never, cases[i].why),
		      "%s: %s", cases[i].hash, c.nusers ? c.users[0].never : "no user");
		free(diag);
		web_config_free(&c);
	}
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	TEST(test_good);
	TEST(test_bad);
	TEST(test_files);
	TEST(test_hashes_that_never_match);
	unlink(at("server.crt"));
	unlink(at("server.key"));
	unlink(at("ca.crt"));
	unlink(at("empty"));
	unlink(at("users.yml"));
	unlink(at("nul.yml"));
	rmdir(dir);
	return unit_done();
}
