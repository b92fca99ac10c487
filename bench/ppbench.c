// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppbench: per-event cost of BPF programs from the kernel's own statistics
 * (bpf_prog_info run_time_ns / run_cnt, BPF_STATS_RUN_TIME), next to the
 * counting-only baseline of bench/count.bpf.c measured in the same run.
 *
 *   ppbench [--contention] [--label TEXT] [--pid PID] -- COMMAND...
 *
 * Loads and attaches the baseline (and with --contention the shared and
 * per-CPU bookkeeping pairs), enables run-time statistics, runs COMMAND
 * (the traffic) and reports, as text and as one JSON line on fd 3 if
 * open, every program whose name is on the list below, each as ns per
 * event and as a ratio to the baseline. --label goes into the JSON line;
 * --pid keeps only the programs that process holds (another ppwatch on
 * the machine has programs of the same names).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "count.skel.h"

struct prog_stat {
	char name[BPF_OBJ_NAME_LEN];
	__u32 id;
	__u64 run_ns, run_cnt;
};

static const char *const watched[] = {
	"count_hold",	"count_release", "shared_hold",	    "shared_release", "pcpu_hold",
	"pcpu_release", "hold_btf",	 "release_btf",	    "hold_raw",	      "release_raw",
	"hold_tp",	"release_tp",	 "pool_release_bt", "hold_stack",     "release_stack",
};

/* the program ids process 'pid' holds fds of (fdinfo "prog_id:"), 0-terminated */
static int held_by(int pid, __u32 *ids, int max)
{
	char path[64], line[128];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) && n < max - 1) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%.16s", pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "prog_id: %u", &ids[n]) == 1 && n < max - 1)
				n++;
		fclose(f);
	}
	closedir(dir);
	ids[n] = 0;
	return n;
}

static __u32 only_ids[256];
static bool only;

static bool wanted(__u32 id, const char *name)
{
	int i;

	if (!only || !strncmp(name, "count_", 6) || !strncmp(name, "shared_", 7) ||
	    !strncmp(name, "pcpu_", 5))
		return true;
	for (i = 0; only_ids[i]; i++)
		if (only_ids[i] == id)
			return true;
	return false;
}

static int snapshot(struct prog_stat *v, int max)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id) && n < max) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		size_t i;
		int fd;

		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
			for (i = 0; i < sizeof(watched) / sizeof(watched[0]); i++) {
				if (strncmp(info.name, watched[i], sizeof(info.name)) ||
				    !wanted(id, info.name))
					continue;
				snprintf(v[n].name, sizeof(v[n].name), "%s", info.name);
				v[n].id = id;
				v[n].run_ns = info.run_time_ns;
				v[n].run_cnt = info.run_cnt;
				n++;
			}
		}
		close(fd);
	}
	return n;
}

static const struct prog_stat *find(const struct prog_stat *v, int n, __u32 id)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].id == id)
			return &v[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct prog_stat before[64], after[64];
	const char *label = "";
	double base = 0, ns;
	struct count_bpf *skel;
	int nb, na, i, st, stats_fd, first = 1, a = 1;
	bool contention = false;
	FILE *j = fdopen(3, "w");
	pid_t pid;

	for (; a < argc && strcmp(argv[a], "--"); a++) {
		if (!strcmp(argv[a], "--contention"))
			contention = true;
		else if (!strcmp(argv[a], "--label") && a + 1 < argc)
			label = argv[++a];
		else if (!strcmp(argv[a], "--pid") && a + 1 < argc) {
			if (held_by(atoi(argv[++a]), only_ids, 256) <= 0) {
				fprintf(stderr, "ppbench: no BPF programs held by pid %s\n",
					argv[a]);
				return 2;
			}
			only = true;
		} else
			break;
	}
	if (a + 1 >= argc || strcmp(argv[a], "--")) {
		fprintf(stderr,
			"usage: ppbench [--contention] [--label TEXT] [--pid PID] -- COMMAND...\n");
		return 2;
	}
	argv += a - 1;
	skel = count_bpf__open();
	if (skel && !contention) {
		bpf_program__set_autoload(skel->progs.shared_hold, false);
		bpf_program__set_autoload(skel->progs.shared_release, false);
		bpf_program__set_autoload(skel->progs.pcpu_hold, false);
		bpf_program__set_autoload(skel->progs.pcpu_release, false);
	}
	if (!skel || count_bpf__load(skel) || count_bpf__attach(skel)) {
		fprintf(stderr, "ppbench: loading the counting baseline: %s\n", strerror(errno));
		return 2;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "ppbench: bpf_enable_stats: %s\n", strerror(errno));
		return 2;
	}
	nb = snapshot(before, 64);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	na = snapshot(after, 64);
	close(stats_fd);

	printf("%-16s %10s %12s %10s %8s\n", "PROGRAM", "EVENTS", "RUN_NS", "NS/EVENT", "RATIO");
	for (i = 0; i < na; i++) {
		const struct prog_stat *b = find(before, nb, after[i].id);
		__u64 cnt = after[i].run_cnt - (b ? b->run_cnt : 0);
		__u64 t = after[i].run_ns - (b ? b->run_ns : 0);

		if (!strncmp(after[i].name, "count_", 6) && cnt)
			base += (double)t / cnt / 2; /* mean of hold and release */
	}
	if (j)
		fprintf(j, "{\"label\":\"%s\",\"baseline_ns\":%.1f,\"programs\":[", label, base);
	for (i = 0; i < na; i++) {
		const struct prog_stat *b = find(before, nb, after[i].id);
		__u64 cnt = after[i].run_cnt - (b ? b->run_cnt : 0);
		__u64 t = after[i].run_ns - (b ? b->run_ns : 0);

		if (!cnt)
			continue;
		ns = (double)t / cnt;
		printf("%-16s %10llu %12llu %10.1f %8.2f\n", after[i].name, (unsigned long long)cnt,
		       (unsigned long long)t, ns, base ? ns / base : 0);
		if (j)
			fprintf(j,
				"%s{\"name\":\"%s\",\"events\":%llu,\"run_ns\":%llu,"
				"\"ns_per_event\":%.1f,\"ratio\":%.2f}",
				first ? "" : ",", after[i].name, (unsigned long long)cnt,
				(unsigned long long)t, ns, base ? ns / base : 0);
		first = 0;
	}
	if (j) {
		fprintf(j, "]}\n");
		fclose(j);
	}
	count_bpf__destroy(skel);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}
