// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/util.h"
#include "ppwatch.skel.h"
#include "sources/page_log.h"

#define MIN_INTERVAL_S 0.01
#define BATCH	       16
#define MAX_INTERVAL_S 0.25
/* a reserved slot still unwritten this long was lost (the writer never fails to write) */
#define STALL_NS (NSEC_PER_SEC / 2)

struct pair {
	__u64 ns0, j, ns1; /* jiffies was j at some instant in [ns0, ns1] */
};

static int clock_pair(struct page_log *pl, struct pair *p)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct ppwatch_bpf *sk = pl->s->skel;
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(sk->progs.clock_pair), &opts);
	if (err) {
		err = -errno;
		p_err("reading jiffies (BPF_PROG_TEST_RUN of prog 'clock_pair'): %s; page ages "
		      "need it (Linux 5.10 runs raw_tp programs on demand)",
		      strerror(-err));
		return err;
	}
	p->ns0 = sk->bss->clock_ns;
	p->j = sk->bss->clock_jiffies;
	p->ns1 = sk->bss->clock_ns_after;
	return 0;
}

/* the HZ values kernels are built with: a measured tick snaps to one */
static __u64 snap_tick(double ns)
{
	static const int hz[] = { 100, 200, 250, 300, 500, 1000 };
	size_t i;

	for (i = 0; i < sizeof(hz) / sizeof(hz[0]); i++) {
		double want = 1e9 / hz[i];

		if (fabs(ns - want) < want * 0.05)
			return (__u64)(want + 0.5);
	}
	return (__u64)(ns + 0.5);
}

/*
 * Watch ticks begin: between a pair still in tick j-1 and the next one in
 * tick j, tick j began, within the gap around it. Pairs are asked 100 us
 * apart, sleeping between (a preempted reader sees wider gaps); once two
 * edges give the tick's length roughly, the reader wakes just before the
 * next edge and asks back to back across it (~0.4 ms of CPU an edge). Of
 * the edges seen, the two whose gaps say the length best (at least
 * SPAN_TICKS apart, to within 2 %: HZ values are 20 % apart or more) give
 * the length, the narrowest the start. At most a second, once per
 * session; each drain's pair keeps the start right after.
 */
#define SPAN_TICKS 4
#define MAX_EDGES  64
#define NEAR_NS	   200000 /* ask back to back this close to an expected edge */

struct edge {
	__u64 j, mid, width;
};

/* the best length the edges give: its uncertainty as a fraction of it (1: none yet) */
static double tick_of(const struct edge *e, int n, double *tick)
{
	double best = 1;
	int a, b;

	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			double t, u;

			if (e[b].j < e[a].j + SPAN_TICKS)
				continue;
			t = (double)(e[b].mid - e[a].mid) / (double)(e[b].j - e[a].j);
			u = (double)(e[a].width + e[b].width) / 2 / (double)(e[b].j - e[a].j) / t;
			if (t > 0 && u < best) {
				best = u;
				*tick = t;
			}
		}
	return best;
}

static int calibrate(struct page_log *pl)
{
	struct timespec nap = { 0, 100 * 1000 };
	struct edge e[MAX_EDGES];
	double tick = 0, u = 1;
	struct pair prev, cur;
	int n = 0, err, i = 0, k, narrow = 0;
	__u64 t_end, next = 0;

	err = clock_pair(pl, &prev);
	cur = prev;
	t_end = prev.ns0 + NSEC_PER_SEC;
	while (!err && u > 0.02 && cur.ns1 < t_end && n < MAX_EDGES) {
		/* asleep until just before the next edge, once the length is roughly known */
		if (!next || cur.ns1 + NEAR_NS < next)
			nanosleep(&nap, NULL);
		err = clock_pair(pl, &cur);
		i++;
		if (!err && cur.j == prev.j + 1) {
			e[n].j = cur.j;
			e[n].width = cur.ns1 - prev.ns0;
			e[n].mid = prev.ns0 / 2 + cur.ns1 / 2;
			n++;
			u = tick_of(e, n, &tick);
			next = u < 0.1 ? e[n - 1].mid + (__u64)tick : 0;
		}
		if (next && cur.ns1 > next + NEAR_NS)
			next += (__u64)tick; /* missed it (preempted): the one after */
		prev = cur;
	}
	if (err)
		return err;
	if (u > 0.02) {
		p_err("reading jiffies: %d clock ticks seen begin in %d tries over 1 s, too unevenly to "
		      "tell the tick's length; page ages are unknown",
		      n, i);
		return -ETIME;
	}
	for (k = 1; k < n; k++)
		if (e[k].width < e[narrow].width)
			narrow = k;
	pl->tick_ns = snap_tick(tick);
	pl->edge_j = e[narrow].j;
	pl->edge_ns = e[narrow].mid;
	pl->jiffies = cur.j;
	p_dbg("page log: a tick is %llu ns (HZ %.0f; measured %.0f ns +- %.1f %%), tick %llu began "
	      "at %llu ns (to %llu us), %d pairs, %d edges",
	      (unsigned long long)pl->tick_ns, 1e9 / pl->tick_ns, tick, u * 100,
	      (unsigned long long)pl->edge_j, (unsigned long long)pl->edge_ns,
	      (unsigned long long)e[narrow].width / 2000, i, n);
	return 0;
}

/* a pair says where tick p->j began within a tick: keep the start inside what it allows */
static void keep_edge(struct page_log *pl, const struct pair *p)
{
	__u64 start = pl->edge_ns + (__u64)((__s64)(p->j - pl->edge_j) * (__s64)pl->tick_ns);

	if (start > p->ns1) /* the tick had begun by ns1 */
		pl->edge_ns -= start - p->ns1;
	else if (start + pl->tick_ns < p->ns0) /* and not ended before ns0 (or time jumped) */
		pl->edge_ns += p->ns0 - (start + pl->tick_ns);
	pl->jiffies = p->j;
}

__u64 page_log_ns(const struct page_log *pl, __u64 j)
{
	return pl->edge_ns + (__u64)((__s64)(j - pl->edge_j) * (__s64)pl->tick_ns) +
	       pl->tick_ns / 2;
}

static int map_logs(struct page_log *pl)
{
	struct ppwatch_bpf *sk = pl->s->skel;
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	pl->log_len = ((size_t)pl->ncpus * pl->recs * sizeof(*pl->log) + page - 1) / page * page;
	p = mmap(NULL, pl->log_len, PROT_READ, MAP_SHARED, bpf_map__fd(sk->maps.page_log), 0);
	if (p == MAP_FAILED) {
		pl->log_len = 0;
		return -errno;
	}
	pl->log = p;
	pl->ctl_len = ((size_t)pl->ncpus * sizeof(*pl->ctl) + page - 1) / page * page;
	p = mmap(NULL, pl->ctl_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(sk->maps.log_ctl), 0);
	if (p == MAP_FAILED) {
		pl->ctl_len = 0;
		return -errno;
	}
	pl->ctl = p;
	return 0;
}

int page_log_open(struct page_log *pl, struct session *s)
{
	int err;

	memset(pl, 0, sizeof(*pl));
	pl->s = s;
	pl->on = s->log_recs > 0;
	if (!pl->on)
		return 0;
	pl->recs = s->log_recs;
	while ((1U << pl->shift) < pl->recs)
		pl->shift++;
	pl->ncpus = s->ncpus;
	err = map_logs(pl);
	if (err) {
		p_err("mapping the page log (maps 'page_log', 'log_ctl', %d CPUs of %u records): %s",
		      pl->ncpus, pl->recs, strerror(-err));
		page_log_close(pl);
		return err;
	}
	pl->stall_at = calloc((size_t)pl->ncpus, sizeof(*pl->stall_at));
	pl->stall_ns = calloc((size_t)pl->ncpus, sizeof(*pl->stall_ns));
	err = !pl->stall_at || !pl->stall_ns ? -ENOMEM : pl_init(&pl->led, s->ledger_pages);
	if (err) {
		p_err("setting up the page ledger for %llu pages: %s",
		      (unsigned long long)s->ledger_pages, strerror(-err));
		page_log_close(pl);
		return err;
	}
	err = calibrate(pl);
	if (err) {
		page_log_close(pl);
		return err;
	}
	pl->interval_s = 0.1;
	pl->due_s = now_mono_s() + pl->interval_s;
	return 0;
}

void page_log_close(struct page_log *pl)
{
	if (pl->on && pl->passes)
		p_dbg("page log: %llu records folded in %llu passes, %.1f ms of CPU (%.1f ns each); "
		      "%llu lost to a slot never written",
		      (unsigned long long)pl->records, (unsigned long long)pl->passes,
		      pl->cpu_ns / 1e6, pl->records ? (double)pl->cpu_ns / pl->records : 0.0,
		      (unsigned long long)pl->skipped);
	if (pl->log_len)
		munmap((void *)pl->log, pl->log_len);
	if (pl->ctl_len)
		munmap(pl->ctl, pl->ctl_len);
	free(pl->stall_at);
	free(pl->stall_ns);
	pl_free(&pl->led);
	memset(pl, 0, sizeof(*pl));
}

/* is the record at position pos there (its lap bit is pos's lap parity)? */
static bool present(const struct page_log *pl, __u64 w, __u64 pos)
{
	return w && !!(w & PPW_LOG_LAP) == !!(((pos >> pl->shift) + 1) & 1);
}

/* fold one CPU's log; false if it is stuck at a slot a pass ago still unwritten */
static bool drain_cpu(struct page_log *pl, int cpu, __u64 now_ns)
{
	const struct ppw_log_rec *base = pl->log + (size_t)cpu * pl->recs;
	struct ppw_log_ctl *c = &pl->ctl[cpu];
	__u64 tail = c->tail, head, mask = pl->recs - 1, n = 0;
	__u32 jlo = (__u32)pl->jiffies;
	bool stuck = false;

	/* in batches: their slots prefetched first, then folded, so the misses overlap */
	while (n < pl->recs) {
		struct ppw_log_rec b[BATCH];
		size_t k, m = 0;

		/* the log's lines two batches on (another CPU wrote them): on their way */
		for (k = 0; k < BATCH; k += 64 / sizeof(*base))
			__builtin_prefetch(&base[(tail + 2 * BATCH + k) & mask]);

		for (; m < BATCH && n + m < pl->recs; m++) {
			const struct ppw_log_rec *r = &base[(tail + m) & mask];
			__u64 w = __atomic_load_n(&r->w, __ATOMIC_ACQUIRE);

			if (!present(pl, w, tail + m))
				break;
			b[m].w = w & ~PPW_LOG_LAP;
			b[m].gen = r->gen;
			b[m].t = r->t;
			pl_prefetch(&pl->led, b[m].w & ~PPW_LOG_FLAGS);
		}
		for (k = 0; k < m; k++) {
			/* the log's 32 bits of jiffies, around the newest jiffies read */
			__u64 t = pl->jiffies + (__u64)(__s64)(__s32)(b[k].t - jlo);

			pl_fold(&pl->led, b[k].w & ~PPW_LOG_FLAGS, b[k].w & PPW_LOG_RELEASE,
				b[k].gen, t, (__u32)cpu);
		}
		n += m;
		tail += m;
		if (m < BATCH)
			break;
	}
	pl->records += n;
	head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	if (head == tail || n) {
		pl->stall_at[cpu] = 0;
	} else if (pl->stall_at[cpu] != tail + 1) {
		/* reserved, not written yet: an event being written (or interrupted) */
		pl->stall_at[cpu] = tail + 1;
		pl->stall_ns[cpu] = now_ns;
	} else if (now_ns - pl->stall_ns[cpu] > STALL_NS) {
		/* the one path that reserves and does not write (ledger.bpf.h): counted, passed */
		pl->skipped++;
		tail++;
		pl->stall_at[cpu] = 0;
	} else {
		stuck = true; /* since the last pass */
	}
	__atomic_store_n(&c->tail, tail, __ATOMIC_RELEASE);
	if (n > pl->recs / 4 && pl->interval_s > MIN_INTERVAL_S)
		pl->interval_s /= 2;
	return !stuck;
}

int page_log_drain(struct page_log *pl)
{
	struct timespec a, b;
	bool caught_up = true, busy = false;
	struct pair p;
	__u64 before = pl->records;
	int cpu, err;

	if (!pl->on)
		return 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	err = clock_pair(pl, &p);
	if (err)
		return err;
	keep_edge(pl, &p);
	for (cpu = 0; cpu < pl->ncpus; cpu++)
		caught_up &= drain_cpu(pl, cpu, p.ns1);
	/*
	 * An event takes its jiffies, then writes its record, microseconds
	 * apart: every event of the ticks before the one before this pass
	 * began was written when it began, so it has been read now. Unless
	 * a log is stuck at a record a pass old, which may be older.
	 */
	if (caught_up)
		pl_pass(&pl->led, p.j - 2);
	pl->passes++;
	busy = pl->records - before > 0;
	if (!busy && pl->interval_s < MAX_INTERVAL_S)
		pl->interval_s *= 2;
	pl->due_s = now_mono_s() + pl->interval_s;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	pl->cpu_ns += (__u64)(b.tv_sec - a.tv_sec) * NSEC_PER_SEC + b.tv_nsec - a.tv_nsec;
	return 0;
}

/* a log a quarter full (the BPF side woke us at a half): drain now */
static bool filling(const struct page_log *pl)
{
	int cpu;

	for (cpu = 0; cpu < pl->ncpus; cpu++)
		if (__atomic_load_n(&pl->ctl[cpu].head, __ATOMIC_RELAXED) - pl->ctl[cpu].tail >
		    pl->recs / 4)
			return true;
	return false;
}

int page_log_tick(struct page_log *pl)
{
	if (!pl->on || (now_mono_s() < pl->due_s && !filling(pl)))
		return 0;
	return page_log_drain(pl);
}

double page_log_due(const struct page_log *pl)
{
	return pl->on ? pl->due_s : INFINITY;
}

__u64 page_log_dropped(const struct page_log *pl)
{
	__u64 n = 0;
	int cpu;

	for (cpu = 0; pl->on && cpu < pl->ncpus; cpu++)
		n += __atomic_load_n(&pl->ctl[cpu].dropped, __ATOMIC_RELAXED);
	return n + pl->skipped;
}

__u64 page_log_bytes(const struct page_log *pl)
{
	if (!pl->on)
		return 0;
	return session_map_bytes(pl->s, pl->s->skel->maps.page_log) +
	       session_map_bytes(pl->s, pl->s->skel->maps.log_ctl) + pl_bytes(&pl->led);
}
