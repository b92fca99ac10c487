// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Lifecycle timelines, the JSON reader, and the post-mortem report, without root. */
#include <errno.h>

#include "unit.h"

#include "lib/jsonp.h"
#include "model/lifecycle.h"
#include "model/postmortem.h"
#include "output/postmortem_fmt.h"

#define SEC 1000000000ULL

static struct ppw_event ev(__u32 type, __u64 t, __s32 inflight, __u64 cnt)
{
	struct ppw_event e = { .type = type, .ts_ns = t * SEC, .pool = 0x1000, .gen = 3, .id = 9,
			       .inflight = inflight, .cnt = cnt };

	e.rec.addr = 0x1000;
	e.rec.gen = 3;
	e.rec.id = 9;
	e.rec.detach_ns = type >= PPW_EV_DESTROY ? 100 * SEC : 0;
	return e;
}

static double age_from_100(const struct pool_life *p, void *arg)
{
	__u64 now = *(__u64 *)arg;

	return p->rec.detach_ns ? (now - p->rec.detach_ns) / 1e9 : NAN;
}

static void test_timeline(void)
{
	struct lifecycle lc;
	struct life_event out[4];
	struct pool_life *p;
	struct ppw_event e;
	__u64 now;
	int i;

	life_init(&lc, 60, 2);
	e = ev(PPW_EV_POOL_NEW, 90, 10, 0);
	CHECK_INT(life_on_bpf(&lc, &e, NAN, out), 1);
	CHECK_INT(out[0].kind, LE_NEW);
	e = ev(PPW_EV_DESTROY, 100, 500, 1);
	CHECK_INT(life_on_bpf(&lc, &e, 0, out), 1);
	CHECK_INT(out[0].kind, LE_DESTROY);
	for (i = 2; i <= 100; i++) {
		e = ev(PPW_EV_RETRY, 100 + i - 1, 500, i);
		life_on_bpf(&lc, &e, i - 1, out);
	}
	CHECK_INT(out[0].retry, 99);		/* destroy_cnt - 1 */
	p = life_find(&lc, 0x1000, 3);
	CHECK(p != NULL, "pool");
	CHECK_INT(p->retries, 99);
	CHECK_INT(p->nevents, LIFE_MAX_EVENTS);	/* bounded ... */
	CHECK_INT(p->dropped_events, 101 - LIFE_MAX_EVENTS);
	CHECK_INT(p->events[LIFE_MAX_EVENTS - 1].retry, 99);	/* ... keeping the latest */
	CHECK_INT(p->nsamples, 3);		/* 10, then a flat stretch of 500 */

	now = 150 * SEC;
	CHECK_INT(life_tick(&lc, now, age_from_100, &now, out, 4), 0);	/* 50 s: not yet */
	now = 161 * SEC;
	CHECK_INT(life_tick(&lc, now, age_from_100, &now, out, 4), 1);
	CHECK_INT(out[0].kind, LE_STALLED);
	CHECK_NEAR(out[0].detach_age_s, 61, 1e-9);
	CHECK_INT(life_tick(&lc, now, age_from_100, &now, out, 4), 0);	/* once */

	e = ev(PPW_EV_FREED, 170, 0, 71);
	CHECK_INT(life_on_bpf(&lc, &e, 70, out), 1);
	CHECK_INT(out[0].kind, LE_FREED);
	CHECK(p->freed_ns == 170 * SEC, "freed time");
	CHECK_INT(life_on_netlink(&lc, 7, 9, 171 * SEC, out), 1);
	CHECK_INT(out[0].kind, LE_NL_DEL);
	CHECK(out[0].pool == 0x1000, "netlink event matched by id");
	CHECK_STR(life_kind_name(LE_STALLED), "stalled");
	CHECK_INT(life_kind_parse("retry"), LE_RETRY);
	CHECK_INT(life_kind_parse("nope"), -EINVAL);
	life_free(&lc);
}

static void test_freed_history_bounded(void)
{
	struct lifecycle lc;
	struct life_event out;
	struct ppw_event e;
	int i;

	life_init(&lc, 60, 2);
	for (i = 0; i < 3; i++) {
		e = ev(PPW_EV_DESTROY, 10 + i, 1, 1);
		e.pool = e.rec.addr = 0x2000 + i;
		life_on_bpf(&lc, &e, 0, &out);
		e.type = PPW_EV_FREED;
		life_on_bpf(&lc, &e, 0, &out);
	}
	CHECK_INT(lc.n, 2);
	CHECK(life_find(&lc, 0x2000, 3) == NULL, "the oldest freed pool went first");
	life_free(&lc);
}

static void test_jsonp(void)
{
	char err[128];
	struct jv *v;

	v = jv_parse(" {\"a\": [1, -2.5e1, true, null, \"x\\ty\\u00e9\"], \"b\": {}} ", err,
		     sizeof(err));
	CHECK(v != NULL, "parse: %s", err);
	if (!v)
		return;
	CHECK_NEAR(jv_num(jv_at(jv_get(v, "a"), 1), 0), -25, 0);
	CHECK(jv_at(jv_get(v, "a"), 2)->b, "true");
	CHECK(jv_is_null(jv_at(jv_get(v, "a"), 3)), "null");
	CHECK_STR(jv_str(jv_at(jv_get(v, "a"), 4), ""), "x\ty\xc3\xa9");
	CHECK_INT(jv_get(v, "b")->t, JV_OBJ);
	CHECK(jv_get(v, "c") == NULL, "absent");
	jv_free(v);
	CHECK(jv_parse("{\"a\": }", err, sizeof(err)) == NULL, "error");
	CHECK_STR(err, "unexpected character at offset 6");
	CHECK(jv_parse("[1,2", err, sizeof(err)) == NULL, "unterminated");
	CHECK(jv_parse("{} x", err, sizeof(err)) == NULL, "trailing");
}

/* a recording: a pool destroyed 90 s before its end, held by a socket */
static const char *const recording[] = {
	"{\"type\":\"header\",\"time\":1000,\"format\":1,\"hostname\":\"h\",\"stall_after_s\":60,"
	"\"kernel\":{\"release\":\"6.18\",\"unmap_regime\":\"dma_mapped-xarray\"}}",
	"{\"type\":\"event\",\"event\":{\"time\":1000.5,\"event\":\"new\",\"id\":9,\"addr\":\"0x1000\","
	"\"gen\":3,\"inflight\":620,\"detail\":\"first seen\"}}",
	"{\"type\":\"event\",\"event\":{\"time\":1010,\"event\":\"destroy\",\"id\":9,\"addr\":\"0x1000\","
	"\"gen\":3,\"inflight\":500,\"detail\":\"page_pool_destroy: 500 pages out\"}}",
	"{\"type\":\"event\",\"event\":{\"time\":1011,\"event\":\"retry\",\"retry\":1,\"id\":9,"
	"\"addr\":\"0x1000\",\"gen\":3,\"inflight\":500}}",
	"{\"type\":\"event\",\"event\":{\"time\":1070.2,\"event\":\"stalled\",\"id\":9,\"addr\":\"0x1000\","
	"\"gen\":3,\"inflight\":500,\"detail\":\"60s after destroy\"}}",
	"{\"type\":\"event\",\"event\":{\"time\":1099,\"event\":\"retry\",\"retry\":89,\"id\":9,"
	"\"addr\":\"0x1000\",\"gen\":3,\"inflight\":480}}",
	"{\"type\":\"snapshot\",\"time\":1100,\"pools\":[{\"id\":9,\"addr\":\"0x1000\",\"gen\":3,"
	"\"device\":\"eth1\",\"netns\":4026531840,\"state\":\"zombie\",\"inflight\":480,"
	"\"inflight_bytes\":1966080,\"detach_age_s\":90,\"dma\":\"unmapped\","
	"\"dma_unmapped_at_destroy\":500,\"dma_still_mapped\":0},"
	"{\"id\":4,\"addr\":\"0x2000\",\"gen\":1,\"device\":\"eth0\",\"state\":\"live\",\"inflight\":64}]}",
	"{\"type\":\"holders\",\"time\":1100,\"pools\":[{\"id\":9,\"addr\":\"0x1000\",\"gen\":3,"
	"\"inflight\":480,\"unattributed\":0,\"holders\":[{\"pages\":480,\"kind\":\"socket\","
	"\"holder\":\"tcp 192.0.2.2:80 <- 198.51.100.7:4000 ino 77 pid 5 nginx fd 9\"}]}]}",
	"{\"type\":\"pages\",\"time\":1100,\"id\":9,\"addr\":\"0x1000\",\"gen\":3,\"pages\":"
	"[{\"netmem\":\"0xffffea0000001000\",\"age_s\":95,\"holder\":\"tcp ...\"}]}",
	"{\"type\":\"end\",\"time\":1100}",
};

static void test_postmortem(void)
{
	struct jv *recs[sizeof(recording) / sizeof(recording[0])], *rep;
	const struct jv *pool, *tl;
	size_t n = sizeof(recs) / sizeof(recs[0]), i;
	char err[128], *buf;
	struct json j;

	for (i = 0; i < n; i++) {
		recs[i] = jv_parse(recording[i], err, sizeof(err));
		CHECK(recs[i] != NULL, "record %zu: %s", i, err);
		if (!recs[i])
			return;
	}
	rep = postmortem_build(recs, n, "test");
	CHECK(rep != NULL, "report");
	CHECK_INT(jv_get(rep, "pools")->n, 1);		/* the live pool is not reported */
	pool = jv_at(jv_get(rep, "pools"), 0);
	CHECK_STR(jv_str(jv_get(pool, "device"), ""), "eth1");
	CHECK(jv_get(pool, "stalled")->b, "stalled");
	CHECK_NEAR(jv_num(jv_get(pool, "retries"), 0), 89, 0);
	tl = jv_get(pool, "timeline");
	CHECK_INT(tl->n, 4);	/* new, destroy, retries (folded), stalled */
	CHECK_STR(jv_str(jv_get(jv_at(tl, 2), "event"), ""), "retry");
	/* noticed within a second of destroy + 60: kept as noticed */
	CHECK_NEAR(jv_num(jv_get(jv_at(tl, 3), "time"), 0), 1070.2, 1e-9);
	CHECK_NEAR(jv_num(jv_get(jv_get(pool, "holders"), "inflight"), 0), 480, 0);
	CHECK_INT(jv_get(pool, "inflight_over_time")->n, 3);	/* 620, 500, 480 */

	CAPTURE(buf, f, postmortem_text(f, rep));
	/* times are local: compare what does not depend on the time zone */
	CHECK(strstr(buf, "pool 9 eth1 (zombie, netns 4026531840)  STALLED") != NULL, "%s", buf);
	CHECK(strstr(buf, "480 pages  tcp 192.0.2.2:80 <- 198.51.100.7:4000") != NULL, "holders");
	CHECK(strstr(buf, "88 retries seen, up to retry 89") == NULL, "two retries were seen");
	free(buf);
	CAPTURE(buf, f, {
		json_init(&j, f, true);
		jv_write(&j, rep);
		json_end(&j);
	});
	check_golden("postmortem.json", buf);
	free(buf);
	CAPTURE(buf, f, postmortem_yaml(f, rep));
	check_golden("postmortem.yaml", buf);
	free(buf);
	jv_free(rep);
	for (i = 0; i < n; i++)
		jv_free(recs[i]);
}

int main(void)
{
	TEST(test_timeline);
	TEST(test_freed_history_bounded);
	TEST(test_jsonp);
	TEST(test_postmortem);
	return unit_done();
}
