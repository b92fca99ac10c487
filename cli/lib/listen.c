// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The exporter's listening socket: --listen parsed, opened, named (lib/httpd.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/listen.h"
#include "lib/log.h"
#include "lib/util.h"

int httpd_listen_parse(const char *spec, struct httpd_addr *a)
{
	const char *colon, *port;
	size_t hl;
	uint64_t p;

	memset(a, 0, sizeof(*a));
	if (!parse_u64(spec, 0, 65535, &p)) { /* a port alone: loopback */
		snprintf(a->host, sizeof(a->host), "127.0.0.1");
		port = spec;
	} else if (spec[0] == '[') {
		colon = strstr(spec, "]:");
		if (!colon)
			return -EINVAL;
		hl = colon - spec - 1;
		port = colon + 2;
		if (!hl || hl >= sizeof(a->host))
			return -EINVAL;
		memcpy(a->host, spec + 1, hl);
	} else {
		colon = strrchr(spec, ':');
		if (!colon || colon == spec)
			return -EINVAL;
		hl = colon - spec;
		port = colon + 1;
		if (hl >= sizeof(a->host))
			return -EINVAL;
		memcpy(a->host, spec, hl);
	}
	if (parse_u64(port, 0, 65535, &p))
		return -EINVAL;
	a->port = (unsigned int)p;
	return 0;
}

void httpd_sockaddr_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%d", host, ntohs(s4->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%d", host, ntohs(s6->sin6_port));
	} else {
		snprintf(buf, len, "?");
	}
}

bool httpd_sockaddr_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const struct sockaddr_in *s4 = (const void *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family != AF_INET6)
		return false;
	return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
	       (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) && s6->sin6_addr.s6_addr[12] == 127);
}

/* the address as --listen spells it: HOST:PORT, [IPV6]:PORT */
static const char *spelled(const struct httpd_addr *a, char *buf, size_t len)
{
	snprintf(buf, len, strchr(a->host, ':') ? "[%s]:%u" : "%s:%u", a->host, a->port);
	return buf;
}

int httpd_listen(struct httpd_addr *a)
{
	char where[96];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char port[8];
	int fd, one = 1, err;

	snprintf(port, sizeof(port), "%u", a->port);
	err = getaddrinfo(a->host, port, &hints, &res);
	if (err) {
		p_err("cannot listen on %s: %s%s", spelled(a, where, sizeof(where)),
		      gai_strerror(err),
		      err == EAI_NONAME ? " (a numeric address always works)" : "");
		return -EINVAL;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		freeaddrinfo(res);
		p_err("cannot listen on %s: socket: %s", spelled(a, where, sizeof(where)),
		      strerror(-err));
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* a burst of scrapes waits in the backlog while others are served */
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1024)) {
		err = -errno;
		p_err("cannot listen on %s: %s%s", spelled(a, where, sizeof(where)), strerror(-err),
		      err == -EADDRINUSE    ? " (another exporter? choose another --listen port)" :
		      err == -EADDRNOTAVAIL ? " (no such local address)" :
					      "");
		close(fd);
		freeaddrinfo(res);
		return err;
	}
	freeaddrinfo(res);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		err = -errno;
		p_err("cannot listen on %s: getsockname: %s", spelled(a, where, sizeof(where)),
		      strerror(-err));
		close(fd);
		return err;
	}
	httpd_sockaddr_name(&ss, a->shown, sizeof(a->shown));
	a->loopback = httpd_sockaddr_loopback(&ss);
	return fd;
}
