// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch record -o FILE [...] [DURATION]
 *
 * Writes what happens (lifecycle events, snapshots, holder scans, the
 * oldest pages of destroyed pools, sampled stacks) as JSON Lines
 * (sources/rec_writer.c), for 'ppwatch postmortem FILE' here or on
 * another host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "sources/rec_writer.h"
#include "sources/stacks.h"

static struct {
	const char *out;
	struct rec_writer_opts rec;
	double duration;
} opts = {
	.rec = { .snapshot_every = 5, .scan_every = 30, .stall_after = 60, .oldest_pages = 10 },
};

enum { OPT_SNAP = 0x500, OPT_SCAN, OPT_STALL, OPT_OLDEST };

static const struct option record_lopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "snapshot-every", required_argument, NULL, OPT_SNAP },
	{ "scan-every", required_argument, NULL, OPT_SCAN },
	{ "stall-after", required_argument, NULL, OPT_STALL },
	{ "oldest-pages", required_argument, NULL, OPT_OLDEST },
	{ "stacks", optional_argument, NULL, 'S' },
	{ 0 }
};

static int record_opt(int o, const char *arg)
{
	uint64_t v;

	switch (o) {
	case 'o':
		opts.out = arg;
		return 0;
	case OPT_SNAP:
		return args_duration("--snapshot-every", arg, &opts.rec.snapshot_every);
	case OPT_SCAN:
		return args_duration("--scan-every", arg, &opts.rec.scan_every);
	case OPT_STALL:
		return args_duration("--stall-after", arg, &opts.rec.stall_after);
	case OPT_OLDEST:
		if (parse_u64(arg, 0, 100000, &v)) {
			usage_error("--oldest-pages '%s': expected 0..100000", arg);
			return -EINVAL;
		}
		opts.rec.oldest_pages = v;
		return 0;
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
	       "  --snapshot-every DUR every pool's state this often (default 5s)\n"
	       "  --scan-every DUR     a holder scan this often (default 30s); a destroy, a\n"
	       "                       stall and a free scan at once as well\n"
	       "  --oldest-pages N     oldest pages kept per destroyed pool and scan (10)\n"
	       "  --stall-after DUR    a destroyed pool is stalled after this (default 60s)\n"
	       "  -S, --stacks[=N]     sample hold/release stacks, 1 in N (default %d)\n\n",
	       STACKS_DEFAULT_EVERY);
}

/*
 * The output file, as root may open it in a directory others can write
 * (/tmp): not through a symlink (O_NOFOLLOW), nothing but a regular file
 * (a FIFO would block, a device is no recording), not a file with other
 * names (a hard link to /etc/shadow), and truncated only once all that
 * holds. A FILE, or NULL with the reason reported.
 */
static FILE *open_output(const char *path)
{
	struct stat st;
	const char *why;
	int fd, err;
	FILE *f;

	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
	if (fd < 0) {
		err = errno;
		p_err("opening %s for writing: %s%s", path, strerror(err),
		      err == ELOOP ? " (a symlink: give the file itself)" : "");
		return NULL;
	}
	why = fstat(fd, &st)				? strerror(errno) :
	      !S_ISREG(st.st_mode)			? "not a regular file" :
	      st.st_nlink > 1				? "it has other hard links" :
	      ftruncate(fd, 0) || fcntl(fd, F_SETFL, 0) ? strerror(errno) :
							  NULL;
	if (why || !(f = fdopen(fd, "w"))) {
		p_err("opening %s for writing: %s", path, why ? why : strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

static int record_run(int argc, char **argv)
{
	struct rec_writer w;
	FILE *f;
	int err;

	if (argc > 1 || (argc == 1 && parse_duration(argv[0], &opts.duration))) {
		usage_error("expected at most one DURATION, got '%s'", argv[0]);
		return EXIT_ERROR;
	}
	if (!opts.out) {
		usage_error("where to? give -o FILE (or -o - for stdout)");
		return EXIT_ERROR;
	}
	f = strcmp(opts.out, "-") ? open_output(opts.out) : stdout;
	if (!f)
		return EXIT_ERROR;
	opts.rec.path = opts.out;
	opts.rec.mon = (struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true };
	err = rec_writer_open(&w, f, &opts.rec);
	if (!err) {
		p_info("recording to %s; Ctrl-C to stop", opts.out);
		err = rec_writer_run(&w, opts.duration);
		err = rec_writer_close(&w) ?: err;
	}
	if (f != stdout && fclose(f) && !err) {
		err = -errno;
		p_err("record: closing %s: %s", opts.out, strerror(-err));
	}
	return err ? EXIT_ERROR : EXIT_OK; /* a failure is reported where it happened */
}

const struct command cmd_record = {
	.name = "record",
	.level = PPW_LEVEL_ALL,
	.synopsis = "-o FILE [--snapshot-every DUR] [--scan-every DUR] [-S[N]] "
		    "[--stall-after DUR] [DURATION]",
	.summary = "record lifecycle events, snapshots, holder scans and stacks to a file",
	.lopts = record_lopts,
	.sopts = "o:S::",
	.opt = record_opt,
	.run = record_run,
	.help = record_help,
};
