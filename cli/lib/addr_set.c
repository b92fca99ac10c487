// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "lib/addr_set.h"

#define MIN_CAP 1024

/* kernel objects are at least 64-byte aligned: the low bits say nothing */
static size_t slot(const struct addr_set *s, uint64_t a)
{
	size_t i, mask = s->cap - 1;

	for (i = (size_t)(((a >> 6) * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
	     s->v[i] && s->v[i] != a;)
		i = (i + 1) & mask;
	return i;
}

int addr_set_add(struct addr_set *s, uint64_t a)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct addr_set b = { .cap = s->cap ? 2 * s->cap : MIN_CAP };

		b.v = calloc(b.cap, sizeof(*b.v));
		if (!b.v)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->v[i])
				b.v[slot(&b, s->v[i])] = s->v[i];
		b.n = s->n;
		free(s->v);
		*s = b;
	}
	i = slot(s, a);
	if (s->v[i])
		return 0;
	s->v[i] = a;
	s->n++;
	return 1;
}

void addr_set_free(struct addr_set *s)
{
	free(s->v);
	s->v = NULL;
	s->cap = s->n = 0;
}
