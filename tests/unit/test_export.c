// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch export without root or sockets: the metrics in both exposition
 * formats (golden files), content negotiation (hostile Accept values
 * too), 64-bit totals over the kernel's 32-bit counters, and the route a
 * request takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit.h"
#include "fixtures.h"

#include "lib/feed.h"
#include "lib/http.h"
#include "model/snapshot.h"
#include "output/prom.h"
#include "lib/util.h"

static struct pool_row row(__u32 id, const char *dev, enum row_state st, __s64 inflight)
{
	struct pool_row r = fixture_row(id, dev, st, inflight, 4.5);

	r.hold_cnt = 1000 + inflight;
	r.release_cnt = 1000;
	return r;
}

static struct pool_row rows[5];

static void make_snapshot(struct snapshot *s, bool items)
{
	rows[0] = row(7, "eth0", ROW_LIVE, 1200);
	rows[0].napi_id = 8193;
	snprintf(rows[0].driver, sizeof(rows[0].driver), "mlx5_core");
	rows[1] = row(9, "eth0", ROW_ZOMBIE, 500);
	rows[1].detach_age_s = 75.25;
	rows[1].retries = 75;
	rows[1].ledger_pages = 400;
	rows[1].before_start = 100;
	rows[1].oldest_age_s = 90;
	rows[1].oldest_at_least = true;
	/* releases a full log lost: 3 phantoms found of them, out of the 400 */
	rows[1].release_lost = 5;
	rows[1].phantoms = 3;
	rows[1].ties = 2;
	/* a name with every character a label value must escape */
	rows[2] = row(12, "we\"ird\\na\nme", ROW_LIVE, 0);
	/* and bytes that are not UTF-8 (Prometheus rejects a scrape with them) */
	snprintf(rows[2].driver, sizeof(rows[2].driver), "dr\xff\xc3v\x1b[0m");
	/* DMA: a live mapping pool, a zombie still mapped (a hazard), one that never maps */
	rows[0].dma = DMA_MAPPED;
	rows[0].dma_still_mapped = 1200;
	rows[0].dma_unmapped_at_destroy = -1;
	rows[1].dma = DMA_HAZARD;
	rows[1].dma_still_mapped = 500;
	rows[1].dma_unmapped_at_destroy = 0;
	rows[2].dma = DMA_NOT_MAPPED;
	rows[2].dma_still_mapped = 0;
	rows[2].dma_unmapped_at_destroy = -1;
	rows[3] = row(13, "vb", ROW_FREED, 0); /* freed: not exported */
	rows[4] = row(0, "old", ROW_LIVE, 3);  /* a kernel without pool ids */
	rows[4].has_record = false;
	if (items) {
		rows[0].item_stats = rows[1].item_stats = true;
		rows[1].dma_index_stats = true;
		rows[1].dma_index_failed = 4;
		rows[1].dma_map_stats = true;
		rows[1].dma_map_failed = 6;
		rows[0].item_fast_empty = 17;
		rows[0].item_slow_failed = 2;
		rows[0].item_blocks = true;
		rows[0].blocks_prealloc = 3;
		rows[0].blocks_dyn = 1;
		rows[0].blocks_dyn_alloc = 5;
		rows[0].blocks_dyn_free = 4;
		/* the block walk: it, not the series' counters, gives the block counts */
		rows[1].occ_known = true;
		rows[1].occ = (struct block_occupancy){ .items_per_block = 254,
							.prealloc = 4,
							.dynamic = 2,
							.used_prealloc = 1016,
							.used_dynamic = 484,
							.sparse = 1 };
		/* allocation and recycling: netlink's, and one read from the pool
		 * whose per-CPU recycle counters could not be read */
		rows[0].stats = (struct pp_stats){ .source = PPS_NETLINK,
						   .recycle_known = true,
						   .alloc = { 1000, 200, 0, 150, 50, 1 },
						   .recycle = { 700, 3, 300, 2, 9 } };
		rows[0].recycling_pct = pp_recycling_pct(&rows[0].stats);
		rows[2].stats = (struct pp_stats){ .source = PPS_BPF, .alloc = { 5, 1 } };
		rows[2].recycling_pct = pp_recycling_pct(&rows[2].stats);
	}
	memset(s, 0, sizeof(*s));
	s->rows = rows;
	s->n = 5;
	s->ts_ns = 5000ULL * 1000000000ULL;
	s->counters[PPW_CNT_HOLD] = 123456;
	s->counters[PPW_CNT_RELEASE] = 120000;
	s->counters[PPW_CNT_POOL_RELEASE] = 80;
	s->counters[PPW_CNT_LEDGER_FULL] = 57;
	s->pages_used = 1600;
	s->max_pages = 1 << 20;
}

static struct prom_self self_stats(void)
{
	struct prom_self self = {
		.version = "0.1.0",
		.attach = "tp_btf",
		.netlink = true,
		.interval_s = 1,
		.collect_duration_s = 0.00125,
		.collect_seconds_total = 3.5,
		.collects_total = 2800,
		.collect_errors_total = 1,
		.last_collect_time = 1700000000.5,
	};
	return self;
}

static const struct prom_serve serve_stats = {
	.scrape_duration_s = 0.0002,
	.http_code = { 200, 404, 408 },
	.http_count = { 90, 2, 1 },
	.cpu_seconds = 1.75,
	.rss_bytes = 12 << 20,
	.start_time = 1699997200,
};

/* the whole exposition, as the listener serves it: the sampler's part, then its own */
static void render_all(FILE *f, enum prom_format fmt, const struct snapshot *s,
		       const struct prom_totals *t, const struct prom_self *self)
{
	prom_render(f, fmt, s, t, self);
	prom_render_serve(f, fmt, &serve_stats);
}

static void test_render_golden(void)
{
	struct prom_totals t = { 0 };
	struct prom_self self = self_stats();
	struct snapshot s;
	char *buf;

	make_snapshot(&s, false);
	CHECK_INT(prom_totals_update(&t, &s), 0);
	CAPTURE(buf, f, render_all(f, PROM_TEXT, &s, &t, &self));
	check_golden("export.prom", buf);
	CHECK(!strstr(buf, "pool_id=\"13\""), "freed pool 13 left the output");
	CHECK(!strstr(buf, "item_"), "no item families without item stats");
	CHECK(strstr(buf, "device=\"we\\\"ird\\\\na\\\\x0ame\"") != NULL, "label value escaped");
	/* no raw byte of the name reaches the scrape: every line is UTF-8 */
	CHECK(strstr(buf, "driver=\"dr\\\\xff\\\\xc3v\\\\x1b[0m\"") != NULL, "bytes escaped");
	CHECK(!strchr(buf, '\xff') && !strchr(buf, '\x1b'), "no raw bytes");
	free(buf);
	make_snapshot(&s, true);
	CAPTURE(buf, f, render_all(f, PROM_OPENMETRICS, &s, &t, &self));
	check_golden("export.om", buf);
	CHECK(strstr(buf, "# TYPE ppwatch_pool_pages_held counter\n") != NULL,
	      "OpenMetrics counter family without _total");
	CHECK(strstr(buf, "# TYPE ppwatch_build info\n") != NULL, "info family");
	CHECK(strlen(buf) > 6 && !strcmp(buf + strlen(buf) - 6, "# EOF\n"), "ends with # EOF");
	free(buf);
	prom_totals_free(&t);
}

/* every family has HELP and TYPE once, before its first sample, and no sample strays */
static void test_render_structure(void)
{
	struct prom_totals t = { 0 };
	struct prom_self self = self_stats();
	const struct prom_family_help *h;
	char *buf, *line, *save, fam[128] = "";
	struct snapshot s;
	size_t n, i;
	int types = 0;

	make_snapshot(&s, true);
	prom_totals_update(&t, &s);
	CAPTURE(buf, f, render_all(f, PROM_TEXT, &s, &t, &self));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# TYPE ", 7)) {
			types++;
			sscanf(line + 7, "%127s", fam);
			continue;
		}
		if (line[0] == '#')
			continue;
		CHECK(!strncmp(line, fam, strlen(fam)) &&
			      (line[strlen(fam)] == '{' || line[strlen(fam)] == ' '),
		      "sample '%s' outside its family '%s'", line, fam);
	}
	n = prom_families(&h);
	CHECK_INT(types, n); /* with item stats and self stats, every family */
	for (i = 0; i < n; i++) {
		size_t l = strlen(h[i].name);

		CHECK(!strcmp(h[i].type, "counter") ==
			      (l > 6 && !strcmp(h[i].name + l - 6, "_total")),
		      "%s: counters and only counters end in _total", h[i].name);
		CHECK(!strncmp(h[i].name, "ppwatch_", 8) || !strncmp(h[i].name, "process_", 8),
		      "%s: namespace", h[i].name);
	}
	free(buf);
	prom_totals_free(&t);
}

static void test_totals_wrap(void)
{
	struct prom_totals t = { 0 };
	const struct prom_total *x;
	struct snapshot s;

	make_snapshot(&s, false);
	rows[0].hold_cnt = 0xfffffff0u;
	rows[0].release_cnt = 0xffffff00u;
	prom_totals_update(&t, &s);
	x = prom_totals_find(&t, &rows[0]);
	CHECK(x && x->hold == 0xfffffff0u, "first sight: the kernel's value");
	rows[0].hold_cnt = 0x10; /* wrapped: +0x20 */
	rows[0].release_cnt = 0xffffff10u;
	prom_totals_update(&t, &s);
	x = prom_totals_find(&t, &rows[0]);
	CHECK(x && x->hold == 0x100000010ULL, "hold widened past 2^32: %llx",
	      x ? (unsigned long long)x->hold : 0);
	CHECK(x && x->release == 0xffffff10u, "release");
	CHECK(prom_totals_find(&t, &rows[4]) == NULL, "netlink-only pools have no totals");
	/* a pool gone from the snapshot is forgotten; a new one at its address starts over */
	s.n = 1;
	rows[0].gen = 2;
	rows[0].hold_cnt = 5;
	prom_totals_update(&t, &s);
	CHECK_INT(t.n, 1);
	x = prom_totals_find(&t, &rows[0]);
	CHECK(x && x->hold == 5, "new generation starts from its own count");
	prom_totals_free(&t);
}

/* --series device: the informative pools and the top ones keep their series; devices sum */
static void test_series_device(void)
{
	struct prom_totals t = { 0 };
	struct prom_self self = self_stats();
	char *buf;
	struct snapshot s;

	make_snapshot(&s, false);
	self.per_device = true;
	self.top_pools = 1;
	rows[1].oldest_age_s = 4.5; /* a zombie keeps its series for being one */
	CHECK_INT(prom_totals_update(&t, &s), 0);
	CAPTURE(buf, f, render_all(f, PROM_TEXT, &s, &t, &self));
	CHECK(strstr(buf, "ppwatch_pool_zombie{pool_id=\"9\"") != NULL, "zombie shown");
	CHECK(strstr(buf, "ppwatch_pool_inflight_pages{pool_id=\"7\"") != NULL,
	      "the top pool by inflight shown");
	CHECK(!strstr(buf, "pool_id=\"12\""), "an idle live pool has no series of its own");
	CHECK(!strstr(buf, "pool_id=\"\""), "nor the next by inflight (top 1)");
	CHECK(strstr(buf, "\nppwatch_pools_exported 2\n") != NULL, "two pools exported");
	CHECK(strstr(buf, "ppwatch_device_inflight_pages{device=\"eth0\",ifindex=\"3\","
			  "netns=\"4026532246\",driver=\"mlx5_core\"} 1700\n") != NULL,
	      "eth0's two pools summed");
	CHECK(strstr(buf, "ppwatch_device_pools{device=\"eth0\",ifindex=\"3\",netns=\"4026532246\","
			  "driver=\"mlx5_core\",state=\"zombie\"} 1\n") != NULL,
	      "eth0's zombie counted");
	free(buf);
	/* the zombie is freed: eth0's counters keep what it held, and grow with pool 7 */
	rows[0].hold_cnt += 10;
	rows[1].state = ROW_FREED;
	CHECK_INT(prom_totals_update(&t, &s), 0);
	CAPTURE(buf, f, render_all(f, PROM_TEXT, &s, &t, &self));
	CHECK(strstr(buf, "ppwatch_device_pages_held_total{device=\"eth0\",ifindex=\"3\","
			  "netns=\"4026532246\",driver=\"mlx5_core\"} 3710\n") != NULL,
	      "device counter only goes up: 2200 + 1500 + 10");
	CHECK(strstr(buf, "ppwatch_device_inflight_pages{device=\"eth0\",ifindex=\"3\","
			  "netns=\"4026532246\",driver=\"mlx5_core\"} 1200\n") != NULL,
	      "gauges: the pools there now");
	free(buf);
	prom_totals_free(&t);
}

static void test_negotiate(void)
{
	CHECK_INT(prom_negotiate(NULL), PROM_TEXT);
	CHECK_INT(prom_negotiate(""), PROM_TEXT);
	CHECK_INT(prom_negotiate("*/*"), PROM_TEXT);
	CHECK_INT(prom_negotiate("text/plain;version=0.0.4"), PROM_TEXT);
	/* what Prometheus 2.42 sends */
	CHECK_INT(prom_negotiate("application/openmetrics-text;version=1.0.0,application/"
				 "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
				 "q=0.5,*/*;q=0.1"),
		  PROM_OPENMETRICS);
	CHECK_INT(prom_negotiate("application/openmetrics-text"), PROM_OPENMETRICS);
	CHECK_INT(prom_negotiate("application/openmetrics-text; version=1.0.0; q=0.2, "
				 "text/plain; q=0.9"),
		  PROM_TEXT);
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=0"), PROM_TEXT);
	CHECK_INT(prom_negotiate("application/openmetrics-text;version=0.0.1"), PROM_TEXT);
	CHECK_STR(prom_content_type(PROM_TEXT), "text/plain; version=0.0.4; charset=utf-8");
}

/* ---- HTTP: what libmicrohttpd hands over is answered by method and path ----------- */

static void test_route(void)
{
	struct http_route r;

	http_route("GET", "/metrics", &r);
	CHECK(r.code == 200 && r.page == HTTP_PAGE_METRICS, "GET /metrics");
	http_route("HEAD", "/", &r);
	CHECK(r.code == 200 && r.page == HTTP_PAGE_HOME, "HEAD /");
	http_route("GET", "/metrics/", &r);
	CHECK_INT(r.code, 404);
	http_route("GET", "", &r);
	CHECK_INT(r.code, 404);
	http_route("POST", "/metrics", &r);
	CHECK(r.code == 405 && !strcmp(r.allow, "GET, HEAD"), "POST: 405 with Allow");
	http_route("get", "/metrics", &r);
	CHECK_INT(r.code, 405); /* methods are case-sensitive */
	http_route(NULL, NULL, &r);
	CHECK_INT(r.code, 405);
	CHECK_STR(http_reason(408), "Request Timeout");
	CHECK_STR(http_reason(431), "Request Header Fields Too Large");
}

/* q is a qvalue (RFC 9110 12.4.2): anything else does not prefer a format */
static void test_negotiate_hostile(void)
{
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=1e300,text/plain;q=0.5"),
		  PROM_TEXT);
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=nan,text/plain;q=0.5"), PROM_TEXT);
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=inf"), PROM_TEXT);
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=0x1p0"), PROM_TEXT);
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=1.0001"), PROM_TEXT);
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=1.000"), PROM_OPENMETRICS);
	CHECK_INT(prom_negotiate("application/openmetrics-text;q=0.999, text/plain;q=0.998"),
		  PROM_OPENMETRICS);
	CHECK_INT(prom_negotiate(",,,;;;q=,application/openmetrics-text;q="), PROM_TEXT);
}

/* a range cut at the end of its buffer, right after "q=1" (found by fuzz_http) */
static void test_negotiate_cut(void)
{
	char accept[300];

	memset(accept, ' ', sizeof(accept));
	memcpy(accept, "text/plain", 10);
	memcpy(accept + 255 - 4, ";q=1", 4);
	accept[255] = 0;
	CHECK_INT(prom_negotiate(accept), PROM_TEXT);
	accept[255] = '0';
	accept[299] = 0;
	CHECK_INT(prom_negotiate(accept), PROM_TEXT);
}

static void test_families_documented(void)
{
	const struct prom_family_help *h;
	char *doc = unit_read_text("docs/ppwatch-export.rst"), pat[128];
	size_t n, i;

	CHECK(doc != NULL, "docs/ppwatch-export.rst missing");
	if (!doc)
		return;
	n = prom_families(&h);
	for (i = 0; i < n; i++) {
		snprintf(pat, sizeof(pat), "``%s``", h[i].name);
		CHECK(strstr(doc, pat) != NULL, "%s not in docs/ppwatch-export.rst", h[i].name);
	}
	free(doc);
}

/*
 * The sampler's feed to the listener (lib/feed.h) over a real socketpair:
 * frames whole, read in pieces, a frame not yet sent replaced by a newer
 * one, what is no frame refused, the end seen.
 */
static void test_feed(void)
{
	struct feed_head h = { .cpu_seconds = 1.5, .rss_bytes = 4096, .start_time = 7 };
	struct feed_out out = { 0 };
	struct feed_in in = { 0 };
	char big[300000];
	int sv[2], r;

	CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	CHECK_INT(feed_read(&in, sv[1]), 0); /* nothing yet */
	CHECK_STR(feed_text(&in), "");
	CHECK_INT(feed_queue(&out, &h, "a 1\n", "a 1\n# om\n"), 0);
	/* not sent yet: a newer one takes its place */
	CHECK_INT(feed_queue(&out, &h, "a 2\n", "a 2\n"), 0);
	CHECK_INT(feed_flush(&out, sv[0]), 0);
	CHECK(!feed_pending(&out), "all sent");
	CHECK_INT(feed_read(&in, sv[1]), 1);
	CHECK_STR(feed_text(&in), "a 2\n");
	CHECK_STR(feed_om(&in), "a 2\n");
	CHECK_INT(in.cur.seq, 2);
	CHECK_NEAR(in.cur.cpu_seconds, 1.5, 0);
	/* bigger than the socket takes at once: sent in pieces, read in pieces */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	CHECK_INT(feed_queue(&out, &h, big, ""), 0);
	CHECK_INT(feed_flush(&out, sv[0]), 0);
	CHECK(feed_pending(&out), "the rest waits");
	/* a newer one while that one is half out: it follows */
	CHECK_INT(feed_queue(&out, &h, "b\n", "b om\n"), 0);
	for (r = 0; feed_pending(&out) && r < 1000; r++) {
		CHECK(feed_read(&in, sv[1]) >= 0, "read");
		CHECK_INT(feed_flush(&out, sv[0]), 0);
	}
	CHECK(!feed_pending(&out), "sent in the end");
	while ((r = feed_read(&in, sv[1])) > 0)
		;
	CHECK_STR(feed_text(&in), "b\n");
	CHECK_STR(feed_om(&in), "b om\n");
	CHECK_INT(in.cur.seq, 4);
	/* what is no frame */
	CHECK_INT(write(sv[0], big, sizeof(struct feed_head)), (long)sizeof(struct feed_head));
	CHECK_INT(feed_read(&in, sv[1]), -EPROTO);
	feed_in_free(&in);
	/* the end */
	close(sv[0]);
	CHECK_INT(feed_read(&in, sv[1]), -EPIPE);
	feed_in_free(&in);
	feed_out_free(&out);
	close(sv[1]);
}

/* --series auto: one switch each way, however the count hovers about the threshold */
static void test_series_auto_hysteresis(void)
{
	static const size_t counts[] = { 10,  250, 256, 257, 255, 257, 240, 200,
					 193, 192, 200, 256, 257, 256, 192, 0 };
	bool per_device = false;
	int switches = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		bool now = prom_auto_per_device(per_device, counts[i]);

		switches += now != per_device;
		per_device = now;
		if (counts[i] == 257 && i == 3)
			CHECK(per_device, "above %d: per device", PROM_AUTO_POOLS);
		if (i > 3 && i < 9)
			CHECK(per_device, "%zu pools after going above: still per device",
			      counts[i]);
		if (i == 9)
			CHECK(!per_device, "%d: every pool again", PROM_AUTO_POOLS_BACK);
		if (i == 10 || i == 11)
			CHECK(!per_device, "%zu: not per device again before %d", counts[i],
			      PROM_AUTO_POOLS);
	}
	/* up at 257, down at 192, up at 257, down at 192 */
	CHECK_INT(switches, 4);
	CHECK(prom_auto_per_device(false, PROM_AUTO_POOLS + 1), "up");
	CHECK(!prom_auto_per_device(false, PROM_AUTO_POOLS), "not up at the threshold itself");
	CHECK(prom_auto_per_device(true, PROM_AUTO_POOLS_BACK + 1), "not down above the way back");
}

/* --device-include / --device-exclude: node_exporter's, anywhere in the name */
static void test_device_select(void)
{
	struct prom_devsel d = { 0 };
	struct snapshot s;
	char why[128];

	CHECK(!prom_devsel_any(&d), "none given");
	CHECK(prom_devsel_match(&d, "veth1"), "none given: every device");
	CHECK_INT(prom_devsel_set(&d, false, "^veth", why, sizeof(why)), 0);
	CHECK(!prom_devsel_match(&d, "veth1a2b"), "excluded");
	CHECK(prom_devsel_match(&d, "eth0"), "not excluded");
	CHECK(prom_devsel_match(&d, "myveth"), "anchored by the expression alone");
	CHECK_INT(prom_devsel_set(&d, true, "eth|vb", why, sizeof(why)), 0);
	CHECK(prom_devsel_match(&d, "eth0") && prom_devsel_match(&d, "vb"), "included");
	CHECK(!prom_devsel_match(&d, "lo"), "not included");
	CHECK(!prom_devsel_match(&d, "veth0"), "included but excluded");
	CHECK(!prom_devsel_match(&d, ""), "no device: not included");
	CHECK_INT(prom_devsel_set(&d, true, "(", why, sizeof(why)), -EINVAL);
	CHECK(why[0] != 0, "regcomp's reason");
	CHECK(!d.include_set, "a bad one is not kept");
	/* a snapshot's rows: the selected ones stay, in order */
	make_snapshot(&s, false);
	prom_devsel_free(&d);
	CHECK_INT(prom_devsel_set(&d, false, "^eth0$", why, sizeof(why)), 0);
	prom_devsel_filter(&d, &s);
	CHECK_INT(s.n, 3);
	CHECK_INT(s.rows[0].id, 12);
	prom_devsel_free(&d);
}

int main(void)
{
	TEST(test_feed);
	TEST(test_series_auto_hysteresis);
	TEST(test_device_select);
	TEST(test_render_golden);
	TEST(test_render_structure);
	TEST(test_totals_wrap);
	TEST(test_series_device);
	TEST(test_negotiate);
	TEST(test_negotiate_hostile);
	TEST(test_negotiate_cut);
	TEST(test_route);
	TEST(test_families_documented);
	return unit_done();
}
