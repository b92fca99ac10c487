// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/bpf_diag.h"
#include "lib/log.h"
#include "lib/util.h"
#include "model/pp_magic.h"
#include "ppwatch.h"
#include "ppwatch.skel.h"
#include "sources/libbpf_log.h"
#include "sources/loader.h"
#include "sources/netns.h"
#include "sources/privs.h"
#include "sources/prog_stats.h"

static const struct {
	enum attach_mode mode;
	const char *name;
	const char *sec_prefix;
} modes[] = {
	{ ATTACH_AUTO, "auto", NULL },
	{ ATTACH_TP_BTF, "tp_btf", "tp_btf/" },
	{ ATTACH_RAW_TP, "raw_tp", "raw_tp/" },
	{ ATTACH_TRACEPOINT, "tracepoint", "tracepoint/" },
};

const char *attach_mode_name(enum attach_mode m)
{
	return modes[m].name;
}

int attach_mode_parse(const char *s, enum attach_mode *m)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(s, modes[i].name)) {
			*m = modes[i].mode;
			return 0;
		}
	}
	return -EINVAL;
}

/* Which tracepoint a program of ours hooks, so absent ones are skipped. */
static bool tp_present(const struct features *f, const char *sec)
{
	const char *tp = strrchr(sec, '/');

	return features_tp_present(f, tp ? tp + 1 : sec);
}

static int check_kernel(const struct features *f)
{
	if (!f->btf) {
		p_err("kernel BTF is missing (/sys/kernel/btf/vmlinux: %s): ppwatch needs a kernel "
		      "built with CONFIG_DEBUG_INFO_BTF=y",
		      f->btf_err);
		return -ENOENT;
	}
	if (!f->page_pool) {
		p_err("this kernel has no page_pool (no struct page_pool in its BTF): nothing to "
		      "watch");
		return -ENOENT;
	}
	if (!f->tp_hold || !f->tp_release) {
		p_err("tracepoint page_pool:page_pool_state_%s is absent from this kernel: "
		      "ppwatch needs the page_pool tracepoints (CONFIG_PAGE_POOL)",
		      f->tp_hold ? "release" : "hold");
		return -ENOENT;
	}
	if (!f->tp_pool_release)
		p_warn("tracepoint page_pool:page_pool_release is absent: pool destroy and retries "
		       "will not be seen");
	return 0;
}

/* what to do about a diagnosis */
static const char *remedy(const struct session *s, const struct bpf_diag *d, char *buf, size_t len)
{
	switch (d->kind) {
	case BPF_DIAG_PRIVILEGE:
		return "run ppwatch as root (it needs CAP_BPF and CAP_PERFMON, and CAP_SYS_ADMIN "
		       "to enter network namespaces)";
	case BPF_DIAG_MEMORY:
		snprintf(buf, len,
			 "lower --max-pages (now %llu) or --max-pools (now %u), or "
			 "use --level counters (no page ledger)",
			 (unsigned long long)s->opts.max_pages, s->opts.max_pools);
		return buf;
	case BPF_DIAG_CORE_RELO:
	case BPF_DIAG_HELPER:
	case BPF_DIAG_KFUNC:
		snprintf(buf, len,
			 "ppwatch %s does not cope with this kernel (%s): please report "
			 "this line; README.md 'Kernel needs' lists the kernels it is tested on",
			 PPWATCH_VERSION, s->feat.release);
		return buf;
	case BPF_DIAG_ATTACH:
		return "is tracefs mounted? (mount -t tracefs nodev /sys/kernel/tracing)";
	default:
		return "run with -d for libbpf's and the verifier's log";
	}
}

/*
 * Report why loading failed, once: each attach mode that was tried with
 * its diagnosis, or all of them in one line when the reason is the same.
 */
static void explain(const struct session *s, const enum attach_mode *tried, int n)
{
	const struct bpf_diag *d0 = &s->diag[tried[0]];
	char line[512], rem[256], modes[64] = "";
	bool same = true;
	int i;

	for (i = 1; i < n; i++)
		same &= bpf_diag_same(d0, &s->diag[tried[i]]);
	for (i = 0; i < n; i++)
		snprintf(modes + strlen(modes), sizeof(modes) - strlen(modes), "%s%s",
			 i ? (i == n - 1 ? " and " : ", ") : "", attach_mode_name(tried[i]));
	if (same) {
		p_err("%s BPF programs (%s%s): %s: %s", s->stage, modes,
		      n > 1 ? ", each for the same reason" : "",
		      bpf_diag_str(d0, line, sizeof(line)), remedy(s, d0, rem, sizeof(rem)));
		return;
	}
	p_err("%s BPF programs failed in every attach mode:", s->stage);
	for (i = 0; i < n; i++)
		p_err("  %s: %s: %s", attach_mode_name(tried[i]),
		      bpf_diag_str(&s->diag[tried[i]], line, sizeof(line)),
		      remedy(s, &s->diag[tried[i]], rem, sizeof(rem)));
}

/*
 * The direct map and vmemmap when the kernel does not export
 * page_offset_base / vmemmap_base (no CONFIG_KALLSYMS_ALL): x86_64's
 * defaults without memory randomisation, 4-level paging. The scan
 * self-checks them on a slab object and says so when they are wrong.
 */
#define PPW_X86_PAGE_OFFSET 0xffff888000000000ULL
#define PPW_X86_VMEMMAP	    0xffffea0000000000ULL

static bool kallsyms_has(const char *sym)
{
	char line[256], name[128];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %127s", name) == 1 && !strcmp(name, sym);
	fclose(f);
	return found;
}

static bool compat_build(const struct features *f);

/*
 * The page ledger's size: max_pages inflight pages at the all level, the
 * sample of them at the sampled level, none at the counters level (or
 * with the counters-only build). Each CPU's page log: 2^16 records at
 * all (1 MiB, a second of the lab's flood on one CPU), no more than 2^22
 * (64 MiB) for all CPUs together, 1/2^shift of that sampled (at least
 * 2^12); user space drains them when one is a quarter full, at least
 * every 250 ms, and at once when one is half full.
 */
static void size_ledger(struct session *s)
{
	uint64_t n = 0;
	unsigned int shift = PPW_DEF_LOG_SHIFT;

	if (s->opts.level == PPW_LEVEL_ALL)
		n = s->opts.max_pages;
	else if (s->opts.level == PPW_LEVEL_SAMPLED)
		n = s->opts.max_pages >> s->opts.sample_shift;
	while (shift > 12 && ((uint64_t)s->ncpus << shift) > (1ULL << 22))
		shift--;
	if (s->opts.level == PPW_LEVEL_SAMPLED)
		shift = shift > 12 + s->opts.sample_shift ? shift - s->opts.sample_shift : 12;
	/* the tests' small logs, to fill one (a power of two from 64) */
	if (getenv("PPWATCH_LOG_SHIFT"))
		shift = (unsigned int)atoi(getenv("PPWATCH_LOG_SHIFT"));
	if (shift < 6 || shift > 24)
		shift = PPW_DEF_LOG_SHIFT;
	s->ledger_pages = n;
	s->log_recs = n && !compat_build(&s->feat) ? 1U << shift : 0;
}

/*
 * Every map whose size depends on the session's options (bpf/maps.bpf.h has
 * their defaults): the page log and its control lines, the tables, the rings, the
 * stack maps (one entry while --stacks is off).
 */
static int size_maps(struct session *s)
{
	const struct session_opts *o = &s->opts;
	__u32 stacks = o->stack_every ? o->max_stacks : 1;
	size_t i;
	int err;

	size_ledger(s);
	{
		const struct {
			struct bpf_map *map;
			__u32 entries;
		} sizes[] = {
			{ s->skel->maps.page_log, s->log_recs ? s->log_recs * (__u32)s->ncpus : 1 },
			{ s->skel->maps.log_ctl, s->log_recs ? (__u32)s->ncpus : 1 },
			{ s->skel->maps.pcpu_pools, PPW_PCPU_SLOTS },
			{ s->skel->maps.pools, o->max_pools },
			{ s->skel->maps.events, o->ringbuf_bytes },
			{ s->skel->maps.stacks, stacks },
			{ s->skel->maps.stack_counts, stacks },
			{ s->skel->maps.page_stacks, o->level != PPW_LEVEL_COUNTERS ? stacks : 1 },
			{ s->skel->maps.scan_events,
			  o->holders ? o->scan_ringbuf_bytes : (__u32)s->feat.page_size },
			/* the holder scan's lists: one entry while it is not loaded */
			{ s->skel->maps.queue_objs, o->holders ? PPW_MAX_QUEUE_OBJS : 1 },
			{ s->skel->maps.inflight_socks, o->holders ? PPW_MAX_INFLIGHT : 1 },
		};

		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			err = bpf_map__set_max_entries(sizes[i].map, sizes[i].entries);
			if (err)
				return err;
		}
	}
	return 0;
}

static void configure_rodata(struct session *s)
{
	struct ppwatch_bpf__rodata *ro = s->skel->rodata;
	long shift = 0, ps = s->feat.page_size;

	while (ps > 1) {
		ps >>= 1;
		shift++;
	}
	ro->cfg_stack_every = s->opts.stack_every;
	ro->cfg_level = s->opts.level;
	ro->cfg_sample_mask = (1U << s->opts.sample_shift) - 1;
	ro->cfg_log_recs = s->log_recs ? s->log_recs : 1;
	ro->cfg_log_shift = 0;
	while ((1U << ro->cfg_log_shift) < ro->cfg_log_recs)
		ro->cfg_log_shift++;
	ro->cfg_pp_signature = PPW_PP_SIGNATURE;
	ro->cfg_pp_magic_mask = PPW_PP_MAGIC_MASK;
	ro->cfg_page_shift = shift;
	ro->cfg_page_compound_off = (__u32)s->feat.page_compound_off;
	ro->cfg_max_skbs = s->opts.max_skbs;
	ro->cfg_nr_cpus = s->ncpus;
	ro->cfg_nr_nodes = 1;
	if (!s->opts.holders)
		return;
	s->layout.from_kallsyms = kallsyms_has("page_offset_base") && kallsyms_has("vmemmap_base");
#if defined(__x86_64__)
	s->layout.page_offset = PPW_X86_PAGE_OFFSET;
	s->layout.vmemmap = PPW_X86_VMEMMAP;
#endif
	ro->cfg_page_offset = s->layout.page_offset;
	ro->cfg_vmemmap = s->layout.vmemmap;
}

/*
 * The programs' PPW_COMPAT build (bpf/config.bpf.h: names ending in
 * _compat, counters only) where the kernel lacks what the others contain:
 * atomics (v5.12), bpf_loop (v5.17), bpf_map_lookup_percpu_elem (v5.19),
 * each probed (sources/kfeatures.c).
 */
static bool compat_build(const struct features *f)
{
	return !features_full_build(f);
}

static bool is_compat(const char *name)
{
	size_t n = strlen(name);

	return n > 7 && !strcmp(name + n - 7, "_compat");
}

/*
 * What a command asks for that this kernel's BPF cannot do, said once at
 * the point of failure: the holder scan's iterators are bpf_loop walks,
 * the page log reserves its slots with an atomic add and keeps time in
 * jiffies, and is in the programs the counters-only build leaves out.
 * The sampled level (top, export) falls back to counters, a gap the
 * command reports.
 */
static int check_bpf_needs(struct session *s)
{
	const struct features *f = &s->feat;
	bool no_log = compat_build(f) || !f->jiffies;
	bool ledger = s->opts.level != PPW_LEVEL_COUNTERS && no_log;
	bool scan = s->opts.holders && !f->bpf_loop;

	if (s->opts.level == PPW_LEVEL_SAMPLED && no_log) {
		s->opts.level = PPW_LEVEL_COUNTERS;
		ledger = false;
	}
	if (!ledger && !scan)
		return 0;
	p_err("this kernel (%s) cannot run %s%s%s: its BPF lacks %s%s%s; here ppwatch runs with "
	      "counters only (pools, top, watch, stacks, check without --run, export)",
	      f->release, scan ? "the holder scan" : "", scan && ledger ? " or " : "",
	      ledger ? "the page ledger" : "",
	      scan ? "the bpf_loop helper (Linux 5.17) the scan's iterators need" : "",
	      scan && ledger ? " and " : "",
	      !ledger	  ? "" :
	      !f->atomics ? "atomic fetch and compare-and-exchange instructions (Linux 5.12)" :
	      !f->jiffies ? "the bpf_jiffies64 and bpf_ktime_get_boot_ns helpers (Linux 5.8)" :
	      !f->bpf_loop ?
			    "the bpf_loop helper (Linux 5.17) the programs with the page log need" :
			    "the bpf_map_lookup_percpu_elem helper (Linux 5.19) the programs with "
			    "the page log need");
	return -EOPNOTSUPP;
}

/*
 * The stats walk reads each CPU's recycle counters through the typed
 * per-CPU ksym this_cpu_off (bpf/core_fixes.bpf.h, 22), whose ld_imm64
 * the kernel resolves by kallsyms_lookup_name(): without the symbol in
 * kallsyms (no CONFIG_KALLSYMS_ALL) the whole load would fail, so the walk
 * stays out and the pools netlink does not list keep unknown statistics.
 */
static bool stats_pcpu_readable(void)
{
	static int known = -1;

	if (known < 0) {
		known = kallsyms_has("this_cpu_off");
		if (!known)
			p_dbg("pool statistics: this_cpu_off not in /proc/kallsyms (no "
			      "CONFIG_KALLSYMS_ALL?): pools netlink does not list keep unknown "
			      "statistics");
	}
	return known;
}

/*
 * the iterators: discovery and the namespace list always, the holder scan
 * when asked, the block walk where blocks exist, the stats walk where pools
 * keep stats
 */
static bool iter_wanted(const struct session *s, const char *name)
{
	/* every iterator walks with bpf_loop (the namespace list, which needs
	 * none, goes with them: one set of kernels where they load) */
	if (!s->feat.bpf_loop)
		return false;
	if (!strncmp(name, "scan_", 5))
		return s->opts.holders;
	if (!strncmp(name, "blocks_", 7))
		return s->feat.unmap == UNMAP_ITEM_BLOCKS;
	if (!strncmp(name, "stats_", 6))
		return s->feat.pp_stats && stats_pcpu_readable();
	return true;
}

/*
 * The walks that do their work once per read, on the iterator's first
 * task, whatever it is (they walk kernel lists, not the task): attached to
 * ppwatch's own thread, where the kernel takes a tid (6.1), so a read
 * visits one task, not every task on the host (0.2 ms a refresh here).
 * The kernels before ignore the tid and visit all, as they did.
 */
static bool one_shot_walk(const char *name)
{
	static const char *const names[] = { "discover", "scan_pools", "scan_queues", "blocks_walk",
					     "stats_walk" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static int attach_one_shot_walks(struct session *s)
{
	const struct bpf_object_skeleton *sk = s->skel->skeleton;
	int i;

	for (i = 0; i < sk->prog_cnt; i++) {
		const struct bpf_prog_skeleton *ps =
			(const void *)((const char *)sk->progs + (size_t)i * sk->prog_skel_sz);
		struct bpf_program *prog = *ps->prog;
		union bpf_iter_link_info linfo = { .task = { .tid = (__u32)getpid() } };
		LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
			    .link_info_len = sizeof(linfo));
		struct bpf_link *link;

		if (!bpf_program__autoload(prog) || !one_shot_walk(bpf_program__name(prog)))
			continue;
		link = bpf_program__attach_iter(prog, &opts);
		if (!link) /* a kernel that refuses what it does not know: every task */
			link = bpf_program__attach_iter(prog, NULL);
		if (!link)
			return -errno;
		*ps->link = link;
	}
	return 0;
}

static int try_mode(struct session *s, enum attach_mode m)
{
	const char *pfx = modes[m].sec_prefix;
	struct bpf_program *prog;
	const char *stage = "opening the BPF object for";
	char *stats;
	int err;

	libbpf_log_clear();
	s->skel = ppwatch_bpf__open();
	if (!s->skel) {
		err = -errno;
		goto fail;
	}
	stage = "sizing the maps of the";
	err = size_maps(s);
	if (err)
		goto fail;
	configure_rodata(s);

	bpf_object__for_each_program(prog, s->skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		const char *name = bpf_program__name(prog);
		bool on = !strncmp(sec, "iter/", 5) ?
				  iter_wanted(s, name) :
				  (!strncmp(sec, pfx, strlen(pfx)) && tp_present(&s->feat, sec) &&
				   is_compat(name) == compat_build(&s->feat));

		if (one_shot_walk(name))
			bpf_program__set_autoattach(prog, false); /* attach_one_shot_walks() */
		/* run on demand by the page log's reader, never attached */
		if (!strcmp(name, "clock_pair") || !strcmp(name, "page_check")) {
			on = s->log_recs > 0;
			bpf_program__set_autoattach(prog, false);
		}
		bpf_program__set_autoload(prog, on);
	}

	stage = "loading";
	libbpf_log_quiet(log_get_level() < LOG_DEBUG);
	stats = prog_stats_arm(s->skel->obj); /* PPWATCH_VERIFIER_STATS only */
	err = ppwatch_bpf__load(s->skel);
	if (err) {
		free(stats);
		goto fail;
	}
	prog_stats_report(s->skel->obj, stats);
	stage = "attaching to the page_pool tracepoints";
	s->start_ns = now_boot_ns();
	err = ppwatch_bpf__attach(s->skel);
	if (!err)
		err = attach_one_shot_walks(s);
	if (err) {
		bpf_diag_parse(libbpf_log_captured(), err, &s->diag[m]);
		s->diag[m].kind = BPF_DIAG_ATTACH;
		goto fail_diag;
	}
	libbpf_log_quiet(0);
	s->mode = m;
	/* scripts wait for this line (-v) before they make pools */
	p_info("loaded and attached with %s programs%s (pid %d)", attach_mode_name(m),
	       compat_build(&s->feat) ? ", counters-only build" : "", (int)getpid());
	return 0;
fail:
	bpf_diag_parse(libbpf_log_captured(), err, &s->diag[m]);
	/* EACCES/EPERM with the capabilities held is the verifier's no */
	if (s->diag[m].kind == BPF_DIAG_PRIVILEGE &&
	    (privs_have(CAP_BPF) || privs_have(CAP_SYS_ADMIN))) {
		s->diag[m].kind = BPF_DIAG_VERIFIER;
		snprintf(s->diag[m].what, sizeof(s->diag[m].what),
			 "%s although ppwatch holds CAP_BPF or CAP_SYS_ADMIN", strerror(-err));
	}
fail_diag:
	libbpf_log_quiet(0);
	s->stage = stage;
	p_dbg("%s %s programs failed: %s", stage, attach_mode_name(m), strerror(-err));
	ppwatch_bpf__destroy(s->skel);
	s->skel = NULL;
	return err;
}

int session_open(struct session *s, const struct session_opts *o)
{
	static const enum attach_mode order[] = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT };
	enum attach_mode tried[3];
	int err, n;

	memset(s, 0, sizeof(*s));
	s->opts = *o;
	if (!s->opts.max_pages)
		s->opts.max_pages = PPW_DEF_MAX_PAGES;
	if (!s->opts.max_pools)
		s->opts.max_pools = PPW_DEF_MAX_POOLS;
	if (!s->opts.ringbuf_bytes)
		s->opts.ringbuf_bytes = PPW_DEF_RINGBUF;
	if (!s->opts.max_stacks)
		s->opts.max_stacks = PPW_DEF_STACKS;
	if (!s->opts.max_skbs)
		s->opts.max_skbs = 65536;
	if (!s->opts.scan_ringbuf_bytes)
		s->opts.scan_ringbuf_bytes = PPW_DEF_SCAN_RINGBUF;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		p_err("cannot count possible CPUs: %s", strerror(-s->ncpus));
		return s->ncpus;
	}
	features_probe(&s->feat);
	err = check_kernel(&s->feat);
	err = err ?: check_bpf_needs(s);
	if (err)
		return err;

	if (o->mode != ATTACH_AUTO) {
		tried[0] = o->mode;
		n = 1;
		err = try_mode(s, o->mode);
	} else {
		for (n = 0; n < (int)(sizeof(order) / sizeof(order[0])); n++) {
			tried[n] = order[n];
			err = try_mode(s, order[n]);
			/* no privileges, no memory: every attach type fails the same way */
			if (!err || s->diag[order[n]].kind == BPF_DIAG_PRIVILEGE ||
			    s->diag[order[n]].kind == BPF_DIAG_MEMORY)
				break;
		}
		n += n < (int)(sizeof(order) / sizeof(order[0]));
	}
	if (err) {
		explain(s, tried, n);
		return err;
	}
	if (n > 1) {
		char line[512];

		p_warn("%s programs did not load (%s); using %s programs",
		       attach_mode_name(tried[0]),
		       bpf_diag_str(&s->diag[tried[0]], line, sizeof(line)),
		       attach_mode_name(s->mode));
	}

	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), o->on_event, o->event_ctx,
				 NULL);
	if (!s->rb) {
		err = -errno;
		p_err("creating the ring buffer reader for map 'events': %s", strerror(-err));
		session_close(s);
		return err;
	}
	return 0;
}

bool session_hooks(const struct session *s, const char *tp)
{
	struct bpf_program *prog;
	const char *sec, *name;

	if (!s->skel)
		return false;
	bpf_object__for_each_program(prog, s->skel->obj) {
		sec = bpf_program__section_name(prog);
		name = strrchr(sec, '/');
		if (bpf_program__autoload(prog) && strncmp(sec, "iter/", 5) && name &&
		    !strcmp(name + 1, tp))
			return true;
	}
	return false;
}

/*
 * Run the iterator @link once and read it all into *buf (as
 * session_iter_read()): 0 or -errno, *stage the step that failed.
 */
static int iter_read_all(struct bpf_link *link, size_t cap, char **buf, size_t *len,
			 const char **stage)
{
	char *nb;
	ssize_t n;
	int fd, err = 0;

	*buf = NULL;
	*len = 0;
	*stage = "creating";
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	*stage = "reading";
	for (;;) {
		if (*len == cap || !*buf) {
			nb = realloc(*buf, *buf ? cap * 2 : cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			if (*buf)
				cap *= 2;
			*buf = nb;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		*len += n;
	}
	close(fd);
	return err;
}

int session_iter_read(struct bpf_link *link, const char *what, const char *prog, size_t cap,
		      char **buf, size_t *len)
{
	const char *stage;
	int err = iter_read_all(link, cap, buf, len, &stage);

	if (err)
		p_err("%s: %s the %s iterator: %s", what, stage, prog, strerror(-err));
	return err;
}

int session_discover(struct session *s)
{
	char buf[64];
	int fd, n, err = 0;

	if (!s->skel->links.discover) {
		p_dbg("discovery iterator not attached");
		return -ENOENT;
	}
	fd = bpf_iter_create(bpf_link__fd(s->skel->links.discover));
	if (fd < 0) {
		err = -errno;
	} else {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		err = n < 0 ? -errno : 0;
		close(fd);
	}
	/* pools that make events are found anyway: say it once, not every refresh */
	if (err && !s->discover_warned)
		p_warn("the pool discovery iterator (prog 'discover') failed: %s; idle pools are "
		       "listed once they make an event",
		       strerror(-err));
	s->discover_warned |= err != 0;
	return err;
}

int session_netns_scan(struct session *s, struct netns_list *l)
{
	struct bpf_link *link = s->skel ? s->skel->links.netns_walk : NULL;
	const char *stage;
	char *buf = NULL;
	size_t len;
	int err;

	if (link) {
		err = iter_read_all(link, 4096, &buf, &len, &stage);
		if (!err) {
			err = netns_scan(l, (const struct ppw_netns_rec *)buf,
					 len / sizeof(struct ppw_netns_rec));
			free(buf);
			return err;
		}
		free(buf);
		if (!s->netns_warned)
			p_warn("the namespace walk (prog 'netns_walk') failed %s its iterator: %s; "
			       "listing namespaces through /proc instead",
			       stage, strerror(-err));
		s->netns_warned = true;
	}
	return netns_scan(l, NULL, 0);
}

int session_poll(struct session *s, int timeout_ms)
{
	int n = ring_buffer__poll(s->rb, timeout_ms);

	if (n == -EINTR)
		return 0;
	return n;
}

/*
 * Keys 0..n-1 of a per-CPU array, one batch (one syscall) where the kernel
 * has batch lookups for that map type, else (5.10's per-CPU arrays) key by
 * key from then on, whose errors are said.
 */
int session_percpu_rows(struct session *s, const struct bpf_map *map, __u32 n, void *vals)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t row = (size_t)((bpf_map__value_size(map) + 7) & ~7U) * s->ncpus;
	int fd = bpf_map__fd(map), err;
	__u32 *keys, out = 0, count = n, key;

	if (!s->no_array_batch) {
		keys = calloc(n ?: 1, sizeof(*keys));
		err = keys ? bpf_map_lookup_batch(fd, NULL, &out, keys, vals, &count, &opts) : -1;
		err = err ? -errno : 0;
		free(keys);
		/* the end of the array: every key read */
		if ((!err || err == -ENOENT) && count == n)
			return 0;
		p_dbg("map '%s': no batch lookup (%s, %u of %u keys): key by key",
		      bpf_map__name(map), strerror(-err), count, n);
		s->no_array_batch = true;
	}
	for (key = 0; key < n; key++) {
		if (bpf_map_lookup_elem(fd, &key, (char *)vals + key * row)) {
			err = -errno;
			p_err("reading map '%s' (key %u of %u, %d CPUs): %s", bpf_map__name(map),
			      key, n, s->ncpus, strerror(-err));
			return err;
		}
	}
	return 0;
}

int session_counters(struct session *s, __u64 *out, int n)
{
	__u64 *vals;
	int c, k, err;

	vals = calloc((size_t)n * s->ncpus, sizeof(*vals));
	if (!vals) {
		p_err("reading the counters (map 'counters', %d CPUs): %s", s->ncpus,
		      strerror(ENOMEM));
		return -ENOMEM;
	}
	err = session_percpu_rows(s, s->skel->maps.counters, (__u32)n, vals);
	for (k = 0; k < n; k++) {
		out[k] = 0;
		for (c = 0; !err && c < s->ncpus; c++)
			out[k] += vals[(size_t)k * s->ncpus + c];
	}
	free(vals);
	return err;
}

uint64_t session_map_bytes(const struct session *s, const struct bpf_map *map)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(map));
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

void session_close(struct session *s)
{
	ring_buffer__free(s->rb);
	s->rb = NULL;
	ppwatch_bpf__destroy(s->skel);
	s->skel = NULL;
}
