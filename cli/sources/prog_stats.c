// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "sources/prog_stats.h"

/* log level 4 (BPF_LOG_STATS) writes a few lines, a line per global function more */
#define PPW_STATS_LOG	(16 * 1024)
#define PPW_STATS_FUNCS 64

char *prog_stats_arm(struct bpf_object *obj)
{
	struct bpf_program *prog;
	char *logs;
	size_t n = 0;

	if (!getenv("PPWATCH_VERIFIER_STATS"))
		return NULL;
	bpf_object__for_each_program(prog, obj)
		n++;
	logs = calloc(n ? n : 1, PPW_STATS_LOG);
	if (!logs)
		return NULL;
	n = 0;
	bpf_object__for_each_program(prog, obj) {
		if (bpf_program__autoload(prog)) {
			bpf_program__set_log_buf(prog, logs + n * PPW_STATS_LOG, PPW_STATS_LOG);
			bpf_program__set_log_level(prog, 4);
		}
		n++;
	}
	return logs;
}

/*
 * The loaded program's functions by name, in the order the verifier numbers
 * its subprograms (func_info is sorted by instruction): "name=" prefixes
 * for its "stack depth A+B+..." line. 0 if the kernel gives no func_info.
 */
static int func_names(int fd, char names[][48], int max)
{
	struct bpf_func_info fi[PPW_STATS_FUNCS];
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct btf *btf;
	int i, n;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.btf_id || !info.nr_func_info)
		return 0;
	n = info.nr_func_info < (__u32)max ? (int)info.nr_func_info : max;
	memset(&info, 0, sizeof(info));
	info.nr_func_info = n;
	info.func_info_rec_size = sizeof(fi[0]);
	info.func_info = (__u64)(unsigned long)fi;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (libbpf_get_error(btf))
		return 0;
	for (i = 0; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, fi[i].type_id);
		const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;

		snprintf(names[i], sizeof(names[i]), "%s", name ? name : "?");
	}
	btf__free(btf);
	return n;
}

/* the figures of the log's "stack depth 16+64+..." line (any ':' or spaces
 * before them), NULL if no such line has figures */
static const char *depth_figures(const char *log)
{
	const char *p = log;

	while ((p = strstr(p, "stack depth")) != NULL) {
		p += strlen("stack depth");
		p += strspn(p, ": ");
		if (*p >= '0' && *p <= '9')
			return p;
	}
	return NULL;
}

/* "stack depth 16+64+..." as "stack scan_tcp=16 walk_sock=64 ... (sum N)" into out */
static void depth_line(const char *log, int fd, char *out, size_t len)
{
	static char names[PPW_STATS_FUNCS][48];
	const char *p = depth_figures(log), *raw = strstr(log, "stack depth");
	int n, i = 0;
	unsigned long d, sum = 0;
	size_t at = 0;
	char *end;

	if (!p) { /* a form this parser does not know: say it as the log has it */
		snprintf(out, len, "stack ? (log: %.*s)", raw ? (int)strcspn(raw, "\n") : 0,
			 raw ? raw : "no stack depth line");
		return;
	}
	n = func_names(fd, names, PPW_STATS_FUNCS);
	at += snprintf(out, len, "stack");
	for (;;) {
		d = strtoul(p, &end, 10);
		if (end == p)
			break;
		sum += d;
		if (at < len)
			at += snprintf(out + at, len - at, " %s=%lu", i < n ? names[i] : "?", d);
		i++;
		if (*end != '+')
			break;
		p = end + 1;
	}
	if (at < len)
		snprintf(out + at, len - at, " (%d functions, sum %lu)", i, sum);
}

void prog_stats_report(struct bpf_object *obj, char *logs)
{
	struct bpf_program *prog;
	unsigned long insns;
	const char *p;
	char line[1024];
	size_t n = 0;

	if (!logs)
		return;
	bpf_object__for_each_program(prog, obj) {
		char *log = logs + n++ * PPW_STATS_LOG;

		if (!bpf_program__autoload(prog))
			continue;
		log[PPW_STATS_LOG - 1] = 0;
		p = strstr(log, "processed ");
		if (!p || sscanf(p, "processed %lu", &insns) != 1)
			insns = 0;
		depth_line(log, bpf_program__fd(prog), line, sizeof(line));
		p_info("verifier: %s: %s, processed %lu insns", bpf_program__name(prog), line,
		       insns);
	}
	free(logs);
}
