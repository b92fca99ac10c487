// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lib/sniff.h"
#include "lib/vec.h"

#define SNIFF_PEEK 8

const char sniff_http_400[] = "HTTP/1.1 400 Bad Request\r\n"
			      "Content-Type: text/plain; charset=utf-8\r\n"
			      "Content-Length: 48\r\nConnection: close\r\n\r\n"
			      "Client sent an HTTP request to an HTTPS server.\n";
const size_t sniff_http_400_len = sizeof(sniff_http_400) - 1;

enum sniff_kind sniff_kind(const unsigned char *b, size_t n)
{
	size_t i;

	if (!n)
		return SNIFF_MORE;
	/* a TLS record: handshake (22), then the major version 3 (SSL 3.0 to TLS 1.3) */
	if (b[0] == 22)
		return n < 2 ? SNIFF_MORE : b[1] == 3 ? SNIFF_TLS : SNIFF_OTHER;
	/* an HTTP/1 request line starts with a method token of capitals, then a space */
	for (i = 0; i < n; i++) {
		if (b[i] == ' ')
			return i ? SNIFF_HTTP : SNIFF_OTHER;
		if (b[i] < 'A' || b[i] > 'Z')
			return SNIFF_OTHER;
	}
	return n < SNIFF_PEEK ? SNIFF_MORE : SNIFF_OTHER;
}

void sniff_init(struct sniffer *s)
{
	memset(s, 0, sizeof(*s));
	s->efd = -1;
}

int sniff_add(struct sniffer *s, int fd, const struct sockaddr_storage *ss, socklen_t sl,
	      double now)
{
	/* edge-triggered: a client that sent part of a line wakes us again only with more */
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET };
	struct sniff_conn *c;
	int err;

	if (s->efd < 0 && (s->efd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	c = VEC_PUSH(s->v, s->n, s->cap);
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	ev.data.fd = fd;
	if (epoll_ctl(s->efd, EPOLL_CTL_ADD, fd, &ev)) {
		err = -errno;
		s->n--;
		close(fd);
		return err;
	}
	*c = (struct sniff_conn){ .fd = fd, .sl = sl, .since = now };
	memcpy(&c->ss, ss, sl < sizeof(c->ss) ? sl : sizeof(c->ss));
	return 0;
}

int sniff_pollfd(const struct sniffer *s)
{
	return s->n ? s->efd : -1;
}

double sniff_deadline(const struct sniffer *s, double timeout)
{
	double t = INFINITY;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].since + timeout < t)
			t = s->v[i].since + timeout;
	return t;
}

/* take connection i off the list (its fd stays open) */
static struct sniff_conn take(struct sniffer *s, size_t i)
{
	struct sniff_conn c = s->v[i];

	epoll_ctl(s->efd, EPOLL_CTL_DEL, c.fd, NULL);
	s->v[i] = s->v[--s->n];
	return c;
}

void sniff_run(struct sniffer *s, double now, double timeout,
	       void (*tls)(void *arg, int fd, const struct sockaddr_storage *ss, socklen_t sl),
	       void (*http)(void *arg, const struct sockaddr_storage *ss), void *arg)
{
	struct epoll_event evs[16];
	unsigned char b[SNIFF_PEEK];
	struct sniff_conn c;
	enum sniff_kind k;
	ssize_t got;
	size_t i;

	/* empty the readiness queue: what is ready is read below */
	while (s->n && epoll_wait(s->efd, evs, 16, 0) == 16)
		;
	for (i = 0; i < s->n;) {
		got = recv(s->v[i].fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
			k = SNIFF_MORE;
		} else if (got <= 0) {
			/* closed by its client, or broken: nothing to answer */
			c = take(s, i);
			close(c.fd);
			continue;
		} else {
			k = sniff_kind(b, (size_t)got);
		}
		if (k == SNIFF_MORE && now < s->v[i].since + timeout) {
			i++;
			continue;
		}
		c = take(s, i);
		if (k == SNIFF_HTTP) {
			/* best effort: a client turned away is not waited for */
			(void)!send(c.fd, sniff_http_400, sniff_http_400_len,
				    MSG_DONTWAIT | MSG_NOSIGNAL);
			shutdown(c.fd, SHUT_WR);
			close(c.fd);
			http(arg, &c.ss);
		} else if (k == SNIFF_MORE) {
			close(c.fd); /* silent past the timeout */
		} else {
			tls(arg, c.fd, &c.ss, c.sl);
		}
	}
}

void sniff_free(struct sniffer *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		close(s->v[i].fd);
	if (s->efd >= 0)
		close(s->efd);
	free(s->v);
	sniff_init(s);
}
