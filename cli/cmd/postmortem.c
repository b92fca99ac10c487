// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch postmortem [FILE] [--dmesg LOG] [--yaml] [--window DUR] [...]
 *
 * A report on every stalled, destroyed-but-out or recently freed pool,
 * from a recording or live: live, it records a short window into a memory
 * file (sources/recorder.c) and reads it back exactly like a file
 * (model/recording.c), so both reports come from the same code
 * (model/postmortem.c, output/postmortem_fmt.c). The kernel log's
 * "stalled pool shutdown" lines (model/kernel_log.h) are linked to the
 * report's pools (model/pm_klog.c): live, /dev/kmsg's (sources/kmsg.c);
 * with --dmesg, a saved log's, alone or with FILE. Each pool then gets its
 * verdict (model/pm_verdict.c) and the words for it (output/pm_verdict_fmt.c).
 * With --vmcore, a crash dump's pools are written as a recording's records
 * (sources/vmcore.c) and read back the same way.
 */
#include <errno.h>
#include <math.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/rotfile.h"
#include "lib/util.h"
#include "main.h"
#include "lib/util.h"
#include "model/kernel_log.h"
#include "model/pm_klog.h"
#include "model/pm_verdict.h"
#include "model/postmortem.h"
#include "model/recording.h"
#include "output/pm_verdict_fmt.h"
#include "output/postmortem_fmt.h"
#include "sources/kmsg.h"
#include "sources/recorder.h"
#include "sources/vmcore.h"

static struct {
	struct recorder_opts rec;
	double window;
	const char *dmesg;
	const char *vmcore, *system_map;
	bool yaml, no_kernel_log;
} opts = {
	.rec = { .snapshot_every = 5, .scan_every = 30, .stall_after = 60, .oldest_pages = 10 },
	.window = 1.5,
};

enum { OPT_STALL = 0x500, OPT_WINDOW, OPT_YAML, OPT_DMESG, OPT_NO_KLOG, OPT_VMCORE, OPT_SYSMAP };

static const struct option pm_lopts[] = {
	{ "yaml", no_argument, NULL, OPT_YAML },
	{ "dmesg", required_argument, NULL, OPT_DMESG },
	{ "vmcore", required_argument, NULL, OPT_VMCORE },
	{ "system-map", required_argument, NULL, OPT_SYSMAP },
	{ "no-kernel-log", no_argument, NULL, OPT_NO_KLOG },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "stall-after", required_argument, NULL, OPT_STALL },
	{ "stacks", optional_argument, NULL, 'S' },
	{ 0 },
};

static int pm_opt(int o, const char *arg)
{
	switch (o) {
	case OPT_STALL:
		return args_duration("--stall-after", arg, &opts.rec.stall_after);
	case OPT_WINDOW:
		return args_duration("--window", arg, &opts.window);
	case OPT_YAML:
		opts.yaml = true;
		return 0;
	case OPT_DMESG:
		opts.dmesg = arg;
		return 0;
	case OPT_NO_KLOG:
		opts.no_kernel_log = true;
		return 0;
	case OPT_VMCORE:
		opts.vmcore = arg;
		return 0;
	case OPT_SYSMAP:
		opts.system_map = arg;
		return 0;
	case 'S':
		return args_stack_every(arg, &opts.rec.stack_every);
	}
	return -ENOENT;
}

static void pm_help(void)
{
	printf("ARGS:\n"
	       "  FILE                 a 'ppwatch record' file (- for stdin); without it,\n"
	       "                       a live report over --window\n"
	       "\n"
	       "  --dmesg LOG          a saved kernel log (dmesg, dmesg -T, journalctl -k,\n"
	       "                       syslog; - for stdin): its 'stalled pool shutdown'\n"
	       "                       lines, alone or linked to FILE's pools\n"
	       "  --vmcore DUMP        a kernel crash dump (ELF, kdump-compressed): its page\n"
	       "                       pools from its own BTF and VMCOREINFO, no debug info\n"
	       "  --system-map FILE    with --vmcore: the dumped kernel's System.map, for a\n"
	       "                       dump whose VMCOREINFO names no kallsyms tables\n"
	       "  --no-kernel-log      live: do not read /dev/kmsg\n"
	       "  --yaml               YAML instead of text (-j for JSON)\n"
	       "  --window DUR         live: observe this long (default 1.5s: one retry)\n"
	       "  --stall-after DUR    live: stalled after this (default 60s)\n"
	       "  -S, --stacks[=N]     live: sample stacks while observing\n\n");
}

/* record --window into a memory file: the stream to read it back, or NULL (reported) */
static FILE *live_records(void)
{
	struct recorder w;
	struct rotfile out;
	int fd, err;
	FILE *f;

	fd = memfd_create("ppwatch-postmortem", MFD_CLOEXEC);
	if (fd < 0) {
		p_err("postmortem: a memory file for the live record: %s", strerror(errno));
		return NULL;
	}
	rotfile_open_fd(&out, fd, "the live record");
	opts.rec.mon = (struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true };
	err = recorder_open(&w, &out, &opts.rec);
	if (!err) {
		err = recorder_run(&w, opts.window);
		err = recorder_close(&w, err ? "error" : "duration") ?: err;
	}
	if (!err && lseek(fd, 0, SEEK_SET)) {
		err = -errno;
		p_err("postmortem: reading the live record back: %s", strerror(errno));
	}
	f = err ? NULL : fdopen(fd, "r");
	if (!err && !f)
		p_err("postmortem: reading the live record back: %s", strerror(errno));
	if (!f)
		close(fd);
	return f;
}

/* the first reason a line of the set was not read, for the message */
static void first_damage(const struct recording *r, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "no lines");
	for (i = 0; i < r->n; i++) {
		const struct recording_file *f = &r->files[i];
		char name[256];

		esc_buf(name, sizeof(name), f->name, strlen(f->name));
		if (f->damaged) {
			snprintf(buf, len, "%s:%llu: %s", name,
				 (unsigned long long)f->damage[0].line, f->damage[0].why);
			return;
		}
		if (f->cut) {
			snprintf(buf, len, "%s is cut at byte %llu inside its first record", name,
				 (unsigned long long)f->bytes);
			return;
		}
		if (f->records)
			snprintf(buf, len, "%s: records of no type ppwatch knows", name);
	}
}

/* records of the types a recording has */
static uint64_t known_records(const struct recording *r)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		n += r->files[i].records - r->files[i].unknown;
	return n;
}

/* the first line of a file, without its newline, in buf ("" if none) */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/* is pid a ppwatch running on this host? */
static bool ppwatch_alive(int pid)
{
	char path[64], comm[32];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	first_line(path, comm, sizeof(comm));
	return !strcmp(comm, "ppwatch");
}

/* now, this boot, this host: to tell how a recording that lacks its end record ended */
static void context(struct pm *a)
{
	char boot[48], host[72] = "";

	first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	gethostname(host, sizeof(host) - 1);
	pm_context(a, now_real_s(), boot, host, ppwatch_alive);
}

/* every record of the reader into the report; 0, or -errno (reported) */
static int read_all(struct recording *r, struct pm *a, const char *name)
{
	char why[512];
	int err;

	err = pm_read(a, r);
	if (err == -EPROTO) {
		p_err("postmortem: %s", r->why);
		return err;
	}
	if (err) {
		p_err("postmortem: reading %s: %s", r->failed ? r->failed : name, strerror(-err));
		return err;
	}
	if (!known_records(r)) {
		first_damage(r, why, sizeof(why));
		p_err("postmortem: nothing readable in %s (%s): give a file 'ppwatch record' wrote",
		      name, why);
		return -EINVAL;
	}
	return 0;
}

/* a saved log, line by line; lines past KLOG_LINE_MAX are cut there. 0, or -errno (reported) */
#define KLOG_LINE_MAX 65536

static int feed_file(struct klog *k, FILE *f, const char *name)
{
	static char buf[KLOG_LINE_MAX];
	size_t n = 0;
	int c, err;

	while ((c = getc_unlocked(f)) != EOF) {
		if (c != '\n') {
			if (n < sizeof(buf))
				buf[n++] = (char)c;
			continue;
		}
		err = klog_feed_line(k, buf, n);
		n = 0;
		if (err) {
			p_err("postmortem: reading %s: %s", name, strerror(-err));
			return err;
		}
	}
	if (ferror(f)) {
		err = -errno;
		p_err("postmortem: reading %s: %s", name, strerror(errno));
		return err;
	}
	if (n)
		return klog_feed_line(k, buf, n);
	return 0;
}

/* the zone local stamps are read in (the reader's), and a year for stamps without one */
static void local_clock_opts(struct klog_link_opts *o, const struct klog *k, double ref)
{
	time_t t = isfinite(ref) && ref > 0 && ref < 1e11 ? (time_t)ref : time(NULL);
	struct tm tm;

	o->utc_offset_s = localtime_r(&t, &tm) ? (double)tm.tm_gmtoff : 0;
	o->year = tm.tm_year + 1900;
	/* a log's last stamp is not in the future: else it is of the year before */
	if (k->end.noyear && !isnan(k->end.wall)) {
		struct klog_time e = k->end;

		if (klog_wall_unix(&e, o->utc_offset_s, o->year) > (double)t + 86400)
			o->year--;
	}
}

/*
 * The kernel log into the report: --dmesg's file, or live /dev/kmsg. 0, or
 * -errno (reported); a live log that cannot be read is said and skipped.
 */
static int add_kernel_log(json_t *rep, bool live)
{
	struct klog_link_opts lo = {
		.drift = KLOG_DRIFT,
		.live = live && !opts.dmesg,
		.alone = live && opts.dmesg,
	};
	struct kmsg_stats st;
	struct klog k;
	FILE *f = NULL;
	int err = 0;

	klog_init(&k);
	if (opts.dmesg) {
		lo.source = opts.dmesg;
		f = strcmp(opts.dmesg, "-") ? fopen(opts.dmesg, "r") : stdin;
		if (!f) {
			err = -errno;
			p_err("postmortem: opening %s: %s: give a saved kernel log (dmesg, dmesg -T, "
			      "journalctl -k, a syslog file)",
			      opts.dmesg, strerror(errno));
			return err;
		}
		err = feed_file(&k, f, opts.dmesg);
		if (f != stdin)
			fclose(f);
		klog_finish(&k, NAN);
		/* a recording's clock: the printk one is its boot's */
		lo.printk_to_unix = jnum(rep, "boot_to_real_s", NAN);
	} else {
		lo.source = "/dev/kmsg";
		err = kmsg_read(&k, &st);
		if (err) {
			p_warn("postmortem: /dev/kmsg: %s: the report goes on without the kernel "
			       "log%s",
			       strerror(-err),
			       err == -EPERM || err == -EACCES ?
				       " (it needs root, or CAP_SYSLOG with kernel.dmesg_restrict=1)" :
				       "");
			klog_free(&k);
			return 0;
		}
		if (st.overwritten)
			p_info("postmortem: /dev/kmsg: %llu records overwritten while read",
			       (unsigned long long)st.overwritten);
		klog_finish(&k, now_mono_s());
		lo.printk_to_unix = now_real_s() - now_mono_s();
	}
	local_clock_opts(&lo, &k, jnum(rep, "time", NAN));
	if (!err && pm_add_kernel_log(rep, &k, &lo)) {
		p_err("postmortem: the kernel log's pools: %s", strerror(ENOMEM));
		err = -ENOMEM;
	}
	klog_free(&k);
	return err;
}

/* a report naming a stalled pool: exit 1, as a failed check does */
static bool any_stalled(const json_t *rep)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(rep, "pools"), i, p)
	{
		if (json_is_true(json_object_get(p, "stalled")))
			return true;
	}
	return false;
}

static int pm_run(int argc, char **argv)
{
	const char *name = argc ? argv[0] : NULL;
	struct recording r = { 0 };
	json_t *rep = NULL, *input = NULL, *vmcore = NULL;
	struct pm *a = NULL;
	FILE *f = NULL;
	int err = 0;

	if (argc > 1) {
		usage_error("one FILE at most");
		return EXIT_ERROR;
	}
	if (opts.dmesg && name && !strcmp(name, "-") && !strcmp(opts.dmesg, "-")) {
		usage_error("--dmesg - and FILE -: standard input is one of them");
		return EXIT_ERROR;
	}
	if (opts.vmcore && name) {
		usage_error("--vmcore DUMP or FILE: one of them");
		return EXIT_ERROR;
	}
	if (opts.system_map && !opts.vmcore) {
		usage_error("--system-map is for --vmcore DUMP");
		return EXIT_ERROR;
	}
	if (opts.vmcore) {
		struct vmcore_opts vo = { .path = opts.vmcore,
					  .system_map = opts.system_map,
					  .stall_after = opts.rec.stall_after };

		err = vmcore_records(&vo, &f, &vmcore); /* reports its failure */
		if (!err) {
			err = recording_open_stream(&r, f, "(vmcore)");
			if (err)
				p_err("postmortem: %s", strerror(-err));
		}
	} else if (opts.dmesg && !name) {
		/* a log alone: no recording, nothing live */
	} else if (name && strcmp(name, "-")) {
		err = recording_open(&r, name);
		if (err)
			p_err("opening %s: %s", r.failed ? r.failed : name, strerror(-err));
	} else if (name) {
		err = recording_open_stream(&r, stdin, "-");
		if (err)
			p_err("postmortem: %s", strerror(-err));
	} else {
		f = live_records(); /* reports its failure */
		err = f ? recording_open_stream(&r, f, "(live)") : -EIO;
		if (f && err)
			p_err("postmortem: %s", strerror(-err));
	}
	if (!err && !(a = pm_new())) {
		p_err("postmortem: %s", strerror(ENOMEM));
		err = -ENOMEM;
	}
	if (a)
		context(a);
	if (a)
		pm_report_live(a, opts.vmcore != NULL);
	if (!err && !(opts.dmesg && !name && !opts.vmcore))
		err = read_all(&r, a,
			       name	   ? name :
			       opts.vmcore ? "the dump's records" :
					     "the live record");
	if (!err) {
		input = name ? recording_summary(&r) : NULL;
		rep = pm_report(a,
				name	    ? name :
				opts.vmcore ? "vmcore" :
				opts.dmesg  ? opts.dmesg :
					      "live",
				input);
		if (rep && vmcore && json_object_set(rep, "vmcore", vmcore))
			json_decref(rep), rep = NULL;
		if (!rep || (name && !input)) {
			p_err("postmortem: building the report: %s", strerror(ENOMEM));
			err = -ENOMEM;
		}
	}
	if (!err && (opts.dmesg || (!name && !opts.vmcore && !opts.no_kernel_log)))
		err = add_kernel_log(rep,
				     !name && !opts.vmcore); /* !name with --dmesg: the log alone */
	if (!err && (pm_add_verdicts(rep) || postmortem_prose(rep))) {
		p_err("postmortem: the verdicts: %s", strerror(ENOMEM));
		err = -ENOMEM;
	}
	if (!err) {
		if (env.json) {
			postmortem_json(&stdout_json, rep);
			json_end(&stdout_json);
		} else if (opts.yaml) {
			err = postmortem_yaml(stdout, rep);
		} else {
			postmortem_text(stdout, rep);
		}
	}
	if (!(opts.dmesg && !name && !opts.vmcore))
		recording_close(&r);
	if (f)
		fclose(f);
	pm_free(a);
	json_decref(input);
	json_decref(vmcore);
	if (!err && any_stalled(rep))
		err = 1;
	json_decref(rep);
	return err == 1 ? EXIT_FAILED : err ? EXIT_ERROR : EXIT_OK;
}

const struct command cmd_postmortem = {
	.name = "postmortem",
	.level = PPW_LEVEL_ALL,
	.synopsis =
		"[FILE | --vmcore DUMP [--system-map FILE]] [--dmesg LOG] [--yaml] [--window DUR] "
		"[--stall-after DUR] [-S[N]]",
	.summary = "report on stalled, destroyed and recently freed pools, live, recorded or "
		   "from the kernel log",
	.lopts = pm_lopts,
	.sopts = "S::",
	.opt = pm_opt,
	.run = pm_run,
	.help = pm_help,
};
