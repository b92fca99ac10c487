// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Recordings read back (jansson), and the post-mortem report in text, JSON and YAML. */
#include <errno.h>

#include <yaml.h>

#include "unit.h"

#include "lib/util.h"
#include "model/postmortem.h"
#include "model/rec_reader.h"
#include "output/postmortem_fmt.h"

/* rec_read() of a string; what it reports goes to *diag */
static json_t *read_str(const char *text, char **diag)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r"), *err = stderr;
	size_t len;
	json_t *recs;

	stderr = open_memstream(diag, &len);
	recs = rec_read(f, "r.jsonl");
	fclose(stderr);
	stderr = err;
	fclose(f);
	return recs;
}

/* a recording: a pool destroyed 90 s before its end, held by a socket */
static const char recording[] =
	"{\"type\":\"header\",\"time\":1000,\"format\":1,\"hostname\":\"h\",\"stall_after_s\":60,"
	"\"kernel\":{\"release\":\"6.18\",\"unmap_regime\":\"dma_mapped-xarray\"}}\n"
	"{\"type\":\"event\",\"event\":{\"time\":1000.5,\"event\":\"new\",\"id\":9,\"addr\":\"0x1000\","
	"\"gen\":3,\"inflight\":620,\"detail\":\"first seen\"}}\n"
	"{\"type\":\"event\",\"event\":{\"time\":1010,\"event\":\"destroy\",\"id\":9,\"addr\":\"0x1000\","
	"\"gen\":3,\"inflight\":500,\"detail\":\"page_pool_destroy: 500 pages out\"}}\n"
	"{\"type\":\"event\",\"event\":{\"time\":1011,\"event\":\"retry\",\"retry\":1,\"id\":9,"
	"\"addr\":\"0x1000\",\"gen\":3,\"inflight\":500}}\n"
	"{\"type\":\"event\",\"event\":{\"time\":1070.2,\"event\":\"stalled\",\"id\":9,\"addr\":\"0x1000\","
	"\"gen\":3,\"inflight\":500,\"detail\":\"60s after destroy\"}}\n"
	"{\"type\":\"event\",\"event\":{\"time\":1099,\"event\":\"retry\",\"retry\":89,\"id\":9,"
	"\"addr\":\"0x1000\",\"gen\":3,\"inflight\":480}}\n"
	"{\"type\":\"snapshot\",\"time\":1100,\"pools\":[{\"id\":9,\"addr\":\"0x1000\",\"gen\":3,"
	"\"device\":\"eth1\",\"netns\":4026531840,\"state\":\"zombie\",\"inflight\":480,"
	"\"inflight_bytes\":1966080,\"detach_age_s\":90,\"dma\":\"unmapped\","
	"\"dma_unmapped_at_destroy\":500,\"dma_still_mapped\":0},"
	"{\"id\":4,\"addr\":\"0x2000\",\"gen\":1,\"device\":\"eth0\",\"state\":\"live\",\"inflight\":64}]}\n"
	"{\"type\":\"holders\",\"time\":1100,\"pools\":[{\"id\":9,\"addr\":\"0x1000\",\"gen\":3,"
	"\"inflight\":480,\"unattributed\":0,\"holders\":[{\"pages\":480,\"kind\":\"socket\","
	"\"holder\":\"tcp 192.0.2.2:80 <- 198.51.100.7:4000 ino 77 pid 5 nginx fd 9\"}]}]}\n"
	"{\"type\":\"pages\",\"time\":1100,\"id\":9,\"addr\":\"0x1000\",\"gen\":3,\"pages\":"
	"[{\"netmem\":\"0xffffea0000001000\",\"age_s\":95,\"holder\":\"tcp ...\"}]}\n"
	"\n"
	"{\"type\":\"end\",\"time\":1100}\n";

static void test_postmortem(void)
{
	const json_t *pool, *tl;
	json_t *recs, *rep;
	char *buf, *diag;
	struct json j;

	recs = read_str(recording, &diag);
	CHECK(recs != NULL, "read: %s", diag);
	free(diag);
	if (!recs)
		return;
	CHECK_INT(json_array_size(recs), 10);
	rep = postmortem_build(recs, "test");
	CHECK(rep != NULL, "report");
	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 1); /* not the live pool */
	pool = json_array_get(json_object_get(rep, "pools"), 0);
	CHECK_STR(rec_str(pool, "device", ""), "eth1");
	CHECK(json_is_true(json_object_get(pool, "stalled")), "stalled");
	CHECK_NEAR(rec_num(pool, "retries", 0), 89, 0);
	tl = json_object_get(pool, "timeline");
	CHECK_INT(json_array_size(tl), 4); /* new, destroy, retries (folded), stalled */
	CHECK_STR(rec_str(json_array_get(tl, 2), "event", ""), "retry");
	/* noticed within a second of destroy + 60: kept as noticed */
	CHECK_NEAR(rec_num(json_array_get(tl, 3), "time", 0), 1070.2, 1e-9);
	CHECK_NEAR(rec_num(json_object_get(pool, "holders"), "inflight", 0), 480, 0);
	CHECK_INT(json_array_size(json_object_get(pool, "inflight_over_time")),
		  3); /* 620, 500, 480 */

	CAPTURE(buf, f, postmortem_text(f, rep));
	/* times are local: compare what does not depend on the time zone */
	CHECK(strstr(buf, "pool 9 eth1 (zombie, netns 4026531840)  STALLED") != NULL, "%s", buf);
	CHECK(strstr(buf, "480 pages  tcp 192.0.2.2:80 <- 198.51.100.7:4000") != NULL, "holders");
	CHECK(strstr(buf, "2 retries seen, up to retry 89") != NULL, "two retries were seen");
	free(buf);
	CAPTURE(buf, f, {
		json_init(&j, f, true);
		postmortem_json(&j, rep);
		json_end(&j);
	});
	check_golden("postmortem.json", buf);
	free(buf);
	CAPTURE(buf, f, CHECK_INT(postmortem_yaml(f, rep), 0));
	check_golden("postmortem.yaml", buf);
	free(buf);
	json_decref(rep);
	json_decref(recs);
}

/* jansson: surrogate pairs, exact integers, one value per key, errors with line and column */
static void test_rec_reader(void)
{
	json_t *recs;
	char *diag;

	recs = read_str("{\"type\":\"header\",\"s\":\"\\ud83d\\udc27\",\"n\":9007199254740993}\n",
			&diag);
	CHECK(recs != NULL, "read: %s", diag);
	CHECK_STR(rec_str(json_array_get(recs, 0), "s", ""), "\xf0\x9f\x90\xa7");
	CHECK(json_integer_value(json_object_get(json_array_get(recs, 0), "n")) ==
		      9007199254740993LL,
	      "integers stay integers");
	json_decref(recs);
	free(diag);

	static const struct {
		const char *what, *text, *diag;
	} bad[] = {
		{ "duplicate key", "{\"type\":\"header\",\"type\":\"x\"}\n", "r.jsonl:1:" },
		{ "bytes that are not UTF-8", "{\"type\":\"header\"}\n{\"type\":\"e\xff\"}\n",
		  "r.jsonl:2:" },
		{ "not an object", "{\"type\":\"header\"}\n[1]\n",
		  "r.jsonl:2: not a ppwatch record" },
		{ "no header", "{\"type\":\"end\"}\n", "no header record" },
		{ "nested too deep",
		  "{\"type\":\"header\",\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}\n",
		  "r.jsonl:1: nested deeper" },
		{ "truncated", "{\"type\":\"header\"", "r.jsonl:1:" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		recs = read_str(bad[i].text, &diag);
		CHECK(recs == NULL, "%s: accepted", bad[i].what);
		CHECK(strstr(diag, bad[i].diag) != NULL, "%s: '%s'", bad[i].what, diag);
		CHECK(!strchr(diag, '\xff'), "%s: the complaint is escaped", bad[i].what);
		json_decref(recs);
		free(diag);
	}
}

/* every pool and every event: a zombie for long keeps its freed event */
static void test_postmortem_no_limits(void)
{
	char *text = NULL, *diag;
	const json_t *pools, *p, *tl;
	json_t *recs, *rep;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "{\"type\":\"header\",\"time\":0,\"stall_after_s\":60}\n");
	for (i = 0; i < 300; i++)
		fprintf(f,
			"{\"type\":\"event\",\"event\":{\"time\":1,\"event\":\"destroy\","
			"\"addr\":\"0x%zx\",\"gen\":1,\"id\":%zu,\"inflight\":1}}\n",
			i, i + 1);
	/* pool 1: a retry a second for 700 s, then freed */
	for (i = 1; i <= 700; i++)
		fprintf(f,
			"{\"type\":\"event\",\"event\":{\"time\":%zu,\"event\":\"retry\","
			"\"retry\":%zu,\"addr\":\"0x0\",\"gen\":1,\"id\":1,\"inflight\":1}}\n",
			i + 1, i);
	fprintf(f, "{\"type\":\"event\",\"event\":{\"time\":702,\"event\":\"freed\","
		   "\"addr\":\"0x0\",\"gen\":1,\"id\":1,\"inflight\":0}}\n");
	fprintf(f, "{\"type\":\"snapshot\",\"time\":703,\"pools\":[");
	for (i = 0; i < 300; i++)
		fprintf(f,
			"%s{\"id\":%zu,\"addr\":\"0x%zx\",\"gen\":1,\"state\":\"zombie\","
			"\"inflight\":1,\"detach_age_s\":702}",
			i ? "," : "", i + 1, i);
	fprintf(f, "]}\n");
	fclose(f);
	recs = read_str(text, &diag);
	CHECK(recs != NULL, "read: %s", diag);
	rep = postmortem_build(recs, "many");
	pools = json_object_get(rep, "pools");
	CHECK_INT(json_array_size(pools), 300); /* was cut at 256 */
	p = json_array_get(pools, 0);
	tl = json_object_get(p, "timeline");
	CHECK_NEAR(rec_num(p, "retries", 0), 700, 0); /* events were cut at 512 */
	CHECK_STR(rec_str(json_array_get(tl, json_array_size(tl) - 1), "event", ""), "freed");
	CHECK_STR(rec_str(json_array_get(pools, 299), "addr", ""), "0x12b");
	json_decref(rep);
	json_decref(recs);
	free(diag);
	free(text);
}

/* a recording is anyone's: odd numbers and strings come out well-formed in every format */
static void test_postmortem_odd_values(void)
{
	static const char odd[] =
		"{\"type\":\"header\",\"time\":1e300,\"stall_after_s\":-1e300}\n"
		"{\"type\":\"event\",\"event\":{\"time\":-5.5,\"event\":\"retry\",\"retry\":1e300,"
		"\"addr\":\"0x1\",\"gen\":-1e300,\"inflight\":1e300}}\n"
		"{\"type\":\"event\",\"event\":{\"time\":1e300,\"event\":\"stalled\\u001b[2J\","
		"\"addr\":\"0x1\",\"gen\":-1e300,\"detail\":\"a\\u0000b\"}}\n"
		"{\"type\":\"snapshot\",\"time\":1e300,\"pools\":[{\"id\":1e300,\"addr\":\"0x1\","
		"\"gen\":-1e300,\"device\":\"\\u001b]0;pwn\\u0007\\ud83d\\udc27\\u0085\","
		"\"state\":\"zombie\",\"inflight\":-1e300,\"detach_age_s\":1e300,"
		"\"inflight_bytes\":1.7976931348623157e308}]}\n";
	json_t *recs, *rep, *back;
	char *buf, *diag;
	yaml_parser_t yp;
	yaml_document_t doc;
	struct json j;

	recs = read_str(odd, &diag);
	free(diag);
	/* "a\u0000b": jansson refuses NUL in strings */
	CHECK(recs == NULL, "a NUL in a string is refused");

	/* the same without the NUL */
	char *fixed = strdup(odd), *nul = strstr(fixed, "a\\u0000b");

	memcpy(nul, "a\\u0001b", 8);
	recs = read_str(fixed, &diag);
	CHECK(recs != NULL, "read: %s", diag);
	free(diag);
	rep = postmortem_build(recs, "odd\n\xc3\xa9");
	CHECK(rep != NULL, "report");

	CAPTURE(buf, f, postmortem_text(f, rep));
	CHECK(!strstr(buf, "-2147483648"), "no garbage times: %s", buf);
	CHECK(strstr(buf, "\\x1b]0;pwn\\x07\xf0\x9f\x90\xa7\\xc2\\x85") != NULL, "escaped: %s",
	      buf);
	CHECK(!strchr(buf, '\x1b') && !strchr(buf, '\x07'), "no control characters");
	free(buf);

	CAPTURE(buf, f, {
		json_init(&j, f, false);
		postmortem_json(&j, rep);
		json_end(&j);
	});
	back = json_loads(buf, 0, NULL);
	CHECK(back != NULL, "the JSON reads back: %s", buf);
	json_decref(back);
	free(buf);

	CAPTURE(buf, f, CHECK_INT(postmortem_yaml(f, rep), 0));
	CHECK(yaml_parser_initialize(&yp), "parser");
	yaml_parser_set_input_string(&yp, (const unsigned char *)buf, strlen(buf));
	CHECK(yaml_parser_load(&yp, &doc) && yaml_document_get_root_node(&doc),
	      "the YAML reads back: %s", buf);
	yaml_document_delete(&doc);
	yaml_parser_delete(&yp);
	/* libyaml writes characters past the BMP as \U escapes: the same text read back */
	CHECK(strstr(buf, "\"\\\\x1b]0;pwn\\\\x07\\U0001F427\\\\xc2\\\\x85\"") != NULL,
	      "YAML escaped the same way: %s", buf);
	free(buf);
	json_decref(rep);
	json_decref(recs);
	free(fixed);
}

int main(void)
{
	TEST(test_postmortem);
	TEST(test_rec_reader);
	TEST(test_postmortem_no_limits);
	TEST(test_postmortem_odd_values);
	return unit_done();
}
