/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Sampled kernel stacks at page hold and release (--stacks): the aggregate
 * map (pool, gen, kind, stack) -> count and the stack map, read back with
 * the tracing machinery's own frames trimmed. output/stacks_fmt.c prints
 * them.
 */
#ifndef __PPWATCH_SOURCES_STACKS_H
#define __PPWATCH_SOURCES_STACKS_H

#include <stddef.h>

#include "lib/ksyms.h"
#include "output/stacks_fmt.h"

struct session;

#define STACKS_DEFAULT_EVERY 64

/* every (pool, gen, kind, stack) with its count and frames, biggest first */
int stacks_read(struct session *s, const struct ksyms *k, struct stack_agg **out, size_t *n);
/* the frames of a stack id, trimmed; the number of frames, or -errno */
int stack_frames(struct session *s, const struct ksyms *k, __s32 id, __u64 *ips, int max);

#endif /* __PPWATCH_SOURCES_STACKS_H */
