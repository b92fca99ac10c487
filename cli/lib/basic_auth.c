// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <crypt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/basic_auth.h"

struct remembered {
	size_t user; /* + 1; 0: empty */
	char *password;
};

struct basic_auth {
	char **names, **hashes;
	size_t n;
	struct remembered cache[BASIC_AUTH_CACHE];
	size_t next; /* the slot to take next */
	double tokens, at;
	unsigned long checks;
	struct crypt_data cd; /* big (tens of KiB): here, not on the stack */
};

static void wipe_free(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

/* equal, in a time that depends on the lengths only */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return !d;
}

struct basic_auth *basic_auth_new(const struct basic_auth_user *users, size_t n)
{
	struct basic_auth *a = calloc(1, sizeof(*a));
	size_t i;

	if (!a)
		return NULL;
	a->names = calloc(n + 1, sizeof(*a->names));
	a->hashes = calloc(n + 1, sizeof(*a->hashes));
	if (!a->names || !a->hashes)
		goto fail;
	for (i = 0; i < n; i++) {
		a->names[i] = strdup(users[i].name);
		a->hashes[i] = strdup(users[i].hash);
		a->n++;
		if (!a->names[i] || !a->hashes[i])
			goto fail;
	}
	a->tokens = BASIC_AUTH_BURST;
	return a;
fail:
	basic_auth_free(a);
	return NULL;
}

/* may a bcrypt run now? a token bucket */
static bool take_token(struct basic_auth *a, double now)
{
	if (a->at) {
		a->tokens += (now - a->at) * BASIC_AUTH_RATE;
		if (a->tokens > BASIC_AUTH_BURST)
			a->tokens = BASIC_AUTH_BURST;
	}
	a->at = now;
	if (a->tokens < 1)
		return false;
	a->tokens -= 1;
	return true;
}

enum basic_auth_result basic_auth_check(struct basic_auth *a, const char *user,
					const char *password, double now)
{
	size_t u, i;
	bool ok;
	char *h;

	for (u = 0; u < a->n && strcmp(a->names[u], user); u++)
		;
	for (i = 0; u < a->n && i < BASIC_AUTH_CACHE; i++)
		if (a->cache[i].user == u + 1 && same(a->cache[i].password, password))
			return BASIC_AUTH_OK;
	if (!a->n || !take_token(a, now))
		return a->n ? BASIC_AUTH_BUSY : BASIC_AUTH_DENIED;
	a->checks++;
	/* a user nobody configured costs the same bcrypt: timing tells no names */
	h = crypt_r(password, a->hashes[u < a->n ? u : 0], &a->cd);
	ok = u < a->n && h && h[0] != '*' && same(h, a->hashes[u]);
	explicit_bzero(&a->cd, sizeof(a->cd));
	if (!ok)
		return BASIC_AUTH_DENIED;
	i = a->next;
	a->next = (a->next + 1) % BASIC_AUTH_CACHE;
	wipe_free(a->cache[i].password);
	a->cache[i].password = strdup(password);
	a->cache[i].user = a->cache[i].password ? u + 1 : 0;
	return BASIC_AUTH_OK;
}

unsigned long basic_auth_checks(const struct basic_auth *a)
{
	return a->checks;
}

void basic_auth_free(struct basic_auth *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		free(a->names[i]);
		wipe_free(a->hashes[i]);
	}
	for (i = 0; i < BASIC_AUTH_CACHE; i++)
		wipe_free(a->cache[i].password);
	free(a->names);
	free(a->hashes);
	free(a);
}
