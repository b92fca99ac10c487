/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Naming holders (pure): what a holder is called ("tcp 192.0.2.2:5001 <-
 * 192.0.2.1:40000 ino 812 pid 77 python3 fd 4"), a socket's state as ss
 * names it, and what to do about each holder (its remedy).
 */
#ifndef __PPWATCH_MODEL_HOLDER_DESC_H
#define __PPWATCH_MODEL_HOLDER_DESC_H

#include <stddef.h>

#include "model/attrib.h"

const char *holder_kind_name(enum holder_kind k);
/* what holds a socket, as -j and recordings name it ("process", "kernel", "io_uring", ...) */
const char *sock_held_by_name(enum sock_held_by b);
/* the socket's family/protocol, e.g. "udp", "tcp6", "unix", "packet" */
const char *sock_proto_name(const struct ppw_rec_sock *s);
/*
 * The socket's state as ss(8) names it (ESTAB, CLOSE-WAIT, LISTEN, UNCONN,
 * ...), except that a TCP socket in TCP_CLOSE, which ss lists as UNCONN, is
 * CLOSE (a reset connection is the case that matters here).
 */
const char *sock_state_name(const struct ppw_rec_sock *s);
/* an orphan: its process closed it (SOCK_DEAD); the kernel ends it on its own */
bool sock_is_orphan(const struct ppw_rec_sock *s);
/* "192.0.2.2" or "2001:db8::1" (family 2 or 10) */
const char *ip_addr_str(char *buf, size_t len, int family, const __u8 *addr);
/* "192.0.2.2:5001" (or "[2001:db8::1]:80"); "" for non-IP sockets */
const char *sock_addr_str(char *buf, size_t len, int family, const __u8 *addr, __u16 port);
/* "kind handle:" of a qdisc, e.g. "tbf 8004:", "pfifo 10:1" */
const char *qdisc_name(char *buf, size_t len, const struct ppw_rec_qdisc *q);
/*
 * Packets a leaf qdisc counts that the walk did not find (they sit in
 * private queues of its kind: fq, sfq, netem, cake, ...); 0 for classful
 * qdiscs, whose counts include their children's.
 */
__u32 qdisc_unwalked(const struct ppw_rec_qdisc *q);

/*
 * A holder's desc and remedy, once its records are set (kind, sock,
 * owners, ...); pool: its pool (NULL: unknown); unwalked: the queues the
 * scan could not walk, named in an unattributed holder's remedy.
 */
void holder_describe(struct holder *h, const struct pool_row *pool, const char *unwalked);

#endif /* __PPWATCH_MODEL_HOLDER_DESC_H */
