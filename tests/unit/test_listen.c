// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The exporter's --listen: parsed, opened on loopback, named; no root needed. */
#include <errno.h>
#include <netinet/in.h>
#include <unistd.h>

#include "unit.h"

#include "lib/listen.h"
#include "lib/sniff.h"
#include "lib/util.h"

static void test_parse(void)
{
	static const struct {
		const char *spec;
		int err;
		const char *host;
		unsigned int port;
	} t[] = {
		{ "9478", 0, "127.0.0.1", 9478 },
		{ "0", 0, "127.0.0.1", 0 },
		{ "192.0.2.1:80", 0, "192.0.2.1", 80 },
		{ "0.0.0.0:9478", 0, "0.0.0.0", 9478 },
		{ "[::1]:9478", 0, "::1", 9478 },
		{ "[2001:db8::1]:65535", 0, "2001:db8::1", 65535 },
		{ "localhost:9478", 0, "localhost", 9478 },
		{ "::1:9478", 0, "::1", 9478 }, /* the last colon ends the address */
		{ "65536", -EINVAL },
		{ "127.0.0.1:65536", -EINVAL },
		{ "127.0.0.1:", -EINVAL },
		{ ":9478", -EINVAL },
		{ "127.0.0.1", -EINVAL },
		{ "[::1]", -EINVAL },
		{ "[::1:9478", -EINVAL },
		{ "[]:9478", -EINVAL },
		{ "127.0.0.1:-1", -EINVAL },
		{ "127.0.0.1:9478x", -EINVAL },
		{ "", -EINVAL },
	};
	struct httpd_addr a;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int err = httpd_listen_parse(t[i].spec, &a);

		CHECK(err == t[i].err, "'%s': %d, want %d", t[i].spec, err, t[i].err);
		if (err || t[i].err)
			continue;
		CHECK(!strcmp(a.host, t[i].host), "'%s': host '%s'", t[i].spec, a.host);
		CHECK(a.port == t[i].port, "'%s': port %u", t[i].spec, a.port);
	}
	/* a host too long for the buffer is refused, not cut */
	{
		char spec[200];

		memset(spec, 'a', sizeof(spec));
		memcpy(spec + sizeof(spec) - 6, ":9478", 6);
		CHECK_INT(httpd_listen_parse(spec, &a), -EINVAL);
	}
}

static void test_listen(void)
{
	struct httpd_addr a, b;
	int fd, fd2;
	char want[sizeof(a.shown)];

	CHECK_INT(httpd_listen_parse("127.0.0.1:0", &a), 0);
	fd = httpd_listen(&a);
	CHECK(fd >= 0, "listen on 127.0.0.1:0: %d", fd);
	if (fd < 0)
		return;
	CHECK(a.loopback, "127.0.0.1 is loopback");
	CHECK(!strncmp(a.shown, "127.0.0.1:", 10) && strcmp(a.shown, "127.0.0.1:0"),
	      "shown with the real port: '%s'", a.shown);
	/* the same port again: in use */
	snprintf(want, sizeof(want), "%s", a.shown);
	CHECK_INT(httpd_listen_parse(want, &b), 0);
	fd2 = httpd_listen(&b);
	CHECK_INT(fd2, -EADDRINUSE);
	if (fd2 >= 0)
		close(fd2);
	close(fd);
	CHECK_INT(httpd_listen_parse("0.0.0.0:0", &a), 0);
	fd = httpd_listen(&a);
	CHECK(fd >= 0, "listen on 0.0.0.0:0: %d", fd);
	CHECK(!a.loopback, "0.0.0.0 reaches beyond loopback");
	if (fd >= 0)
		close(fd);
	CHECK_INT(httpd_listen_parse("192.0.2.1:0", &a), 0);
	CHECK_INT(httpd_listen(&a), -EADDRNOTAVAIL); /* not an address of this host */
}

static void test_loopback(void)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s6 = (void *)&ss;
	char name[64];

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(9478);
	s6->sin6_addr.s6_addr[15] = 1; /* ::1 */
	CHECK(httpd_sockaddr_loopback(&ss), "::1");
	httpd_sockaddr_name(&ss, name, sizeof(name));
	CHECK_STR(name, "[::1]:9478");
	memset(&s6->sin6_addr, 0, sizeof(s6->sin6_addr));
	s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
	s6->sin6_addr.s6_addr[12] = 127;
	CHECK(httpd_sockaddr_loopback(&ss), "::ffff:127.0.0.1");
	s6->sin6_addr.s6_addr[12] = 192;
	CHECK(!httpd_sockaddr_loopback(&ss), "::ffff:192.x");
}

/* what a connection to a TLS port speaks first (lib/sniff.h) */
static void test_sniff(void)
{
#define KIND(lit) sniff_kind((const unsigned char *)(lit), sizeof(lit) - 1)
	CHECK(KIND("") == SNIFF_MORE, "nothing yet");
	CHECK(KIND("\x16") == SNIFF_MORE, "a record type alone");
	CHECK(KIND("\x16\x03\x01\x02\x00") == SNIFF_TLS, "a ClientHello record");
	CHECK(KIND("\x16\x02") == SNIFF_OTHER, "handshake type, no TLS version");
	CHECK(KIND("GET /metrics HTTP/1.1") == SNIFF_HTTP, "GET");
	CHECK(KIND("HEAD /") == SNIFF_HTTP, "HEAD");
	CHECK(KIND("GE") == SNIFF_MORE, "part of a method");
	CHECK(KIND("GETTTTTT") == SNIFF_OTHER, "no space within the bytes looked at");
	CHECK(KIND(" GET") == SNIFF_OTHER, "a space first");
	CHECK(KIND("get /") == SNIFF_OTHER, "lower case is no method");
	CHECK(KIND("\x80\x01") == SNIFF_OTHER, "SSLv2-style bytes");
	CHECK(sniff_http_400_len == strlen(sniff_http_400), "the 400's length");
	CHECK(strstr(sniff_http_400, "Content-Length: 48\r\n") &&
		      strlen(strstr(sniff_http_400, "\r\n\r\n") + 4) == 48,
	      "its Content-Length is its body's");
#undef KIND
}

int main(void)
{
	TEST(test_sniff);
	TEST(test_parse);
	TEST(test_listen);
	TEST(test_loopback);
	return unit_done();
}
