// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bcrypt basic auth by libcrypt (lib/basic_auth.h), and the textfile's atomic write. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "lib/basic_auth.h"

/* crypt(3) with $2b$ salts of cost 4, of the test passwords "test-password" and "other" */
#define HASH_A "$2b$04$mMFdMtzQSRRI60T.a1xa6e.godWFmQHphoJ1SL7utad3aQbFnhF0y"
#define HASH_B "$2b$04$CLEzerAifbSO9XdDB/nv0uHMHx14fJ6gOMR79JFaNXmc9VOIqwY6m"

/* the clock a check ends by (basic_auth_set_clock): the test's */
static double check_ends;
static double test_clock(void)
{
	return check_ends;
}

static void test_check(void)
{
	const struct basic_auth_user users[] = { { "prometheus", HASH_A }, { "bob", HASH_B } };
	struct basic_auth *a = basic_auth_new(users, 2, NULL);
	enum basic_auth_result r;
	double t = 100;

	CHECK(a != NULL, "new");
	basic_auth_set_clock(a, test_clock);
	check_ends = t;
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-password", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_check(a, NULL, "bob", "other", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_checks(a), 2);
	/* remembered: no bcrypt, no token, at any rate */
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-password", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_checks(a), 2);
	/* another user's password: denied, and the address waits its penalty */
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "other", t), BASIC_AUTH_DENIED);
	r = basic_auth_check(a, NULL, "prometheus", "test-passwor", t);
	CHECK_INT(r, BASIC_AUTH_BUSY);
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-passwo", t + BASIC_AUTH_PENALTY),
		  BASIC_AUTH_DENIED);
	/*
	 * A bcrypt that takes longer than the penalty (a loaded host): the
	 * penalty runs from when the check ended, so a guess the moment the
	 * 401 went out, or once the penalty has passed since the check
	 * began, waits (the third wrong one: 4 x the penalty)
	 */
	t += 10;
	check_ends = t + 3 * BASIC_AUTH_PENALTY;
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-pass", t), BASIC_AUTH_DENIED);
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-pas", check_ends), BASIC_AUTH_BUSY);
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-pa",
				   t + 4 * BASIC_AUTH_PENALTY + 0.1),
		  BASIC_AUTH_BUSY);
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-p",
				   check_ends + 4 * BASIC_AUTH_PENALTY + 0.1),
		  BASIC_AUTH_DENIED);

	basic_auth_free(a);

	/* a user nobody configured costs a bcrypt too, and is denied */
	a = basic_auth_new(users, 2, NULL);
	CHECK_INT(basic_auth_check(a, NULL, "mallory", "test-password", t), BASIC_AUTH_DENIED);
	CHECK_INT(basic_auth_checks(a), 1);
	basic_auth_free(a);
	/* no users: nobody */
	a = basic_auth_new(NULL, 0, NULL);
	CHECK_INT(basic_auth_check(a, NULL, "prometheus", "test-password", t), BASIC_AUTH_DENIED);
	basic_auth_free(a);
}

static struct sockaddr_in v4(const char *a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };

	inet_pton(AF_INET, a, &sa.sin_addr);
	return sa;
}

static struct sockaddr_in6 v6(const char *a)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };

	inet_pton(AF_INET6, a, &sa.sin6_addr);
	return sa;
}

#define SA(x) ((const struct sockaddr *)&(x))

/*
 * guessing is rationed per address: a wrong password, and the address
 * waits BASIC_AUTH_PENALTY, doubling; what checked out passes meanwhile,
 * from any address
 */
static void test_rate(void)
{
	const struct basic_auth_user users[] = { { "prometheus", HASH_A } };
	struct basic_auth *a = basic_auth_new(users, 1, NULL);
	struct sockaddr_in guesser = v4("192.0.2.7"), scraper = v4("198.51.100.1");
	double t = 1000, wait = BASIC_AUTH_PENALTY;
	int i, busy = 0, denied = 0;

	CHECK_INT(basic_auth_check(a, SA(scraper), "prometheus", "test-password", t),
		  BASIC_AUTH_OK);
	for (i = 0; i < 10; i++) {
		switch (basic_auth_check(a, SA(guesser), "prometheus", "guess", t)) {
		case BASIC_AUTH_BUSY:
			busy++;
			break;
		case BASIC_AUTH_DENIED:
			denied++;
			break;
		default:
			CHECK(0, "a guess got in");
		}
		CHECK_INT(basic_auth_check(a, SA(guesser), "prometheus", "test-password", t),
			  BASIC_AUTH_OK);
	}
	CHECK_INT(denied, 1); /* then the penalty */
	CHECK_INT(busy, 9);
	CHECK_INT(basic_auth_checks(a), 2);
	/* each penalty twice the last, while the tokens last */
	for (i = 0; i < 3; i++) {
		t += wait - 0.01;
		CHECK_INT(basic_auth_check(a, SA(guesser), "prometheus", "guess", t),
			  BASIC_AUTH_BUSY);
		t += 0.02;
		CHECK_INT(basic_auth_check(a, SA(guesser), "prometheus", "guess", t),
			  BASIC_AUTH_DENIED);
		wait *= 2;
	}
	/* up to BASIC_AUTH_PENALTY_MAX */
	for (i = 0; i < 20; i++) {
		t += BASIC_AUTH_PENALTY_MAX + 0.01;
		CHECK_INT(basic_auth_check(a, SA(guesser), "prometheus", "guess", t),
			  BASIC_AUTH_DENIED);
	}
	/* another address was never held off, even for a password it has to check */
	CHECK_INT(basic_auth_check(a, SA(scraper), "prometheus", "test-passwor", t),
		  BASIC_AUTH_DENIED);
	/* and the right password ends an address's penalty */
	t += BASIC_AUTH_PENALTY_MAX + 0.01;
	basic_auth_free(a);
	a = basic_auth_new(users, 1, NULL); /* nothing remembered */
	CHECK_INT(basic_auth_check(a, SA(guesser), "prometheus", "guess", t), BASIC_AUTH_DENIED);
	t += BASIC_AUTH_PENALTY + 0.01;
	CHECK_INT(basic_auth_check(a, SA(guesser), "prometheus", "test-password", t),
		  BASIC_AUTH_OK);
	CHECK_INT(basic_auth_check(a, SA(guesser), "prometheus", "guess", t), BASIC_AUTH_DENIED);
	basic_auth_free(a);
}

/* the per-address budget: a burst, then BASIC_AUTH_RATE a second; IPv6 by /64 */
static void test_per_address(void)
{
	const struct basic_auth_user users[] = { { "prometheus", HASH_A } };
	struct basic_auth *a = basic_auth_new(users, 1, NULL);
	struct sockaddr_in6 x = v6("2001:db8:1:2::1"), same64 = v6("2001:db8:1:2::ffff"),
			    other64 = v6("2001:db8:1:3::1");
	struct sockaddr_in6 mapped = v6("::ffff:192.0.2.9");
	struct sockaddr_in plain = v4("192.0.2.9");
	double t = 5000;
	int i, ok;

	/* users nobody configured cost a check and no penalty (nothing tells them apart)... */
	for (i = 0, ok = 0; i < 10; i++)
		ok += basic_auth_check(a, SA(x), "u", "p", t) == BASIC_AUTH_DENIED;
	CHECK_INT(ok, 1); /* ...but a penalty: a wrong password all the same */
	CHECK_INT(basic_auth_check(a, SA(same64), "u", "p", t), BASIC_AUTH_BUSY);
	CHECK_INT(basic_auth_check(a, SA(other64), "u", "p", t), BASIC_AUTH_DENIED);
	/* an IPv4-mapped address is its IPv4 address */
	CHECK_INT(basic_auth_check(a, SA(plain), "u", "p", t), BASIC_AUTH_DENIED);
	CHECK_INT(basic_auth_check(a, SA(mapped), "u", "p", t), BASIC_AUTH_BUSY);
	basic_auth_free(a);
}

/* a reload that keeps a user's hash keeps what was remembered, and each address's budget */
static void test_reload(void)
{
	const struct basic_auth_user users[] = { { "prometheus", HASH_A }, { "bob", HASH_B } };
	const struct basic_auth_user changed[] = { { "prometheus", HASH_A }, { "bob", HASH_A } };
	struct sockaddr_in g = v4("192.0.2.1");
	struct basic_auth *a = basic_auth_new(users, 2, NULL), *b;
	double t = 100;

	CHECK_INT(basic_auth_check(a, SA(g), "prometheus", "test-password", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_check(a, SA(g), "bob", "other", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_check(a, SA(g), "bob", "guess", t), BASIC_AUTH_DENIED);
	b = basic_auth_new(changed, 2, a);
	basic_auth_free(a);
	CHECK_INT(basic_auth_remembered(b), 1);
	/* prometheus's hash is the same: remembered, no check, penalty or not */
	CHECK_INT(basic_auth_check(b, SA(g), "prometheus", "test-password", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_checks(b), 0);
	/* bob's changed: checked again, and the address's penalty held */
	CHECK_INT(basic_auth_check(b, SA(g), "bob", "other", t), BASIC_AUTH_BUSY);
	CHECK_INT(basic_auth_check(b, SA(g), "bob", "other", t + 1), BASIC_AUTH_DENIED);
	basic_auth_free(b);
}

int main(void)
{
	TEST(test_check);
	TEST(test_rate);
	TEST(test_per_address);
	TEST(test_reload);
	return unit_done();
}
