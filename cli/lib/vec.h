/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Growable arrays: the one helper every array that grows one element at a
 * time goes through, so each growth is checked for overflow and for memory
 * in one place.
 *
 *	struct thing *v = NULL; size_t n = 0, cap = 0;
 *	struct thing *t = VEC_PUSH(v, n, cap);	// zeroed, or NULL: nothing changed
 *	struct thing *u = VEC_NEXT(v, n, cap);	// the same, kept only by n++
 */
#ifndef __PPWATCH_LIB_VEC_H
#define __PPWATCH_LIB_VEC_H

#include <stddef.h>
#include <string.h>

/*
 * Room for at least 'need' elements of 'elem' bytes: the new array (cap
 * updated), or NULL with errno set (ENOMEM, EOVERFLOW) and v and cap untouched.
 */
void *vec_grow(void *v, size_t *cap, size_t need, size_t elem);

/*
 * Room for one more element of (ptr, n, cap): a pointer to ptr[n], zeroed
 * but not counted yet (n++ keeps it), or NULL.
 */
#define VEC_NEXT(ptr, n, cap)                                                                   \
	__extension__({                                                                         \
		__typeof__(ptr) vp_ =                                                           \
			(n) < (cap) ? (ptr) : vec_grow((ptr), &(cap), (n) + 1, sizeof(*(ptr))); \
		if (vp_) {                                                                      \
			(ptr) = vp_;                                                            \
			vp_ = &vp_[(n)];                                                        \
			memset(vp_, 0, sizeof(*vp_));                                           \
		}                                                                               \
		vp_;                                                                            \
	})

/* Append one zeroed element to (ptr, n, cap): a pointer to it, or NULL. */
#define VEC_PUSH(ptr, n, cap)                                 \
	__extension__({                                       \
		__typeof__(ptr) vpp_ = VEC_NEXT(ptr, n, cap); \
		if (vpp_)                                     \
			(n)++;                                \
		vpp_;                                         \
	})

/*
 * Reorder n elements of 'size' bytes in place so that element i becomes
 * the one at src[i] (a permutation), each moved once: 0, or -ENOMEM
 * (nothing moved).
 */
int vec_permute(void *base, size_t n, size_t size, const size_t *src);

/*
 * qsort(), stable, moving each element once: elements of hundreds of bytes
 * are sorted through pointers (qsort's merge sort moves them log n times;
 * at 10,000 pools that was a fifth of a refresh). Without the memory for
 * that, qsort() in place.
 */
void vec_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif /* __PPWATCH_LIB_VEC_H */
