// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch record -o FILE [...] [DURATION]
 *
 * Writes what happens (lifecycle events, snapshots, holder scans, the
 * oldest pages of destroyed pools, sampled stacks) as JSON Lines
 * (sources/recorder.c), for 'ppwatch postmortem FILE' here or on
 * another host.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "lib/log.h"
#include "lib/private_file.h"
#include "lib/rotfile.h"
#include "lib/util.h"
#include "main.h"
#include "sources/recorder.h"
#include "sources/stacks.h"

/* the bounded recorder's defaults: see OUTPUT FILES in ppwatch-record(8) */
#define DEFAULT_MAX_SIZE  (64ull << 20)
#define DEFAULT_MAX_FILES 8
#define MIN_MAX_SIZE	  (16ull << 10)
/* FILE.incidents: at most this by default (or --max-size), the last freed incidents kept */
#define DEFAULT_INCIDENT_SIZE (4ull << 20)
#define DEFAULT_INCIDENTS     8

static struct {
	const char *out;
	struct recorder_opts rec;
	double duration;
	uint64_t max_size, max_files;
	bool max_size_set, max_files_set;
	struct file_perm perm; /* 0600, or 0640 with --group */
	const char *group;
	uint64_t incident_size, incidents;
	bool incident_size_set;
} opts = {
	/* an always-on recorder's: ppwatch-record(8) DISK says what they cost */
	.rec = { .snapshot_every = 15, .scan_every = 60, .stall_after = 60, .oldest_pages = 10 },
	.max_size = DEFAULT_MAX_SIZE,
	.max_files = DEFAULT_MAX_FILES,
	.incidents = DEFAULT_INCIDENTS,
};

enum {
	OPT_SNAP = 0x500,
	OPT_SCAN,
	OPT_STALL,
	OPT_OLDEST,
	OPT_MAX_SIZE,
	OPT_MAX_FILES,
	OPT_GROUP,
	OPT_INCIDENTS,
	OPT_INCIDENT_SIZE,
};

static const struct option record_lopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "snapshot-every", required_argument, NULL, OPT_SNAP },
	{ "scan-every", required_argument, NULL, OPT_SCAN },
	{ "stall-after", required_argument, NULL, OPT_STALL },
	{ "oldest-pages", required_argument, NULL, OPT_OLDEST },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "max-files", required_argument, NULL, OPT_MAX_FILES },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "incidents", required_argument, NULL, OPT_INCIDENTS },
	{ "incident-size", required_argument, NULL, OPT_INCIDENT_SIZE },
	{ "stacks", optional_argument, NULL, 'S' },
	{ 0 }
};

/* an interval: a duration of at least a millisecond (0 would never wait) */
static int interval(const char *opt, const char *arg, double *out)
{
	if (parse_duration(arg, out) || *out < 0.001) {
		usage_error("%s '%s': expected an interval of 1ms or more, such as 15s", opt, arg);
		return -EINVAL;
	}
	return 0;
}

static int record_opt(int o, const char *arg)
{
	uint64_t v;

	switch (o) {
	case 'o':
		opts.out = arg;
		return 0;
	case OPT_SNAP:
		return interval("--snapshot-every", arg, &opts.rec.snapshot_every);
	case OPT_SCAN:
		return interval("--scan-every", arg, &opts.rec.scan_every);
	case OPT_STALL:
		return args_duration("--stall-after", arg, &opts.rec.stall_after);
	case OPT_OLDEST:
		if (parse_u64(arg, 0, 100000, &v)) {
			usage_error("--oldest-pages '%s': expected 0..100000", arg);
			return -EINVAL;
		}
		opts.rec.oldest_pages = v;
		return 0;
	case OPT_MAX_SIZE:
		if (parse_size(arg, &v) || (v && v < MIN_MAX_SIZE) || v > (1ull << 50)) {
			usage_error("--max-size '%s': expected 0 (no limit) or a size from 16k, "
				    "as 64M or 1G",
				    arg);
			return -EINVAL;
		}
		opts.max_size = v;
		opts.max_size_set = true;
		return 0;
	case OPT_MAX_FILES:
		if (parse_u64(arg, 1, ROTFILE_MAX_FILES - 1, &v)) {
			usage_error("--max-files '%s': expected 1..%d", arg, ROTFILE_MAX_FILES - 1);
			return -EINVAL;
		}
		opts.max_files = v;
		opts.max_files_set = true;
		return 0;
	case OPT_INCIDENTS:
		if (parse_u64(arg, 0, 1000, &v)) {
			usage_error("--incidents '%s': expected 0..1000", arg);
			return -EINVAL;
		}
		opts.incidents = v;
		return 0;
	case OPT_INCIDENT_SIZE:
		if (parse_size(arg, &v) || (v && v < MIN_MAX_SIZE) || v > (1ull << 30)) {
			usage_error(
				"--incident-size '%s': expected 0 (none) or a size from 16k to 1G",
				arg);
			return -EINVAL;
		}
		opts.incident_size = v;
		opts.incident_size_set = true;
		return 0;
	case OPT_GROUP:
		opts.group = arg;
		return args_group(arg, &opts.perm);
	case 'S':
		return args_stack_every(arg, &opts.rec.stack_every);
	}
	return -ENOENT;
}

static void record_help(void)
{
	printf("ARGS:\n"
	       "  DURATION             stop after this long (default: Ctrl-C)\n"
	       "\n"
	       "  -o, --output FILE    where to write (JSON Lines; - for stdout); required\n"
	       "  --max-size SIZE      rotate FILE to FILE.1 ... past SIZE (default 64M; 0:\n"
	       "                       one file, no limit)\n"
	       "  --max-files N        keep FILE and N-1 rotations, the oldest dropped\n"
	       "                       (default 8: at most 512M on disk)\n"
	       "  --group GROUP        the files readable by GROUP too (0640; default 0600:\n"
	       "                       root only)\n"
	       "  --incident-size SIZE FILE.incidents, each destroyed pool's records kept\n"
	       "                       past rotation, at most SIZE (default 4M, or --max-size\n"
	       "                       if smaller; 0: none)\n"
	       "  --incidents N        freed incidents kept in it (default 8)\n"
	       "  --snapshot-every DUR every pool's state this often (default 15s)\n"
	       "  --scan-every DUR     a holder scan this often (default 60s); a destroy, a\n"
	       "                       stall and a free scan at once as well\n"
	       "  --oldest-pages N     oldest pages kept per destroyed pool and scan (10)\n"
	       "  --stall-after DUR    a destroyed pool is stalled after this (default 60s)\n"
	       "  -S, --stacks[=N]     sample hold/release stacks, 1 in N (default %d)\n\n",
	       STACKS_DEFAULT_EVERY);
}

static int record_run(int argc, char **argv)
{
	struct recorder w;
	struct rotfile out;
	char size[32];
	int err;

	if (argc > 1 || (argc == 1 && parse_duration(argv[0], &opts.duration))) {
		usage_error("expected at most one DURATION, got '%s'", argv[0]);
		return EXIT_ERROR;
	}
	if (!opts.out) {
		usage_error("where to? give -o FILE (or -o - for stdout)");
		return EXIT_ERROR;
	}
	if (!strcmp(opts.out, "-")) {
		if (opts.max_size_set || opts.max_files_set || opts.group ||
		    opts.incident_size_set) {
			usage_error(
				"--max-size, --max-files, --group and --incident-size are about "
				"files; standard output is not one");
			return EXIT_ERROR;
		}
		rotfile_open_fd(&out, STDOUT_FILENO, "standard output");
	} else {
		char made[4096], why[1024];

		/* a directory that is not there yet is made, 0700 as the files are */
		err = private_dir_make(opts.out, made, sizeof(made), why, sizeof(why));
		if (err < 0) {
			p_err("record: %s", why);
			return EXIT_ERROR;
		}
		if (err > 0)
			p_notice("ppwatch record: made the directory %s (0700)", made);
		/* no limit: one file, as before rotation */
		err = rotfile_open(&out, opts.out, opts.max_size,
				   opts.max_size ? opts.max_files : 1, &opts.perm);
		if (err) {
			p_err("record: %s", out.what);
			return EXIT_ERROR;
		}
	}
	/* a file size limit loses records (counted), as a full disk does, instead of killing */
	signal(SIGXFSZ, SIG_IGN);
	opts.rec.path = opts.out;
	if (!opts.incident_size_set)
		opts.incident_size = opts.max_size < DEFAULT_INCIDENT_SIZE ? opts.max_size :
									     DEFAULT_INCIDENT_SIZE;
	/* no rotation, nothing to keep past it */
	opts.rec.incident_size = opts.max_size ? opts.incident_size : 0;
	opts.rec.keep_incidents = opts.incidents;
	opts.rec.perm = opts.perm;
	opts.rec.mon = (struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true };
	err = recorder_open(&w, &out, &opts.rec);
	if (!err) {
		if (opts.max_size && out.path)
			p_info("recording to %s (rotated past %s, %llu files at most); Ctrl-C to "
			       "stop",
			       opts.out, fmt_bytes(size, sizeof(size), opts.max_size),
			       (unsigned long long)opts.max_files);
		else
			p_info("recording to %s; Ctrl-C to stop", opts.out);
		err = recorder_run(&w, opts.duration);
		err = recorder_close(&w, err ? "error" : exiting ? "signal" : "duration") ?: err;
		p_info("record: %zu records, %llu rotations, %llu records lost", w.records,
		       (unsigned long long)out.rotations, (unsigned long long)w.lost_total);
	}
	if (rotfile_close(&out) && !err) {
		p_err("record: %s", out.what);
		err = -EIO;
	}
	return err ? EXIT_ERROR : EXIT_OK; /* a failure is reported where it happened */
}

const struct command cmd_record = {
	.name = "record",
	.level = PPW_LEVEL_ALL,
	.synopsis =
		"-o FILE [--max-size SIZE] [--max-files N] [--incident-size SIZE] [--incidents N] "
		"[--group GROUP] [--snapshot-every DUR] "
		"[--scan-every DUR] [-S[N]] [--stall-after DUR] [DURATION]",
	.summary = "record lifecycle events, snapshots, holder scans and stacks to a file",
	.lopts = record_lopts,
	.sopts = "o:S::",
	.opt = record_opt,
	.run = record_run,
	.help = record_help,
};
