// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <crypt.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/basic_auth.h"

struct remembered {
	size_t user; /* + 1; 0: empty */
	char *password;
};

/* one client address (IPv4, or an IPv6 /64) and its budget */
struct addr_budget {
	unsigned char key[9]; /* family, then 4 or 8 bytes */
	double tokens, at;
	unsigned int fails; /* wrong passwords in a row */
	double until;	    /* no check before then: the penalty of the last one */
};

struct basic_auth {
	char **names, **hashes;
	size_t n;
	struct remembered cache[BASIC_AUTH_CACHE];
	size_t next; /* the slot to take next */
	struct addr_budget *addrs;
	size_t naddrs;
	double tokens, at; /* every address together */
	unsigned long checks;
	double (*clock)(void); /* when a check ends: its penalty starts then */
	struct crypt_data cd;  /* big (tens of KiB): here, not on the stack */
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

static void remember(struct basic_auth *a, size_t u, const char *password)
{
	size_t i = a->next;

	a->next = (a->next + 1) % BASIC_AUTH_CACHE;
	wipe_free(a->cache[i].password);
	a->cache[i].password = strdup(password);
	a->cache[i].user = a->cache[i].password ? u + 1 : 0;
}

/* what 'from' remembered of users whose hash is still the same */
static void carry_over(struct basic_auth *a, const struct basic_auth *from)
{
	size_t i, u, o;

	for (i = 0; i < BASIC_AUTH_CACHE; i++) {
		const struct remembered *r = &from->cache[(from->next + i) % BASIC_AUTH_CACHE];

		if (!r->user)
			continue;
		o = r->user - 1;
		for (u = 0; u < a->n; u++)
			if (!strcmp(a->names[u], from->names[o]) &&
			    !strcmp(a->hashes[u], from->hashes[o]))
				remember(a, u, r->password);
	}
	if (from->naddrs) {
		a->addrs = malloc(from->naddrs * sizeof(*a->addrs));
		if (a->addrs) {
			memcpy(a->addrs, from->addrs, from->naddrs * sizeof(*a->addrs));
			a->naddrs = from->naddrs;
		}
	}
	a->tokens = from->tokens;
	a->at = from->at;
}

struct basic_auth *basic_auth_new(const struct basic_auth_user *users, size_t n,
				  const struct basic_auth *from)
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
	a->tokens = BASIC_AUTH_BURST * BASIC_AUTH_GLOBAL_RATE / BASIC_AUTH_RATE;
	if (from)
		carry_over(a, from);
	return a;
fail:
	basic_auth_free(a);
	return NULL;
}

static void addr_key(const struct sockaddr *sa, unsigned char key[9])
{
	memset(key, 0, 9);
	if (sa && sa->sa_family == AF_INET) {
		key[0] = 4;
		memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			key[0] = 4;
			memcpy(key + 1, a6->s6_addr + 12, 4);
		} else {
			key[0] = 6;
			memcpy(key + 1, a6->s6_addr, 8); /* the /64 */
		}
	}
}

static void refill(double *tokens, double *at, double now, double rate, double burst)
{
	if (*at && now > *at) {
		*tokens += (now - *at) * rate;
		if (*tokens > burst)
			*tokens = burst;
	}
	*at = now;
}

/* the address's budget, refilled: found, made, or the least recently seen one's taken over */
static struct addr_budget *budget(struct basic_auth *a, const struct sockaddr *sa, double now)
{
	struct addr_budget *b, *oldest = NULL;
	unsigned char key[9];
	size_t i;

	addr_key(sa, key);
	for (i = 0; i < a->naddrs; i++) {
		b = &a->addrs[i];
		if (!memcmp(b->key, key, sizeof(key))) {
			refill(&b->tokens, &b->at, now, BASIC_AUTH_RATE, BASIC_AUTH_BURST);
			return b;
		}
		if (!oldest || b->at < oldest->at)
			oldest = b;
	}
	if (a->naddrs < BASIC_AUTH_ADDRS) {
		b = realloc(a->addrs, (a->naddrs + 1) * sizeof(*a->addrs));
		if (b) {
			a->addrs = b;
			oldest = &a->addrs[a->naddrs++];
		}
	}
	if (!oldest)
		return NULL;
	memcpy(oldest->key, key, sizeof(key));
	oldest->tokens = BASIC_AUTH_BURST;
	oldest->at = now;
	oldest->fails = 0;
	oldest->until = 0;
	return oldest;
}

/* may a bcrypt run now for this address? Its budget if so */
static struct addr_budget *take_token(struct basic_auth *a, const struct sockaddr *sa, double now)
{
	struct addr_budget *b = budget(a, sa, now);
	bool idle;

	refill(&a->tokens, &a->at, now, BASIC_AUTH_GLOBAL_RATE,
	       BASIC_AUTH_BURST * BASIC_AUTH_GLOBAL_RATE / BASIC_AUTH_RATE);
	if (!b || b->tokens < 1 || now < b->until)
		return NULL;
	/* others' guessing holds off no address that has been quiet */
	idle = b->tokens >= BASIC_AUTH_BURST - 1e-9 && !b->fails;
	if (a->tokens < 1 && !idle)
		return NULL;
	b->tokens -= 1;
	a->tokens = a->tokens >= 1 ? a->tokens - 1 : 0;
	return b;
}

/* a wrong password: the address waits, twice as long as the last time (OpenSSH's PerSourcePenalties) */
static void penalize(struct addr_budget *b, double now)
{
	double p = BASIC_AUTH_PENALTY;
	unsigned int i;

	b->fails++;
	for (i = 1; i < b->fails && p < BASIC_AUTH_PENALTY_MAX; i++)
		p *= 2;
	b->until = now + (p < BASIC_AUTH_PENALTY_MAX ? p : BASIC_AUTH_PENALTY_MAX);
}

enum basic_auth_result basic_auth_check(struct basic_auth *a, const struct sockaddr *addr,
					const char *user, const char *password, double now)
{
	struct addr_budget *b;
	size_t u, i;
	bool ok;
	char *h;

	for (u = 0; u < a->n && strcmp(a->names[u], user); u++)
		;
	for (i = 0; u < a->n && i < BASIC_AUTH_CACHE; i++)
		if (a->cache[i].user == u + 1 && same(a->cache[i].password, password))
			return BASIC_AUTH_OK;
	if (!a->n)
		return BASIC_AUTH_DENIED;
	b = take_token(a, addr, now);
	if (!b)
		return BASIC_AUTH_BUSY;
	a->checks++;
	/* a user nobody configured costs the same bcrypt: timing tells no names */
	h = crypt_r(password, a->hashes[u < a->n ? u : 0], &a->cd);
	ok = u < a->n && h && h[0] != '*' && same(h, a->hashes[u]);
	explicit_bzero(&a->cd, sizeof(a->cd));
	if (!ok) {
		/* from the end of the check: its bcrypt may take longer than the penalty */
		penalize(b, a->clock ? a->clock() : now);
		return BASIC_AUTH_DENIED;
	}
	b->fails = 0;
	b->until = 0;
	remember(a, u, password);
	return BASIC_AUTH_OK;
}

void basic_auth_set_clock(struct basic_auth *a, double (*clock)(void))
{
	a->clock = clock;
}

unsigned long basic_auth_checks(const struct basic_auth *a)
{
	return a->checks;
}

size_t basic_auth_remembered(const struct basic_auth *a)
{
	size_t i, n = 0;

	for (i = 0; i < BASIC_AUTH_CACHE; i++)
		n += a->cache[i].user != 0;
	return n;
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
	free(a->addrs);
	free(a->names);
	free(a->hashes);
	free(a);
}
