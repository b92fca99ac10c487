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
#include "model/ages.h"
#include "ppwatch.skel.h"
#include "sources/page_log.h"

/*
 * The cadence. A pass costs the fold a table line per page it names (the
 * line is a miss unless the page's last event was folded in the same
 * pass): a page whose hold and release land in one pass costs one miss,
 * in two passes two. In the lab's flood 93 % of the pages live 16 to
 * 64 ms, and passes of 25 ms split most of them; passes as long as the
 * logs allow took up to 30 % off ppwatch's CPU there, less on a busy
 * machine (bench/README.md, 2026-12-07, night). So the logs are drained
 * when one is a quarter full (filling()), else every interval_s, which
 * shrinks only when a drain found a log past half (the quarter mark came
 * too late for the loop: the BPF side had to wake it) and grows when
 * every log had less than a sixteenth; holds stop at three quarters
 * (bpf/ledger.bpf.h), so a quarter of a log is left either way.
 */
#define MIN_INTERVAL_S 0.01
#define BATCH	       16
#define MAX_INTERVAL_S 0.25
/* a reserved slot still unwritten this long was lost (the writer never fails to write) */
#define STALL_NS (NSEC_PER_SEC / 2)

struct pair {
	__u64 ns0, j, ns1; /* jiffies was j at some instant in [ns0, ns1] (CLOCK_MONOTONIC) */
	__u64 hz;	   /* the kernel's HZ from the pair itself, 0 if it does not say */
};

static int clock_pair(struct page_log *pl, struct pair *p)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct ppwatch_bpf *sk = pl->s->skel;
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(sk->progs.clock_pair), &opts);
	if (err)
		return -errno;
	p->ns0 = sk->bss->clock_ns;
	p->j = sk->bss->clock_jiffies;
	p->ns1 = sk->bss->clock_ns_after;
	p->hz = kclock_hz_sure(p->j, p->ns0);
	return 0;
}

/*
 * The clock. Jiffies advance by one every TICK_NSEC of CLOCK_MONOTONIC
 * (the tick, or NO_HZ's catch-up, counts them from it), so a log time maps
 * onto CLOCK_MONOTONIC as start(j) = start(edge_j) + (j - edge_j) * tick,
 * exactly, given the tick's length and one tick's start:
 *
 *  - the length is the kernel's HZ, read off the first pair: jiffies
 *    start at INITIAL_JIFFIES (-300 s of ticks), so one HZ alone lines
 *    them up with CLOCK_MONOTONIC (model/ages.c; not the kernel's config:
 *    libbpf's __kconfig fails the load where /boot and /proc/config.gz
 *    lack it, as in containers and VMs); else measured from the pairs the
 *    drains take anyway (two pairs SPAN_TICKS or more apart give it to
 *    within 2 %, and it snaps to the HZ values kernels are built with);
 *  - the start is found from the same pairs: each says tick j began within
 *    (ns0 - tick, ns1], which bounds start(edge_j); the bounds are kept and
 *    narrow with every drain (keep_edge()).
 *
 * Nothing waits: the first pair is taken at open, every drain takes one.
 * Until the length is known (no config, and the drains span too few ticks
 * yet) an age is a lower bound: ticks are 1 ms at least (HZ <= 1000), so a
 * page held in tick j is at least (J - j - 1) ms old when jiffies read J.
 *
 * CLOCK_MONOTONIC stops in a suspend, as jiffies do; ppwatch's other times
 * are CLOCK_BOOTTIME, which does not. Each pair also reads the difference
 * of the two: when it grows, a suspend happened since the last pair, and
 * holds after it get the new difference (suspends[]), holds before keep
 * the old, so a page held before a suspend is older by the suspend, as it
 * is (pairing jiffies with CLOCK_BOOTTIME made it younger by it).
 */
#define SPAN_TICKS  100
#define TICK_MIN_NS (NSEC_PER_SEC / 1000)

/* the HZ values kernels are built with: a measured tick snaps to one */
static __u64 snap_tick(double ns)
{
	static const int hz[] = { 24, 48, 100, 200, 250, 300, 500, 1000 };
	size_t i;

	for (i = 0; i < sizeof(hz) / sizeof(hz[0]); i++) {
		double want = 1e9 / hz[i];

		if (fabs(ns - want) < want * 0.02)
			return (NSEC_PER_SEC + hz[i] / 2) / hz[i]; /* the kernel's TICK_NSEC */
	}
	return 0;
}

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC now: what suspends added */
static __u64 boot_offset(void)
{
	__u64 b = now_boot_ns(), m = now_mono_ns();

	return b > m ? b - m : 0;
}

/* a pair says where tick p->j began: narrow the bounds of the edge tick's start */
static void keep_edge(struct page_log *pl, const struct pair *p)
{
	__s64 d;
	__u64 lo, hi, off;

	pl->jiffies = p->j;
	pl->last_j = p->j;
	pl->last_ns1 = p->ns1;
	if (!pl->first_ns1) {
		pl->first_j = p->j;
		pl->first_mid = p->ns0 / 2 + p->ns1 / 2;
		pl->first_ns1 = p->ns1;
	}
	if (!pl->tick_ns && p->j >= pl->first_j + SPAN_TICKS) {
		/* no config: the length from the first pair and this one */
		double span = (double)(p->ns0 / 2 + p->ns1 / 2 - pl->first_mid);

		pl->tick_ns = snap_tick(span / (double)(p->j - pl->first_j));
		if (pl->tick_ns)
			p_dbg("page log: a tick is %llu ns (HZ %.0f, measured over %llu ticks)",
			      (unsigned long long)pl->tick_ns, 1e9 / pl->tick_ns,
			      (unsigned long long)(p->j - pl->first_j));
	}
	off = boot_offset();
	if (pl->nsusp < PL_MAX_SUSPENDS && off > pl->boot_off + NSEC_PER_SEC / 1000) {
		/* a suspend since the last pair: holds after that pair's tick are after it */
		pl->susp_j[pl->nsusp] = pl->prev_j + 1;
		pl->susp_off[pl->nsusp++] = off;
		p_dbg("page log: %.3f s suspended since jiffies %llu", (off - pl->boot_off) / 1e9,
		      (unsigned long long)pl->prev_j);
	}
	pl->boot_off = off;
	pl->prev_j = p->j;
	if (!pl->tick_ns)
		return;
	if (!pl->edge_hi) {
		pl->edge_j = p->j;
		pl->edge_lo = p->ns0 > pl->tick_ns ? p->ns0 - pl->tick_ns : 0;
		pl->edge_hi = p->ns1;
		return;
	}
	d = (__s64)(p->j - pl->edge_j) * (__s64)pl->tick_ns;
	lo = p->ns0 - pl->tick_ns - d;
	hi = p->ns1 - d;
	if (lo > pl->edge_hi || hi < pl->edge_lo) {
		/* disagrees with every pair before (cannot happen unless a clock jumped): anew */
		pl->edge_lo = lo;
		pl->edge_hi = hi;
		return;
	}
	if (lo > pl->edge_lo)
		pl->edge_lo = lo;
	if (hi < pl->edge_hi)
		pl->edge_hi = hi;
}

bool page_log_exact(const struct page_log *pl)
{
	return pl->tick_ns && pl->edge_hi;
}

/* CLOCK_BOOTTIME of CLOCK_MONOTONIC ns at a time of tick j */
static __u64 to_boot(const struct page_log *pl, __u64 ns, __u64 j)
{
	__u64 off = pl->boot_off0;
	int i;

	for (i = pl->nsusp - 1; i >= 0; i--)
		if ((__s64)(j - pl->susp_j[i]) >= 0) {
			off = pl->susp_off[i];
			break;
		}
	return ns + off;
}

__u64 page_log_ns(const struct page_log *pl, __u64 j)
{
	__u64 ns;

	if (page_log_exact(pl)) {
		/* the middle of tick j, the edge tick's start the middle of its bounds */
		ns = pl->edge_lo / 2 + pl->edge_hi / 2 +
		     (__u64)((__s64)(j - pl->edge_j) * (__s64)pl->tick_ns) + pl->tick_ns / 2;
		return to_boot(pl, ns, j);
	}
	/* the latest a hold in tick j can have been: ages are lower bounds */
	if (!pl->last_ns1 || (__s64)(j - pl->last_j) >= 0)
		return to_boot(pl, pl->last_ns1 ? now_mono_ns() : 0, j);
	return to_boot(pl, pl->last_ns1 - (pl->last_j - j - 1) * TICK_MIN_NS, j);
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
	struct pair p;
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
	/* arrays: what the kernel charges for them is fixed at their creation */
	pl->map_bytes = session_map_bytes(s, s->skel->maps.page_log) +
			session_map_bytes(s, s->skel->maps.log_ctl);
	pl->stall_at = calloc((size_t)pl->ncpus, sizeof(*pl->stall_at));
	pl->stall_ns = calloc((size_t)pl->ncpus, sizeof(*pl->stall_ns));
	err = !pl->stall_at || !pl->stall_ns ? -ENOMEM : pl_init(&pl->led, s->ledger_pages);
	if (err) {
		p_err("setting up the page ledger for %llu pages: %s",
		      (unsigned long long)s->ledger_pages, strerror(-err));
		page_log_close(pl);
		return err;
	}
	/* the first pair; a failure here leaves ages bounds, and says so */
	pl->boot_off0 = pl->boot_off = boot_offset();
	err = clock_pair(pl, &p);
	if (err) {
		p_warn("reading jiffies (BPF_PROG_TEST_RUN of prog 'clock_pair'): %s; page ages "
		       "are lower bounds until it works",
		       strerror(-err));
	} else {
		pl->tick_ns = p.hz ? (NSEC_PER_SEC + p.hz / 2) / p.hz : 0;
		p_dbg("page log: HZ %llu (%s)", (unsigned long long)p.hz,
		      p.hz ? "jiffies since INITIAL_JIFFIES" :
			     "not sure yet: measured from the drains");
		keep_edge(pl, &p);
	}
	pl->interval_s = MAX_INTERVAL_S;
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
	if (pl->on && pl->passes)
		p_dbg("page log: the ledger's table %zu slots (%zu KiB), %zu taken, %zu inflight",
		      pl->led.cap, pl->led.cap * sizeof(*pl->led.v) >> 10, pl->led.used,
		      pl->led.inflight);
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

/*
 * Copy up to BATCH records (no more than left) from position pos of a
 * log, their table slots on their way to the cache; stops at one not
 * written yet
 */
static size_t read_batch(const struct page_log *pl, const struct ppw_log_rec *base, __u64 pos,
			 __u64 left, struct ppw_log_rec *b)
{
	__u64 mask = pl->recs - 1;
	size_t k, m;

	/* the log's lines two batches on (another CPU wrote them): on their way */
	for (k = 0; k < BATCH; k += 64 / sizeof(*base))
		__builtin_prefetch(&base[(pos + 2 * BATCH + k) & mask]);
	for (m = 0; m < BATCH && m < left; m++) {
		const struct ppw_log_rec *r = &base[(pos + m) & mask];
		__u64 w = __atomic_load_n(&r->w, __ATOMIC_ACQUIRE);

		if (!present(pl, w, pos + m))
			break;
		b[m].w = w & ~PPW_LOG_LAP;
		b[m].gen = r->gen;
		b[m].t = r->t;
		pl_prefetch(&pl->led, b[m].w & ~PPW_LOG_FLAGS);
	}
	return m;
}

/*
 * fold one CPU's log, raising *most to its record count; false if it is
 * stuck at a slot a pass ago still unwritten
 */
static bool drain_cpu(struct page_log *pl, int cpu, __u64 now_ns, __u64 *most)
{
	const struct ppw_log_rec *base = pl->log + (size_t)cpu * pl->recs;
	struct ppw_log_ctl *c = &pl->ctl[cpu];
	__u64 tail = c->tail, head, n = 0;
	__u32 jlo = (__u32)pl->jiffies;
	struct ppw_log_rec b[2][BATCH];
	bool stuck = false;
	size_t m;
	int cur = 0;

	/*
	 * In batches, one read ahead: a batch's records are copied and their
	 * slots prefetched while the batch before it is folded, so the misses
	 * overlap the work instead of each other
	 */
	m = read_batch(pl, base, tail, pl->recs, b[cur]);
	while (m) {
		size_t next = 0, k;

		if (m == BATCH && n + m < pl->recs)
			next = read_batch(pl, base, tail + m, pl->recs - n - m, b[!cur]);
		for (k = 0; k < m; k++) {
			/* the log's 32 bits of jiffies, around the newest jiffies read */
			__u64 t = pl->jiffies + (__u64)(__s64)(__s32)(b[cur][k].t - jlo);

			pl_fold(&pl->led, b[cur][k].w & ~PPW_LOG_FLAGS,
				b[cur][k].w & PPW_LOG_RELEASE, b[cur][k].gen, t, (__u32)cpu);
		}
		n += m;
		tail += m;
		cur = !cur;
		m = next;
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
	if (n > *most)
		*most = n;
	return !stuck;
}

int page_log_drain(struct page_log *pl)
{
	struct timespec a, b;
	bool caught_up = true;
	__u64 most = 0; /* the most records one log had */
	struct pair p;
	int cpu, err;

	if (!pl->on)
		return 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	err = clock_pair(pl, &p);
	if (err) {
		/* no jiffies now: fold what is there, no pass (nothing becomes final) */
		if (!pl->pair_failed++)
			p_warn("reading jiffies (BPF_PROG_TEST_RUN of prog 'clock_pair'): %s; page "
			       "ages are lower bounds until it works",
			       strerror(-err));
		p.ns1 = now_mono_ns();
		p.j = pl->jiffies;
		caught_up = false;
	} else {
		keep_edge(pl, &p);
	}
	for (cpu = 0; cpu < pl->ncpus; cpu++)
		caught_up &= drain_cpu(pl, cpu, p.ns1, &most);
	/*
	 * An event takes its jiffies, then writes its record, microseconds
	 * apart: every event of the ticks before the one before this pass
	 * began was written when it began, so it has been read now. Unless
	 * a log is stuck at a record a pass old, which may be older.
	 */
	if (caught_up && !err)
		pl_pass(&pl->led, p.j - 2);
	pl->passes++;
	if (most > pl->recs / 2 && pl->interval_s > MIN_INTERVAL_S)
		pl->interval_s /= 2;
	else if (most < pl->recs / 16 && pl->interval_s < MAX_INTERVAL_S)
		pl->interval_s *= 2;
	pl->due_s = now_mono_s() + pl->interval_s;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	pl->cpu_ns += (__u64)(b.tv_sec - a.tv_sec) * NSEC_PER_SEC + b.tv_nsec - a.tv_nsec;
	return 0;
}

/* a log a quarter full (the BPF side wakes us at a half): drain now */
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

void page_log_losses(const struct page_log *pl, __u64 *holds, __u64 *releases, __u64 *skipped)
{
	int cpu;

	*holds = *releases = 0;
	for (cpu = 0; pl->on && cpu < pl->ncpus; cpu++) {
		*holds += __atomic_load_n(&pl->ctl[cpu].dropped, __ATOMIC_RELAXED);
		*releases += __atomic_load_n(&pl->ctl[cpu].dropped_rel, __ATOMIC_RELAXED);
	}
	*skipped = pl->skipped;
}

int page_log_check(struct page_log *pl, const __u64 *netmem, __u64 *pool, size_t n)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct ppwatch_bpf *sk = pl->s->skel;
	int fd = bpf_program__fd(sk->progs.page_check);
	size_t i, k, m;

	for (i = 0; i < n; i += m) {
		m = n - i < PPW_CHECK_PAGES ? n - i : PPW_CHECK_PAGES;
		for (k = 0; k < m; k++)
			sk->bss->check_page[k] = netmem[i + k];
		sk->bss->check_n = (__u32)m;
		if (bpf_prog_test_run_opts(fd, &opts))
			return -errno;
		for (k = 0; k < m; k++)
			pool[i + k] = sk->bss->check_pool[k];
	}
	return 0;
}

__u64 page_log_unread(const struct page_log *pl)
{
	__u64 n = 0;
	int cpu;

	for (cpu = 0; pl->on && cpu < pl->ncpus; cpu++)
		n += __atomic_load_n(&pl->ctl[cpu].head, __ATOMIC_ACQUIRE) - pl->ctl[cpu].tail;
	return n;
}

__u64 page_log_bytes(const struct page_log *pl)
{
	if (!pl->on)
		return 0;
	return pl->map_bytes + pl_bytes(&pl->led);
}
