// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
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
