// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/vec.h"
#include "ppwatch.skel.h"
#include "sources/loader.h"
#include "sources/stacks.h"

static int agg_cmp(const void *a, const void *b)
{
	const struct stack_agg *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* the tracing machinery's own frames (the program, bpf_trace_runN, perf_trace_*) */
static bool machinery(const struct ksyms *k, __u64 ip)
{
	static const char *const pfx[] = { "bpf_",
					   "__bpf_",
					   "perf_trace_",
					   "__traceiter_",
					   "trace_event_raw_event_",
					   "perf_tp_",
					   "trace_call_bpf" };
	char sym[160];
	size_t i;

	ksyms_fmt(k, ip, sym, sizeof(sym));
	if (sym[0] == '0') /* unknown: JITed code without a kallsyms entry */
		return true;
	for (i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(sym, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

static int trim(const struct ksyms *k, __u64 *ips, int n)
{
	int skip = 0, i;

	if (!k)
		return n;
	for (i = 0; i < n && i < 6; i++)
		if (machinery(k, ips[i]))
			skip = i + 1;
	if (skip)
		memmove(ips, ips + skip, (n - skip) * sizeof(*ips));
	return n - skip;
}

int stack_frames(struct session *s, const struct ksyms *k, __s32 id, __u64 *ips, int max)
{
	__u64 buf[PPW_STACK_DEPTH] = { 0 };
	__u32 key = id;
	int i;

	if (id < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stacks), &key, buf))
		return -errno;
	for (i = 0; i < PPW_STACK_DEPTH && i < max && buf[i]; i++)
		ips[i] = buf[i];
	return trim(k, ips, i);
}

int stacks_read(struct session *s, const struct ksyms *k, struct stack_agg **out, size_t *n)
{
	int fd = bpf_map__fd(s->skel->maps.stack_counts);
	struct ppw_stack_key key, next, *prev = NULL;
	struct stack_agg *v = NULL, *a;
	size_t cnt = 0, cap = 0;
	__u64 c;
	int nf;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &c))
			continue;
		a = VEC_PUSH(v, cnt, cap);
		if (!a) {
			p_err("reading the sampled stacks (map 'stack_counts', %zu so far): %s",
			      cnt, strerror(ENOMEM));
			free(v);
			return -ENOMEM;
		}
		a->key = key;
		a->count = c;
		nf = stack_frames(s, k, key.stack_id, a->ips, PPW_STACK_DEPTH);
		a->nframes = nf > 0 ? nf : 0;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), agg_cmp);
	*out = v;
	*n = cnt;
	return 0;
}
