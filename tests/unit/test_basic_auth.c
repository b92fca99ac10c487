// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bcrypt basic auth by libcrypt (lib/basic_auth.h), and the textfile's atomic write. */
#include <errno.h>

#include "unit.h"

#include "lib/basic_auth.h"

/* crypt(3) with $2b$ salts of cost 4, of the test passwords "test-password" and "other" */
#define HASH_A "$2b$04$mMFdMtzQSRRI60T.a1xa6e.godWFmQHphoJ1SL7utad3aQbFnhF0y"
#define HASH_B "$2b$04$CLEzerAifbSO9XdDB/nv0uHMHx14fJ6gOMR79JFaNXmc9VOIqwY6m"

static void test_check(void)
{
	const struct basic_auth_user users[] = { { "prometheus", HASH_A }, { "bob", HASH_B } };
	struct basic_auth *a = basic_auth_new(users, 2);
	enum basic_auth_result r;
	double t = 100;

	CHECK(a != NULL, "new");
	CHECK_INT(basic_auth_check(a, "prometheus", "test-password", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_check(a, "bob", "other", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_checks(a), 2);
	/* remembered: no bcrypt, no token, at any rate */
	CHECK_INT(basic_auth_check(a, "prometheus", "test-password", t), BASIC_AUTH_OK);
	CHECK_INT(basic_auth_checks(a), 2);
	/* another user's password, a near one: denied, and the burst (4) is spent */
	CHECK_INT(basic_auth_check(a, "prometheus", "other", t), BASIC_AUTH_DENIED);
	CHECK_INT(basic_auth_check(a, "prometheus", "test-passwor", t), BASIC_AUTH_DENIED);
	r = basic_auth_check(a, "prometheus", "test-passwo", t);
	CHECK_INT(r, BASIC_AUTH_BUSY);
	basic_auth_free(a);

	/* a user nobody configured costs a bcrypt too, and is denied */
	a = basic_auth_new(users, 2);
	CHECK_INT(basic_auth_check(a, "mallory", "test-password", t), BASIC_AUTH_DENIED);
	CHECK_INT(basic_auth_checks(a), 1);
	basic_auth_free(a);
	/* no users: nobody */
	a = basic_auth_new(NULL, 0);
	CHECK_INT(basic_auth_check(a, "prometheus", "test-password", t), BASIC_AUTH_DENIED);
	basic_auth_free(a);
}

/* guessing is rationed: a burst, then the rate; what checked out passes meanwhile */
static void test_rate(void)
{
	const struct basic_auth_user users[] = { { "prometheus", HASH_A } };
	struct basic_auth *a = basic_auth_new(users, 1);
	enum basic_auth_result r;
	double t = 1000;
	int i, busy = 0, denied = 0;

	CHECK_INT(basic_auth_check(a, "prometheus", "test-password", t), BASIC_AUTH_OK);
	for (i = 0; i < 10; i++) {
		r = basic_auth_check(a, "prometheus", "guess", t);
		switch (r) {
		case BASIC_AUTH_BUSY:
			busy++;
			break;
		case BASIC_AUTH_DENIED:
			denied++;
			break;
		default:
			CHECK(0, "a guess got in");
		}
		CHECK_INT(basic_auth_check(a, "prometheus", "test-password", t), BASIC_AUTH_OK);
	}
	CHECK_INT(denied, BASIC_AUTH_BURST - 1); /* the first check took a token */
	CHECK_INT(busy, 10 - denied);
	/* a second later: BASIC_AUTH_RATE checks more */
	for (i = 0; i < 3; i++) {
		r = basic_auth_check(a, "prometheus", "guess", t + 1);
		CHECK_INT(r, i < BASIC_AUTH_RATE ? BASIC_AUTH_DENIED : BASIC_AUTH_BUSY);
	}
	basic_auth_free(a);
}

int main(void)
{
	TEST(test_check);
	TEST(test_rate);
	return unit_done();
}
