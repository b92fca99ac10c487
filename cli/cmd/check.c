// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch check: assertions for CI, with exit codes.
 *
 *   ppwatch check -f RULES.yaml              rules against the pools now
 *   ppwatch check --run CMD [--deadline 5s]  every pool CMD destroys must be
 *                                            freed within the deadline
 *
 * Both can be combined (the rules then see the pools after the run). The
 * verdicts print as text, TAP, JUnit XML or JSON (-j). Exit status: 0 every
 * check passed, 1 a check failed, 2 something could not be checked (a bad
 * rules file, no privileges, a rule the kernel cannot answer, a command
 * that failed).
 *
 * --run: watch for --window first (a destroyed pool that no device lists
 * any more shows up at its next once-a-second retry, so zombies from before
 * are told apart), record every pool, run the command with /bin/sh, then
 * watch until every pool it destroyed is freed or the deadline after its
 * end passes. Pools destroyed during the deadline count too (drivers that
 * destroy from a work item).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "lib/log.h"
#include "lib/spawn.h"
#include "lib/util.h"
#include "main.h"
#include "model/rules.h"
#include "model/rules_eval.h"
#include "model/run_report.h"
#include "output/pool_table.h"
#include "output/report_fmt.h"
#include "output/run_report_fmt.h"
#include "sources/holder_scan.h"
#include "sources/monitor.h"

#define MAX_RULE_FILES 16

static struct {
	const char *files[MAX_RULE_FILES];
	int nfiles;
	const char *run;
	double deadline;
	double window;
	enum report_format format;
	bool format_set;
	bool validate;
} opts = {
	.deadline = 5,
	.window = 1.2,
};

enum {
	OPT_FORMAT = 0x300,
	OPT_RUN,
	OPT_DEADLINE,
	OPT_WINDOW,
	OPT_VALIDATE,
};

static const struct option check_lopts[] = {
	{ "rules", required_argument, NULL, 'f' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "run", required_argument, NULL, OPT_RUN },
	{ "deadline", required_argument, NULL, OPT_DEADLINE },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "validate", no_argument, NULL, OPT_VALIDATE },
	{ 0 },
};

static int check_opt(int o, const char *arg)
{
	switch (o) {
	case 'f':
		if (opts.nfiles == MAX_RULE_FILES) {
			usage_error("at most %d rules files", MAX_RULE_FILES);
			return -EINVAL;
		}
		opts.files[opts.nfiles++] = arg;
		return 0;
	case OPT_FORMAT:
		if (report_format_parse(arg, &opts.format)) {
			usage_error("--format '%s': expected text, tap, junit or json", arg);
			return -EINVAL;
		}
		opts.format_set = true;
		return 0;
	case OPT_RUN:
		if (!*arg) {
			usage_error("--run needs a command");
			return -EINVAL;
		}
		opts.run = arg;
		return 0;
	case OPT_DEADLINE:
		if (parse_duration(arg, &opts.deadline) || opts.deadline > 86400) {
			usage_error("--deadline '%s': expected a duration such as 5s (at most 1d)",
				    arg);
			return -EINVAL;
		}
		return 0;
	case OPT_WINDOW:
		if (parse_duration(arg, &opts.window) || opts.window > 3600) {
			usage_error("--window '%s': expected a duration such as 1.5s", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_VALIDATE:
		opts.validate = true;
		return 0;
	}
	return -ENOENT;
}

static void check_help(void)
{
	const struct rules_key_help *h;
	const char *sec = NULL;
	size_t n, i;

	printf("  -f, --rules FILE   check the rules in FILE (YAML; repeatable)\n"
	       "      --run CMD      run CMD with /bin/sh; every pool it destroys must be\n"
	       "                     freed within the deadline after it ends\n"
	       "      --deadline DUR how long after CMD ends (default 5s)\n"
	       "      --window DUR   observe this long first (default 1.2s): zombies from\n"
	       "                     before show up at their once-a-second retry\n"
	       "      --format FMT   text (default), tap, junit, json (= -j)\n"
	       "      --validate     only check the rules files (no root needed)\n"
	       "\n"
	       "EXIT STATUS: 0 every check passed, 1 a check failed, 2 something could not\n"
	       "be checked (the reason is printed).\n\n"
	       "RULES FILE KEYS:\n");
	n = rules_schema(&h);
	for (i = 0; i < n; i++) {
		if (!sec || strcmp(sec, h[i].section)) {
			sec = h[i].section;
			printf("  %s:\n",
			       !strcmp(sec, "file") ? "top level" :
			       !strcmp(sec, "rule") ? "each rule (a list item under 'rules')" :
						      "match (all given keys must hold)");
		}
		printf("    %-21s %-9s ", h[i].key, h[i].type);
		print_wrapped(h[i].help, 36, 80);
	}
	printf("\nExample: rules:\n"
	       "           - name: vb-bounded\n"
	       "             match: { device: vb }\n"
	       "             max_inflight: 4096\n"
	       "             max_zombie_age: 10s\n\n");
}

/* ---- rules ---------------------------------------------------------------------- */

static int resolve_netns(const char *name, __u32 *ino)
{
	char path[4096];
	struct stat st;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	if (stat(path, &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

static bool rules_need_ages(const struct ruleset *sets, int n)
{
	size_t i;
	int f;

	for (f = 0; f < n; f++)
		for (i = 0; i < sets[f].n; i++)
			if (sets[f].rules[i].has[LIM_MAX_OLDEST_AGE])
				return true;
	return false;
}

/* a rules file: read here, parsed by the model; one that cannot be read is one error */
static int load_file(struct ruleset *rs, const char *path)
{
	size_t len;
	char *buf;
	int err;

	memset(rs, 0, sizeof(*rs));
	err = read_file(path, RULES_MAX_BYTES, &buf, &len);
	if (err == -ENOMEM)
		return err;
	if (err == -EFBIG) {
		fprintf(stderr, "%s: error: cannot read the rules file: more than %d MiB\n", path,
			RULES_MAX_MIB);
		return 1;
	}
	if (err) {
		fprintf(stderr, "%s: error: cannot read the rules file: %s\n", path,
			strerror(-err));
		return 1;
	}
	if (strlen(buf) != len) {
		fprintf(stderr, "%s: error: a NUL byte in the file; expected YAML text\n", path);
		err = 1;
	} else {
		err = rules_parse(rs, path, buf, len, stderr);
	}
	free(buf);
	return err;
}

static int load_rules(struct ruleset *sets)
{
	int i, errors = 0, r;

	for (i = 0; i < opts.nfiles; i++) {
		r = load_file(&sets[i], opts.files[i]);
		if (r < 0) {
			p_err("%s: %s", opts.files[i], strerror(-r));
			return r;
		}
		if (!r)
			r = rules_resolve_netns(&sets[i], resolve_netns, stderr);
		errors += r;
	}
	return errors;
}

/* ---- the command ----------------------------------------------------------------- */

/*
 * Who holds each stuck pool's pages: a holder scan fills p->holders (pid,
 * comm, the holding socket and its pages) of every stuck pool, or says in
 * p->holders_note why it could not.
 */
static void run_find_holders(struct monitor *m, struct run_report *rep)
{
	struct holders_report hr;
	struct scan_result scan;
	bool any = false;
	size_t i, k, h;

	for (i = 0; i < rep->n; i++)
		any |= rep->pools[i].stuck && rep->pools[i].row.state == ROW_ZOMBIE;
	if (!any)
		return;
	if (holders_take(m, &scan, &hr)) {
		for (i = 0; i < rep->n; i++)
			rep->pools[i].holders_note = "the holder scan failed";
		return;
	}
	for (i = 0; i < rep->n; i++) {
		struct run_pool *p = &rep->pools[i];
		const struct pool_holders *ph = NULL;

		if (!p->stuck || p->row.state != ROW_ZOMBIE)
			continue;
		for (k = 0; k < hr.n && !ph; k++)
			if (hr.pools[k].row->addr == p->row.addr &&
			    hr.pools[k].row->gen == p->row.gen)
				ph = &hr.pools[k];
		if (!ph) {
			p->holders_note = "the pool was freed during the holder scan";
			continue;
		}
		p->holders = calloc(ph->n ? ph->n : 1, sizeof(*p->holders));
		if (!p->holders)
			continue;
		for (h = 0; h < ph->n; h++) {
			struct run_holder *rh = &p->holders[p->nholders++];

			rh->pid = ph->v[h].nowners ? (int)ph->v[h].owners[0].pid : 0;
			snprintf(rh->comm, sizeof(rh->comm), "%s",
				 ph->v[h].nowners ? ph->v[h].owners[0].comm : "");
			snprintf(rh->what, sizeof(rh->what), "%.*s", (int)sizeof(rh->what) - 1,
				 ph->v[h].desc);
			snprintf(rh->remedy, sizeof(rh->remedy), "%s", ph->v[h].remedy);
			rh->pages = ph->v[h].pages;
			rh->walked = ph->v[h].kind != HK_UNATTRIBUTED;
		}
	}
	holders_release(&scan, &hr);
}

/* the pools before the command: which ones it made or destroyed is measured against them */
static int take_keys(const struct snapshot *s, struct run_key **keys, size_t *n)
{
	size_t i;

	*keys = calloc(s->n ? s->n : 1, sizeof(**keys));
	*n = 0;
	if (!*keys) {
		p_err("check --run: remembering %zu pools: %s", s->n, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++)
		(*keys)[(*n)++] = (struct run_key){ s->rows[i].addr, s->rows[i].gen, s->rows[i].id,
						    s->rows[i].state };
	return 0;
}

static int build_report(struct run_report *rep, const struct run_key *base, size_t nbase,
			const struct snapshot *s, __u64 start_ns, __u64 end_ns)
{
	int err = run_report_build(rep, base, nbase, s, start_ns, end_ns, opts.deadline);

	if (err)
		p_err("check --run: the report on %zu pools: %s", s->n, strerror(-err));
	return err;
}

/*
 * Run opts.run to its end, the monitor watching meanwhile (its pools come
 * and go in m's snapshots). A signal to us stops the child with SIGTERM and
 * waits for it alone. rep gets the start, the duration and the exit status,
 * or start_error when it could not start: a check that could not run, not
 * an error of ppwatch's. start_ns: now; *end_ns: when it ended.
 */
static void supervise(struct monitor *m, struct run_report *rep, __u64 start_ns, __u64 *end_ns)
{
	bool stopping = false;
	struct child c;
	struct pollfd pfd;
	int st, err;
	pid_t w;

	p_info("check: running '%s'", opts.run);
	*end_ns = start_ns;
	if (child_spawn(&c, opts.run, env.json || opts.format != REPORT_TEXT, rep->start_error,
			sizeof(rep->start_error)))
		return;
	rep->started = true;
	pfd = (struct pollfd){ c.pidfd, POLLIN };
	for (;;) {
		w = waitpid(c.pid, &st, WNOHANG);
		if (w == c.pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(rep->start_error, sizeof(rep->start_error), "waitpid: %s",
				 strerror(errno));
			rep->started = false;
			child_close(&c);
			return;
		}
		if (exiting && !stopping) {
			p_warn("check: interrupted; stopping '%s'", opts.run);
			kill(c.pid, SIGTERM);
			stopping = true;
		}
		if (stopping) /* the monitor stops waiting: wait for the child alone */
			poll(&pfd, c.pidfd >= 0 ? 1 : 0, 50);
		else if ((err = monitor_wait(m, now_mono_s() + (c.pidfd >= 0 ? 1 : 0.05), &pfd,
					     c.pidfd >= 0 ? 1 : 0)) < 0)
			stopping = true; /* reported; the child still has to end */
	}
	*end_ns = now_boot_ns();
	rep->duration_s = (*end_ns - start_ns) / 1e9;
	if (child_exec_failed(&c, rep->start_error, sizeof(rep->start_error))) {
		rep->started = false;
	} else if (WIFSIGNALED(st)) {
		rep->exit_status = -1;
		rep->signal = WTERMSIG(st);
	} else {
		rep->exit_status = WEXITSTATUS(st);
	}
	child_close(&c);
	p_info("check: '%s' ended (%s %d) after %.3fs; watching up to %.1fs", opts.run,
	       WIFSIGNALED(st) ? "signal" : "status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), rep->duration_s, opts.deadline);
}

/*
 * After the command: watch until every pool it destroyed is freed, or the
 * deadline. Watch at least one retry period (or the whole deadline if
 * shorter), so a pool the command destroyed in a deferred work item is not
 * missed. 0, or -errno (reported).
 */
static int settle(struct monitor *m, struct run_report *rep, const struct run_key *base,
		  size_t nbase, __u64 start_ns, __u64 end_ns)
{
	double grace = opts.deadline < 1.1 ? opts.deadline : 1.1, next, end_mono;
	int err;

	end_mono = now_mono_s() - (now_boot_ns() - end_ns) / 1e9;
	next = now_mono_s();
	while (!exiting) {
		double now = now_mono_s();

		if (now >= end_mono + opts.deadline)
			break;
		if (now >= next) {
			next = now + 0.2;
			err = monitor_sample(m);
			err = err ?: build_report(rep, base, nbase, &m->cur, start_ns, end_ns);
			if (err)
				return err;
			if (now >= end_mono + grace && run_report_settled(rep))
				break;
		}
		err = monitor_wait(
			m, next < end_mono + opts.deadline ? next : end_mono + opts.deadline, NULL,
			0);
		if (err)
			return err;
	}
	err = monitor_sample(m);
	return err ?: build_report(rep, base, nbase, &m->cur, start_ns, end_ns);
}

/* --run: the command, the pools it left, who holds the stuck ones. 0 or -errno (reported). */
static int run_command(struct monitor *m, struct run_report *rep, struct run_key **base,
		       size_t *nbase)
{
	__u64 start_ns, end_ns, before[PPW_CNT_MAX];
	int err, i;

	rep->command = opts.run;
	rep->deadline_s = opts.deadline;
	err = take_keys(&m->cur, base, nbase);
	if (err)
		return err;
	memcpy(before, m->cur.counters, sizeof(before));
	start_ns = now_boot_ns();
	supervise(m, rep, start_ns, &end_ns);
	if (!rep->started)
		return 0; /* a check that could not run: the report says why */
	err = settle(m, rep, *base, *nbase, start_ns, end_ns);
	if (err)
		return err;
	for (i = 0; i < PPW_CNT_MAX; i++)
		rep->losses_during[i] = m->cur.counters[i] - before[i];
	run_find_holders(m, rep);
	run_report_verdicts(rep);
	return 0;
}

/* ---- output -------------------------------------------------------------------------- */

static void print_report(const struct check_report *rep, const struct run_report *run,
			 const struct monitor *m, double t0, double duration)
{
	char ts[32], host[256] = "";
	struct report_meta meta = {
		.version = PPWATCH_VERSION,
		.time = t0,
		.duration_s = duration,
		.timestamp = ts,
		.hostname = host,
		.rules_file = opts.nfiles ? opts.files[0] : NULL,
	};
	time_t t = (time_t)t0;
	int i;

	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", localtime(&t));
	gethostname(host, sizeof(host) - 1);
	if (env.json || opts.format == REPORT_JSON) {
		json_obj_open(&stdout_json);
		json_kv_str(&stdout_json, "version", PPWATCH_VERSION);
		json_kv_f64(&stdout_json, "time", t0);
		json_kv_f64(&stdout_json, "duration_s", duration);
		json_key(&stdout_json, "rules_files");
		json_arr_open(&stdout_json);
		for (i = 0; i < opts.nfiles; i++)
			json_str(&stdout_json, opts.files[i]);
		json_arr_close(&stdout_json);
		report_json(&stdout_json, rep, &meta);
		if (run)
			run_report_json(&stdout_json, run);
		if (m) {
			render_kernel_json(&stdout_json, &m->kernel);
			render_losses_json(&stdout_json, &m->cur);
		}
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
		return;
	}
	switch (opts.format) {
	case REPORT_TAP:
		report_tap(stdout, rep, &meta);
		break;
	case REPORT_JUNIT:
		report_junit(stdout, rep, &meta);
		break;
	default:
		report_text(stdout, rep, &meta);
		if (m && snapshot_losses(&m->cur))
			render_losses_text(stdout, &m->cur);
	}
	fflush(stdout);
}

static int validate_only(struct ruleset *sets)
{
	size_t rules = 0, checks = 0, i;
	int f, k;

	for (f = 0; f < opts.nfiles; f++)
		for (i = 0; i < sets[f].n; i++, rules++)
			for (k = 0; k < LIM_NR; k++)
				checks += sets[f].rules[i].has[k];
	if (env.json) {
		json_obj_open(&stdout_json);
		json_kv_bool(&stdout_json, "valid", true);
		json_kv_u64(&stdout_json, "files", opts.nfiles);
		json_kv_u64(&stdout_json, "rules", rules);
		json_kv_u64(&stdout_json, "checks", checks);
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
	} else {
		for (f = 0; f < opts.nfiles; f++)
			printf("%s: %zu %s, valid\n", opts.files[f], sets[f].n,
			       sets[f].n == 1 ? "rule" : "rules");
	}
	return EXIT_OK;
}

static int check_run(int argc, char **argv)
{
	struct ruleset sets[MAX_RULE_FILES] = {};
	struct run_report run = { 0 };
	struct check_report rep = { 0 };
	struct run_key *base = NULL;
	struct check_result *res;
	struct monitor m;
	size_t nbase = 0;
	double t0 = now_real_s(), m0 = now_mono_s();
	int ret = EXIT_ERROR, err, i, errors;

	if (argc > 0) {
		usage_error("unexpected argument '%s' (rules go in a file: -f RULES.yaml)",
			    argv[0]);
		return EXIT_ERROR;
	}
	if (env.json && opts.format_set && opts.format != REPORT_JSON) {
		usage_error("-j and --format %s disagree: -j prints JSON",
			    opts.format == REPORT_TAP	? "tap" :
			    opts.format == REPORT_JUNIT ? "junit" :
							  "text");
		return EXIT_ERROR;
	}
	if (opts.format == REPORT_JSON && !env.json) {
		env.json = true;
		json_init(&stdout_json, stdout, env.pretty);
	}
	if (!opts.nfiles && !opts.run) {
		usage_error("nothing to check: give -f RULES.yaml, --run CMD, or both");
		return EXIT_ERROR;
	}
	if (opts.validate && !opts.nfiles) {
		usage_error("--validate needs -f RULES.yaml");
		return EXIT_ERROR;
	}
	errors = load_rules(sets);
	if (errors) {
		if (errors > 0)
			p_err("check: %d %s in the rules; nothing was checked", errors,
			      errors == 1 ? "error" : "errors");
		goto out_rules;
	}
	if (opts.validate) {
		ret = validate_only(sets);
		goto out_rules;
	}
	/* exact ages where a verdict depends on them (CI): rules on ages, --run's report */
	if (!env.level_set && (opts.run || rules_need_ages(sets, opts.nfiles)))
		env.level = PPW_LEVEL_ALL;

	if (monitor_open(&m, &(struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true,
						     .holders = opts.run != NULL,
						     .keep_freed_s = opts.run ? 10 * 86400.0 : 0 }))
		goto out_rules;
	err = monitor_sample(&m);
	err = err ?: monitor_wait(&m, now_mono_s() + opts.window, NULL, 0);
	err = err ?: monitor_sample(&m);
	if (!err && opts.run && !exiting) {
		err = run_command(&m, &run, &base, &nbase);
		if (!err) {
			res = report_add(&rep);
			err = res ? run_report_result(&run, res) : -ENOMEM;
			if (err)
				p_err("check --run: its result: %s", strerror(-err));
		}
	}
	for (i = 0; !err && i < opts.nfiles; i++) {
		err = rules_eval(&sets[i], &m.cur, &rep);
		if (err)
			p_err("check: evaluating %s: %s", opts.files[i], strerror(-err));
	}
	if (err) /* reported */
		goto out;
	if (exiting && !rep.n) {
		p_err("check: interrupted before anything was checked");
		goto out;
	}
	if (exiting) {
		res = report_add(&rep);
		if (res) {
			snprintf(res->name, sizeof(res->name), "ppwatch");
			snprintf(res->what, sizeof(res->what), "not interrupted");
			res->key = "interrupted";
			res->v = VERDICT_ERROR;
			snprintf(res->summary, sizeof(res->summary),
				 "interrupted by a signal: the results are incomplete");
		}
	}
	print_report(&rep, opts.run ? &run : NULL, &m, t0, now_mono_s() - m0);
	ret = report_exit_code(&rep);
out:
	run_report_free(&run);
	free(base);
	report_free(&rep);
	monitor_close(&m);
out_rules:
	for (i = 0; i < opts.nfiles; i++)
		rules_free(&sets[i]);
	return ret;
}

const struct command cmd_check = {
	.name = "check",
	.level = PPW_LEVEL_COUNTERS,
	.synopsis = "[-f RULES.yaml]... [--run CMD [--deadline DUR]] [--window DUR] "
		    "[--format text|tap|junit|json] [--validate]",
	.summary = "assert rules on the pools, or that a command's destroyed pools get freed "
		   "(CI)",
	.lopts = check_lopts,
	.sopts = "f:",
	.opt = check_opt,
	.run = check_run,
	.help = check_help,
};
