// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch [OPTIONS] COMMAND [ARGS]: bpftool/ynltool-style front end.
 *
 * Global options are accepted before or after the command word
 * ("ppwatch -j pools" = "ppwatch pools -j"): the command is found first,
 * then one getopt_long pass runs over global and command options together.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/doc.h"
#include "model/lifecycle.h"
#include "output/pool_table.h"
#include "ppwatch.h"
#include "sources/libbpf_log.h"

struct env env = {
	.attach = ATTACH_AUTO,
	.sample_shift = PPW_DEF_SAMPLE_SHIFT,
};
struct json stdout_json;

static const struct command *commands[] = {
	&cmd_pools, &cmd_top,	 &cmd_holders,	  &cmd_blocks, &cmd_pages,  &cmd_stacks,
	&cmd_watch, &cmd_record, &cmd_postmortem, &cmd_check,  &cmd_export, NULL,
};

enum {
	OPT_MAX_PAGES = 0x100,
	OPT_MAX_POOLS,
	OPT_ATTACH,
	OPT_NO_NETLINK,
	OPT_LEVEL,
	OPT_SAMPLE,
};

static const struct option global_lopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "wide", no_argument, NULL, 'w' },
	{ "debug", no_argument, NULL, 'd' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ "max-pages", required_argument, NULL, OPT_MAX_PAGES },
	{ "max-pools", required_argument, NULL, OPT_MAX_POOLS },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "no-netlink", no_argument, NULL, OPT_NO_NETLINK },
	{ "level", required_argument, NULL, OPT_LEVEL },
	{ "sample-rate", required_argument, NULL, OPT_SAMPLE },
	{ 0 }
};
static const char global_sopts[] = "jpwdvVh";

void usage_error(const char *fmt, ...)
{
	va_list ap;

	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s%s%s: %s", env.prog, env.cmd ? " " : "", env.cmd ? env.cmd : "", msg);
	log_note_error("%s", msg);
	fprintf(stderr, "\nTry '%s%s%s help' for more information.\n", env.prog, env.cmd ? " " : "",
		env.cmd ? env.cmd : "");
}

static void print_global_options(FILE *f)
{
	fprintf(f,
		"OPTIONS (before or after COMMAND):\n"
		"  -j, --json         JSON on stdout (one document, or one object per line)\n"
		"  -p, --pretty       indented JSON (implies -j)\n"
		"  -w, --wide         all text columns\n"
		"  -d, --debug        libbpf and verifier messages\n"
		"  -v, --verbose      more messages on stderr\n"
		"  -V, --version      print the version\n"
		"      --level L      what the hot path records: counters (no page ages;\n"
		"                     the cheapest), sampled (ages of 1 page in --sample-rate,\n"
		"                     shown as estimates) or all (every page); each command\n"
		"                     has its default (ppwatch(8))\n"
		"      --sample-rate N  sampled level: 1 page in N, a power of two (default %u)\n"
		"      --max-pages N  inflight pages the ledger covers (default %u; all: ~48 B\n"
		"                     of map memory per page, sampled: that / N)\n"
		"      --max-pools N  pool table size (default %u)\n"
		"      --attach TYPE  auto | tp_btf | raw_tp | tracepoint (default auto)\n"
		"      --no-netlink   do not ask netlink (netdev family)\n",
		1U << PPW_DEF_SAMPLE_SHIFT, PPW_DEF_MAX_PAGES, PPW_DEF_MAX_POOLS);
}

static void print_usage(FILE *f)
{
	const struct command **c;

	fprintf(f, "Usage: %s [OPTIONS] COMMAND [ARGS]\n\nCOMMANDS:\n", env.prog);
	for (c = commands; *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "  %-10s %s\n\n", "help", "this text; 'COMMAND help' for a command");
	print_global_options(f);
	fprintf(f, "\nEXIT STATUS: 0 success, 1 a check failed, 2 error. See ppwatch(8).\n");
}

static void print_cmd_usage(const struct command *c)
{
	printf("Usage: %s %s %s\n\n%s.\n\n", env.prog, c->name, c->synopsis, c->summary);
	if (c->help)
		c->help();
	print_global_options(stdout);
}

static int parse_global(int o, const char *arg)
{
	uint64_t v;

	switch (o) {
	case 'j':
		env.json = true;
		break;
	case 'p':
		env.json = env.pretty = true;
		break;
	case 'w':
		env.wide = true;
		break;
	case 'd':
		log_set_level(LOG_LIBBPF_DEBUG);
		break;
	case 'v':
		if (log_get_level() < LOG_DEBUG)
			log_set_level(log_get_level() + 1);
		break;
	case OPT_MAX_PAGES:
		if (parse_u64(arg, 1, 1ULL << 30, &v)) {
			usage_error("--max-pages '%s': expected 1..%llu", arg, 1ULL << 30);
			return -EINVAL;
		}
		env.max_pages = v;
		break;
	case OPT_MAX_POOLS:
		if (parse_u64(arg, 1, 1U << 20, &v)) {
			usage_error("--max-pools '%s': expected 1..%u", arg, 1U << 20);
			return -EINVAL;
		}
		env.max_pools = v;
		break;
	case OPT_ATTACH:
		if (attach_mode_parse(arg, &env.attach)) {
			usage_error("--attach '%s': expected auto, tp_btf, raw_tp or tracepoint",
				    arg);
			return -EINVAL;
		}
		break;
	case OPT_NO_NETLINK:
		env.no_netlink = true;
		break;
	case OPT_LEVEL:
		if (level_parse(arg, &env.level)) {
			usage_error("--level '%s': expected counters, sampled or all", arg);
			return -EINVAL;
		}
		env.level_set = true;
		break;
	case OPT_SAMPLE:
		if (parse_u64(arg, 1, 1U << 16, &v) || (v & (v - 1))) {
			usage_error("--sample-rate '%s': expected a power of two from 1 to 65536 "
				    "(the sample is chosen by bits of each page's hash)",
				    arg);
			return -EINVAL;
		}
		for (env.sample_shift = 0; (1ULL << env.sample_shift) < v; env.sample_shift++)
			;
		break;
	default:
		return -ENOENT;
	}
	return 0;
}

static bool global_takes_arg(const char *a)
{
	const struct option *o;
	size_t len;

	if (strncmp(a, "--", 2) || strchr(a, '='))
		return false;
	len = strlen(a + 2);
	for (o = global_lopts; o->name; o++)
		if (!strncmp(o->name, a + 2, len) && o->has_arg == required_argument)
			return true;
	return false;
}

/* The command word: the first argument that is not a global option. */
static int find_command(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1 < argc ? i + 1 : -1;
		if (argv[i][0] != '-' || !argv[i][1])
			return i;
		if (global_takes_arg(argv[i]))
			i++;
	}
	return -1;
}

static const struct command *lookup(const char *name)
{
	const struct command **c, *found = NULL;

	for (c = commands; *c; c++) {
		if (!strcmp((*c)->name, name))
			return *c;
		if (str_is_prefix(name, (*c)->name)) {
			if (found)
				return NULL; /* ambiguous prefix */
			found = *c;
		}
	}
	return found;
}

/*
 * "ppwatch __complete WHAT [COMMAND]": the words bash completion offers,
 * one per line, from the tables above (bash-completion/ppwatch). Hidden from
 * the help text; never needs root.
 *   commands          the command words, and help
 *   options [CMD]     "OPTION ARG" for the global (and CMD's) options,
 *                     ARG: 0 none, 1 required, 2 optional (--opt=VALUE)
 *   sort-keys         the columns -s/--sort accepts
 *   events            the events watch -e accepts
 */
static void complete_opts(const struct option *lo, const char *so)
{
	for (; lo && lo->name; lo++)
		printf("--%s %d\n", lo->name, lo->has_arg);
	for (; so && *so; so++) {
		if (*so == ':' || *so == '+')
			continue;
		printf("-%c %d\n", *so, so[1] != ':' ? 0 : so[2] == ':' ? 2 : 1);
	}
}

static void complete_keys(struct oview ov)
{
	int i;

	for (i = 0; i < ov.ncols; i++)
		printf("%s\n", ov.cols[i].key);
}

static int complete(int argc, char **argv)
{
	const struct command **c, *cmd = NULL;
	struct snapshot none = { 0 };
	int k;

	if (argc >= 1 && !strcmp(argv[0], "commands")) {
		for (c = commands; *c; c++)
			printf("%s\n", (*c)->name);
		printf("help\n");
		return EXIT_OK;
	}
	if (argc >= 1 && !strcmp(argv[0], "options")) {
		if (argc >= 2 && !(cmd = lookup(argv[1])))
			return EXIT_ERROR;
		complete_opts(global_lopts, global_sopts);
		if (cmd)
			complete_opts(cmd->lopts, cmd->sopts);
		return EXIT_OK;
	}
	if (argc >= 1 && !strcmp(argv[0], "sort-keys")) {
		complete_keys(pool_oview(&none));
		complete_keys(group_oview());
		return EXIT_OK;
	}
	if (argc >= 1 && !strcmp(argv[0], "events")) {
		for (k = 1; k < LE_KIND_MAX; k++)
			printf("%s\n", life_kind_name(k));
		return EXIT_OK;
	}
	return EXIT_ERROR;
}

/*
 * The exit status; with -j, a run that could not do its job (2) ends stdout
 * with {"error": "..."}, bpftool's shape, unless a document was left open
 * (the messages are on stderr as always).
 */
static int finish(int rc)
{
	const char *why = log_errors();

	if (rc != EXIT_ERROR || !env.json || !why || stdout_json.depth)
		return rc;
	if (!stdout_json.f)
		json_init(&stdout_json, stdout, env.pretty);
	doc_open(&stdout_json);
	json_kv_str(&stdout_json, "error", why);
	json_obj_close(&stdout_json);
	json_end(&stdout_json);
	return rc;
}

int main(int argc, char **argv)
{
	struct option lopts[64];
	const struct command *cmd = NULL;
	char sopts[64];
	size_t nl = 0, i;
	int ci, o, err;

	env.prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	setlinebuf(stdout);
#ifdef M_MMAP_THRESHOLD
	/*
	 * A refresh allocates and frees the same few buffers of megabytes
	 * (10,000 pools): from the heap, kept, not mmap'd and faulted in anew
	 * each time (a tenth of top's refresh at that size).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
	libbpf_log_setup();
	if (argc > 1 && !strcmp(argv[1], "__complete"))
		return complete(argc - 2, argv + 2);

	ci = find_command(argc, argv);
	if (ci > 0 && strcmp(argv[ci], "help")) {
		cmd = lookup(argv[ci]);
		if (!cmd) {
			usage_error("unknown or ambiguous command '%s'", argv[ci]);
			return finish(EXIT_ERROR);
		}
		env.cmd = cmd->name;
		/* drop the command word; getopt permutes the rest */
		memmove(&argv[ci], &argv[ci + 1], (argc - ci) * sizeof(*argv));
		argc--;
	}

	for (i = 0; global_lopts[i].name; i++)
		lopts[nl++] = global_lopts[i];
	snprintf(sopts, sizeof(sopts), "+%s", global_sopts);
	if (cmd && cmd->lopts)
		for (i = 0; cmd->lopts[i].name && nl < ARRAY_SIZE(lopts) - 1; i++)
			lopts[nl++] = cmd->lopts[i];
	lopts[nl] = (struct option){ 0 };
	if (cmd && cmd->sopts)
		strncat(sopts, cmd->sopts, sizeof(sopts) - strlen(sopts) - 1);
	/* "+" stops at the first non-option only without a command; with one, permute */
	if (cmd)
		memmove(sopts, sopts + 1, strlen(sopts));

	opterr = 0;
	while ((o = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (o == 'h') {
			if (cmd)
				print_cmd_usage(cmd);
			else
				print_usage(stdout);
			return EXIT_OK;
		}
		if (o == 'V') {
			printf("ppwatch %s\n", PPWATCH_VERSION);
			return EXIT_OK;
		}
		if (o == '?') {
			if (optopt)
				usage_error("unknown option '-%c' or missing argument", optopt);
			else
				usage_error("unknown option '%s' or missing argument",
					    argv[optind - 1]);
			return finish(EXIT_ERROR);
		}
		err = parse_global(o, optarg);
		if (err == -ENOENT && cmd && cmd->opt)
			err = cmd->opt(o, optarg);
		if (err)
			return finish(EXIT_ERROR);
	}
	if (!cmd) {
		print_usage(ci > 0 ? stdout : stderr);
		return ci > 0 ? EXIT_OK : EXIT_ERROR;
	}
	if (optind < argc && !strcmp(argv[optind], "help")) {
		print_cmd_usage(cmd);
		return EXIT_OK;
	}
	if (!env.level_set)
		env.level = cmd->level;
	if (env.json)
		json_init(&stdout_json, stdout, env.pretty);
	stop_on_signals();
	return finish(cmd->run(argc - optind, argv + optind));
}
