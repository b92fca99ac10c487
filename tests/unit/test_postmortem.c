// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Recordings read back (jansson), and the post-mortem report in text, JSON and YAML. */
#include <errno.h>
#include <unistd.h>

#include <yaml.h>

#include "unit.h"

#include "lib/escape.h"
#include "lib/util.h"
#include "model/postmortem.h"
#include "model/recording.h"
#include "output/postmortem_fmt.h"

/* every record of a reader, as an array; *summary: what it says it read */
static json_t *read_all(struct recording *r, json_t **summary)
{
	json_t *recs = json_array(), *rec;
	int err;

	while ((err = recording_next(r, &rec)) > 0)
		json_array_append_new(recs, rec);
	CHECK(err == 0, "recording_next: %d", err);
	if (summary)
		*summary = recording_summary(r);
	return recs;
}

/* the records of a string (NUL bytes allowed: len), and the reader's summary */
static json_t *read_mem(const char *text, size_t len, json_t **summary)
{
	FILE *f = fmemopen((void *)text, len ? len : 1, "r");
	struct recording r;
	json_t *recs;

	if (!len)
		fgetc(f); /* fmemopen cannot open nothing */
	CHECK(!recording_open_stream(&r, f, "r.jsonl"), "open");
	recs = read_all(&r, summary);
	recording_close(&r);
	fclose(f);
	return recs;
}

static json_t *read_str(const char *text, json_t **summary)
{
	return read_mem(text, strlen(text), summary);
}

/*
 * The report of a recording in a string, the way 'ppwatch postmortem FILE'
 * makes it: the reader's records into pm_read(), the reader's summary as
 * the report's input.
 */
static json_t *report_mem(const char *text, size_t len, const char *source)
{
	FILE *f = fmemopen((void *)text, len ? len : 1, "r");
	json_t *rep = NULL, *input = NULL;
	struct recording r;
	struct pm *a = pm_new();

	if (!len)
		fgetc(f);
	CHECK(a && !recording_open_stream(&r, f, source), "open");
	CHECK_INT(pm_read(a, &r), 0);
	input = recording_summary(&r);
	CHECK(input != NULL, "summary");
	rep = pm_report(a, source, input);
	json_decref(input);
	recording_close(&r);
	pm_free(a);
	fclose(f);
	return rep;
}

static json_t *report_str(const char *text, const char *source)
{
	return report_mem(text, strlen(text), source);
}

/* the summary of the only file */
static const json_t *file0(const json_t *summary)
{
	return json_array_get(json_object_get(summary, "files"), 0);
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

/* a YAML node as the JSON value it says: quoted scalars are strings, plain ones YAML's core schema */
static json_t *yaml_to_json(yaml_document_t *doc, yaml_node_t *n)
{
	yaml_node_pair_t *pair;
	yaml_node_item_t *item;
	json_t *v, *k;
	const char *s;

	switch (n->type) {
	case YAML_SCALAR_NODE:
		s = (const char *)n->data.scalar.value;
		if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			return json_string(s);
		if (!strcmp(s, "null") || !strcmp(s, "~") || !*s)
			return json_null();
		if (!strcmp(s, "true") || !strcmp(s, "false"))
			return json_boolean(!strcmp(s, "true"));
		return json_loads(s, JSON_DECODE_ANY, NULL) ?: json_string(s);
	case YAML_SEQUENCE_NODE:
		v = json_array();
		for (item = n->data.sequence.items.start; item < n->data.sequence.items.top; item++)
			json_array_append_new(v, yaml_to_json(doc,
							      yaml_document_get_node(doc, *item)));
		return v;
	case YAML_MAPPING_NODE:
		v = json_object();
		for (pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; pair++) {
			k = yaml_to_json(doc, yaml_document_get_node(doc, pair->key));
			json_object_set_new(v, json_string_value(k) ?: "(not a string)",
					    yaml_to_json(doc,
							 yaml_document_get_node(doc, pair->value)));
			json_decref(k);
		}
		return v;
	default:
		return NULL;
	}
}

/* YAML text as JSON values, or NULL (a check failed) */
static json_t *yaml_load(const char *buf)
{
	yaml_parser_t yp;
	yaml_document_t doc;
	json_t *v = NULL;

	CHECK(yaml_parser_initialize(&yp), "parser");
	yaml_parser_set_input_string(&yp, (const unsigned char *)buf, strlen(buf));
	if (yaml_parser_load(&yp, &doc) && yaml_document_get_root_node(&doc)) {
		v = yaml_to_json(&doc, yaml_document_get_root_node(&doc));
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&yp);
	CHECK(v != NULL, "the YAML does not load: %s", buf);
	return v;
}

/*
 * The recording's pool in the report, each value from the recording above
 * (not from a copy of the report's own output); the JSON and the YAML say
 * the same tree.
 */
static void test_postmortem(void)
{
	json_t *recs, *rep, *back;
	const json_t *pool;
	char *buf;
	struct json j;

	recs = read_str(recording, NULL);
	CHECK_INT(json_array_size(recs), 10);
	json_decref(recs);
	rep = report_str(recording, "test");
	CHECK(rep != NULL, "report");
	CHECK_JSON(rep, "source=\"test\" time=1100 hostname=\"h\" kernel/release=\"6.18\" "
			"kernel/unmap_regime=\"dma_mapped-xarray\" stall_after_s=60 lost_records=0 "
			"input/files/0/name=\"test\" input/files/0/records=10");
	/* the time is the last record's; not the live pool */
	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 1);
	pool = json_array_get(json_object_get(rep, "pools"), 0);
	/* what the recording says of pool 9; ifindex it does not say */
	CHECK_JSON(pool, "id=9 addr=\"0x1000\" gen=3 device=\"eth1\" netns=4026531840 ifindex=null "
			 "state=\"zombie\" inflight=480 inflight_bytes=1966080 detach_age_s=90 "
			 "dma/state=\"unmapped\" dma/unmapped_at_destroy=500 dma/still_mapped=0 "
			 "stalled=true destroyed_at=1010 last_retry_time=1099");
	/* retries: the last retry's number (89), not the 2 records of them */
	CHECK_JSON(pool, "retries=89");
	/*
	 * The timeline: new, destroy, the retries folded into one line (the first
	 * one's time, the last one's inflight), stalled as noticed, within a
	 * second of destroy + 60 s.
	 */
	CHECK_INT(json_array_size(json_object_get(pool, "timeline")), 4);
	CHECK_JSON(pool,
		   "timeline/0/event=\"new\" timeline/0/time=1000.5 timeline/0/inflight=620 "
		   "timeline/0/detail=\"first seen\" timeline/1/event=\"destroy\" "
		   "timeline/1/time=1010 timeline/1/inflight=500 timeline/2/event=\"retry\" "
		   "timeline/2/time=1011 timeline/2/inflight=480 timeline/3/event=\"stalled\" "
		   "timeline/3/time=1070.2");
	CHECK(strstr(json_string_value(json_at(pool, "timeline/2/detail", 17)) ?: "",
		     "2 retries seen, up to retry 89") != NULL,
	      "two retries seen");
	CHECK_JSON(pool,
		   "holders/time=1100 holders/inflight=480 holders/holders/0/pages=480 "
		   "holders/holders/0/kind=\"socket\" "
		   "holders/holders/0/holder=\"tcp 192.0.2.2:80 <- 198.51.100.7:4000 ino 77 pid 5 "
		   "nginx fd 9\" oldest_pages/0/netmem=\"0xffffea0000001000\" "
		   "oldest_pages/0/age_s=95 release_stacks=[]");
	/* inflight over time: each change the records show, at its time */
	CHECK_JSON(pool, "inflight_over_time=[[1000.5,620],[1010,500],[1099,480]]");

	CAPTURE(buf, f, postmortem_text(f, rep));
	/* times are local: compare what does not depend on the time zone */
	CHECK(strstr(buf, "pool 9 eth1 (zombie, netns 4026531840)  STALLED") != NULL, "%s", buf);
	CHECK(strstr(buf, "480 pages  tcp 192.0.2.2:80 <- 198.51.100.7:4000") != NULL, "holders");
	CHECK(strstr(buf, "2 retries seen, up to retry 89") != NULL, "two retries were seen");
	free(buf);
	/* -j and --yaml: the report's tree, each value as it is */
	CAPTURE(buf, f, {
		json_init(&j, f, true);
		postmortem_json(&j, rep);
		json_end(&j);
	});
	back = json_loads(buf, 0, NULL);
	CHECK(back && json_same(back, rep), "-j is not the report: %s", buf);
	json_decref(back);
	free(buf);
	CAPTURE(buf, f, CHECK_INT(postmortem_yaml(f, rep), 0));
	back = yaml_load(buf);
	CHECK(back && json_same(back, rep), "--yaml is not the report: %s", buf);
	json_decref(back);
	free(buf);
	json_decref(rep);
}

/* jansson: surrogate pairs, exact integers, one value per key */
static void test_recording(void)
{
	json_t *recs, *sum;

	recs = read_str("{\"type\":\"header\",\"s\":\"\\ud83d\\udc27\",\"n\":9007199254740993}\n",
			&sum);
	CHECK_STR(jstr(json_array_get(recs, 0), "s", ""), "\xf0\x9f\x90\xa7");
	CHECK(json_integer_value(json_object_get(json_array_get(recs, 0), "n")) ==
		      9007199254740993LL,
	      "integers stay integers");
	CHECK(json_is_true(json_object_get(file0(sum), "header")), "a header");
	json_decref(recs);
	json_decref(sum);
}

/* a line that is not a record is skipped and counted, the rest read */
static void test_recording_damage(void)
{
	static const struct {
		const char *what, *line, *why;
	} bad[] = {
		{ "duplicate key", "{\"type\":\"event\",\"type\":\"x\"}", "duplicate" },
		{ "not an object", "[1]", "not a ppwatch record" },
		{ "no type", "{\"a\":1}", "not a ppwatch record" },
		{ "nested too deep",
		  "{\"type\":\"event\",\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}",
		  "nested deeper" },
		{ "a NUL in a string", "{\"type\":\"event\",\"d\":\"a\\u0000b\"}", "NUL" },
		{ "garbage", "\x1b[2Jgarbage\xff", "column 1" },
		{ "NUL bytes", "\0\0\0\0\0\0\0\0", "column" },
	};
	char text[512];
	json_t *recs, *sum, *d;
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = snprintf(text, sizeof(text),
			       "{\"type\":\"header\"}\n%s\n{\"type\":\"end\"}\n", bad[i].line);
		if (strstr(bad[i].what, "NUL bytes")) {
			/* snprintf stops at the NULs: lay the line out by hand */
			len = snprintf(text, sizeof(text), "{\"type\":\"header\"}\n");
			memset(text + len, 0, 8);
			len += 8;
			len += snprintf(text + len, sizeof(text) - len, "\n{\"type\":\"end\"}\n");
		}
		recs = read_mem(text, len, &sum);
		CHECK_INT(json_array_size(recs), 2);
		CHECK_STR(jstr(json_array_get(recs, 1), "type", ""), "end");
		CHECK_INT(jnum(sum, "damaged_lines", 0), 1);
		d = json_array_get(json_object_get(file0(sum), "damaged"), 0);
		CHECK_INT(jnum(d, "line", 0), 2);
		CHECK_INT(jnum(d, "byte", 0), 18);
		CHECK(strstr(jstr(d, "why", ""), bad[i].why) != NULL, "%s: '%s'", bad[i].what,
		      jstr(d, "why", ""));
		CHECK(esc_clean(jstr(d, "why", ""), strlen(jstr(d, "why", ""))),
		      "%s: the reason is escaped", bad[i].what);
		CHECK(json_is_null(json_object_get(file0(sum), "cut")), "%s: not cut", bad[i].what);
		json_decref(recs);
		json_decref(sum);
	}

	/* raw bytes that are not UTF-8, and raw control characters, inside a string: read, escaped */
	recs = read_str(
		"{\"type\":\"header\"}\n{\"type\":\"snapshot\",\"d\":\"e\xfft\x01\xc3\xa9\\\"\xe2\x82\"}\n",
		&sum);
	CHECK_INT(json_array_size(recs), 2);
	CHECK_STR(jstr(json_array_get(recs, 1), "d", ""), "e\\xfft\\x01\xc3\xa9\"\\xe2\\x82");
	CHECK_INT(jnum(file0(sum), "escaped_lines", 0), 1);
	CHECK_INT(jnum(sum, "damaged_lines", 0), 0);
	json_decref(recs);
	json_decref(sum);

	/* the same bytes outside a string leave the line not JSON */
	recs = read_str("{\"type\":\"header\"}\n{\"type\":\"end\"\xff}\n", &sum);
	CHECK_INT(json_array_size(recs), 1);
	CHECK_INT(jnum(sum, "damaged_lines", 0), 1);
	json_decref(recs);
	json_decref(sum);

	/* no header: read all the same, and said */
	recs = read_str("{\"type\":\"end\"}\n{\"type\":\"future\"}\n", &sum);
	CHECK_INT(json_array_size(recs), 2);
	CHECK(json_is_false(json_object_get(file0(sum), "header")), "no header");
	CHECK_INT(jnum(file0(sum), "unknown_records", 0), 1);
	json_decref(recs);
	json_decref(sum);

	/* a last line without its newline: complete, or cut */
	recs = read_str("{\"type\":\"header\"}\n{\"type\":\"end\"}", &sum);
	CHECK_INT(json_array_size(recs), 2);
	CHECK(json_is_null(json_object_get(file0(sum), "cut")), "complete");
	json_decref(recs);
	json_decref(sum);
	recs = read_str("{\"type\":\"header\"}\n{\"type\":\"end\",\"ti", &sum);
	CHECK_INT(json_array_size(recs), 1);
	CHECK_INT(jnum(json_object_get(file0(sum), "cut"), "at_byte", 0), 35);
	CHECK_INT(jnum(json_object_get(file0(sum), "cut"), "record_from_byte", 0), 18);
	CHECK_INT(jnum(json_object_get(file0(sum), "cut"), "line", 0), 2);
	CHECK_INT(jnum(sum, "cut_files", 0), 1);
	CHECK_INT(jnum(sum, "damaged_lines", 0), 0);
	json_decref(recs);
	json_decref(sum);
}

/* a line longer than any record: skipped without keeping it */
static void test_recording_long_line(void)
{
	size_t n = RECORDING_MAX_RECORD + 100, len;
	char *text = malloc(n + 64);
	json_t *recs, *sum;

	len = sprintf(text, "{\"type\":\"header\"}\n");
	memset(text + len, 'x', n);
	len += n;
	len += sprintf(text + len, "\n{\"type\":\"end\"}\n");
	recs = read_mem(text, len, &sum);
	CHECK_INT(json_array_size(recs), 2);
	CHECK_INT(jnum(sum, "damaged_lines", 0), 1);
	CHECK(strstr(jstr(json_array_get(json_object_get(file0(sum), "damaged"), 0), "why", ""),
		     "longer than") != NULL,
	      "says why");
	json_decref(recs);
	json_decref(sum);
	free(text);
}

/* every pool and every event: a zombie for long keeps its freed event */
static void test_postmortem_no_limits(void)
{
	char *text = NULL;
	const json_t *pools, *p, *tl;
	json_t *rep;
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
	rep = report_str(text, "many");
	pools = json_object_get(rep, "pools");
	CHECK_INT(json_array_size(pools), 300); /* was cut at 256 */
	p = json_array_get(pools, 0);
	tl = json_object_get(p, "timeline");
	CHECK_NEAR(jnum(p, "retries", 0), 700, 0); /* events were cut at 512 */
	CHECK_STR(jstr(json_array_get(tl, json_array_size(tl) - 1), "event", ""), "freed");
	CHECK_STR(jstr(json_array_get(pools, 299), "addr", ""), "0x12b");
	json_decref(rep);
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
	char *buf;
	yaml_parser_t yp;
	yaml_document_t doc;
	struct json j;

	json_t *sum;

	recs = read_str(odd, &sum);
	/* "a\u0000b": jansson refuses NUL in strings: that line is skipped */
	CHECK_INT(json_array_size(recs), 3);
	CHECK_INT(jnum(sum, "damaged_lines", 0), 1);
	json_decref(recs);
	json_decref(sum);

	/* the same without the NUL */
	char *fixed = strdup(odd), *nul = strstr(fixed, "a\\u0000b");

	memcpy(nul, "a\\u0001b", 8);
	rep = report_str(fixed, "odd\n\xc3\xa9");
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
	free(fixed);
}

/* the test corpus' lab recording: a zombie freed, another destroyed and freed */
static char *lab_recording(size_t *len)
{
	FILE *f = fopen("tests/fuzz/corpus/postmortem/lab-recording.jsonl", "r");
	char *text = NULL;
	size_t cap = 0;

	CHECK(f != NULL, "the lab recording");
	if (!f)
		return NULL;
	*len = getdelim(&text, &cap, '\0', f);
	fclose(f);
	return text;
}

/* where line n (0-based) of text starts */
static size_t line_start(const char *text, size_t len, size_t n)
{
	size_t off = 0;

	while (n-- && off < len)
		off = (const char *)memchr(text + off, '\n', len - off) - text + 1;
	return off;
}

/*
 * text cut to c bytes: the records before the cut are read, the cut is
 * said with where the file ends, and the report is built from what there
 * is. False (and a check failed) if not.
 */
static bool cut_reads(const char *text, size_t len, size_t c, size_t min_pools)
{
	bool at_boundary = text[c - 1] == '\n', before_nl = text[c] == '\n', ok;
	size_t whole = 0, k, nrec;
	json_t *recs, *sum, *cut, *rep;

	for (k = 0; k < c; k++)
		whole += text[k] == '\n';
	recs = read_mem(text, c, &sum);
	nrec = json_array_size(recs);
	cut = json_object_get(file0(sum), "cut");
	/* complete lines, and the last one when only its newline is missing */
	ok = nrec == whole + before_nl && json_is_null(cut) == (at_boundary || before_nl) &&
	     jnum(sum, "damaged_lines", -1) == 0 &&
	     (json_is_null(cut) ||
	      (jnum(cut, "at_byte", 0) == c &&
	       jnum(cut, "record_from_byte", 0) == line_start(text, len, whole)));
	CHECK(ok, "cut at %zu: %zu records (%zu whole lines), cut %s", c, nrec, whole,
	      json_is_null(cut) ? "no" : "yes");
	rep = report_mem(text, c, "cut");
	CHECK(rep && json_array_size(json_object_get(rep, "pools")) >= min_pools,
	      "cut at %zu: a report with %zu pools at least", c, min_pools);
	ok = ok && rep && json_array_size(json_object_get(rep, "pools")) >= min_pools;
	json_decref(rep);
	json_decref(recs);
	json_decref(sum);
	return ok;
}

/*
 * What a recorder killed while writing leaves: the lab recording cut at
 * every byte of its last record and at every 31st byte before it; its
 * header and last three records cut at every byte.
 */
static void test_recording_cuts(void)
{
	size_t len, lines, c, from, destroy, n = 0, bad = 0;
	char *text = lab_recording(&len), *tail;

	if (!text)
		return;
	for (lines = 0, c = 0; c < len; c++)
		lines += text[c] == '\n';
	from = line_start(text, len, lines - 1);
	destroy = line_start(text, len, 14); /* a snapshot shows both pools destroyed */
	for (c = 1; c < len && bad < 5; c += c < from ? 31 : 1, n++)
		bad += !cut_reads(text, len, c, c > destroy ? 2 : 0);
	tail = malloc(len + 1);
	from = line_start(text, len, lines - 3);
	c = line_start(text, len, 1);
	memcpy(tail, text, c);
	memcpy(tail + c, text + from, len - from);
	len = c + len - from;
	for (c = 1; c < len && bad < 5; c++, n++)
		bad += !cut_reads(tail, len, c, 0);
	CHECK(n > 3000, "%zu cuts", n);
	free(tail);
	free(text);
}

/* a rotated set: read oldest first, a file seen twice (a rotation meanwhile) once */
static void test_recording_rotated(void)
{
	char dir[] = "/tmp/ppwatch-unit.XXXXXX", path[64], name[80];
	static const char *const body[] = { "r.2", "r.1", "r.0" };
	struct recording r;
	json_t *recs, *sum;
	size_t i;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/rec", dir);
	for (i = 0; i < 3; i++) {
		if (i == 2)
			snprintf(name, sizeof(name), "%s", path);
		else
			snprintf(name, sizeof(name), "%s.%zu", path, 2 - i);
		f = fopen(name, "w");
		fprintf(f, "{\"type\":\"header\",\"time\":%zu}\n{\"type\":\"end\",\"n\":\"%s\"}\n",
			i, body[i]);
		fclose(f);
	}
	CHECK_INT(recording_open(&r, path), 0);
	recs = read_all(&r, &sum);
	recording_close(&r);
	CHECK_INT(json_array_size(recs), 6);
	for (i = 0; i < 3; i++)
		CHECK_STR(jstr(json_array_get(recs, 2 * i + 1), "n", ""), body[i]);
	CHECK_INT(json_array_size(json_object_get(sum, "files")), 3);
	CHECK(strstr(jstr(json_array_get(json_object_get(sum, "files"), 0), "name", ""), "rec.2") !=
		      NULL,
	      "the oldest first");
	json_decref(recs);
	json_decref(sum);

	/* rec.1 the same file as rec (hard link): read once */
	snprintf(name, sizeof(name), "%s.1", path);
	unlink(name);
	CHECK_INT(link(path, name), 0);
	CHECK_INT(recording_open(&r, path), 0);
	recs = read_all(&r, &sum);
	recording_close(&r);
	CHECK_INT(json_array_size(recs), 4);
	CHECK_INT(json_array_size(json_object_get(sum, "files")), 2);
	json_decref(recs);
	json_decref(sum);

	/* a set that is not there */
	snprintf(name, sizeof(name), "%s/nope", dir);
	CHECK_INT(recording_open(&r, name), -ENOENT);
	CHECK(r.failed && !strcmp(r.failed, name), "names the file");
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), i ? "%s.%zu" : "%s", path, i);
		unlink(name);
	}
	rmdir(dir);
}

/* memory bounded by what is reported: inflight changes and repeating events are capped, and counted */
static void test_postmortem_bounded(void)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	json_t *rep, *p;

	fprintf(f, "{\"type\":\"header\",\"time\":0}\n");
	for (i = 0; i < 2000; i++)
		fprintf(f,
			"{\"type\":\"snapshot\",\"time\":%zu,\"pools\":[{\"id\":1,\"addr\":\"0x1\","
			"\"gen\":1,\"state\":\"live\",\"inflight\":%zu}]}\n"
			"{\"type\":\"event\",\"event\":{\"time\":%zu,\"event\":\"nid\","
			"\"addr\":\"0x1\",\"gen\":1}}\n",
			i, i, i);
	fprintf(f, "{\"type\":\"event\",\"event\":{\"time\":3000,\"event\":\"destroy\","
		   "\"addr\":\"0x1\",\"gen\":1,\"inflight\":5}}\n"
		   "{\"type\":\"snapshot\",\"time\":3001,\"pools\":[{\"id\":1,\"addr\":\"0x1\","
		   "\"gen\":1,\"state\":\"zombie\",\"inflight\":5,\"detach_age_s\":1}]}\n");
	fclose(f);
	rep = report_str(text, "bounded");
	p = json_array_get(json_object_get(rep, "pools"), 0);
	CHECK_INT(json_array_size(json_object_get(p, "inflight_over_time")), PM_SERIES_MAX);
	CHECK_INT(jnum(p, "inflight_over_time_dropped", 0), 2001 - PM_SERIES_MAX);
	/* the last change is kept, and the oldest kept is the right one */
	CHECK_NEAR(json_number_value(
			   json_array_get(json_array_get(json_object_get(p, "inflight_over_time"),
							 PM_SERIES_MAX - 1),
					  1)),
		   5, 0);
	CHECK_NEAR(json_number_value(json_array_get(
			   json_array_get(json_object_get(p, "inflight_over_time"), 0), 0)),
		   2001 - PM_SERIES_MAX, 0);
	CHECK_INT(jnum(p, "events_not_listed", 0), 2000 - PM_MINOR_MAX);
	CHECK_INT(json_array_size(json_object_get(p, "timeline")), PM_MINOR_MAX + 1);
	json_decref(rep);
	free(text);
}

/* records a full disk kept out: the gap records say how many, the report says so */
static void test_postmortem_gaps(void)
{
	json_t *rep;
	char *buf;

	rep = report_str(
		"{\"type\":\"header\",\"time\":0}\n"
		"{\"type\":\"gap\",\"time\":5,\"lost_records\":7,\"why\":\"No space left on device\"}\n"
		"{\"type\":\"gap\",\"time\":9,\"lost_records\":2,\"why\":\"Disk quota exceeded\"}\n",
		"gaps");
	CHECK_NEAR(jnum(rep, "lost_records", 0), 9, 0);
	CAPTURE(buf, f, postmortem_text(f, rep));
	CHECK(strstr(buf, "the recorder could not write 9 records (Disk quota exceeded): the "
			  "recording has gaps\n") != NULL,
	      "%s", buf);
	free(buf);
	json_decref(rep);
}

/*
 * A dump at a level whose left-out pages took memory ppwatch reads with
 * them (Debian 12's makedumpfile on a 7.3 kernel: slab pages taken for
 * free ones): the level's line says so, and no pool is not "no pool"
 */
static void test_postmortem_vmcore_level(void)
{
	static const char *const want[] = {
		"makedumpfile dump level 31: zero, cache, private cache, user, free pages left "
		"out, and kernel memory ppwatch reads with them (below): the tool that saved it "
		"may not know this kernel's page classes",
		"0 pools in the kernel's page_pools xarray, 1 not in the dump (an xa_node of "
		"page_pools at 0xff40900141469da8 is not in the dump)",
		"no pool with pages out among those the dump has; 1 of the pool list not in it "
		"(above): the pools there are not known\n",
	};
	json_t *rep;
	char *buf;
	size_t i;

	rep = json_pack("{s:s,s:[],s:{s:s,s:s,s:i,s:i,s:i,s:s,s:s,s:[]}}", "source", "vmcore",
			"pools", "vmcore", "file", "d", "format", "diskdump", "dump_level", 31,
			"pools", 0, "unreadable", 1, "list", "page_pools xarray", "first_error",
			"an xa_node of page_pools at 0xff40900141469da8 is not in the dump",
			"not_read");
	CHECK(rep != NULL, "json_pack");
	CAPTURE(buf, f, postmortem_text(f, rep));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		CHECK(strstr(buf, want[i]) != NULL, "'%s' in:\n%s", want[i], buf);
	CHECK(!strstr(buf, "none of them memory ppwatch reads"), "%s", buf);
	free(buf);

	/* everything read: the level's pages are none of ppwatch's */
	json_object_set_new(json_object_get(rep, "vmcore"), "unreadable", json_integer(0));
	CAPTURE(buf, f, postmortem_text(f, rep));
	CHECK(strstr(buf, "free pages left out, none of them memory ppwatch reads\n") != NULL, "%s",
	      buf);
	CHECK(strstr(buf, "\nno pool with pages out\n") != NULL, "%s", buf);
	free(buf);
	json_decref(rep);
}

int main(void)
{
	TEST(test_postmortem);
	TEST(test_recording);
	TEST(test_recording_damage);
	TEST(test_recording_long_line);
	TEST(test_recording_cuts);
	TEST(test_recording_rotated);
	TEST(test_postmortem_bounded);
	TEST(test_postmortem_gaps);
	TEST(test_postmortem_no_limits);
	TEST(test_postmortem_odd_values);
	TEST(test_postmortem_vmcore_level);
	return unit_done();
}
