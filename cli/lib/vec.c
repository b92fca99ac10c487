// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/vec.h"

void *vec_grow(void *v, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 8, bytes;
	void *nv;

	while (c < need) {
		if (c > SIZE_MAX / 2) {
			errno = EOVERFLOW;
			return NULL;
		}
		c *= 2;
	}
	if (__builtin_mul_overflow(c, elem, &bytes)) {
		errno = EOVERFLOW;
		return NULL;
	}
	nv = realloc(v, bytes);
	if (!nv) {
		errno = ENOMEM;
		return NULL;
	}
	*cap = c;
	return nv;
}

static int by_pointee(const void *a, const void *b, void *cmp)
{
	const void *x = *(const void *const *)a, *y = *(const void *const *)b;
	int r = ((int (*)(const void *, const void *))cmp)(x, y);

	/* ties keep their order: the pointers are into one array */
	return r ? r : (uintptr_t)x < (uintptr_t)y ? -1 : (uintptr_t)x > (uintptr_t)y;
}

int vec_permute(void *base, size_t n, size_t size, const size_t *src)
{
	char *b = base, *tmp = malloc(size);
	bool *done = calloc(n ? n : 1, sizeof(*done));
	size_t i, j, k;

	if (!tmp || !done) {
		free(tmp);
		free(done);
		return -ENOMEM;
	}
	/* each cycle: its first element aside, the others moved up once */
	for (i = 0; i < n; i++) {
		if (done[i] || src[i] == i) {
			done[i] = true;
			continue;
		}
		memcpy(tmp, b + i * size, size);
		for (j = i;; j = k) {
			done[j] = true;
			k = src[j];
			if (k == i) {
				memcpy(b + j * size, tmp, size);
				break;
			}
			memcpy(b + j * size, b + k * size, size);
		}
	}
	free(tmp);
	free(done);
	return 0;
}

void vec_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char **p;
	size_t *src, i;

	if (n < 2)
		return;
	p = size > 2 * sizeof(void *) ? malloc(n * sizeof(*p)) : NULL;
	src = p ? malloc(n * sizeof(*src)) : NULL;
	if (!src) {
		free(p);
		qsort(base, n, size, cmp);
		return;
	}
	for (i = 0; i < n; i++)
		p[i] = (char *)base + i * size;
	qsort_r(p, n, sizeof(*p), by_pointee, (void *)cmp);
	for (i = 0; i < n; i++)
		src[i] = (size_t)(p[i] - (char *)base) / size;
	if (vec_permute(base, n, size, src))
		qsort(base, n, size, cmp);
	free(src);
	free(p);
}
