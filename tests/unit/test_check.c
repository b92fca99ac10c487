// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch check without root: rules files (every example in examples/, and
 * every kind of error with its file:line:column), rule evaluation on
 * hand-made snapshots, the --run report, and the four output formats, each
 * result in each with its values and escapes.
 */
#include <errno.h>
#include <glob.h>
#include <time.h>

#include <jansson.h>

#include "unit.h"
#include "fixtures.h"

#include "lib/json.h"
#include "model/snapshot.h"
#include "model/rules.h"
#include "lib/util.h"
#include "model/rules_eval.h"
#include "model/run_report.h"
#include "output/report_fmt.h"
#include "output/run_report_fmt.h"

#define SEC 1000000000ULL
#define NOW (5000 * SEC)

static struct pool_row row(__u32 id, const char *dev, enum row_state st, __s64 inflight)
{
	struct pool_row r = fixture_row(id, dev, st, inflight, 4.0);

	r.seen_age_s = 100;
	return r;
}

/* eth0: two live pools, one zombie of 75 s; vb: a live pool from before start */
static struct pool_row rows[5];

static void make_snapshot(struct snapshot *s)
{
	rows[0] = row(7, "eth0", ROW_LIVE, 1200);
	rows[1] = row(8, "eth0", ROW_LIVE, 64);
	rows[1].oldest_age_s = 700;
	rows[2] = row(9, "eth0", ROW_ZOMBIE, 500);
	rows[2].detach_age_s = 75;
	rows[2].retries = 75;
	rows[3] = row(12, "vb", ROW_LIVE, 300);
	rows[3].ledger_pages = 0;
	rows[3].before_start = 300;
	rows[3].oldest_age_s = 12;
	rows[3].oldest_at_least = true;
	rows[4] = row(13, "vb", ROW_FREED, 0);
	memset(s, 0, sizeof(*s));
	s->rows = rows;
	s->n = 5;
	s->ts_ns = NOW;
	s->counters[PPW_CNT_LEDGER_FULL] = 57;
	s->max_pages = 1 << 20;
}

static int parse(const char *text, struct ruleset *rs, char **diag)
{
	size_t len;
	FILE *f = open_memstream(diag, &len);
	int n = rules_parse(rs, "r.yaml", text, strlen(text), f);

	fclose(f);
	return n;
}

static void test_examples_are_valid(void)
{
	struct ruleset rs;
	size_t i, len;
	char *buf;
	glob_t g;
	int n;

	CHECK(!glob("examples/*.yaml", 0, NULL, &g), "no examples/*.yaml (run from the top)");
	CHECK(g.gl_pathc >= 3, "%zu example rule files", g.gl_pathc);
	for (i = 0; i < g.gl_pathc; i++) {
		CHECK_INT(read_file(g.gl_pathv[i], RULES_MAX_BYTES, &buf, &len), 0);
		n = buf ? rules_parse(&rs, g.gl_pathv[i], buf, len, stdout) : -1;
		free(buf);
		CHECK(n == 0, "%s: %d errors", g.gl_pathv[i], n);
		CHECK(rs.n > 0, "%s: no rules", g.gl_pathv[i]);
		rules_free(&rs);
	}
	globfree(&g);
}

static void test_parse_ok(void)
{
	struct ruleset rs;
	char *diag;
	int n;

	n = parse("version: 1\n"
		  "rules:\n"
		  "  - name: a\n"
		  "    match: { device: 'eth*', state: zombie, pool: 9, ifindex: 3, netns: 42 }\n"
		  "    max_inflight: 0256\n"
		  "    max_inflight_bytes: 64k\n"
		  "    max_oldest_age: 1.5s\n"
		  "    max_zombie_age: 2m\n"
		  "    max_item_slow_failed: 0\n"
		  "  - name: b\n"
		  "    max_losses: 0\n"
		  "    min_pools: 2\n",
		  &rs, &diag);
	CHECK(n == 0, "errors: %s", diag);
	CHECK_INT(rs.n, 2);
	if (rs.n == 2) {
		struct rule *a = &rs.rules[0];

		CHECK_STR(a->name, "a");
		CHECK_STR(a->match.device, "eth*");
		CHECK_INT(a->match.state, ROW_ZOMBIE);
		CHECK(a->match.pool && !strcmp(a->match.pool, "9"), "pool");
		CHECK(a->match.has_ifindex && a->match.ifindex == 3, "ifindex");
		CHECK_STR(a->match.netns, "42");
		CHECK_INT(a->limit[LIM_MAX_INFLIGHT], 256);
		CHECK_INT(a->limit[LIM_MAX_INFLIGHT_BYTES], 65536);
		CHECK_NEAR(a->limit[LIM_MAX_OLDEST_AGE], 1.5, 1e-9);
		CHECK_NEAR(a->limit[LIM_MAX_ZOMBIE_AGE], 120, 1e-9);
		CHECK(a->has[LIM_MAX_ITEM_SLOW_FAILED] && !a->has[LIM_MAX_LOSSES], "has[]");
		CHECK_INT(a->limit_pos[LIM_MAX_INFLIGHT].line, 5);
		CHECK_INT(a->limit_pos[LIM_MAX_INFLIGHT].col, 5);
		CHECK_INT(rs.rules[1].limit[LIM_MIN_POOLS], 2);
	}
	rules_free(&rs);
	free(diag);
}

/* each error kind once; the golden file has the exact messages */
static void test_parse_errors(void)
{
	static const struct {
		const char *name;
		const char *text;
		int errors;
	} cases[] = {
		{ "empty", "", 1 },
		{ "comment only", "# nothing\n", 1 },
		{ "not a mapping", "- a\n- b\n", 1 },
		{ "no rules", "version: 1\n", 1 },
		{ "bad version", "version: 2\nrules: [ { name: a, min_pools: 1 } ]\n", 1 },
		{ "rules not a list", "rules: { name: a }\n", 1 },
		{ "empty list", "rules: []\n", 1 },
		{ "unknown top key", "rule:\n  - name: a\n", 2 },
		{ "rule not a mapping", "rules:\n  - max_inflight\n", 1 },
		{ "typo with suggestion", "rules:\n  - name: a\n    max_infligth: 3\n", 1 },
		{ "unknown key", "rules:\n  - name: a\n    frobnicate: 3\n    min_pools: 1\n", 1 },
		{ "bad number", "rules:\n  - name: a\n    max_inflight: lots\n", 1 },
		{ "negative", "rules:\n  - name: a\n    max_inflight: -1\n", 1 },
		{ "bad size", "rules:\n  - name: a\n    max_inflight_bytes: 3 apples\n", 1 },
		{ "hex count", "rules:\n  - name: a\n    max_inflight: 0x100\n", 1 },
		{ "signed count", "rules:\n  - name: a\n    max_inflight: ' -1'\n", 1 },
		{ "exponent duration", "rules:\n  - name: a\n    max_oldest_age: 1e300\n", 1 },
		{ "bad duration", "rules:\n  - name: a\n    max_zombie_age: 10 s\n", 1 },
		{ "missing value", "rules:\n  - name: a\n    max_oldest_age:\n", 1 },
		{ "list value", "rules:\n  - name: a\n    max_inflight: [1, 2]\n", 1 },
		{ "no name", "rules:\n  - max_inflight: 3\n", 1 },
		{ "duplicate name",
		  "rules:\n  - name: a\n    min_pools: 1\n"
		  "  - name: a\n    min_pools: 2\n",
		  1 },
		{ "duplicate key",
		  "rules:\n  - name: a\n    max_inflight: 1\n"
		  "    max_inflight: 2\n",
		  1 },
		{ "checks nothing", "rules:\n  - name: a\n    match: { device: x }\n", 1 },
		{ "match not a mapping",
		  "rules:\n  - name: a\n    match: eth0\n"
		  "    min_pools: 1\n",
		  1 },
		{ "bad state",
		  "rules:\n  - name: a\n    match: { state: dead }\n"
		  "    min_pools: 1\n",
		  1 },
		{ "bad pool id",
		  "rules:\n  - name: a\n    match: { pool: 4294967296 }\n"
		  "    min_pools: 1\n",
		  1 },
		{ "losses with match",
		  "rules:\n  - name: a\n    match: { device: x }\n"
		  "    max_losses: 0\n",
		  1 },
		{ "syntax", "rules:\n  - name: a\n   max_inflight: 1\n", 1 },
		{ "unclosed flow", "rules: [ { name: a\n", 1 },
		{ "tab indent", "rules:\n\t- name: a\n", 1 },
		{ "two documents", "rules: [ { name: a, min_pools: 1 } ]\n---\nrules: []\n", 1 },
		{ "several at once",
		  "rules:\n  - name: a\n    max_inflight: x\n"
		  "    max_zombie_age: y\n  - name: b\n    bogus: 1\n",
		  3 },
	};
	char *all = NULL, *diag;
	size_t len, i;
	struct ruleset rs;
	FILE *out = open_memstream(&all, &len);
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		n = parse(cases[i].text, &rs, &diag);
		CHECK(n == cases[i].errors, "%s: %d errors, want %d: %s", cases[i].name, n,
		      cases[i].errors, diag);
		CHECK(rs.n == 0 && rs.rules == NULL, "%s: rules kept after errors", cases[i].name);
		fprintf(out, "## %s\n%s", cases[i].name, diag);
		rules_free(&rs);
		free(diag);
	}
	fclose(out);
	check_golden("check-errors.txt", all);
	free(all);
}

static int fake_resolve(const char *name, __u32 *ino)
{
	if (!strcmp(name, "lab-b")) {
		*ino = 4026532246U;
		return 0;
	}
	return -ENOENT;
}

/* seconds of CPU a call took */
static double cpu_s(clock_t t0)
{
	return (double)(clock() - t0) / CLOCKS_PER_SEC;
}

/* a rules file is input: deep, aliased, huge or odd files cost little and say so */
static void test_parse_hostile(void)
{
	struct ruleset rs;
	char *text, *diag;
	size_t len, i;
	clock_t t0;
	FILE *f;
	int n;

	/* 200 KB of flow nesting: libyaml's scanner is quadratic in it (137 s) */
	text = malloc(200001);
	memset(text, '[', 100000);
	memset(text + 100000, ']', 100000);
	text[200000] = 0;
	memcpy(text, "rules: ", 7);
	t0 = clock();
	n = parse(text, &rs, &diag);
	CHECK(cpu_s(t0) < 1, "deep nesting took %.1fs", cpu_s(t0));
	CHECK_INT(n, 1);
	CHECK(strstr(diag, "r.yaml:1:") && strstr(diag, "nested deeper than 16 levels"), "%s",
	      diag);
	rules_free(&rs);
	free(diag);
	free(text);

	/* aliases: the same 2000-key mapping walked 50000 times (10 GB of messages) */
	f = open_memstream(&text, &len);
	fprintf(f, "x: &a {");
	for (i = 0; i < 2000; i++)
		fprintf(f, "%sk%zu: 1", i ? ", " : "", i);
	fprintf(f, "}\nrules: [");
	for (i = 0; i < 50000; i++)
		fprintf(f, "%s*a", i ? ", " : "");
	fprintf(f, "]\n");
	fclose(f);
	t0 = clock();
	n = parse(text, &rs, &diag);
	CHECK(cpu_s(t0) < 1, "aliases took %.1fs", cpu_s(t0));
	CHECK_INT(n, 1);
	CHECK(strstr(diag, "r.yaml:2:9: error: an alias (*a): rules files do not expand aliases"),
	      "%s", diag);
	rules_free(&rs);
	free(diag);
	free(text);

	/* 40000 rules, three of them named alike: no n^2 name compares (11.7 s) */
	f = open_memstream(&text, &len);
	fprintf(f, "rules:\n");
	for (i = 0; i < 40000; i++)
		fprintf(f, "  - name: r%zu\n    min_pools: 0\n", i >= 39998 ? 7 : i);
	fclose(f);
	t0 = clock();
	n = parse(text, &rs, &diag);
	CHECK(cpu_s(t0) < 2, "40000 rules took %.1fs", cpu_s(t0));
	CHECK_INT(n, 2);
	CHECK(strstr(diag, "r.yaml:79998:5: error: duplicate rule name 'r7' (first at line 16)") &&
		      strstr(diag,
			     "r.yaml:80000:5: error: duplicate rule name 'r7' (first at line 16)"),
	      "%s", diag);
	rules_free(&rs);
	free(diag);
	free(text);

	/* what the file says is echoed escaped and cut, and errors are capped */
	f = open_memstream(&text, &len);
	fprintf(f, "rules:\n  - name: \"\\e]0;x\\a\"\n    \"\\e[31m");
	for (i = 0; i < 1000; i++)
		fputc('k', f);
	fprintf(f, "\": 1\n");
	for (i = 0; i < 150; i++)
		fprintf(f, "    u%zu: 1\n", i);
	fclose(f);
	n = parse(text, &rs, &diag);
	CHECK_INT(n, 151);
	CHECK(strstr(diag,
		     "r.yaml:3:5: error: unknown key '\\x1b[31mkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...' "
		     "in a rule"),
	      "%s", diag);
	CHECK(!strchr(diag, '\x1b'), "no control character echoed");
	CHECK(strstr(diag, "r.yaml: error: 51 more errors not shown\n"), "%s", diag);
	CHECK(strlen(diag) < 30000, "%zu bytes of errors", strlen(diag));
	rules_free(&rs);
	free(diag);
	free(text);
}

static void test_resolve_netns(void)
{
	struct ruleset rs;
	char *diag, *d2;
	size_t len;
	FILE *f;
	int n;

	n = parse("rules:\n"
		  "  - name: a\n    match: { netns: lab-b }\n    min_pools: 1\n"
		  "  - name: b\n    match: { netns: 12345 }\n    min_pools: 1\n"
		  "  - name: c\n    match: { netns: nosuch }\n    min_pools: 1\n",
		  &rs, &diag);
	CHECK_INT(n, 0);
	f = open_memstream(&d2, &len);
	n = rules_resolve_netns(&rs, fake_resolve, f);
	fclose(f);
	CHECK_INT(n, 1);
	CHECK_INT(rs.rules[0].match.netns_ino, 4026532246U);
	CHECK_INT(rs.rules[1].match.netns_ino, 12345);
	CHECK_STR(d2, "r.yaml:9:21: error: netns 'nosuch': No such file or directory; expected "
		      "a name under /run/netns, a path or an inode number\n");
	rules_free(&rs);
	free(diag);
	free(d2);
}

static const char *rules_text = "rules:\n"
				"  - name: eth0-bounded\n"
				"    match: { device: 'eth*' }\n"
				"    max_inflight: 1000\n"
				"    max_inflight_bytes: 8M\n"
				"    max_oldest_age: 10m\n"
				"    min_pools: 3\n"
				"  - name: eth0-zombies\n"
				"    match: { device: eth0 }\n"
				"    max_zombie_age: 60s\n"
				"  - name: live-only\n"
				"    match: { device: eth0, state: live }\n"
				"    max_zombie_age: 1s\n"
				"    max_inflight: 2000\n"
				"  - name: vb-young\n"
				"    match: { device: vb }\n"
				"    max_oldest_age: 5s\n"
				"  - name: vb-old-enough\n"
				"    match: { pool: 12 }\n"
				"    max_oldest_age: 1m\n"
				"  - name: nothing-here\n"
				"    match: { device: mlx5*, driver: mlx5_core }\n"
				"    max_inflight: 1\n"
				"  - name: need-mlx5\n"
				"    match: { driver: mlx5_core }\n"
				"    min_pools: 1\n"
				"  - name: items\n"
				"    max_item_slow_failed: 0\n"
				"  - name: complete\n"
				"    max_losses: 0\n"
				"  - name: few-losses\n"
				"    max_losses: 100\n";

static void eval_fixture(struct check_report *rep)
{
	struct ruleset rs;
	struct snapshot s;
	char *diag;
	int n;

	make_snapshot(&s);
	n = parse(rules_text, &rs, &diag);
	CHECK(n == 0, "rules: %s", diag);
	free(diag);
	memset(rep, 0, sizeof(*rep));
	CHECK_INT(rules_eval(&rs, &s, rep), 0);
	rules_free(&rs);
}

static const struct check_result *find(const struct check_report *rep, const char *name,
				       const char *key)
{
	size_t i;

	for (i = 0; i < rep->n; i++)
		if (!strcmp(rep->r[i].name, name) && !strcmp(rep->r[i].key, key))
			return &rep->r[i];
	return NULL;
}

static void test_eval(void)
{
	const struct check_result *r;
	struct check_report rep;

	eval_fixture(&rep);
	CHECK_INT(rep.n, 14);
#define V(name, key, want)                                         \
	do {                                                       \
		r = find(&rep, name, key);                         \
		CHECK(r && r->v == (want), "%s %s: %s", name, key, \
		      r ? verdict_name(r->v) : "missing");         \
	} while (0)
	V("eth0-bounded", "max_inflight", VERDICT_FAIL); /* pool 7: 1200 */
	V("eth0-bounded", "max_inflight_bytes", VERDICT_PASS);
	V("eth0-bounded", "max_oldest_age", VERDICT_FAIL); /* pool 8: 700 s */
	V("eth0-bounded", "min_pools", VERDICT_PASS);	   /* 7, 8, 9; not freed 13 */
	V("eth0-zombies", "max_zombie_age", VERDICT_FAIL); /* pool 9: 75 s */
	V("live-only", "max_zombie_age", VERDICT_PASS);	   /* zombies not matched */
	V("live-only", "max_inflight", VERDICT_PASS);
	V("vb-young", "max_oldest_age", VERDICT_FAIL);	    /* >12 s: a lower bound */
	V("vb-old-enough", "max_oldest_age", VERDICT_PASS); /* >12 s < 1 m: unproven */
	V("nothing-here", "max_inflight", VERDICT_PASS);
	V("need-mlx5", "min_pools", VERDICT_FAIL);
	V("items", "max_item_slow_failed", VERDICT_ERROR); /* no item stats */
	V("complete", "max_losses", VERDICT_FAIL);
	V("few-losses", "max_losses", VERDICT_PASS);
	r = find(&rep, "eth0-bounded", "max_inflight");
	CHECK(r && r->nfindings == 1 && r->findings[0].pool_id == 7, "finding is pool 7");
	CHECK(r && r->npools == 3, "freed pools are not checked");
	r = find(&rep, "vb-young", "max_oldest_age");
	CHECK(r && r->nfindings == 1 && r->findings[0].at_least, "lower bound kept");
	CHECK_INT(report_exit_code(&rep), 1);
	report_free(&rep);
}

static void test_item_stats(void)
{
	struct check_report rep = { 0 };
	struct ruleset rs;
	struct snapshot s;
	char *diag;
	size_t i;

	make_snapshot(&s);
	for (i = 0; i < s.n; i++)
		rows[i].item_stats = true;
	rows[1].item_slow_failed = 3;
	parse("rules:\n  - name: items\n    max_item_slow_failed: 0\n"
	      "  - name: some\n    max_item_slow_failed: 5\n",
	      &rs, &diag);
	rules_eval(&rs, &s, &rep);
	CHECK(rep.n == 2 && rep.r[0].v == VERDICT_FAIL && rep.r[1].v == VERDICT_PASS,
	      "item stats present: fail then pass");
	CHECK_STR(rep.r[0].summary, "pool 8 (eth0): 3 failures > 0");
	report_free(&rep);
	rules_free(&rs);
	free(diag);
}

static void test_exit_codes(void)
{
	struct check_report rep = { 0 };

	CHECK_INT(report_exit_code(&rep), 0);
	report_add(&rep)->v = VERDICT_PASS;
	CHECK_INT(report_exit_code(&rep), 0);
	report_add(&rep)->v = VERDICT_ERROR;
	CHECK_INT(report_exit_code(&rep), 2);
	report_add(&rep)->v = VERDICT_FAIL;
	CHECK_INT(report_exit_code(&rep), 1);
	report_free(&rep);
}

/* ---- --run ----------------------------------------------------------------------- */

/*
 * Before: pools 7 (live), 8 (live), 9 (zombie from before), 10 (live).
 * The command started at NOW-10 s and ended at NOW-8 s, deadline 5 s.
 * After (NOW): 7 untouched; 8 destroyed at NOW-9.5 s, still a zombie (stuck);
 * 9 still a zombie (not the command's); 10 destroyed and freed 1 s after the
 * end; 11 created and live; 12 created, destroyed, freed before the end; 13
 * destroyed and freed 6 s after the end (late).
 */
static void make_run(struct run_report *rep, struct snapshot *fin, struct pool_row *r,
		     struct run_key *base)
{
	r[0] = row(7, "eth0", ROW_LIVE, 100);
	r[1] = row(8, "eth0", ROW_ZOMBIE, 151);
	r[1].detach_age_s = 9.5;
	r[1].retries = 9;
	r[1].oldest_age_s = 30;
	r[1].ledger_pages = 100;
	r[1].before_start = 51;
	r[2] = row(9, "eth0", ROW_ZOMBIE, 5);
	r[2].detach_age_s = 300;
	r[3] = row(10, "eth0", ROW_FREED, 0);
	r[3].freed_age_s = 7;
	r[3].zombie_s = 2; /* destroyed at NOW-9 */
	r[4] = row(11, "eth1", ROW_LIVE, 10);
	r[5] = row(12, "eth1", ROW_FREED, 0);
	r[5].freed_age_s = 8.5;
	r[5].zombie_s = 0.5;
	r[6] = row(13, "eth2", ROW_FREED, 0);
	r[6].freed_age_s = 2;
	r[6].zombie_s = 7;
	memset(fin, 0, sizeof(*fin));
	fin->rows = r;
	fin->n = 7;
	fin->ts_ns = NOW;
	base[0] = (struct run_key){ r[0].addr, 1, 7, ROW_LIVE };
	base[1] = (struct run_key){ r[1].addr, 1, 8, ROW_LIVE };
	base[2] = (struct run_key){ r[2].addr, 1, 9, ROW_ZOMBIE };
	base[3] = (struct run_key){ r[3].addr, 1, 10, ROW_LIVE };
	base[4] = (struct run_key){ r[6].addr, 1, 13, ROW_LIVE };
	memset(rep, 0, sizeof(*rep));
	rep->command = "modprobe -r mydrv";
	rep->started = true;
	rep->duration_s = 2;
}

/* how many lines of text start with pfx */
static size_t lines_starting(const char *text, const char *pfx)
{
	size_t n = 0;
	const char *l;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		n += !strncmp(l, pfx, strlen(pfx));
	return n;
}

/* how many times s occurs in text */
static size_t count_of(const char *text, const char *s)
{
	size_t n = 0;

	for (text = strstr(text, s); text; text = strstr(text + 1, s))
		n++;
	return n;
}

/* the run's report as text: what make_run() made, a line each */
static const char *const run_lines[] = {
	"command: modprobe -r mydrv",
	/* ended at NOW-8 s; the report is at NOW */
	"  exit status 0 after 2.0s; watched 8.0s more (deadline 5.0s)",
	"pools: 4 destroyed (2 freed in time, 2 stuck), 2 created; 1 zombie from before the command "
	"ignored",
	"stuck: pool 8 (eth0): zombie, 151 pages (604KiB) inflight",
	"  verdict: unknown: 151 pages (604KiB) out; who holds them is not known: holder attribution "
	"not available",
	"  device eth0, ifindex 3, netns 4026532246, napi -, driver -",
	/* destroyed at NOW-9.5 s, the command started at NOW-10 s */
	"  destroyed 500ms after the command started, 9.5s ago; 9 retries",
	"  oldest page 30.0s; 100 in the ledger (ages known), 51 held before ppwatch started, 0 "
	"untracked",
	"  holders: not known (holder attribution not available)",
	/* freed at NOW-2 s: 6 s after the end, past the 5 s deadline */
	"stuck: pool 13 (eth2): freed 6.0s after the command ended, later than the deadline",
	"freed: pool 10 (eth0): 1.0s after the command ended",
	"freed: pool 12 (eth1): 500ms before the command ended",
	"created: pool 11 (eth1): live, 10 pages inflight",
	"losses during the run: ringbuf_drop=2 (pools or pages may be missing from this report)",
};

/* ... and its pools in JSON, in the report's order: stuck first, then by id */
static const char *const run_pools[] = {
	"id=8 stuck=true created=false destroyed=true freed_after_end_s=null",
	"id=13 stuck=true created=false destroyed=true freed_after_end_s=6",
	"id=10 stuck=false created=false destroyed=true freed_after_end_s=1",
	"id=12 stuck=false created=true destroyed=true freed_after_end_s=-0.5",
	"id=11 stuck=false created=true destroyed=false freed_after_end_s=null",
};

static void test_run_report(void)
{
	struct check_report checks = { 0 };
	struct run_report rep;
	struct snapshot fin;
	struct pool_row r[7];
	struct run_key base[5];
	struct check_result *res;
	char *buf, *line;
	json_t *doc, *run, *x;
	size_t i;

	make_run(&rep, &fin, r, base);
	CHECK_INT(run_report_build(&rep, base, 5, &fin, NOW - 10 * SEC, NOW - 8 * SEC, 5), 0);
	CHECK_INT(rep.ndestroyed, 4); /* 8, 10, 12, 13 */
	CHECK_INT(rep.nstuck, 2);     /* 8, 13 */
	CHECK_INT(rep.nfreed, 2);
	CHECK_INT(rep.ncreated, 2); /* 11, 12 */
	CHECK_INT(rep.npreexisting, 1);
	CHECK(!run_report_settled(&rep), "pool 8 is still a zombie");
	CHECK(rep.n >= 2 && rep.pools[0].stuck && rep.pools[1].stuck, "stuck pools first");
	for (i = 0; i < rep.n; i++) {
		if (rep.pools[i].row.id == 8) {
			CHECK_NEAR(rep.pools[i].destroyed_s, 0.5, 1e-6);
			rep.pools[i].holders_note = "holder attribution not available";
		}
		if (rep.pools[i].row.id == 10)
			CHECK_NEAR(rep.pools[i].freed_s, 1, 1e-6);
		if (rep.pools[i].row.id == 12)
			CHECK_NEAR(rep.pools[i].freed_s, -0.5, 1e-6);
	}
	rep.losses_during[PPW_CNT_RINGBUF_DROP] = 2;
	res = report_add(&checks);
	CHECK_INT(run_report_result(&rep, res), 0);
	CHECK(res->v == VERDICT_FAIL, "stuck pools fail");
	run_report_verdicts(&rep);
	/* the report, line by line, from the run above (151 pages of 4 KiB: 604KiB) */
	CAPTURE(buf, f, run_report_text(f, &rep));
	CHECK_INT(count_of(buf, "\n"), ARRAY_SIZE(run_lines));
	for (i = 0, line = buf; i < ARRAY_SIZE(run_lines); i++) {
		size_t n = strlen(run_lines[i]);

		CHECK(!strncmp(line, run_lines[i], n) && line[n] == '\n',
		      "line %zu: '%.*s', not '%s'", i + 1, (int)strcspn(line, "\n"), line,
		      run_lines[i]);
		line += strcspn(line, "\n");
		line += !!*line;
	}
	free(buf);
	CAPTURE(buf, f, {
		struct json j;

		json_init(&j, f, true);
		json_obj_open(&j);
		run_report_json(&j, &rep);
		json_obj_close(&j);
		json_end(&j);
	});
	doc = json_loads(buf, 0, NULL);
	CHECK(doc != NULL, "JSON: %s", buf);
	run = json_object_get(doc, "run");
	CHECK_JSON(run,
		   "command=\"modprobe -r mydrv\" started=true exit_status=0 signal=null "
		   "duration_s=2 deadline_s=5 waited_s=8 created=2 destroyed=4 freed=2 stuck=2 "
		   "preexisting_zombies=1 losses_during/ringbuf_drop=2");
	CHECK_INT(json_array_size(json_object_get(run, "pools")), ARRAY_SIZE(run_pools));
	json_array_foreach(json_object_get(run, "pools"), i, x)
	{
		if (i < ARRAY_SIZE(run_pools))
			CHECK_JSON(x, run_pools[i]);
	}
	/* pool 8, stuck: destroyed 0.5 s in, 151 pages of 4 KiB, no holder scan */
	CHECK_JSON(json_array_get(json_object_get(run, "pools"), 0),
		   "destroyed_after_start_s=0.5 holders_note=\"holder attribution not available\" "
		   "pool/inflight=151 pool/inflight_bytes=618496 verdict/verdict=\"unknown\"");
	CHECK_STR(json_string_value(json_at(run, "pools/0/verdict/summary", 24)) ?: "",
		  run_lines[4] + strlen("  verdict: "));
	json_decref(doc);
	free(buf);
	report_free(&checks);

	/* a holder fills the holders section */
	for (i = 0; i < rep.n; i++) {
		if (rep.pools[i].row.id != 8)
			continue;
		rep.pools[i].holders = calloc(2, sizeof(struct run_holder));
		rep.pools[i].nholders = 2;
		rep.pools[i].holders[0] = (struct run_holder){
			.pid = 4242,
			.comm = "ppgen",
			.what = "udp 192.0.2.2:5001 inode 306415",
			.remedy = "read from it or close it",
			.pages = 151,
			.walked = true,
		};
		rep.pools[i].holders[1] = (struct run_holder){
			.pid = 77,
			.comm = "nc",
			.what = "tcp 192.0.2.2:80 ino 9 pid 77 nc fd 3",
			.pages = 2,
			.walked = true,
		};
		rep.pools[i].holders_note = NULL;
	}
	run_report_verdicts(&rep);
	CAPTURE(buf, f, run_report_text(f, &rep));
	CHECK(strstr(buf, "  verdict: held: 151 pages (604KiB) out, 153 of them held by 2 holders "
			  "ppwatch walked") != NULL,
	      "the verdict: %s", buf);
	CHECK(strstr(buf, "  holder: udp 192.0.2.2:5001 inode 306415, pid 4242 (ppgen), "
			  "151 pages\n") != NULL,
	      "holder line: %s", buf);
	CHECK(strstr(buf, "151 pages\n    what to do: read from it or close it\n") != NULL,
	      "remedy line: %s", buf);
	CHECK(strstr(buf, "  holder: tcp 192.0.2.2:80 ino 9 pid 77 nc fd 3, 2 pages\n") != NULL,
	      "a holder that names its process names it once: %s", buf);
	free(buf);
	CAPTURE(buf, f, {
		struct json j;

		json_init(&j, f, false);
		json_obj_open(&j);
		run_report_json(&j, &rep);
		json_obj_close(&j);
		json_end(&j);
	});
	{
		CHECK(strstr(buf, "\"remedy\":\"read from it or close it\"") != NULL, "%s", buf);
		CHECK(strstr(buf, "\"remedy\":null") != NULL, "%s", buf);
		CHECK(strstr(buf, "\"verdict\":{\"verdict\":\"held\"") != NULL, "%s", buf);
		free(buf);
	}
	/* only the rest no walk reaches: leaked; pages coming back: draining */
	for (i = 0; i < rep.n; i++) {
		if (rep.pools[i].row.id != 8)
			continue;
		rep.pools[i].holders[0].walked = rep.pools[i].holders[1].walked = false;
		run_report_verdicts(&rep);
		CHECK(rep.pools[i].verdict.code == PV_LEAKED, "leaked");
		rep.pools[i].row.release_per_s = 10;
		run_report_verdicts(&rep);
		CHECK(rep.pools[i].verdict.code == PV_DRAINING, "draining");
		CHECK_NEAR(rep.pools[i].verdict.eta_s, 15.1, 1e-9);
		rep.pools[i].row.inflight = -2;
		run_report_verdicts(&rep);
		CHECK(rep.pools[i].verdict.code == PV_ACCOUNTING_BUG, "accounting bug");
	}
	run_report_free(&rep);
}

static void test_run_verdicts(void)
{
	struct check_result res;
	struct run_report rep;
	struct snapshot fin;
	struct pool_row r[7];
	struct run_key base[5];

	/* the same run, with every destroyed pool freed in time: pass */
	make_run(&rep, &fin, r, base);
	r[1].state = ROW_FREED;
	r[1].freed_age_s = 7.5;
	r[1].zombie_s = 2;
	r[6].freed_age_s = 4;
	r[6].zombie_s = 5;
	run_report_build(&rep, base, 5, &fin, NOW - 10 * SEC, NOW - 8 * SEC, 5);
	CHECK(run_report_settled(&rep), "all freed");
	memset(&res, 0, sizeof(res));
	run_report_result(&rep, &res);
	CHECK(res.v == VERDICT_PASS, "pass: %s", res.summary);
	CHECK_STR(res.summary, "4 destroyed pools freed, the last 4.0s after the command ended");
	free(res.details);

	/* nothing destroyed, command failed: could not check */
	fin.n = 1;
	run_report_build(&rep, base, 5, &fin, NOW - 10 * SEC, NOW - 8 * SEC, 5);
	rep.exit_status = 1;
	memset(&res, 0, sizeof(res));
	run_report_result(&rep, &res);
	CHECK(res.v == VERDICT_ERROR, "failed command: %s", res.summary);
	CHECK_STR(res.summary, "the command failed with exit status 1");
	free(res.details);

	rep.started = false;
	snprintf(rep.start_error, sizeof(rep.start_error), "/bin/sh: No such file or directory");
	memset(&res, 0, sizeof(res));
	run_report_result(&rep, &res);
	CHECK(res.v == VERDICT_ERROR, "not started");
	free(res.details);

	rep.started = true;
	rep.exit_status = 0;
	memset(&res, 0, sizeof(res));
	run_report_result(&rep, &res);
	CHECK_STR(res.summary, "the command destroyed no pools (0 created)");
	free(res.details);

	rep.losses_during[PPW_CNT_POOLS_FULL] = 1;
	memset(&res, 0, sizeof(res));
	run_report_result(&rep, &res);
	CHECK(res.v == VERDICT_ERROR, "lost pools make a pass uncertain");
	free(res.details);
	run_report_free(&rep);
}

/* ---- formats ------------------------------------------------------------------------ */

static const struct report_meta meta = {
	.version = "0.1.0",
	.time = 1700000000,
	.duration_s = 1.25,
	.timestamp = "2023-11-14T22:13:20",
	.hostname = "host<&>\"1\"",
	.rules_file = "rules.yaml",
};

/*
 * The report in each format: every result, with its verdict, name, limit
 * and message, counts that are the results' own, and the characters each
 * format must escape escaped (the odd result's name and message as every
 * output shows untrusted bytes: \xHH). Each value is the test's, not a copy
 * of a format's own output.
 */
static void test_formats(void)
{
	/* the odd result, as each format shows it */
	static const char odd_name[] = "odd #1 <&> \"q\" \\x01";
	static const char odd_msg[] = "bad \\xff byte, tab\\x09here, 'quote'\\";
	static const char *const verdict_word[] = { "PASS ", "FAIL ", "ERROR" };
	size_t i, npass = 0, nfail = 0, nerr = 0;
	char *buf, want[512];
	struct check_report rep;
	struct check_result *r;
	json_t *doc, *c;

	eval_fixture(&rep);
	/* a name and a summary with characters each format must escape */
	r = report_add(&rep);
	snprintf(r->name, sizeof(r->name), "odd #1 <&> \"q\" \x01");
	snprintf(r->what, sizeof(r->what), "min_pools >= 1");
	r->key = "min_pools";
	r->v = VERDICT_FAIL;
	snprintf(r->summary, sizeof(r->summary), "bad \xff byte, tab\there, 'quote'\\");
	for (i = 0; i < rep.n; i++) {
		npass += rep.r[i].v == VERDICT_PASS;
		nfail += rep.r[i].v == VERDICT_FAIL;
		nerr += rep.r[i].v == VERDICT_ERROR;
	}
	CHECK(rep.n == 15 && npass == 7 && nfail == 7 && nerr == 1, "%zu results", rep.n);

	/* text: a line per result, VERDICT  rule: limit: message; then the counts */
	CAPTURE(buf, f, report_text(f, &rep, &meta));
	for (i = 0; i + 1 < rep.n; i++) {
		snprintf(want, sizeof(want), "%s %s: %s: %s\n", verdict_word[rep.r[i].v],
			 rep.r[i].name, rep.r[i].what, rep.r[i].summary);
		CHECK(strstr(buf, want) != NULL, "text: no line '%s' in:\n%s", want, buf);
	}
	snprintf(want, sizeof(want), "FAIL  %s: min_pools >= 1: %s\n", odd_name, odd_msg);
	CHECK(strstr(buf, want) != NULL, "text: the odd result escaped: %s", buf);
	snprintf(want, sizeof(want),
		 "ppwatch check: %zu checks, %zu passed, %zu failed, %zu could not be checked\n",
		 rep.n, npass, nfail, nerr);
	CHECK(strstr(buf, want) != NULL, "text: the counts: %s", buf);
	CHECK_INT(count_of(buf, "\n"), rep.n + 1);
	free(buf);

	/* TAP 13: the plan, an ok / not ok line per result in order, a YAML block each */
	CAPTURE(buf, f, report_tap(f, &rep, &meta));
	CHECK(!strncmp(buf, "TAP version 13\n", 15), "TAP: %s", buf);
	snprintf(want, sizeof(want), "\n1..%zu\n", rep.n);
	CHECK(strstr(buf, want) != NULL, "TAP: the plan");
	CHECK_INT(lines_starting(buf, "ok "), npass);
	CHECK_INT(lines_starting(buf, "not ok "), nfail + nerr);
	for (i = 0; i + 1 < rep.n; i++) {
		snprintf(want, sizeof(want), "\n%sok %zu - %s: %s\n  ---\n  message: \"%s\"\n",
			 rep.r[i].v == VERDICT_PASS ? "" : "not ", i + 1, rep.r[i].name,
			 rep.r[i].what, rep.r[i].summary);
		CHECK(strstr(buf, want) != NULL, "TAP: no '%s'", want);
	}
	CHECK_INT(lines_starting(buf, "  severity: fail"), nfail);
	CHECK_INT(lines_starting(buf, "  severity: error"), nerr);
	CHECK_INT(lines_starting(buf, "  severity: none"), npass);
	/* '#' starts a TAP directive: escaped; the message a YAML double-quoted string */
	CHECK(strstr(buf, "\nnot ok 15 - odd \\#1 <&> \"q\" \\x01: min_pools >= 1\n") != NULL,
	      "TAP: the odd name: %s", buf);
	CHECK(strstr(buf, "  message: \"bad \\\\xff byte, tab\\\\x09here, 'quote'\\\\\"\n") != NULL,
	      "TAP: the odd message: %s", buf);
	free(buf);

	/* JUnit: the counts as attributes, a testcase per result, XML escaped */
	CAPTURE(buf, f, report_junit(f, &rep, &meta));
	CHECK(!strncmp(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39), "XML: %s", buf);
	snprintf(want, sizeof(want), " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\"", rep.n, nfail,
		 nerr);
	CHECK_INT(count_of(buf, want), 2); /* testsuites and testsuite */
	CHECK_INT(count_of(buf, "<testcase "), rep.n);
	CHECK_INT(count_of(buf, "<failure message="), nfail);
	CHECK_INT(count_of(buf, "<error message="), nerr);
	CHECK_INT(count_of(buf, "<failure ") + count_of(buf, "<error "),
		  count_of(buf, "</failure>") + count_of(buf, "</error>"));
	CHECK(strstr(buf, "<testcase classname=\"ppwatch.check.eth0-bounded\" name=\"max_inflight "
			  "&lt;= 1000\" time=\"0.000\">\n      <failure message=\"pool 7 (eth0): "
			  "1200 pages &gt; 1000\" type=\"max_inflight\">") != NULL,
	      "XML: a failed check: %s", buf);
	CHECK(strstr(buf, " hostname=\"host&lt;&amp;&gt;&quot;1&quot;\"") != NULL,
	      "XML: the host name escaped");
	CHECK(strstr(buf, "classname=\"ppwatch.check.odd #1 &lt;&amp;&gt; &quot;q&quot; \\x01\"") !=
		      NULL,
	      "XML: the odd name escaped: %s", buf);
	CHECK(strstr(buf, "message=\"bad \\xff byte, tab\\x09here, &apos;quote&apos;\\\"") != NULL,
	      "XML: the odd message escaped");
	CHECK(!strchr(buf, '\x01') && !strstr(buf, "\xff"), "XML carries no invalid bytes");
	CHECK(strstr(buf, "<property name=\"ppwatch.version\" value=\"0.1.0\"/>") != NULL &&
		      strstr(buf, "<property name=\"ppwatch.rules\" value=\"rules.yaml\"/>") !=
			      NULL,
	      "XML: the properties");
	free(buf);

	/* JSON: the same results, members by name */
	CAPTURE(buf, f, {
		struct json j;

		json_init(&j, f, true);
		json_obj_open(&j);
		report_json(&j, &rep, &meta);
		json_obj_close(&j);
		json_end(&j);
	});
	doc = json_loads(buf, 0, NULL);
	CHECK(doc != NULL, "JSON: %s", buf);
	CHECK_STR(json_string_value(json_object_get(doc, "result")) ?: "", "fail");
	CHECK_INT(json_integer_value(json_object_get(doc, "exit_status")), 1);
	snprintf(want, sizeof(want),
		 "result=\"fail\" exit_status=1 summary/checks=%zu summary/passed=%zu "
		 "summary/failed=%zu summary/errors=%zu",
		 rep.n, npass, nfail, nerr);
	CHECK_JSON(doc, want);
	CHECK_INT(json_array_size(json_object_get(doc, "checks")), rep.n);
	json_array_foreach(json_object_get(doc, "checks"), i, c)
	{
		bool odd = i + 1 == rep.n;

		CHECK_STR(json_string_value(json_object_get(c, "rule")) ?: "",
			  odd ? odd_name : rep.r[i].name);
		CHECK_STR(json_string_value(json_object_get(c, "check")) ?: "", rep.r[i].key);
		CHECK_STR(json_string_value(json_object_get(c, "what")) ?: "", rep.r[i].what);
		CHECK_STR(json_string_value(json_object_get(c, "result")) ?: "",
			  verdict_name(rep.r[i].v));
		CHECK_STR(json_string_value(json_object_get(c, "message")) ?: "",
			  odd ? odd_msg : rep.r[i].summary);
		CHECK_INT(json_array_size(json_object_get(c, "findings")), rep.r[i].nfindings);
	}
	/* the first check: pool 7's 1200 pages over 1000, of 3 pools */
	CHECK_JSON(doc, "checks/0/limit=1000 checks/0/pools_checked=3 checks/0/findings/0/id=7 "
			"checks/0/findings/0/value=1200 checks/0/findings/0/at_least=false");
	json_decref(doc);
	free(buf);
	report_free(&rep);
}

/* every key of the schema is documented in the man page */
static void test_schema_documented(void)
{
	const struct rules_key_help *h;
	char *doc = unit_read_text("docs/ppwatch-check.rst"), pat[64];
	size_t n, i;

	CHECK(doc != NULL, "docs/ppwatch-check.rst missing");
	if (!doc)
		return;
	n = rules_schema(&h);
	CHECK(n >= 15, "%zu keys", n);
	for (i = 0; i < n; i++) {
		snprintf(pat, sizeof(pat), "**%s**", h[i].key);
		CHECK(strstr(doc, pat) != NULL, "key '%s' not in docs/ppwatch-check.rst", h[i].key);
	}
	free(doc);
}

int main(void)
{
	TEST(test_examples_are_valid);
	TEST(test_parse_ok);
	TEST(test_parse_errors);
	TEST(test_parse_hostile);
	TEST(test_resolve_netns);
	TEST(test_eval);
	TEST(test_item_stats);
	TEST(test_exit_codes);
	TEST(test_run_report);
	TEST(test_run_verdicts);
	TEST(test_formats);
	TEST(test_schema_documented);
	return unit_done();
}
