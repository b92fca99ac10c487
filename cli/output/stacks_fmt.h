/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Sampled stacks as text and JSON: per pool and kind (hold, release, the
 * releases of a destroyed pool), biggest first, symbolised with kallsyms.
 */
#ifndef __PPWATCH_OUTPUT_STACKS_FMT_H
#define __PPWATCH_OUTPUT_STACKS_FMT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"
#include "lib/ksyms.h"
#include "model/snapshot.h"
#include "ppwatch.h"

/* one sampled stack of one pool and kind, with how often it was taken */
struct stack_agg {
	struct ppw_stack_key key;
	__u64 count;
	int nframes;
	__u64 ips[PPW_STACK_DEPTH]; /* innermost first */
};

const char *stack_kind_name(__u32 kind);
/* "a+0x1 < b+0x2 < ..." (innermost first), at most max_frames */
const char *stack_fmt(const struct ksyms *k, const __u64 *ips, int n, int max_frames, char *buf,
		      size_t len);
/* every pool of the snapshot with its 'top' stacks per kind, one frame a line */
void stacks_print_text(FILE *f, const struct ksyms *k, const struct snapshot *snap,
		       const struct stack_agg *v, size_t n, uint64_t top, uint64_t every);
/* "sampling": {...}, "pools": [{id, device, state, addr, gen, stacks: [...]}] */
void stacks_write_json(struct json *j, const struct ksyms *k, const struct snapshot *snap,
		       const struct stack_agg *v, size_t n, uint64_t every);

#endif /* __PPWATCH_OUTPUT_STACKS_FMT_H */
