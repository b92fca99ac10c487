// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppbench: per-event cost of BPF programs from the kernel's own statistics
 * (bpf_prog_info run_time_ns / run_cnt, BPF_STATS_RUN_TIME), next to the
 * counting-only baseline of bench/count.bpf.c measured in the same run.
 *
 *   ppbench [--contention | --alt NAME] [--label TEXT] [--pid PID] -- COMMAND...
 *   ppbench --fold PAGES [--label TEXT]
 *
 * Loads and attaches the baseline (and with --contention the shared and
 * per-CPU bookkeeping pairs), enables run-time statistics, runs COMMAND
 * (the traffic) and reports, as text and as one JSON line on fd 3 if
 * open, every program whose name is on the list below, each as ns per
 * event and as a ratio to the baseline. --label goes into the JSON line;
 * --pid keeps only the programs that process holds (another ppwatch on
 * the machine has programs of the same names), and counts the CPU it ran
 * while COMMAND ran and after, until it has caught up (folded what the
 * burst left in its page logs): its CPU over the last 300 ms no more than
 * when it was idle before COMMAND, 10 s at most.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "alt.skel.h"
#include "count.skel.h"
#include "model/page_ledger.h"

struct prog_stat {
	char name[BPF_OBJ_NAME_LEN];
	__u32 id;
	__u64 run_ns, run_cnt;
};

static const char *const watched[] = {
	"count_hold",	 "count_release", "shared_hold",     "shared_release", "pcpu_hold",
	"pcpu_release",	 "hold_btf",	  "release_btf",     "hold_raw",       "release_raw",
	"hold_tp",	 "release_tp",	  "pool_release_bt", "hold_stack",     "release_stack",
	"alog_hold",	 "alog_release",  "ajif_hold",	     "ajif_release",   "aktm_hold",
	"aone_hold",	 "aone_release",  "aktm_release",    "aarr_hold",      "aarr_release",
	"ahash_hold",	 "ahash_release", "aring_hold",	     "aring_release",  "ahalf_hold",
	"ahalf_release", "afixed_hold",	  "afixed_release",
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
static int only_pid;

/* the time pid has run on a CPU, in ns (/proc/PID/schedstat), or 0 */
static unsigned long long run_ns_of(int pid);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define QUIET_S 0.3

/* pid's CPU per QUIET_S while nothing happens (its refreshes): measured over 1 s */
static double idle_rate(int pid)
{
	unsigned long long a = run_ns_of(pid);
	struct timespec one = { 1, 0 };

	nanosleep(&one, NULL);
	return (run_ns_of(pid) - a) * QUIET_S;
}

/* wait until pid is back to idle: the ns it ran meanwhile (*took: how long) */
static unsigned long long catch_up(int pid, double idle, double *took)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	unsigned long long s[200];
	double t0 = now_s();
	int k;

	s[0] = run_ns_of(pid);
	/* a window of 6 ticks of 50 ms: a drain (every 0.25 s at most) falls in it */
	for (k = 1; k < 200; k++) {
		nanosleep(&tick, NULL);
		s[k] = run_ns_of(pid);
		if (k >= 6 && s[k] - s[k - 6] <= idle + 1e6)
			break;
	}
	*took = now_s() - t0;
	return s[k < 200 ? k : 199] - s[0];
}

static unsigned long long run_ns_of(int pid)
{
	unsigned long long ns = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

static bool wanted(__u32 id, const char *name)
{
	int i;

	if (!only || !strncmp(name, "count_", 6) || !strncmp(name, "shared_", 7) ||
	    !strncmp(name, "pcpu_", 5) || name[0] == 'a')
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

/* ---- --alt: one alternative pair, its log or ring drained meanwhile ------------ */

struct alt_rec {
	__u64 w;
	__u32 gen, t;
};

struct alt_ctl {
	__u64 head, tail, dropped, last_t, pad[4];
};

static int ring_skip(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

static struct alt_bpf *alt_load(const char *name)
{
	char hold[32], rel[32];
	struct bpf_program *p;
	struct alt_bpf *a = alt_bpf__open();

	if (!a)
		return NULL;
	/* 'read': jif's programs, its log read record by record as ppwatch's reader does */
	if (!strcmp(name, "read"))
		name = "jif";
	snprintf(hold, sizeof(hold), "a%s_hold", name);
	snprintf(rel, sizeof(rel), "a%s_release", name);
	bpf_object__for_each_program(p, a->obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), hold) ||
						     !strcmp(bpf_program__name(p), rel));
	if (alt_bpf__load(a) || alt_bpf__attach(a)) {
		alt_bpf__destroy(a);
		return NULL;
	}
	return a;
}

#define ALT_LOG_RECS (1U << 16) /* alt.bpf.c's LOG_RECS */

/* every record of CPU i's log from its tail to its head, read as the reader does */
static __u64 alt_read(const struct alt_rec *log, struct alt_ctl *c, int i)
{
	__u64 t, h = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE), sum = 0;

	for (t = c->tail; t != h; t++)
		sum += __atomic_load_n(&log[(size_t)i * ALT_LOG_RECS + (t & (ALT_LOG_RECS - 1))].w,
				       __ATOMIC_ACQUIRE);
	return sum;
}

/*
 * While the child runs: every 5 ms, the logs' tails to their heads, the
 * ring consumed; with 'read', each record read first (its lines leave the
 * writer's cache, as ppwatch's reader takes them).
 */
static void alt_drain_until(struct alt_bpf *a, pid_t pid, int *st, bool read)
{
	int fd = bpf_map__fd(a->maps.alt_ctl), ncpu = libbpf_num_possible_cpus();
	/* 64 CPUs' control lines, then (alternative 'one') their release logs' */
	size_t len = 2 * 64 * sizeof(struct alt_ctl);
	struct ring_buffer *rb =
		ring_buffer__new(bpf_map__fd(a->maps.alt_ring), ring_skip, NULL, NULL);
	struct alt_ctl *c = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	size_t log_len = (size_t)64 * ALT_LOG_RECS * sizeof(struct alt_rec);
	const struct alt_rec *log =
		read ? mmap(NULL, log_len, PROT_READ, MAP_SHARED, bpf_map__fd(a->maps.alt_log), 0) :
		       MAP_FAILED;
	volatile __u64 sink = 0;
	__u64 dropped = 0;
	int i;

	while (waitpid(pid, st, WNOHANG) == 0) {
		usleep(5000);
		for (i = 0; log != MAP_FAILED && c != MAP_FAILED && i < ncpu && i < 64; i++)
			sink += alt_read(log, &c[i], i);
		for (i = 0; c != MAP_FAILED && i < 2 * 64; i++)
			if (i % 64 < ncpu)
				__atomic_store_n(&c[i].tail,
						 __atomic_load_n(&c[i].head, __ATOMIC_ACQUIRE),
						 __ATOMIC_RELEASE);
		if (rb)
			ring_buffer__consume(rb);
	}
	for (i = 0; c != MAP_FAILED && i < 2 * 64; i++)
		dropped += c[i].dropped;
	if (dropped)
		fprintf(stderr, "ppbench: the alternative's log dropped %llu events\n",
			(unsigned long long)dropped);
	if (c != MAP_FAILED)
		munmap(c, len);
	if (log != MAP_FAILED)
		munmap((void *)log, log_len);
	(void)sink;
	ring_buffer__free(rb);
}

/* ---- --fold: the user-space fold on made-up logs ---------------------------------- */

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* this process's CPU: the machine is shared */
	return t.tv_sec + t.tv_nsec / 1e9;
}

static __u64 xs = 0x9e3779b97f4a7c15ULL;

static __u64 rnd64(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

static int count_cb(void *arg, const struct pl_page *p)
{
	(void)p;
	(*(size_t *)arg)++;
	return 0;
}

static int fold_bench(size_t pages, const char *label, FILE *j)
{
	/* distinct struct pages (an odd multiplier permutes the page numbers) of a 1 TiB machine */
	const __u64 base = 0xffffea0000000000ULL, pfn_mask = (1ULL << 28) - 1;
	__u64 ctr = 1;
	size_t nev = pages * 4 > 4000000 ? pages * 4 : 4000000, i, n = 0;
	struct page_ledger l;
	__u64 *live, t = 1;
	double t0, t1, t2;

	live = calloc(pages, sizeof(*live));
	if (!live || pl_init(&l, pages + pages / 8 + 16)) {
		fprintf(stderr, "ppbench: no memory for %zu pages\n", pages);
		return 2;
	}
	for (i = 0; i < pages; i++) {
		live[i] = base + ((ctr++ * 0x9e3779b1ULL) & pfn_mask) * 64;
		pl_fold(&l, live[i], false, 1, t, 0);
	}
	pl_pass(&l, t);
	t0 = mono();
	/* as sources/page_log.c drains: 16 records prefetched, then folded */
	for (i = 0; i < nev; i += 16) {
		__u64 rel[8], hold[8];
		size_t k, b;

		if (!(i & 1023)) {
			t++;
			if (!(i & 65535))
				pl_pass(&l, t - 2);
		}
		for (b = 0; b < 8; b++) {
			k = rnd64() % pages;
			rel[b] = live[k];
			live[k] = hold[b] = base + ((ctr++ * 0x9e3779b1ULL) & pfn_mask) * 64;
			pl_prefetch(&l, rel[b]);
			pl_prefetch(&l, hold[b]);
		}
		for (b = 0; b < 8; b++) {
			pl_fold(&l, rel[b], true, 1, t, (__u32)(b & 1));
			pl_fold(&l, hold[b], false, 1, t, (__u32)(b & 1));
		}
	}
	t1 = mono();
	pl_pass(&l, t + 2);
	pl_collect(&l, count_cb, &n);
	t2 = mono();
	printf("fold: %zu pages inflight, %zu events: %.1f ns per event; a walk %.1f ms (%.1f ns "
	       "a page); %zu KiB (%.1f B a page), %zu inflight\n",
	       pages, nev, (t1 - t0) * 1e9 / nev, (t2 - t1) * 1e3, (t2 - t1) * 1e9 / pages,
	       pl_bytes(&l) / 1024, (double)pl_bytes(&l) / pages, n);
	if (j)
		fprintf(j,
			"{\"label\":\"%s\",\"pages\":%zu,\"events\":%zu,\"ns_per_event\":%.1f,"
			"\"walk_ns_per_page\":%.1f,\"bytes\":%zu}\n",
			label, pages, nev, (t1 - t0) * 1e9 / nev, (t2 - t1) * 1e9 / pages,
			pl_bytes(&l));
	pl_free(&l);
	free(live);
	return n == pages ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct prog_stat before[64], after[64];
	const char *label = "";
	double base = 0, ns;
	struct count_bpf *skel;
	struct alt_bpf *alt = NULL;
	const char *alt_name = NULL;
	unsigned long long cpu0, cpu1, catchup = 0;
	double idle = 0, catchup_s = 0;
	int nb, na, i, st, stats_fd, first = 1, a = 1;
	bool contention = false;
	FILE *j = fdopen(3, "w");
	pid_t pid;

	for (; a < argc && strcmp(argv[a], "--"); a++) {
		if (!strcmp(argv[a], "--contention"))
			contention = true;
		else if (!strcmp(argv[a], "--alt") && a + 1 < argc)
			alt_name = argv[++a];
		else if (!strcmp(argv[a], "--fold") && a + 1 < argc)
			return fold_bench(strtoul(argv[++a], NULL, 0), label, j);
		else if (!strcmp(argv[a], "--label") && a + 1 < argc)
			label = argv[++a];
		else if (!strcmp(argv[a], "--pid") && a + 1 < argc) {
			only_pid = atoi(argv[++a]);
			if (held_by(only_pid, only_ids, 256) <= 0) {
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
			"usage: ppbench [--contention | --alt NAME] [--label TEXT] [--pid PID] "
			"-- COMMAND...\n"
			"       ppbench [--label TEXT] --fold PAGES\n");
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
	if (alt_name) {
		alt = alt_load(alt_name);
		if (!alt) {
			fprintf(stderr, "ppbench: loading alternative '%s' (bench/alt.bpf.c): %s\n",
				alt_name, strerror(errno));
			return 2;
		}
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "ppbench: bpf_enable_stats: %s\n", strerror(errno));
		return 2;
	}
	idle = only_pid ? idle_rate(only_pid) : 0;
	nb = snapshot(before, 64);
	cpu0 = only_pid ? run_ns_of(only_pid) : 0;
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (alt)
		alt_drain_until(alt, pid, &st, !strcmp(alt_name, "read"));
	else
		waitpid(pid, &st, 0);
	na = snapshot(after, 64);
	cpu1 = only_pid ? run_ns_of(only_pid) : 0;
	/* the fold's catch-up after the burst: the same events' cost */
	catchup = only_pid ? catch_up(only_pid, idle, &catchup_s) : 0;
	cpu1 += catchup;
	close(stats_fd);

	printf("%-16s %10s %12s %10s %8s\n", "PROGRAM", "EVENTS", "RUN_NS", "NS/EVENT", "RATIO");
	for (i = 0; i < na; i++) {
		const struct prog_stat *b = find(before, nb, after[i].id);
		__u64 cnt = after[i].run_cnt - (b ? b->run_cnt : 0);
		__u64 t = after[i].run_ns - (b ? b->run_ns : 0);

		if (!strncmp(after[i].name, "count_", 6) && cnt)
			base += (double)t / cnt / 2; /* mean of hold and release */
	}
	if (only_pid)
		printf("pid %d ran %.1f ms on a CPU meanwhile, %.1f ms of it catching up %.2f s after\n",
		       only_pid, (cpu1 - cpu0) / 1e6, catchup / 1e6, catchup_s);
	if (j)
		fprintf(j,
			"{\"label\":\"%s\",\"baseline_ns\":%.1f,\"process_cpu_ns\":%llu,"
			"\"catchup_cpu_ns\":%llu,\"catchup_s\":%.3f,\"programs\":[",
			label, base, cpu1 - cpu0, catchup, catchup_s);
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
	alt_bpf__destroy(alt);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}
