/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A set of kernel addresses (open addressing, linear probing, at most
 * half full; 0 is no address): the crash-dump walks' "seen it already"
 * (model/vmcore_holders.c, the sockets walked; model/vmcore_walk.c, the
 * pools the page scan found). Iterate over v[0..cap) skipping zeros.
 */
#ifndef __PPWATCH_LIB_ADDR_SET_H
#define __PPWATCH_LIB_ADDR_SET_H

#include <stddef.h>
#include <stdint.h>

struct addr_set {
	uint64_t *v;
	size_t cap, n;
};

/* add a (not 0): 1 if it was not in the set, 0 if it was, -ENOMEM (the set unchanged) */
int addr_set_add(struct addr_set *s, uint64_t a);
void addr_set_free(struct addr_set *s);

#endif /* __PPWATCH_LIB_ADDR_SET_H */
