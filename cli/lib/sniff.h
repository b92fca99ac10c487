/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a new connection on a TLS port speaks, before TLS gets it: a client
 * that sends plain HTTP there (http:// instead of https://, a Prometheus
 * job without 'scheme: https') would otherwise see the connection closed
 * with no word ("Empty reply from server"), and the server would log
 * nothing. The server holds each new connection here until its first
 * bytes arrive: a TLS record goes on to TLS, a plain HTTP request line is
 * answered 400 with the hint (the words Go's servers and so Prometheus's
 * exporter-toolkit use) and closed. At most as many as the server lets in
 * at once; one that sends nothing within the server's timeout is closed.
 */
#ifndef __PPWATCH_LIB_SNIFF_H
#define __PPWATCH_LIB_SNIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

enum sniff_kind {
	SNIFF_MORE,  /* too few bytes to tell */
	SNIFF_TLS,   /* a TLS handshake record */
	SNIFF_HTTP,  /* a plain HTTP request line */
	SNIFF_OTHER, /* neither: TLS will refuse it */
};

/* the kind of a connection whose first n bytes are b (pure: unit-tested) */
enum sniff_kind sniff_kind(const unsigned char *b, size_t n);

/* the answer to plain HTTP on a TLS port */
extern const char sniff_http_400[];
extern const size_t sniff_http_400_len;

struct sniff_conn {
	int fd;
	struct sockaddr_storage ss;
	socklen_t sl;
	double since;
};

struct sniffer {
	int efd; /* epoll of the connections held; -1 until the first */
	struct sniff_conn *v;
	size_t n, cap;
};

void sniff_init(struct sniffer *s);
/* hold fd (accepted, non-blocking) until it speaks: 0, or -errno (fd closed) */
int sniff_add(struct sniffer *s, int fd, const struct sockaddr_storage *ss, socklen_t sl,
	      double now);
/* the descriptor to poll for input (-1: none held) */
int sniff_pollfd(const struct sniffer *s);
/* the earliest time a held connection is out of time (INFINITY: none) */
double sniff_deadline(const struct sniffer *s, double timeout);
/*
 * Decide every held connection that has spoken or run out of time: a TLS
 * one (or one TLS will refuse) is given to tls(arg, ...), which owns it
 * then; plain HTTP is answered 400 and closed, and http(arg, ...) told;
 * one closed by its client or silent past 'timeout' is closed.
 */
void sniff_run(struct sniffer *s, double now, double timeout,
	       void (*tls)(void *arg, int fd, const struct sockaddr_storage *ss, socklen_t sl),
	       void (*http)(void *arg, const struct sockaddr_storage *ss), void *arg);
/* close every held connection */
void sniff_free(struct sniffer *s);

#endif /* __PPWATCH_LIB_SNIFF_H */
