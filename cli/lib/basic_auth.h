/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * HTTP basic auth against bcrypt hashes (exporter-toolkit's
 * basic_auth_users), checked by the system's libcrypt (crypt_r(3),
 * libxcrypt: $2a$, $2b$, $2y$).
 *
 * bcrypt is slow by design (cost 10: some 50-100 ms) and the exporter
 * serves on one loop, so:
 *  - a password that checked out is remembered (BASIC_AUTH_CACHE of them,
 *    per user, compared in constant time, wiped when let go): Prometheus
 *    scraping every 15 s costs one bcrypt, not one a scrape;
 *  - what is not remembered is checked at most BASIC_AUTH_RATE times a
 *    second (a burst of BASIC_AUTH_BURST): more wait (BUSY: 429), so
 *    guessing passwords cannot stall sampling or other scrapes;
 *  - a user who is not configured costs a bcrypt all the same, so the
 *    answer's time does not tell which users exist.
 */
#ifndef __PPWATCH_LIB_BASIC_AUTH_H
#define __PPWATCH_LIB_BASIC_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define BASIC_AUTH_CACHE 16
#define BASIC_AUTH_RATE	 2.0 /* bcrypt checks a second */
#define BASIC_AUTH_BURST 4.0

enum basic_auth_result {
	BASIC_AUTH_OK,
	BASIC_AUTH_DENIED,
	BASIC_AUTH_BUSY, /* not checked: too many checks just now */
};

struct basic_auth_user {
	const char *name;
	const char *hash;
};

struct basic_auth;

/* the users (copied): a new checker, or NULL without memory */
struct basic_auth *basic_auth_new(const struct basic_auth_user *users, size_t n);
/* user and password from a request; now: now_mono_s() */
enum basic_auth_result basic_auth_check(struct basic_auth *a, const char *user,
					const char *password, double now);
/* bcrypt checks done (not answered from memory) */
unsigned long basic_auth_checks(const struct basic_auth *a);
void basic_auth_free(struct basic_auth *a);

#endif /* __PPWATCH_LIB_BASIC_AUTH_H */
