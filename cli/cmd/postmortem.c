// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch postmortem [FILE] [--yaml] [--window DUR] [...]
 *
 * A report on every stalled, destroyed-but-out or recently freed pool,
 * from a recording or live: live, it records a short window into memory
 * (sources/rec_writer.c) and reads it back exactly like a file
 * (model/rec_reader.c), so both reports come from the same code
 * (model/postmortem.c, output/postmortem_fmt.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "lib/log.h"
#include "main.h"
#include "model/postmortem.h"
#include "model/rec_reader.h"
#include "output/postmortem_fmt.h"
#include "sources/rec_writer.h"

static struct {
	struct rec_writer_opts rec;
	double window;
	bool yaml;
} opts = {
	.rec = { .snapshot_every = 5, .scan_every = 30, .stall_after = 60, .oldest_pages = 10 },
	.window = 1.5,
};

enum { OPT_STALL = 0x500, OPT_WINDOW, OPT_YAML };

static const struct option pm_lopts[] = {
	{ "yaml", no_argument, NULL, OPT_YAML },
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
	       "  --yaml               YAML instead of text (-j for JSON)\n"
	       "  --window DUR         live: observe this long (default 1.5s: one retry)\n"
	       "  --stall-after DUR    live: stalled after this (default 60s)\n"
	       "  -S, --stacks[=N]     live: sample stacks while observing\n\n");
}

/* record --window into memory */
static int live_records(char **buf)
{
	struct rec_writer w;
	size_t len;
	FILE *mem = open_memstream(buf, &len);
	int err;

	if (!mem)
		return -errno;
	opts.rec.mon = (struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true };
	err = rec_writer_open(&w, mem, &opts.rec);
	if (!err) {
		err = rec_writer_run(&w, opts.window);
		err = rec_writer_close(&w) ?: err;
	}
	fclose(mem);
	return err;
}

static int pm_run(int argc, char **argv)
{
	const char *name = argc ? argv[0] : NULL;
	json_t *recs = NULL, *rep = NULL;
	char *buf = NULL;
	FILE *f = NULL;
	int err = 0;

	if (argc > 1) {
		usage_error("one FILE at most");
		return EXIT_ERROR;
	}
	if (name) {
		f = strcmp(name, "-") ? fopen(name, "r") : stdin;
		if (!f) {
			p_err("opening %s: %s", name, strerror(errno));
			return EXIT_ERROR;
		}
	} else {
		err = live_records(&buf);
		if (err) {
			free(buf);
			return EXIT_ERROR;
		}
		f = fmemopen(buf, strlen(buf), "r");
		if (!f) {
			p_err("reading the live record: %s", strerror(errno));
			free(buf);
			return EXIT_ERROR;
		}
	}
	recs = rec_read(f, name ? name : "(live)");
	if (f != stdin)
		fclose(f);
	if (!recs)
		err = -EINVAL;
	if (!err) {
		rep = postmortem_build(recs, name ? name : "live");
		if (!rep) {
			p_err("postmortem: building the report: %s", strerror(ENOMEM));
			err = -ENOMEM;
		}
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
	json_decref(recs);
	json_decref(rep);
	free(buf);
	return err ? EXIT_ERROR : EXIT_OK;
}

const struct command cmd_postmortem = {
	.name = "postmortem",
	.level = PPW_LEVEL_ALL,
	.synopsis = "[FILE] [--yaml] [--window DUR] [--stall-after DUR] [-S[N]]",
	.summary = "report on stalled, destroyed and recently freed pools, live or recorded",
	.lopts = pm_lopts,
	.sopts = "S::",
	.opt = pm_opt,
	.run = pm_run,
	.help = pm_help,
};
