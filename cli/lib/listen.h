/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exporter's listening socket (--listen): the address parsed, the
 * socket opened and named, whether it reaches beyond this host. lib/httpd.c
 * serves on it.
 */
#ifndef __PPWATCH_LIB_LISTEN_H
#define __PPWATCH_LIB_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct httpd_addr {
	char host[64];	   /* 127.0.0.1, ::1, or a name getaddrinfo() resolves */
	unsigned int port; /* 0: the kernel picks one */
	char shown[80];	   /* after httpd_listen(): ADDR:PORT or [ADDR]:PORT, the real port */
	bool loopback;	   /* after httpd_listen(): reachable from this host only */
};

/* --listen: PORT (on 127.0.0.1), ADDR:PORT or [IPV6]:PORT; 0 or -EINVAL */
int httpd_listen_parse(const char *spec, struct httpd_addr *a);
/* a non-blocking listening socket on a (shown and loopback set), or -errno (reported) */
int httpd_listen(struct httpd_addr *a);
/* "ADDR:PORT" / "[ADDR]:PORT" of a socket address */
void httpd_sockaddr_name(const struct sockaddr_storage *ss, char *buf, size_t len);
/* 127.0.0.0/8, ::1, or ::ffff:127.x.y.z */
bool httpd_sockaddr_loopback(const struct sockaddr_storage *ss);

#endif /* __PPWATCH_LIB_LISTEN_H */
