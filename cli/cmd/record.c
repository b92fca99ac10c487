// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch record -o FILE [...] [DURATION]
 * ppwatch postmortem [FILE] [--yaml] [--window DUR] [...]
 *
 * record writes what happens (lifecycle events, snapshots, holder scans,
 * the oldest pages of destroyed pools, sampled stacks) as JSON Lines.
 * postmortem reports on every stalled, destroyed-but-out or recently freed
 * pool, from such a file or live: live, it records a short window into
 * memory and reads it back exactly like a file, so both reports come from
 * the same code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonp.h"
#include "lib/log.h"
#include "main.h"
#include "sources/rec_writer.h"
#include "model/postmortem.h"
#include "sources/stacks.h"
#include "lib/util.h"

static struct {
	const char *out;
	struct recorder_opts rec;
	double duration;
	double window;
	bool yaml;
} opts = {
	.rec = { .snapshot_every = 5, .scan_every = 30, .stall_after = 60, .oldest_pages = 10 },
	.window = 1.5,
};

enum { OPT_SNAP = 0x500, OPT_SCAN, OPT_STALL, OPT_WINDOW, OPT_YAML, OPT_OLDEST };

static const struct option record_lopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "snapshot-every", required_argument, NULL, OPT_SNAP },
	{ "scan-every", required_argument, NULL, OPT_SCAN },
	{ "stall-after", required_argument, NULL, OPT_STALL },
	{ "oldest-pages", required_argument, NULL, OPT_OLDEST },
	{ "stacks", optional_argument, NULL, 'S' },
	{ 0 }
};

static const struct option pm_lopts[] = {
	{ "yaml", no_argument, NULL, OPT_YAML },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "stall-after", required_argument, NULL, OPT_STALL },
	{ "stacks", optional_argument, NULL, 'S' },
	{ 0 }
};

static int dur(const char *opt, const char *arg, double *out)
{
	if (parse_duration(arg, out)) {
		usage_error("%s '%s': expected a duration such as 5s", opt, arg);
		return -EINVAL;
	}
	return 0;
}

static int common_opt(int o, const char *arg)
{
	uint64_t v;

	switch (o) {
	case 'o':
		opts.out = arg;
		return 0;
	case OPT_SNAP:
		return dur("--snapshot-every", arg, &opts.rec.snapshot_every);
	case OPT_SCAN:
		return dur("--scan-every", arg, &opts.rec.scan_every);
	case OPT_STALL:
		return dur("--stall-after", arg, &opts.rec.stall_after);
	case OPT_WINDOW:
		return dur("--window", arg, &opts.window);
	case OPT_OLDEST:
		if (parse_u64(arg, 0, 100000, &v)) {
			usage_error("--oldest-pages '%s': expected 0..100000", arg);
			return -EINVAL;
		}
		opts.rec.oldest_pages = v;
		return 0;
	case OPT_YAML:
		opts.yaml = true;
		return 0;
	case 'S':
		opts.rec.stack_every = STACKS_DEFAULT_EVERY;
		if (arg && parse_u64(arg, 1, 1 << 20, &v)) {
			usage_error("--stacks=%s: expected 1..1048576 (1 in N events)", arg);
			return -EINVAL;
		}
		if (arg)
			opts.rec.stack_every = v;
		return 0;
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

static int record_run(int argc, char **argv)
{
	struct recorder r;
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
	f = strcmp(opts.out, "-") ? fopen(opts.out, "w") : stdout;
	if (!f) {
		p_err("opening %s for writing: %s", opts.out, strerror(errno));
		return EXIT_ERROR;
	}
	err = recorder_open(&r, f, &opts.rec);
	if (!err) {
		p_info("recording to %s; Ctrl-C to stop", opts.out);
		err = recorder_run(&r, opts.duration);
		err = recorder_close(&r) ?: err;
	}
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	if (err) {
		p_err("record: %s", strerror(-err));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* one JSON object per line; errors name file:line */
static int read_records(FILE *f, const char *name, struct jv ***out, size_t *n)
{
	struct jv **v = NULL, **nv;
	size_t cap = 0, len = 0, lineno = 0;
	char *line = NULL, err[128];
	ssize_t got;

	*n = 0;
	while ((got = getline(&line, &len, f)) > 0) {
		struct jv *rec;

		lineno++;
		if (got == 1 && line[0] == '\n')
			continue;
		rec = jv_parse(line, err, sizeof(err));
		if (!rec || rec->t != JV_OBJ || !jv_get(rec, "type")) {
			p_err("%s:%zu: %s", name, lineno,
			      rec ? "not a ppwatch record (an object with a \"type\")" : err);
			jv_free(rec);
			goto fail;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				jv_free(rec);
				goto fail;
			}
			v = nv;
		}
		v[(*n)++] = rec;
	}
	free(line);
	if (!*n || strcmp(jv_str(jv_get(v[0], "type"), ""), "header")) {
		p_err("%s: no header record: not a 'ppwatch record' file", name);
		*out = v;
		return -EINVAL;
	}
	*out = v;
	return 0;
fail:
	free(line);
	*out = v;
	return -EINVAL;
}

static int live_records(char **buf)
{
	struct recorder r;
	size_t len;
	FILE *mem = open_memstream(buf, &len);
	int err;

	if (!mem)
		return -errno;
	err = recorder_open(&r, mem, &opts.rec);
	if (!err) {
		err = recorder_run(&r, opts.window);
		err = recorder_close(&r) ?: err;
	}
	fclose(mem);
	return err;
}

static int pm_run(int argc, char **argv)
{
	const char *name = argc ? argv[0] : NULL;
	struct jv **recs = NULL, *rep = NULL;
	size_t n = 0, i;
	char *buf = NULL;
	FILE *f = NULL;
	int err;

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
	err = read_records(f, name ? name : "(live)", &recs, &n);
	if (f != stdin)
		fclose(f);
	if (!err) {
		rep = postmortem_build(recs, n, name ? name : "live");
		if (!rep)
			err = -ENOMEM;
	}
	if (!err) {
		if (env.json) {
			jv_write(&jw, rep);
			json_end(&jw);
		} else if (opts.yaml) {
			err = postmortem_yaml(stdout, rep);
		} else {
			postmortem_text(stdout, rep);
		}
	}
	for (i = 0; i < n; i++)
		jv_free(recs[i]);
	free(recs);
	jv_free(rep);
	free(buf);
	return err ? EXIT_ERROR : EXIT_OK;
}

const struct command cmd_record = {
	.name = "record",
	.synopsis = "-o FILE [--snapshot-every DUR] [--scan-every DUR] [-S[N]] "
		    "[--stall-after DUR] [DURATION]",
	.summary = "record lifecycle events, snapshots, holder scans and stacks to a file",
	.lopts = record_lopts,
	.sopts = "o:S::",
	.opt = common_opt,
	.run = record_run,
	.help = record_help,
};

const struct command cmd_postmortem = {
	.name = "postmortem",
	.synopsis = "[FILE] [--yaml] [--window DUR] [--stall-after DUR] [-S[N]]",
	.summary = "report on stalled, destroyed and recently freed pools, live or recorded",
	.lopts = pm_lopts,
	.sopts = "S::",
	.opt = common_opt,
	.run = pm_run,
	.help = pm_help,
};
