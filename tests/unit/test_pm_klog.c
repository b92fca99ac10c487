// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel log's pools linked to a recording's (model/pm_klog.c), and
 * every pool's verdict (model/pm_verdict.c, output/pm_verdict_fmt.c): by
 * id, by destroy time and inflight without one (before 6.8), pools
 * destroyed together, another boot's log, live; held, leaked, draining,
 * accounting bug, stuck, freed; the report in text, JSON and YAML.
 */
#include <errno.h>
#include <time.h>

#include <yaml.h>

#include "unit.h"

#include "lib/util.h"
#include "model/kernel_log.h"
#include "model/pm_klog.h"
#include "model/pm_verdict.h"
#include "model/postmortem.h"
#include "model/recording.h"
#include "output/pm_verdict_fmt.h"
#include "output/pool_verdict_fmt.h"
#include "output/postmortem_fmt.h"

/* the report of a recording, as 'ppwatch postmortem FILE' makes it */
static json_t *recorded(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	json_t *rep = NULL, *input;
	struct recording r;
	struct pm *a = pm_new();

	CHECK(a && f && !recording_open_stream(&r, f, "r.jsonl"), "open");
	CHECK_INT(pm_read(a, &r), 0);
	input = recording_summary(&r);
	rep = pm_report(a, "test", input);
	json_decref(input);
	recording_close(&r);
	pm_free(a);
	fclose(f);
	return rep;
}

/* the report of a recording and a log, its verdicts and their words */
static json_t *report(const char *rec, const char *log, const struct klog_link_opts *o)
{
	json_t *rep = recorded(rec);
	struct klog k;

	CHECK(rep != NULL, "report");
	if (!rep)
		return NULL;
	if (log) {
		klog_init(&k);
		CHECK_INT(klog_feed(&k, log, strlen(log)), 0);
		klog_finish(&k, o->live ? 300 : NAN);
		CHECK_INT(pm_add_kernel_log(rep, &k, o), 0);
		klog_free(&k);
	}
	CHECK_INT(pm_add_verdicts(rep), 0);
	CHECK_INT(postmortem_prose(rep), 0);
	return rep;
}

static const json_t *pool_at(const json_t *rep, size_t i)
{
	return json_array_get(json_object_get(rep, "pools"), i);
}

static const char *verdict(const json_t *pool)
{
	return jstr(json_object_get(pool, "verdict"), "verdict", "?");
}

static const json_t *match(const json_t *pool)
{
	return json_object_get(json_object_get(pool, "kernel_log"), "match");
}

/* booted at Unix 1000: printk 100 s is 1100 */
static const struct klog_link_opts same_boot = {
	.printk_to_unix = 1000,
	.drift = KLOG_DRIFT,
	.source = "dmesg.txt",
};

#define HEADER                                                                                     \
	"{\"type\":\"header\",\"time\":1100,\"format\":1,\"hostname\":\"h\",\"stall_after_s\":60," \
	"\"boot_to_real_s\":1000,\"stack_every\":%d,\"kernel\":{\"release\":\"6.12\","             \
	"\"page_size\":4096}}\n"

/*
 * Pool 9, destroyed at 1110 with 500 pages out, 480 from 1175 on, held
 * by a socket (scan at 1400); id 0: none (a kernel before 6.8)
 */
static char *held_recording(int id, const char *holders)
{
	char *s;

	if (asprintf(
		    &s,
		    HEADER
		    "{\"type\":\"event\",\"event\":{\"time\":1100,\"event\":\"new\",\"id\":%d,"
		    "\"addr\":\"0x1000\",\"gen\":1,\"inflight\":600}}\n"
		    "{\"type\":\"event\",\"event\":{\"time\":1110,\"event\":\"destroy\",\"id\":%d,"
		    "\"addr\":\"0x1000\",\"gen\":1,\"inflight\":500,\"detail\":\"\"}}\n"
		    "{\"type\":\"event\",\"event\":{\"time\":1175,\"event\":\"retry\",\"retry\":65,"
		    "\"id\":%d,\"addr\":\"0x1000\",\"gen\":1,\"inflight\":480}}\n"
		    "{\"type\":\"snapshot\",\"time\":1400,\"pools\":[{\"id\":%d,\"addr\":\"0x1000\","
		    "\"gen\":1,\"device\":\"eth1\",\"driver\":\"mlx5_core\",\"state\":\"zombie\","
		    "\"inflight\":480,\"inflight_bytes\":1966080,\"detach_age_s\":290}]}\n"
		    "{\"type\":\"holders\",\"time\":1400,\"pools\":[{\"id\":%d,\"addr\":\"0x1000\","
		    "\"gen\":1,\"inflight\":480,\"unattributed\":%s}]}\n"
		    "{\"type\":\"end\",\"time\":1400}\n",
		    0, id, id, id, id, id, holders) < 0)
		return NULL;
	return s;
}

#define SOCKET_HOLDS                                                                         \
	"0,\"holders\":[{\"pages\":480,\"kind\":\"socket\",\"holder\":\"udp 192.0.2.2:5001 " \
	"ino 77 pid 5 app fd 9\",\"remedy\":\"pid 5 (app) fd 9 has not read 700KiB: read "   \
	"from it or close it\"}]"
#define NOTHING_HOLDS \
	"480,\"holders\":[{\"pages\":480,\"kind\":\"unattributed\",\"holder\":\"unattributed\"}]"

/* by id, the time and inflight agreeing: certain; held, with the holder's remedy */
static void test_link_by_id_held(void)
{
	static const char log[] =
		"[    0.000000] Linux version 6.12.38+deb13-amd64 (x) #1\n"
		"[  100.000000] eth1: Link down\n"
		"[  170.001000] page_pool_release_retry() stalled pool shutdown: id 9, 500 inflight 60 sec\n"
		"[  231.002000] page_pool_release_retry() stalled pool shutdown: id 9, 480 inflight 121 sec\n"
		"[  292.003000] page_pool_release_retry() stalled pool shutdown: id 9, 480 inflight 182 sec\n"
		"[  292.100000] page_pool_release_retry() stalled pool shutdown: id 33, 7 inflight 3600 sec\n";
	char *rec = held_recording(9, SOCKET_HOLDS);
	const json_t *p, *m, *v, *h;
	json_t *rep = report(rec, log, &same_boot), *back;
	char *buf;

	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 2);
	p = pool_at(rep, 0);
	m = match(p);
	CHECK_STR(jstr(m, "confidence", ""), "certain");
	CHECK_STR(json_string_value(json_array_get(json_object_get(m, "by"), 0)), "id");
	CHECK_INT(json_array_size(json_object_get(m, "by")), 3); /* id, destroy time, inflight */
	CHECK_NEAR(jnum(m, "destroy_times_apart_s", 99), 0.003, 1e-6);
	v = json_object_get(p, "verdict");
	CHECK_STR(verdict(p), "held");
	h = json_array_get(json_object_get(v, "holders"), 0);
	CHECK_NEAR(jnum(h, "pages", 0), 480, 0);
	CHECK(strstr(jstr(h, "remedy", ""), "read from it or close it") != NULL, "remedy");
	CHECK(strstr(jstr(v, "summary", ""), "480 of them held by 1 holder") != NULL, "%s",
	      jstr(v, "summary", ""));
	/* id 33 is in the log only */
	p = pool_at(rep, 1);
	CHECK_STR(jstr(p, "from", ""), "kernel_log");
	CHECK_STR(verdict(p), "unknown");
	CHECK(json_is_null(match(p)), "not linked");

	CAPTURE(buf, f, postmortem_text(f, rep));
	check_golden("postmortem-klog.txt", buf);
	free(buf);
	/* -j and --yaml say the same verdict and link (test_postmortem.c checks every value) */
	CAPTURE(buf, f, {
		struct json j;

		json_init(&j, f, true);
		postmortem_json(&j, rep);
		json_end(&j);
	});
	back = json_loads(buf, 0, NULL);
	CHECK(back && !strcmp(verdict(pool_at(back, 0)), "held") &&
		      !strcmp(jstr(match(pool_at(back, 0)), "confidence", ""), "certain"),
	      "-j: %s", buf);
	json_decref(back);
	free(buf);
	CAPTURE(buf, f, CHECK_INT(postmortem_yaml(f, rep), 0));
	CHECK(strstr(buf, "  verdict:\n    verdict: \"held\"\n") != NULL, "--yaml: %s", buf);
	CHECK(strstr(buf, "    confidence: \"certain\"\n") != NULL, "--yaml: %s", buf);
	free(buf);
	json_decref(rep);
	free(rec);
}

/* before 6.8: no id; the destroy time and inflight link it; nothing walkable holds it: leaked */
static void test_link_no_id_leaked(void)
{
	static const char log[] =
		"[  170.500000] page_pool_release_retry() stalled pool shutdown 500 inflight 60 sec\n"
		"[  231.500000] page_pool_release_retry() stalled pool shutdown 480 inflight 121 sec\n";
	char *rec = held_recording(0, NOTHING_HOLDS);
	json_t *rep = report(rec, log, &same_boot);
	const json_t *p = pool_at(rep, 0), *v = json_object_get(p, "verdict");

	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 1);
	CHECK_STR(jstr(match(p), "confidence", ""), "high");
	CHECK_STR(verdict(p), "leaked");
	CHECK(json_is_false(json_object_get(v, "stacks_recorded")), "no stacks");
	CHECK(strstr(jstr(v, "summary", ""), "most likely the driver (mlx5_core)") != NULL, "%s",
	      jstr(v, "summary", ""));
	CHECK(strstr(json_string_value(json_array_get(json_object_get(v, "next"), 1)),
		     "--stacks") != NULL,
	      "how to have the stacks next time");
	json_decref(rep);
	/* a log whose inflight the recording never had at that age: not this pool */
	rep = report(
		rec,
		"[  170.500000] page_pool_release_retry() stalled pool shutdown 77 inflight 60 sec\n",
		&same_boot);
	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 2);
	CHECK(json_is_null(match(pool_at(rep, 1))), "unlinked");
	json_decref(rep);
	/* no clock to compare (a log of another boot, no stamps): inflight at its age alone */
	struct klog_link_opts o = same_boot;

	o.printk_to_unix = NAN;
	rep = report(rec, log, &o);
	CHECK_STR(jstr(match(pool_at(rep, 0)), "confidence", ""), "medium");
	json_decref(rep);
	free(rec);
}

/* dmesg -T written in a zone 2 h east of the reader's: the times not compared, inflight links it */
static void test_link_other_zone(void)
{
	/* printk 170.5 = Unix 1170.5 = 1970-01-01 00:19:30.5 UTC, written at UTC+2 */
	static const char log[] =
		"[Thu Jan  1 02:19:30 1970] page_pool_release_retry() stalled pool "
		"shutdown 500 inflight 60 sec\n";
	struct klog_link_opts o = same_boot;
	char *rec = held_recording(0, NOTHING_HOLDS);
	json_t *rep;
	const json_t *m;

	o.printk_to_unix = NAN;
	rep = report(rec, log, &o);
	m = match(pool_at(rep, 0));
	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 1);
	CHECK_NEAR(jnum(m, "zone_shift_s", 0), 7200, 1);
	CHECK_STR(jstr(m, "confidence", ""), "medium"); /* inflight at the line's age alone */
	json_decref(rep);
	free(rec);
}

/* an id whose destroy time is hours off: kept, low, the conflict said */
static void test_link_conflict(void)
{
	static const char log[] =
		"[ 9170.000000] page_pool_release_retry() stalled pool shutdown: id 9, 480 inflight 60 sec\n";
	char *rec = held_recording(9, SOCKET_HOLDS);
	json_t *rep = report(rec, log, &same_boot);
	const json_t *m = match(pool_at(rep, 0));

	CHECK_STR(jstr(m, "confidence", ""), "low");
	CHECK_STR(json_string_value(json_array_get(json_object_get(m, "conflicts"), 0)),
		  "destroy_time");
	json_decref(rep);
	free(rec);
}

/* two pools destroyed together, the same inflight, no ids: each linked, low, ambiguous */
static void test_link_together(void)
{
	static const char rec[] =
		"{\"type\":\"header\",\"time\":1000,\"stall_after_s\":60,\"boot_to_real_s\":1000}\n"
		"{\"type\":\"event\",\"event\":{\"time\":1110,\"event\":\"destroy\",\"addr\":\"0xa\","
		"\"gen\":1,\"inflight\":64}}\n"
		"{\"type\":\"event\",\"event\":{\"time\":1110.2,\"event\":\"destroy\",\"addr\":\"0xb\","
		"\"gen\":1,\"inflight\":64}}\n"
		"{\"type\":\"snapshot\",\"time\":1200,\"pools\":[{\"addr\":\"0xa\",\"gen\":1,"
		"\"state\":\"zombie\",\"inflight\":64,\"detach_age_s\":90},{\"addr\":\"0xb\","
		"\"gen\":1,\"state\":\"zombie\",\"inflight\":64,\"detach_age_s\":89.8}]}\n";
	static const char log[] =
		"[  170.1] page_pool_release_retry() stalled pool shutdown 64 inflight 60 sec\n"
		"[  170.3] page_pool_release_retry() stalled pool shutdown 64 inflight 60 sec\n";
	json_t *rep = report(rec, log, &same_boot);
	const json_t *a = match(pool_at(rep, 0)), *b = match(pool_at(rep, 1));

	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 2);
	CHECK(a && b, "both linked");
	CHECK_STR(jstr(a, "confidence", ""), "low");
	CHECK(json_is_true(json_object_get(a, "ambiguous")), "ambiguous");
	CHECK_INT(json_array_size(json_object_get(a, "candidates")), 2);
	CHECK(json_is_true(json_object_get(json_object_get(pool_at(rep, 0), "kernel_log"),
					   "destroyed_together")),
	      "together");
	json_decref(rep);
}

/* live: a warned-about zombie by its age; a pool the log stopped naming and no pool fits: gone */
static void test_live(void)
{
	static const char rec[] =
		"{\"type\":\"header\",\"time\":2000,\"stall_after_s\":60,\"stack_every\":64}\n"
		"{\"type\":\"snapshot\",\"time\":2000,\"pools\":[{\"addr\":\"0xa\",\"gen\":1,"
		"\"state\":\"zombie\",\"inflight\":200,\"detach_age_s\":125}]}\n"
		"{\"type\":\"holders\",\"time\":2000,\"pools\":[{\"addr\":\"0xa\",\"gen\":1,"
		"\"inflight\":200,\"unattributed\":200,\"holders\":[]}]}\n";
	static const char log[] =
		"[   30.0] page_pool_release_retry() stalled pool shutdown 12 inflight 60 sec\n"
		"[  291.0] page_pool_release_retry() stalled pool shutdown 200 inflight 121 sec\n";
	struct klog_link_opts o = { .printk_to_unix = NAN, .live = true, .source = "/dev/kmsg" };
	json_t *rep = report(rec, log, &o);
	const json_t *gone = json_object_get(json_object_get(rep, "kernel_log"), "gone");

	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 1);
	CHECK_STR(jstr(match(pool_at(rep, 0)), "confidence", ""), "low");
	CHECK_STR(
		json_string_value(json_array_get(json_object_get(match(pool_at(rep, 0)), "by"), 0)),
		"age");
	CHECK_STR(verdict(pool_at(rep, 0)), "leaked");
	CHECK(json_is_true(json_object_get(json_object_get(pool_at(rep, 0), "verdict"),
					   "stacks_recorded")),
	      "stacks were sampled");
	CHECK_INT(json_array_size(gone), 1);
	CHECK_STR(verdict(json_array_get(gone, 0)), "freed");
	CHECK_STR(jstr(json_object_get(json_array_get(gone, 0), "verdict"), "freed_by", ""),
		  "host");
	json_decref(rep);
}

/* from a recording alone: draining, an accounting bug, freed */
static void test_verdicts_recorded(void)
{
	static const char rec[] =
		"{\"type\":\"header\",\"time\":1000,\"stall_after_s\":60}\n"
		"{\"type\":\"event\",\"event\":{\"time\":1000,\"event\":\"destroy\",\"addr\":\"0xa\","
		"\"gen\":1,\"inflight\":500}}\n"
		"{\"type\":\"snapshot\",\"time\":1050,\"pools\":[{\"addr\":\"0xa\",\"gen\":1,"
		"\"state\":\"zombie\",\"inflight\":450,\"detach_age_s\":50},"
		"{\"addr\":\"0xb\",\"gen\":1,\"state\":\"zombie\",\"inflight\":-3,\"detach_age_s\":80,"
		"\"driver\":\"fec\"},"
		"{\"addr\":\"0xc\",\"gen\":1,\"state\":\"zombie\",\"inflight\":7,\"detach_age_s\":10}]}\n"
		"{\"type\":\"snapshot\",\"time\":1100,\"pools\":[{\"addr\":\"0xa\",\"gen\":1,"
		"\"state\":\"zombie\",\"inflight\":400,\"detach_age_s\":100},"
		"{\"addr\":\"0xb\",\"gen\":1,\"state\":\"zombie\",\"inflight\":-3,\"detach_age_s\":130,"
		"\"driver\":\"fec\"},"
		"{\"addr\":\"0xc\",\"gen\":1,\"state\":\"freed\",\"inflight\":0,\"freed_age_s\":5,"
		"\"zombie_s\":55}]}\n"
		"{\"type\":\"event\",\"event\":{\"time\":1095,\"event\":\"freed\",\"addr\":\"0xc\","
		"\"gen\":1,\"inflight\":0}}\n";
	json_t *rep = report(rec, NULL, NULL);
	const json_t *v = json_object_get(pool_at(rep, 0), "verdict");

	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 3);
	CHECK_STR(verdict(pool_at(rep, 0)), "draining");
	CHECK_NEAR(jnum(v, "rate_pages_per_s", 0), 1, 1e-9);
	CHECK_NEAR(jnum(v, "eta_s", 0), 400, 1e-9);
	CHECK(strstr(jstr(v, "summary", ""), "fell from 500 to 400 in 1m40s") != NULL, "%s",
	      jstr(v, "summary", ""));
	CHECK_STR(verdict(pool_at(rep, 1)), "accounting_bug");
	CHECK(strstr(jstr(json_object_get(pool_at(rep, 1), "verdict"), "summary", ""),
		     "the driver fec released a page twice") != NULL,
	      "%s", jstr(json_object_get(pool_at(rep, 1), "verdict"), "summary", ""));
	CHECK_STR(verdict(pool_at(rep, 2)), "freed");
	json_decref(rep);
}

/* names from a log are escaped in every format */
static void test_untrusted(void)
{
	static const char log[] =
		"[ 1.0] \x1b[31m\xff page_pool_release_retry() stalled pool shutdown "
		"(\x1b]0;x\x07): 5 inflight 60 sec\n";
	struct klog_link_opts o = same_boot;
	json_t *rep = report("{\"type\":\"header\",\"time\":1}\n", log, &o);
	char *buf;

	CAPTURE(buf, f, postmortem_text(f, rep));
	CHECK(!strchr(buf, '\x1b') && !strchr(buf, '\x07') && !strstr(buf, "\xff"), "%s", buf);
	CHECK(strstr(buf, "\\x1b]0;x\\x07") != NULL, "escaped: %s", buf);
	free(buf);
	CAPTURE(buf, f, CHECK_INT(postmortem_yaml(f, rep), 0));
	CHECK(!strchr(buf, '\x1b'), "yaml");
	free(buf);
	json_decref(rep);
}

/*
 * One verdict set: the names -j writes (pool_verdict_name), the words text
 * writes, the enumerations of the schemas, the VERDICTS list of
 * ppwatch-postmortem(8) and the table of docs/stalled-pool-shutdown.md name
 * the same verdicts, none missing and none extra.
 */
#define PV_N (PV_STUCK + 1)

static int pv_index(const char *name, bool word)
{
	int c;

	for (c = 0; c < PV_N; c++)
		if (!strcmp(word ? pool_verdict_word(c) : pool_verdict_name(c), name))
			return c;
	return -1;
}

/* every "verdict": {"properties": {"verdict": {"enum"}}} under @v */
static void schema_verdict_enums(json_t *v, const char *file, int *found)
{
	json_t *e, *child;
	const char *key;
	size_t i;
	unsigned seen = 0;

	if (json_is_array(v)) {
		json_array_foreach(v, i, child) schema_verdict_enums(child, file, found);
		return;
	}
	if (!json_is_object(v))
		return;
	e = json_object_get(
		json_object_get(json_object_get(json_object_get(v, "verdict"), "properties"),
				"verdict"),
		"enum");
	if (e) {
		(*found)++;
		CHECK(json_array_size(e) == PV_N, "%s: the verdict enum has %zu values, ppwatch %d",
		      file, json_array_size(e), PV_N);
		json_array_foreach(e, i, child)
		{
			int c = pv_index(json_string_value(child) ?: "", false);

			CHECK(c >= 0, "%s: enum value '%s' is no verdict of ppwatch's", file,
			      json_string_value(child) ?: "?");
			if (c >= 0)
				seen |= 1u << c;
		}
		CHECK(seen == (1u << PV_N) - 1, "%s: the verdict enum misses some (mask %#x)", file,
		      seen);
	}
	json_object_foreach(v, key, child) schema_verdict_enums(child, file, found);
}

static char *slurp(const char *path)
{
	char *s = unit_read_text(path);

	CHECK(s != NULL, "%s: %s", path, strerror(errno));
	return s ?: strdup("");
}

static void test_verdict_names_one_set(void)
{
	static const char *const schemas[] = { "docs/schema/postmortem.json",
					       "docs/schema/check.json" };
	char *doc, *line, *save = NULL, *end;
	unsigned seen;
	size_t i;
	int c, found;

	for (c = 0; c < PV_N; c++) {
		char want[32];

		snprintf(want, sizeof(want), "%s", pool_verdict_name(c));
		for (i = 0; want[i]; i++)
			want[i] = want[i] == '_' ? ' ' : want[i];
		CHECK(!strcmp(pool_verdict_word(c), want), "text says '%s' for -j's '%s'",
		      pool_verdict_word(c), pool_verdict_name(c));
		CHECK(pv_index(pool_verdict_name(c), false) == c, "'%s' named twice",
		      pool_verdict_name(c));
	}
	for (i = 0; i < ARRAY_SIZE(schemas); i++) {
		json_t *s = json_load_file(schemas[i], 0, NULL);

		CHECK(s != NULL, "%s does not load", schemas[i]);
		found = 0;
		schema_verdict_enums(s, schemas[i], &found);
		CHECK(found >= 1, "%s: no verdict enum", schemas[i]);
		json_decref(s);
	}

	/* the man page: a definition list, one term a line, from "Each pool gets a **verdict**" */
	doc = slurp("docs/ppwatch-postmortem.rst");
	line = strstr(doc, "Each pool gets a **verdict**");
	end = line ? strstr(line, "``.verdict`` also carries") : NULL;
	CHECK(line && end, "docs/ppwatch-postmortem.rst: no VERDICTS list");
	seen = 0;
	if (line && end) {
		*end = '\0';
		for (line = strtok_r(line, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (!*line || strspn(line, "abcdefghijklmnopqrstuvwxyz_") != strlen(line))
				continue;
			c = pv_index(line, false);
			CHECK(c >= 0, "ppwatch-postmortem(8) lists '%s', no verdict of ppwatch's",
			      line);
			if (c >= 0)
				seen |= 1u << c;
		}
	}
	CHECK(seen == (1u << PV_N) - 1, "ppwatch-postmortem(8) misses verdicts (mask %#x)", seen);
	free(doc);

	/* the guide's table: one row a verdict, its word in bold as text writes it */
	doc = slurp("docs/stalled-pool-shutdown.md");
	seen = 0;
	for (line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *b, *e;

		if (strncmp(line, "| **", 4))
			continue;
		b = line + 4;
		e = strstr(b, "** |");
		CHECK(e != NULL, "docs/stalled-pool-shutdown.md: row '%.40s'", line);
		if (!e)
			continue;
		*e = '\0';
		c = pv_index(b, true);
		CHECK(c >= 0, "docs/stalled-pool-shutdown.md has '%s', no verdict of ppwatch's", b);
		if (c >= 0)
			seen |= 1u << c;
	}
	CHECK(seen == (1u << PV_N) - 1, "docs/stalled-pool-shutdown.md misses verdicts (mask %#x)",
	      seen);
	free(doc);
}

int main(void)
{
	/* the text shows local times */
	setenv("TZ", "UTC", 1);
	tzset();
	TEST(test_link_by_id_held);
	TEST(test_link_no_id_leaked);
	TEST(test_link_conflict);
	TEST(test_link_other_zone);
	TEST(test_link_together);
	TEST(test_live);
	TEST(test_verdicts_recorded);
	TEST(test_untrusted);
	TEST(test_verdict_names_one_set);
	return unit_done();
}
