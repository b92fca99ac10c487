// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch stacks [POOL|DEVICE]... [-e N] [-n TOP] [DURATION]
 *
 * Samples kernel stacks at page hold and release (1 in N events, default
 * 64: a stack costs microseconds, so sampling is the default) for
 * DURATION or until Ctrl-C, then prints the top stacks per pool. Every
 * release of a destroyed pool's pages is taken, not sampled: those are few
 * and they answer "who returned the last pages?".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "main.h"
#include "sources/monitor.h"
#include "ppwatch.skel.h"
#include "sources/stacks.h"
#include "lib/util.h"

const char *stack_kind_name(__u32 kind)
{
	switch (kind) {
	case PPW_STACK_HOLD: return "hold";
	case PPW_STACK_RELEASE: return "release";
	case PPW_STACK_ZOMBIE_RELEASE: return "zombie_release";
	}
	return "?";
}

static int agg_cmp(const void *a, const void *b)
{
	const struct stack_agg *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int stacks_read(struct session *s, struct stack_agg **out, size_t *n)
{
	int fd = bpf_map__fd(s->skel->maps.stack_counts);
	struct ppw_stack_key key, next, *prev = NULL;
	struct stack_agg *v = NULL;
	size_t cnt = 0, cap = 0;
	__u64 c;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &c))
			continue;
		if (cnt == cap) {
			struct stack_agg *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[cnt].key = key;
		v[cnt].count = c;
		cnt++;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), agg_cmp);
	*out = v;
	*n = cnt;
	return 0;
}

/* the tracing machinery's own frames (the program, bpf_trace_runN, perf_trace_*) */
static bool machinery(const struct ksyms *k, __u64 ip)
{
	static const char *const pfx[] = { "bpf_", "__bpf_", "perf_trace_", "__traceiter_",
					   "trace_event_raw_event_", "perf_tp_", "trace_call_bpf" };
	char sym[160];
	size_t i;

	ksyms_fmt(k, ip, sym, sizeof(sym));
	if (sym[0] == '0')	/* unknown: JITed code without a kallsyms entry */
		return true;
	for (i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(sym, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

int stack_trim(const struct ksyms *k, __u64 *ips, int n)
{
	int skip = 0, i;

	for (i = 0; i < n && i < 6; i++)
		if (machinery(k, ips[i]))
			skip = i + 1;
	if (skip)
		memmove(ips, ips + skip, (n - skip) * sizeof(*ips));
	return n - skip;
}

int stack_frames(struct session *s, __s32 id, __u64 *ips, int max)
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
	return i;
}

const char *stack_fmt(const struct ksyms *k, const __u64 *ips, int n, int max_frames,
		      char *buf, size_t len)
{
	char sym[160];
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && i < max_frames && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " < " : "",
				ksyms_fmt(k, ips[i], sym, sizeof(sym)));
	return buf;
}

/* ---- the command ------------------------------------------------------------- */

static struct {
	uint64_t every;
	uint64_t top;
	double duration;
	struct view_opts view;
} opts = {
	.every = STACKS_DEFAULT_EVERY,
	.top = 5,
};

static const struct option stacks_lopts[] = {
	{ "every", required_argument, NULL, 'e' },
	{ "top", required_argument, NULL, 'n' },
	{ 0 }
};

static int stacks_opt(int o, const char *arg)
{
	switch (o) {
	case 'e':
		if (parse_u64(arg, 1, 1 << 20, &opts.every)) {
			usage_error("--every '%s': expected 1 (every event) .. 1048576", arg);
			return -EINVAL;
		}
		return 0;
	case 'n':
		if (parse_u64(arg, 1, 1000, &opts.top)) {
			usage_error("--top '%s': expected 1..1000", arg);
			return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

static void stacks_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      only these pools\n"
	       "  DURATION           sample this long (default: until Ctrl-C)\n"
	       "\n"
	       "  -e, --every N      take 1 stack in N hold/release events (default %d);\n"
	       "                     releases of destroyed pools are always taken\n"
	       "  -n, --top N        stacks shown per pool and kind (default 5)\n\n"
	       "OVERHEAD: a stack costs about 4-5 us; at 1 in 64, about 70 ns per event.\n\n",
	       STACKS_DEFAULT_EVERY);
}

static void print_text(struct monitor *m, const struct ksyms *k, struct stack_agg *v,
		       size_t n)
{
	__u64 ips[PPW_STACK_DEPTH];
	char buf[4096];
	size_t i, r;
	int nf, f;

	for (r = 0; r < m->cur.n; r++) {
		const struct pool_row *row = &m->cur.rows[r];
		__u32 kind;
		bool title = false;

		for (kind = PPW_STACK_HOLD; kind <= PPW_STACK_ZOMBIE_RELEASE; kind++) {
			uint64_t shown = 0;

			for (i = 0; i < n && shown < opts.top; i++) {
				if (v[i].key.pool != row->addr || v[i].key.gen != row->gen ||
				    v[i].key.kind != kind)
					continue;
				if (!title) {
					printf("pool %u %s (%s)\n", row->id, row->device,
					       row_state_name(row->state));
					title = true;
				}
				printf("  %s: %llu sampled (~%llu events)\n", stack_kind_name(kind),
				       (unsigned long long)v[i].count,
				       (unsigned long long)(kind == PPW_STACK_ZOMBIE_RELEASE ?
							    v[i].count : v[i].count * opts.every));
				nf = stack_frames(&m->s, v[i].key.stack_id, ips, PPW_STACK_DEPTH);
				nf = nf > 0 ? stack_trim(k, ips, nf) : nf;
				for (f = 0; f < nf; f++)
					printf("      %s\n", ksyms_fmt(k, ips[f], buf, sizeof(buf)));
				shown++;
			}
		}
		if (title)
			putchar('\n');
	}
}

void stacks_write_json(struct json *j, struct session *s, const struct ksyms *k,
		       const struct snapshot *snap, const struct stack_agg *v, size_t n,
		       uint64_t every)
{
	__u64 ips[PPW_STACK_DEPTH];
	char buf[512];
	size_t i, r;
	int nf, f;

	json_key(j, "sampling");
	json_obj_open(j);
	json_kv_u64(j, "every", every);
	json_kv_u64(j, "stacks_taken", snap->counters[PPW_CNT_STACKS]);
	json_kv_u64(j, "stacks_lost", snap->counters[PPW_CNT_STACK_FAIL]);
	json_obj_close(j);
	json_key(j, "pools");
	json_arr_open(j);
	for (r = 0; r < snap->n; r++) {
		const struct pool_row *row = &snap->rows[r];
		char a[24];

		json_obj_open(j);
		json_kv_u64(j, "id", row->id);
		json_kv_str(j, "device", row->device);
		json_kv_str(j, "state", row_state_name(row->state));
		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)row->addr);
		json_kv_str(j, "addr", a);
		json_kv_u64(j, "gen", row->gen);
		json_key(j, "stacks");
		json_arr_open(j);
		for (i = 0; i < n; i++) {
			if (v[i].key.pool != row->addr || v[i].key.gen != row->gen)
				continue;
			json_obj_open(j);
			json_kv_str(j, "kind", stack_kind_name(v[i].key.kind));
			json_kv_u64(j, "count", v[i].count);
			json_kv_u64(j, "estimated_events",
				    v[i].key.kind == PPW_STACK_ZOMBIE_RELEASE ? v[i].count :
				    v[i].count * every);
			json_key(j, "frames");
			json_arr_open(j);
			nf = stack_frames(s, v[i].key.stack_id, ips, PPW_STACK_DEPTH);
			nf = nf > 0 ? stack_trim(k, ips, nf) : nf;
			for (f = 0; f < nf; f++)
				json_str(j, ksyms_fmt(k, ips[f], buf, sizeof(buf)));
			json_arr_close(j);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void print_json(struct monitor *m, const struct ksyms *k, struct stack_agg *v,
		       size_t n)
{
	json_obj_open(&jw);
	json_kv_str(&jw, "version", PPWATCH_VERSION);
	stacks_write_json(&jw, &m->s, k, &m->cur, v, n, opts.every);
	json_obj_close(&jw);
	json_end(&jw);
}

static int stacks_run(int argc, char **argv)
{
	struct stack_agg *v = NULL;
	struct ksyms k;
	struct monitor m;
	double end;
	size_t n = 0;
	int err;

	if (view_parse_args(&opts.view, argc, argv, &opts.duration))
		return EXIT_ERROR;
	err = ksyms_load(&k, NULL);
	if (err) {
		p_err("reading /proc/kallsyms: %s%s", strerror(-err), err == -EPERM ?
		      ": addresses are hidden (kernel.kptr_restrict), run as root" : "");
		return EXIT_ERROR;
	}
	if (monitor_open(&m, &(struct monitor_opts){ .stack_every = opts.every })) {
		ksyms_free(&k);
		return EXIT_ERROR;
	}
	m.col.keep_freed_s = 3600;
	err = monitor_sample(&m);
	if (!opts.duration)
		p_info("sampling stacks, 1 in %llu events; Ctrl-C to stop",
		       (unsigned long long)opts.every);
	end = now_mono_ns() / 1e9 + (opts.duration ? opts.duration : 1e12);
	while (!err && !exiting && now_mono_ns() / 1e9 < end)
		session_poll(&m.s, 100);
	err = err ?: monitor_sample(&m);
	err = err ?: stacks_read(&m.s, &v, &n);
	if (!err) {
		snapshot_filter(&m.cur, opts.view.filters, opts.view.nfilters);
		if (env.json)
			print_json(&m, &k, v, n);
		else
			print_text(&m, &k, v, n);
	} else {
		p_err("reading sampled stacks: %s", strerror(-err));
	}
	free(v);
	monitor_close(&m);
	ksyms_free(&k);
	return err ? EXIT_ERROR : EXIT_OK;
}

const struct command cmd_stacks = {
	.name = "stacks",
	.synopsis = "[POOL|DEVICE]... [-e N] [-n TOP] [DURATION]",
	.summary = "sampled kernel stacks that hold and release each pool's pages",
	.lopts = stacks_lopts,
	.sopts = "e:n:",
	.opt = stacks_opt,
	.run = stacks_run,
	.help = stacks_help,
};
