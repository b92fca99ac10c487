/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * HTTP basic auth against bcrypt hashes (exporter-toolkit's
 * basic_auth_users), checked by the system's libcrypt (crypt_r(3),
 * libxcrypt: $2a$, $2b$, $2y$).
 *
 * bcrypt is slow by design (cost 10: some 50-100 ms) and the exporter
 * serves on one loop, so:
 *  - a password that checked out is remembered (BASIC_AUTH_CACHE of them,
 *    per user and hash, compared in constant time, wiped when let go):
 *    Prometheus scraping every 15 s costs one bcrypt, not one a scrape;
 *    a reload that keeps a user's hash keeps what was remembered for it
 *    (basic_auth_new()'s 'from');
 *  - what is not remembered is checked at most BASIC_AUTH_RATE times a
 *    second per client address (a burst of BASIC_AUTH_BURST; IPv6 by its
 *    /64, which one host is given), and after a wrong password that
 *    address waits BASIC_AUTH_PENALTY, twice as long after each further
 *    one, up to BASIC_AUTH_PENALTY_MAX (OpenSSH's PerSourcePenalties; a
 *    right password ends it): more wait (BUSY: 429). The limits are per
 *    address, never one bucket for all nor one per user, so a guesser
 *    holds off only itself, never the scraper at another address nor the
 *    user it guesses at, and soon costs a bcrypt every half minute;
 *  - all addresses together get BASIC_AUTH_GLOBAL_RATE checks a second,
 *    so guessing from many addresses cannot take the loop; an address
 *    that has not checked for a while (its burst is whole) is let through
 *    even then, so a scraper is never held off by others' guessing;
 *  - a user who is not configured costs a bcrypt all the same, so the
 *    answer's time does not tell which users exist.
 * Addresses are remembered for BASIC_AUTH_ADDRS of them, the least
 * recently seen forgotten first.
 */
#ifndef __PPWATCH_LIB_BASIC_AUTH_H
#define __PPWATCH_LIB_BASIC_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define BASIC_AUTH_CACHE       16
#define BASIC_AUTH_RATE	       2.0 /* bcrypt checks a second, per address */
#define BASIC_AUTH_BURST       4.0
#define BASIC_AUTH_GLOBAL_RATE 8.0 /* for every address together */
#define BASIC_AUTH_ADDRS       1024
#define BASIC_AUTH_PENALTY     0.5 /* s after a wrong password; doubling */
#define BASIC_AUTH_PENALTY_MAX 30.0

enum basic_auth_result {
	BASIC_AUTH_OK,
	BASIC_AUTH_DENIED,
	BASIC_AUTH_BUSY, /* not checked: too many checks from this address just now */
};

struct basic_auth_user {
	const char *name;
	const char *hash;
};

struct basic_auth;

/*
 * The users (copied): a new checker, or NULL without memory. With 'from'
 * (the one a reload replaces; it stays valid), what it remembered of the
 * users whose hash is the same, and each address's budget, carry over.
 */
struct basic_auth *basic_auth_new(const struct basic_auth_user *users, size_t n,
				  const struct basic_auth *from);
/*
 * user and password from a request from 'addr' (NULL: an address of its
 * own); now: now_mono_s()
 */
enum basic_auth_result basic_auth_check(struct basic_auth *a, const struct sockaddr *addr,
					const char *user, const char *password, double now);
/*
 * The clock a wrong password's penalty starts by, once its bcrypt is done
 * (the exporter's: now_mono_s()): a bcrypt that takes longer than the
 * penalty on a loaded host must not have served the penalty by the time
 * its 401 goes out. Without one (NULL), the penalty starts at 'now'.
 */
void basic_auth_set_clock(struct basic_auth *a, double (*clock)(void));
/* bcrypt checks done (not answered from memory) */
unsigned long basic_auth_checks(const struct basic_auth *a);
/* passwords remembered now */
size_t basic_auth_remembered(const struct basic_auth *a);
void basic_auth_free(struct basic_auth *a);

#endif /* __PPWATCH_LIB_BASIC_AUTH_H */
