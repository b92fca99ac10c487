/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Sampled kernel stacks at page hold and release (--stacks): reading the
 * aggregate and the stack map, symbolising, and the 'stacks' command.
 */
#ifndef __PPWATCH_STACKS_H
#define __PPWATCH_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/ksyms.h"
#include "ppwatch.h"

struct session;

struct stack_agg {
	struct ppw_stack_key key;
	__u64 count;
};

#define STACKS_DEFAULT_EVERY 64

/* every (pool, gen, kind, stack) with its count, biggest first */
int stacks_read(struct session *s, struct stack_agg **out, size_t *n);
/* the frames of a stack id; returns the number of frames or -errno */
int stack_frames(struct session *s, __s32 id, __u64 *ips, int max);
/* drop the tracing machinery's frames from the top; returns the new count */
int stack_trim(const struct ksyms *k, __u64 *ips, int n);
/* "a+0x1 < b+0x2 < ..." (innermost first), at most max_frames */
const char *stack_fmt(const struct ksyms *k, const __u64 *ips, int n, int max_frames,
		      char *buf, size_t len);
const char *stack_kind_name(__u32 kind);

struct json;
struct snapshot;
/* "sampling": {...}, "pools": [{id, device, state, addr, gen, stacks: [...]}] */
void stacks_write_json(struct json *j, struct session *s, const struct ksyms *k,
		       const struct snapshot *snap, const struct stack_agg *v, size_t n,
		       uint64_t every);

#endif /* __PPWATCH_STACKS_H */
