// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recording, writer to reader, without a kernel: every record type
 * built from the model's structs as the recorder builds it
 * (output/record_build.h), written as it writes it (in parts past the
 * record bound), read back (model/recording.h) and into a post-mortem
 * report (model/postmortem.h), each member checked against the struct
 * it came from.
 */
#include <errno.h>
#include <math.h>

#include "unit.h"
#include "lib/util.h"
#include "fixtures.h"

#include "model/contract.h"
#include "model/incidents.h"
#include "model/postmortem.h"
#include "model/recording.h"
#include "output/record_build.h"

/* ---- writing and reading back ------------------------------------------------------ */

struct sink {
	FILE *f;
	char *text;
	size_t len, lines, longest;
};

static void sink_open(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->text, &s->len);
}

static int to_sink(void *arg, const char *buf, size_t len)
{
	struct sink *s = arg;

	fwrite(buf, 1, len, s->f);
	s->lines++;
	s->longest = len > s->longest ? len : s->longest;
	return 0;
}

static void put_text(struct sink *s, char *text, size_t len)
{
	CHECK(text != NULL, "built");
	if (text)
		to_sink(s, text, len);
	free(text);
}

/* a record of many elements, each line at most limit bytes */
static void put_parts(struct sink *s, struct rparts *p, const char *type, uint64_t seq,
		      size_t limit, unsigned *parts, uint64_t *dropped)
{
	char *prefix = rbuild_prefix(type, 2000, seq);

	CHECK(!p->nomem && prefix, "built");
	CHECK_INT(rparts_emit(p, prefix, limit, to_sink, s, parts, dropped), 0);
	free(prefix);
	rparts_free(p);
}

/* every record of the text, read as postmortem reads a file */
static json_t *read_back(struct sink *s, json_t **report)
{
	json_t *recs = json_array(), *rec, *sum;
	struct recording r;
	struct pm *a;
	FILE *f;
	int err;

	fflush(s->f);
	if (getenv("RT_DUMP"))
		fwrite(s->text, 1, s->len, stderr);
	f = fmemopen(s->text, s->len, "r");
	CHECK(!recording_open_stream(&r, f, "rt.jsonl"), "open");
	while ((err = recording_next(&r, &rec)) > 0)
		json_array_append_new(recs, rec);
	CHECK_INT(err, 0);
	sum = recording_summary(&r);
	CHECK_INT(jnum(sum, "damaged_lines", -1), 0);
	recording_close(&r);
	fclose(f);
	if (report) {
		f = fmemopen(s->text, s->len, "r");
		CHECK(!recording_open_stream(&r, f, "rt.jsonl"), "open");
		a = pm_new();
		CHECK_INT(pm_read(a, &r), 0);
		*report = pm_report(a, "rt.jsonl", sum);
		pm_free(a);
		recording_close(&r);
		fclose(f);
	}
	json_decref(sum);
	return recs;
}

static void sink_close(struct sink *s)
{
	fclose(s->f);
	free(s->text);
}

/* the first record of type t */
static const json_t *first(const json_t *recs, const char *t)
{
	const json_t *x;
	size_t i;

	json_array_foreach(recs, i, x) if (!strcmp(jstr(x, "type", ""), t)) return x;
	return NULL;
}

#define HAS(o, k)    CHECK(json_object_get(o, k) != NULL, "%s present", k)
#define NONE(o, k)   CHECK(json_object_get(o, k) == NULL, "%s absent (unknown)", k)
#define NUM(o, k, v) CHECK_NEAR(jnum(o, k, NAN), (double)(v), 1e-6)
#define STR(o, k, v) CHECK_STR(jstr(o, k, "(absent)"), v)
#define BOOL_(o, k, v)                                            \
	CHECK(json_is_boolean(json_object_get(o, k)) &&           \
		      json_is_true(json_object_get(o, k)) == (v), \
	      "%s", k)

/* ---- fixtures ------------------------------------------------------------------------ */

/* a zombie with every optional fact known, a live pool with most unknown */
static void rows(struct pool_row *z, struct pool_row *live)
{
	*z = fixture_row(9, "eth1", ROW_ZOMBIE, 480, 95);
	z->netns_cookie = 77;
	z->napi_id = 8200;
	snprintf(z->driver, sizeof(z->driver), "mlx5_core");
	snprintf(z->devname, sizeof(z->devname), "0000:03:00.0");
	z->flags = PPW_PF_DMA_MAP;
	z->order = 1;
	z->pool_size = 1024;
	z->nid = 0;
	z->hold_cnt = 5000;
	z->release_cnt = 4520;
	z->destroy_cnt = 12;
	z->retries = 11;
	z->last_inflight = 481;
	z->before_start = 20;
	z->before_start_min = 10;
	z->untracked = 0;
	z->oldest_at_least = true;
	z->age_hist[3] = 480;
	z->seen_age_s = 400;
	z->detach_age_s = 90;
	z->dma = DMA_HAZARD;
	z->dma_still_mapped = 480;
	z->dma_unmapped_at_destroy = 20;
	z->dma_unmap_age_s = NAN;
	z->item_stats = true;
	z->item_fast_empty = 3;
	z->item_slow_failed = 4;
	z->item_blocks = true;
	z->blocks_prealloc = 2;
	z->blocks_dyn = 5;
	z->blocks_dyn_alloc = 9;
	z->blocks_dyn_free = 4;
	z->dma_index_stats = true;
	z->dma_index_failed = 6;
	z->unmap_seen = true;
	z->unmap_pages = 20;
	z->unmap_blocks = 1;
	z->unmap_took_ns = 12345;
	z->unmap_inflight = 500;
	z->occ_known = true;
	z->occ.items_per_block = 254;
	z->occ.prealloc = 2;
	z->occ.dynamic = 5;

	*live = fixture_row(4, "eth0", ROW_LIVE, 64, 1.5);
	live->ifindex = 0;
	live->netns_ino = 0;
	live->ledger_pages = -1; /* counters only */
	live->before_start = -1;
	live->untracked = -1;
	live->dma = DMA_NOT_MAPPED;
	live->dma_still_mapped = live->dma_unmapped_at_destroy = -1;
	live->dma_unmap_age_s = NAN;
}

static struct rbuild_header header = {
	.run = "0123456789abcdef",
	.hostname = "h\x01st",
	.boot_id = "b00t",
	.release = "6.18",
	.attach = "tp_btf",
	.unmap = UNMAP_XARRAY,
	.page_size = 4096,
	.netlink = true,
	.boot_to_real = 1000,
	.stall_after = 60,
	.snapshot_every = 15,
	.scan_every = 60,
	.stack_every = 64,
	.max_record = 15360,
};

/* ---- every record type -------------------------------------------------------------- */

static void check_pool(const json_t *p, const struct pool_row *r)
{
	char a[24];

	snprintf(a, sizeof(a), "0x%llx", (unsigned long long)r->addr);
	NUM(p, "id", r->id);
	STR(p, "pool", r->ident);
	STR(p, "addr", a);
	NUM(p, "gen", r->gen);
	STR(p, "device", r->device);
	STR(p, "state", row_state_name(r->state));
	NUM(p, "inflight", r->inflight);
	NUM(p, "inflight_bytes", r->inflight_bytes);
	STR(p, "dma", dma_state_name(r->dma));
	STR(p, "ages", r->ledger_pages < 0 ? "counters" : "exact");
	NUM(p, "oldest_age_s", r->oldest_age_s);
	NUM(p, "hold_cnt", r->hold_cnt);
	NUM(p, "release_cnt", r->release_cnt);
	NUM(p, "retries", r->retries);
}

static void test_every_record_type(void)
{
	struct pool_row z, live, rv[2];
	struct snapshot snap = { .rows = rv, .n = 2, .level = PPW_LEVEL_ALL, .max_pages = 1 << 20 };
	const json_t *x, *p, *e, *h;
	json_t *recs, *rep;
	struct sink s;
	struct rparts parts;
	struct event_row er = { .time = 1999.5, .kind = LE_DESTROY };
	struct rbuild_gap gap = { "holder scan", EIO, 1990, NAN, 1, 0, 0 };
	struct rbuild_end end = { "signal", 12, 3, 1, 0, 0, 7 };
	struct ppw_rec_sock sock = { .family = 2,
				     .protocol = 17,
				     .state = 7,
				     .lport = 5001,
				     .ino = 31473,
				     .netns_ino = 4026532247U,
				     .laddr = { 192, 0, 2, 2 } };
	struct ppw_rec_qdisc q = { .ifindex = 3,
				   .handle = 0x10000,
				   .parent = 0xffffffff,
				   .qlen = 7,
				   .backlog = 9000,
				   .skbs = 7,
				   .kind = "fq_codel",
				   .dev = "eth1" };
	struct holder hv[3] = {
		{ .kind = HK_SOCKET,
		  .sock = &sock,
		  .pages = 400,
		  .bytes = 1638400,
		  .oldest_age_s = 95,
		  .oldest_at_least = true,
		  .head_pages = 400,
		  .nowners = 1,
		  .owners = { { 5, 9, "nginx" } },
		  .desc = "udp 192.0.2.2:5001 ino 31473 pid 5",
		  .remedy = "read from it or close it" },
		{ .kind = HK_QDISC,
		  .qdisc = &q,
		  .pages = 70,
		  .bytes = 286720,
		  .oldest_age_s = NAN,
		  .desc = "qdisc fq_codel 1:0 eth1" },
		{ .kind = HK_DEFER,
		  .cpu = 1,
		  .pages = 10,
		  .bytes = 40960,
		  .oldest_age_s = NAN,
		  .desc = "cpu 1 defer list" },
	};
	struct pool_holders ph = {
		.row = &z, .inflight = 480, .page_bytes = 4096, .attributed = 480, .v = hv, .n = 3
	};
	struct scan_result scan = {
		.netns_scanned = 3, .layout_ok = 1, .elapsed_s = 0.01, .skb_defer_max = 64
	};
	struct holders_report hrep = { .pools = &ph, .n = 1, .scan = &scan, .sockets = 18 };
	struct page_row pg[2] = {
		{ .netmem = 0xffffea0000001000ULL,
		  .pfn = 64,
		  .age_s = 95,
		  .age_at_least = true,
		  .cpu = -1,
		  .stack_id = -1,
		  .where = "head",
		  .holder = "udp 192.0.2.2:5001" },
		{ .netmem = 0xffffea0000002000ULL,
		  .age_s = NAN,
		  .cpu = 1,
		  .stack_id = 3,
		  .in_ledger = true,
		  .stack = "napi_pp_put_page+0x1" },
	};
	struct stack_agg st = { .key = { .kind = PPW_STACK_ZOMBIE_RELEASE },
				.count = 5,
				.nframes = 2,
				.ips = { 0xffffffff81000000ULL, 0xffffffff81000010ULL } };
	struct ksyms k = { 0 };
	unsigned n;
	uint64_t dropped;
	size_t len;
	char *text;

	rows(&z, &live);
	rv[0] = z;
	rv[1] = live;
	st.key.pool = z.addr;
	st.key.gen = z.gen;
	er.row = z;
	snprintf(er.detail, sizeof(er.detail), "page_pool_destroy: 480 pages out");
	sink_open(&s);
	text = rbuild_header(&header, 1990, 1, &len);
	put_text(&s, text, len);
	text = rbuild_event(&er, 1999.6, 2, &len);
	put_text(&s, text, len);
	rbuild_snapshot(&parts, &snap);
	put_parts(&s, &parts, "snapshot", 3, RECORDING_MAX_RECORD, &n, &dropped);
	CHECK_INT(n, 1);
	rbuild_holders(&parts, &hrep);
	put_parts(&s, &parts, "holders", 4, RECORDING_MAX_RECORD, &n, &dropped);
	rbuild_pages(&parts, &z, pg, 2);
	put_parts(&s, &parts, "pages", 5, RECORDING_MAX_RECORD, &n, &dropped);
	rbuild_stacks(&parts, &k, &snap, &st, 1, 64);
	put_parts(&s, &parts, "stacks", 6, RECORDING_MAX_RECORD, &n, &dropped);
	text = rbuild_gap(&gap, 1995, 7, &len);
	put_text(&s, text, len);
	gap.until = 1996;
	gap.failures = 3;
	text = rbuild_gap(&gap, 1996, 8, &len);
	put_text(&s, text, len);
	text = rbuild_end(&end, 2001, 9, &len);
	put_text(&s, text, len);
	recs = read_back(&s, &rep);
	CHECK_INT(json_array_size(recs), 9);

	x = first(recs, "header");
	NUM(x, "format", RECORDING_FORMAT);
	NUM(x, "seq", 1);
	STR(x, "version", PPWATCH_VERSION);
	STR(x, "run", header.run);
	STR(x, "hostname", "h\\x01st"); /* anyone's text, escaped */
	STR(x, "boot_id", "b00t");
	NUM(x, "stall_after_s", 60);
	NUM(x, "max_record_bytes", 15360);
	STR(json_object_get(x, "kernel"), "release", "6.18");
	STR(json_object_get(x, "kernel"), "unmap_regime", "dma_mapped-xarray");
	NONE(x, "file");

	e = json_object_get(first(recs, "event"), "event");
	NUM(e, "time", 1999.5);
	STR(e, "event", "destroy");
	NUM(e, "id", 9);
	STR(e, "state", "zombie");
	NUM(e, "inflight", 480);
	NUM(e, "detach_age_s", 90);
	NUM(e, "dma_still_mapped", 480);
	NUM(e, "dma_index_failed", 6);
	STR(e, "detail", "page_pool_destroy: 480 pages out");
	NONE(e, "retry"); /* a retry's only */

	x = first(recs, "snapshot");
	NUM(x, "seq", 3);
	NONE(x, "part"); /* whole */
	STR(json_object_get(x, "ledger"), "level", "all");
	HAS(x, "losses");
	p = json_array_get(json_object_get(x, "pools"), 0);
	check_pool(p, &z);
	STR(p, "driver", "mlx5_core");
	STR(p, "dev_name", "0000:03:00.0");
	NUM(p, "napi_id", 8200);
	BOOL_(p, "dma_map", true);
	NUM(p, "last_release_inflight", 481);
	NUM(json_object_get(p, "page_ages"), "lt_10m", 480);
	NUM(json_object_get(p, "items"), "slow_failed", 4);
	NUM(json_object_get(p, "items"), "blocks_dyn_alloc", 9);
	NUM(json_object_get(p, "block_occupancy"), "items_per_block", 254);
	STR(json_object_get(p, "destroy_unmap"), "event", "page_pool_destroy_unmap");
	NUM(json_object_get(p, "destroy_unmap"), "duration_ns", 12345);
	NONE(p, "dma_unmap_age_s"); /* NAN: unknown, left out */
	NONE(p, "freed_age_s");
	p = json_array_get(json_object_get(x, "pools"), 1);
	check_pool(p, &live);
	NONE(p, "ifindex");
	NONE(p, "netns");
	NONE(p, "ledger_pages");
	NONE(p, "page_ages");
	NONE(p, "items");
	NONE(p, "dma_still_mapped");

	x = first(recs, "holders");
	NUM(json_object_get(x, "scan"), "netns", 3);
	STR(json_object_get(x, "scan"), "virt_to_page", "checked");
	p = json_array_get(json_object_get(x, "pools"), 0);
	STR(p, "pool", z.ident);
	NUM(p, "inflight", 480);
	NUM(p, "unattributed", 0);
	h = json_array_get(json_object_get(p, "holders"), 0);
	NUM(h, "pages", 400);
	STR(h, "kind", "socket");
	STR(h, "proto", "udp");
	STR(h, "local", "192.0.2.2:5001");
	NONE(h, "remote");
	NUM(h, "inode", 31473);
	STR(json_array_get(json_object_get(h, "owners"), 0), "comm", "nginx");
	STR(h, "remedy", "read from it or close it");
	h = json_array_get(json_object_get(p, "holders"), 1);
	STR(h, "kind", "qdisc");
	STR(json_object_get(h, "qdisc"), "kind", "fq_codel");
	STR(json_object_get(h, "qdisc"), "handle", "1:0");
	NONE(h, "oldest_age_s");
	h = json_array_get(json_object_get(p, "holders"), 2);
	NUM(h, "cpu", 1);

	x = first(recs, "pages");
	STR(x, "pool", z.ident);
	p = json_array_get(json_object_get(x, "pages"), 0);
	STR(p, "netmem", "0xffffea0000001000");
	NUM(p, "pfn", 64);
	BOOL_(p, "age_is_lower_bound", true);
	STR(p, "where", "head");
	NONE(p, "cpu");
	p = json_array_get(json_object_get(x, "pages"), 1);
	NONE(p, "age_s");
	NUM(p, "stack_id", 3);
	BOOL_(p, "in_ledger", true);

	x = first(recs, "stacks");
	NUM(json_object_get(x, "sampling"), "every", 64);
	p = json_array_get(json_object_get(x, "pools"), 0);
	h = json_array_get(json_object_get(p, "stacks"), 0);
	STR(h, "kind", "zombie_release");
	NUM(h, "estimated_events", 5); /* all of a zombie's are taken */
	CHECK_INT(json_array_size(json_object_get(h, "frames")), 2);
	CHECK_INT(json_array_size(json_object_get(json_array_get(json_object_get(x, "pools"), 1),
						  "stacks")),
		  0);

	x = first(recs, "gap");
	STR(x, "what", "holder scan");
	NUM(x, "errno", EIO);
	STR(x, "error", strerror(EIO));
	NONE(x, "until"); /* it went on */
	x = json_array_get(recs, 7);
	NUM(x, "until", 1996);
	NUM(x, "failures", 3);

	x = first(recs, "end");
	STR(x, "ended", "signal");
	NUM(x, "records", 12);
	NUM(x, "lost_records", 3);

	/* and postmortem reads them all */
	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 1);
	p = json_array_get(json_object_get(rep, "pools"), 0);
	STR(p, "state", "zombie");
	NUM(p, "inflight", 480);
	CHECK_INT(json_array_size(json_object_get(json_object_get(p, "holders"), "holders")), 3);
	CHECK_INT(json_array_size(json_object_get(p, "oldest_pages")), 2);
	CHECK_INT(json_array_size(json_object_get(p, "release_stacks")), 1);
	CHECK_INT(json_array_size(json_object_get(rep, "gaps")), 1); /* its beginning and end */
	NUM(json_array_get(json_object_get(rep, "gaps"), 0), "until", 1996);
	NUM(rep, "lost_records", 3);
	json_decref(rep);
	json_decref(recs);
	sink_close(&s);
}

/* ---- the record bound ----------------------------------------------------------------- */

/* a snapshot of many pools, a scan of many holders, many pages: parts within the bound */
static void test_parts_within_the_bound(void)
{
	enum { NPOOLS = 300, NHOLDERS = 2000, NPAGES = 500 };
	size_t limit = (16 << 10) - 1024, i, total = 0;
	struct pool_row *rv = calloc(NPOOLS, sizeof(*rv));
	struct holder *hv = calloc(NHOLDERS, sizeof(*hv));
	struct page_row *pg = calloc(NPAGES, sizeof(*pg));
	struct snapshot snap = { .rows = rv, .n = NPOOLS };
	struct pool_holders ph = { .v = hv, .n = NHOLDERS, .inflight = NHOLDERS };
	struct scan_result scan = { 0 };
	struct holders_report hrep = { .pools = &ph, .n = 1, .scan = &scan };
	const json_t *x, *p;
	json_t *recs, *rep;
	struct rparts parts;
	struct sink s;
	unsigned n;
	uint64_t dropped;

	for (i = 0; i < NPOOLS; i++)
		rv[i] = fixture_row(i + 1, "eth0", i ? ROW_LIVE : ROW_ZOMBIE, 64, 1);
	rv[0].detach_age_s = 5;
	ph.row = &rv[0];
	for (i = 0; i < NHOLDERS; i++) {
		hv[i] = (struct holder){ .kind = HK_UNATTRIBUTED, .pages = 1, .oldest_age_s = NAN };
		snprintf(hv[i].desc, sizeof(hv[i].desc), "holder %zu", i);
	}
	for (i = 0; i < NPAGES; i++)
		pg[i] = (struct page_row){ .netmem = 0xffffea0000000000ULL + i * 64,
					   .age_s = 1,
					   .cpu = -1,
					   .stack_id = -1 };
	sink_open(&s);
	rbuild_snapshot(&parts, &snap);
	put_parts(&s, &parts, "snapshot", 1, limit, &n, &dropped);
	CHECK(n > 1, "a snapshot in %u parts", n);
	CHECK_INT(dropped, 0);
	rbuild_holders(&parts, &hrep);
	put_parts(&s, &parts, "holders", 2, limit, &n, &dropped);
	CHECK(n > 1, "a scan in %u parts", n);
	rbuild_pages(&parts, &rv[0], pg, NPAGES);
	put_parts(&s, &parts, "pages", 3, limit, &n, &dropped);
	CHECK(n > 1, "pages in %u parts", n);
	CHECK(s.longest <= limit, "the longest line %zu <= %zu", s.longest, limit);
	recs = read_back(&s, &rep);
	json_array_foreach(recs, i, x)
	{
		CHECK(jnum(x, "parts", 0) > 1 && jnum(x, "part", 0) >= 1, "a part");
		if (!strcmp(jstr(x, "type", ""), "snapshot")) {
			total += json_array_size(json_object_get(x, "pools"));
			/* the ledger once, in the first part */
			CHECK((json_object_get(x, "ledger") != NULL) == (jnum(x, "part", 0) == 1),
			      "ledger in part 1 only");
		}
		if (!strcmp(jstr(x, "type", ""), "pages"))
			STR(x, "pool", rv[0].ident); /* every part names its pool */
	}
	CHECK_INT(total, NPOOLS);
	/* postmortem joins the parts: every holder, every page of the zombie */
	p = json_array_get(json_object_get(rep, "pools"), 0);
	CHECK_INT(json_array_size(json_object_get(json_object_get(p, "holders"), "holders")),
		  NHOLDERS);
	CHECK_INT(json_array_size(json_object_get(p, "oldest_pages")), NPAGES);
	json_decref(rep);
	json_decref(recs);
	sink_close(&s);

	/* an element that alone passes the bound: left out, and said */
	sink_open(&s);
	rbuild_holders(&parts, &hrep);
	put_parts(&s, &parts, "holders", 4, 200, &n, &dropped);
	CHECK(dropped > 0, "dropped %llu", (unsigned long long)dropped);
	recs = read_back(&s, NULL);
	json_array_foreach(recs, i, x) total += jnum(x, "elements_dropped", 0);
	CHECK(jnum(json_array_get(recs, 0), "elements_dropped", 0) > 0, "said in the record");
	json_decref(recs);
	sink_close(&s);
	free(rv);
	free(hv);
	free(pg);
}

/* ---- the incidents kept past rotation --------------------------------------------------- */

/* a line of a record: "{"type":T,"time":time,"seq":seq,...}\n" */
static size_t line(char *buf, size_t len, const char *type, double time, uint64_t seq,
		   const char *rest)
{
	return snprintf(buf, len, "{\"type\":\"%s\",\"time\":%g,\"seq\":%llu%s}\n", type, time,
			(unsigned long long)seq, rest);
}

/* within the budget: what a recorder before left goes first, then freed incidents' copies and
 * the incidents, then copies of the open ones */
static void test_incidents_budget(void)
{
	const char *hdr = "{\"type\":\"header\",\"time\":1,\"seq\":1,\"file\":\"incidents\"}\n";
	struct incidents x;
	struct incident *i, *j;
	char buf[4096], big[4000];
	size_t n, len;
	char *text;
	int k;

	inc_init(&x, 4000, 1);
	CHECK(!x.dirty, "nothing to write yet");
	n = line(buf, sizeof(buf), "header", 0, 1, ",\"run\":\"old\"");
	CHECK_INT(inc_before(&x, buf, n), 0);
	i = inc_get(&x, 0x1000, 1, true, 10);
	CHECK(i != NULL, "an incident");
	CHECK(inc_get(&x, 0x1000, 1, false, 11) == i, "the same one again");
	CHECK(inc_get(&x, 0x2000, 1, false, 11) == NULL, "none of another pool unless made");
	n = line(buf, sizeof(buf), "event", 10, 5, ",\"event\":{\"event\":\"destroy\"}");
	CHECK_INT(inc_keep(&x, i, IS_DESTROY, buf, n, 10, 5), 0);
	n = line(buf, sizeof(buf), "holders", 10.5, 6, ",\"pools\":[]");
	CHECK_INT(inc_keep(&x, i, IS_HOLDERS_FIRST, buf, n, 10.5, 6), 0);
	CHECK(inc_has(i, IS_HOLDERS_FIRST) && !inc_has(i, IS_HOLDERS_STALL), "slots");
	text = inc_render(&x, hdr, strlen(hdr), &len);
	CHECK(text && str_is_prefix("{\"type\":\"header\",\"time\":0,\"seq\":1,\"run\":\"old\"",
				    text),
	      "the old one first: %s", text ? text : "(null)");
	CHECK(text && strstr(text, hdr) && strstr(text, "destroy") < strstr(text, "holders"),
	      "then the header, the copies in time order");
	CHECK_INT(x.dropped, 0);
	free(text);
	/* a copy that leaves no room for it: what a recorder before left goes first */
	memset(big, 'x', sizeof(big));
	n = snprintf(buf, sizeof(buf),
		     "{\"type\":\"pages\",\"time\":12,\"seq\":7,\"x\":\"%.*s\"}\n", 3760, big);
	CHECK_INT(inc_keep(&x, i, IS_PAGES_FIRST, buf, n, 12, 7), 0);
	text = inc_render(&x, hdr, strlen(hdr), &len);
	CHECK(text && !strstr(text, "\"run\":\"old\"") && strstr(text, "\"seq\":7"), "trimmed");
	CHECK(len <= 4000, "%zu within 4000", len);
	free(text);
	/* a second incident freed, a third: freed ones past keep_closed go */
	j = inc_get(&x, 0x2000, 1, true, 20);
	n = line(buf, sizeof(buf), "event", 20, 9, ",\"event\":{\"event\":\"freed\"}");
	CHECK_INT(inc_keep(&x, j, IS_FREED, buf, n, 20, 9), 0);
	CHECK(j->freed, "freed");
	j = inc_get(&x, 0x3000, 1, true, 30);
	n = line(buf, sizeof(buf), "event", 30, 11, ",\"event\":{\"event\":\"freed\"}");
	CHECK_INT(inc_keep(&x, j, IS_FREED, buf, n, 30, 11), 0);
	CHECK_INT(x.n, 2); /* the open one and the last freed one */
	CHECK(inc_get(&x, 0x2000, 1, false, 31) == NULL, "the older freed one forgotten");
	/* too little room for every open incident: the oldest left out, counted */
	for (k = 0; k < 5; k++) {
		i = inc_get(&x, 0x10000 + k, 1, true, 40 + k);
		n = snprintf(buf, sizeof(buf),
			     "{\"type\":\"event\",\"time\":%d,\"seq\":%d,\"x\":\"%.*s\"}\n", 40 + k,
			     20 + k, 1500, big);
		CHECK_INT(inc_keep(&x, i, IS_DESTROY, buf, n, 40 + k, 20 + k), 0);
	}
	text = inc_render(&x, hdr, strlen(hdr), &len);
	CHECK(text && len <= 4000, "%zu within 4000", len);
	CHECK(x.dropped > 0, "left out: %llu", (unsigned long long)x.dropped);
	CHECK(text && strstr(text, "\"seq\":24"), "the newest open one kept");
	free(text);
	inc_free(&x);
	/* the one incident, freed, its pages past the budget: kept without them */
	inc_init(&x, 4000, 1);
	i = inc_get(&x, 0x4000, 1, true, 50);
	n = line(buf, sizeof(buf), "event", 50, 30, ",\"event\":{\"event\":\"destroy\"}");
	CHECK_INT(inc_keep(&x, i, IS_DESTROY, buf, n, 50, 30), 0);
	n = snprintf(buf, sizeof(buf),
		     "{\"type\":\"pages\",\"time\":51,\"seq\":31,\"x\":\"%.*s\"}\n", 3900, big);
	CHECK_INT(inc_keep(&x, i, IS_PAGES_FIRST, buf, n, 51, 31), 0);
	n = line(buf, sizeof(buf), "event", 52, 32, ",\"event\":{\"event\":\"freed\"}");
	CHECK_INT(inc_keep(&x, i, IS_FREED, buf, n, 52, 32), 0);
	text = inc_render(&x, hdr, strlen(hdr), &len);
	CHECK(text && len <= 4000, "%zu within 4000", len);
	CHECK_INT(x.dropped, 0);
	CHECK(text && strstr(text, "\"seq\":30") && strstr(text, "\"seq\":32") &&
		      !strstr(text, "\"seq\":31"),
	      "the destroy and the free kept, the pages left out: %s", text ? text : "(null)");
	free(text);
	inc_free(&x);
}

static bool alive_42(int pid)
{
	return pid == 42;
}

static bool none_alive(int pid)
{
	return false;
}

/* how the set at path's first run ended, read now on boot of host */
static const char *run_end(const char *path, const char *boot, const char *host, bool (*alive)(int))
{
	static char end[32];
	struct recording r;
	struct pm *a = pm_new();
	json_t *rep;

	CHECK_INT(recording_open(&r, path), 0);
	pm_context(a, 10000, boot, host, alive);
	CHECK_INT(pm_read(a, &r), 0);
	rep = pm_report(a, path, NULL);
	snprintf(end, sizeof(end), "%s",
		 jstr(json_array_get(json_object_get(rep, "runs"), 0), "end", "?"));
	json_decref(rep);
	pm_free(a);
	recording_close(&r);
	return end;
}

/* a set rotated past an incident, and FILE.incidents: postmortem reads both, once each */
static void test_incidents_read_with_the_set(void)
{
	char dir[] = "/tmp/ppwatch-rt.XXXXXX", path[128], name[160];
	const json_t *p;
	struct recording r;
	struct pm *a;
	json_t *rep, *sum;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/rec", dir);
	/* the incidents: the destroy, its scan naming the holder, the stall, a retry */
	snprintf(name, sizeof(name), "%s.incidents", path);
	f = fopen(name, "w");
	fputs("{\"type\":\"header\",\"time\":100,\"seq\":1,\"format\":2,\"run\":\"r1\","
	      "\"file\":\"incidents\",\"boot_id\":\"b\",\"hostname\":\"h\",\"pid\":42,"
	      "\"stall_after_s\":60}\n"
	      "{\"type\":\"event\",\"time\":110,\"seq\":5,\"event\":{\"time\":110,\"event\":"
	      "\"destroy\",\"pool\":\"9\",\"addr\":\"0x9\",\"gen\":1,\"inflight\":300}}\n"
	      "{\"type\":\"holders\",\"time\":111,\"seq\":6,\"pools\":[{\"pool\":\"9\",\"addr\":"
	      "\"0x9\",\"gen\":1,\"inflight\":300,\"holders\":[{\"pages\":300,\"holder\":\"udp pid "
	      "5 ppgen\"}]}]}\n"
	      "{\"type\":\"event\",\"time\":170,\"seq\":90,\"event\":{\"time\":170,\"event\":"
	      "\"stalled\",\"pool\":\"9\",\"addr\":\"0x9\",\"gen\":1,\"inflight\":300}}\n"
	      "{\"type\":\"event\",\"time\":500,\"seq\":800,\"event\":{\"time\":500,\"event\":"
	      "\"retry\",\"retry\":390,\"pool\":\"9\",\"addr\":\"0x9\",\"gen\":1,\"inflight\":300}}\n",
	      f);
	fclose(f);
	/*
	 * the set: FILE.1 gone, FILE missing (a crash between shift and create);
	 * FILE.2 begins after the scan and has the stall and the retry too
	 */
	snprintf(name, sizeof(name), "%s.2", path);
	f = fopen(name, "w");
	fputs("{\"type\":\"header\",\"time\":160,\"seq\":80,\"format\":2,\"run\":\"r1\","
	      "\"boot_id\":\"b\"}\n"
	      "{\"type\":\"event\",\"time\":170,\"seq\":90,\"event\":{\"time\":170,\"event\":"
	      "\"stalled\",\"pool\":\"9\",\"addr\":\"0x9\",\"gen\":1,\"inflight\":300}}\n"
	      "{\"type\":\"event\",\"time\":500,\"seq\":800,\"event\":{\"time\":500,\"event\":"
	      "\"retry\",\"retry\":390,\"pool\":\"9\",\"addr\":\"0x9\",\"gen\":1,\"inflight\":300}}\n"
	      "{\"type\":\"snapshot\",\"time\":601,\"seq\":901,\"pools\":[{\"pool\":\"9\","
	      "\"addr\":\"0x9\",\"gen\":1,\"state\":\"zombie\",\"inflight\":300,"
	      "\"detach_age_s\":491}]}\n",
	      f);
	fclose(f);
	snprintf(name, sizeof(name), "%s.1", path);
	f = fopen(name, "w");
	fputs("{\"type\":\"header\",\"time\":602,\"seq\":903,\"format\":2,\"run\":\"r1\"}\n", f);
	fclose(f);
	CHECK_INT(recording_open(&r, path), 0);
	a = pm_new();
	pm_context(a, 10000, "b", "h", none_alive);
	CHECK_INT(pm_read(a, &r), 0);
	sum = recording_summary(&r);
	CHECK(json_is_true(json_object_get(sum, "newest_missing")), "FILE missing, said");
	CHECK(json_is_true(json_object_get(json_array_get(json_object_get(sum, "files"), 0),
					   "incidents")),
	      "FILE.incidents read first");
	rep = pm_report(a, path, sum);
	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 1);
	p = json_array_get(json_object_get(rep, "pools"), 0);
	STR(p, "state", "zombie");
	STR(json_array_get(json_object_get(json_object_get(p, "holders"), "holders"), 0), "holder",
	    "udp pid 5 ppgen");
	NUM(p, "destroyed_at", 110);
	NUM(p, "retries", 390); /* the retry the incident kept, its number */
	/* destroy, stalled and the retries once each: the set's and the kept copies are one */
	CHECK_INT(json_array_size(json_object_get(p, "timeline")), 3);
	STR(json_array_get(json_object_get(rep, "runs"), 0), "end", "killed");
	CHECK(!json_is_true(json_object_get(json_array_get(json_object_get(rep, "runs"), 0),
					    "end_record")),
	      "no end record");
	json_decref(rep);
	json_decref(sum);
	pm_free(a);
	recording_close(&r);
	/* FILE.1 missing between FILE and FILE.2 (a crash between two renames): FILE.2 read still */
	snprintf(name, sizeof(name), "%s.1", path);
	CHECK_INT(rename(name, path), 0);
	CHECK_INT(recording_open(&r, path), 0);
	CHECK_INT(r.n, 3); /* FILE.incidents, FILE.2, FILE */
	recording_close(&r);
	snprintf(name, sizeof(name), "%s.1", path);
	CHECK_INT(rename(path, name), 0);
	/* the host booted since; its recorder still running; read on another host */
	CHECK_STR(run_end(path, "another boot", "h", none_alive), "rebooted");
	CHECK_STR(run_end(path, "b", "h", alive_42), "running");
	CHECK_STR(run_end(path, "b", "another host", alive_42), "no_end");
	snprintf(name, sizeof(name), "rm -rf '%s'", dir);
	CHECK(system(name) == 0, "clean");
}

/* a file of the set, or FILE.incidents, written whole */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL, "%s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#define SNAP(t, seq, infl)                                                                    \
	"{\"type\":\"snapshot\",\"time\":" #t ",\"seq\":" #seq ",\"pools\":[{\"pool\":\"9\"," \
	"\"addr\":\"0x9\",\"gen\":1,\"state\":\"zombie\",\"inflight\":" #infl "}]}\n"

/*
 * The set: FILE.incidents kept the pool's first snapshot after its
 * destroy (34.982, 750 pages) and the last (40.079, 0), the set (rotated
 * past the first) has 38.031 and 40.079. Read before: the copies, then
 * the set: "34.982 750, 40.079 0, 38.031 750, 40.079 0". Each record once
 * now, in time order, the copies the set still has left out; and a copy
 * from the recorder before this one (another run, another pool) in its
 * place, after its own header.
 */
static void test_incidents_in_time_order(void)
{
	char dir[] = "/tmp/ppwatch-rt.XXXXXX", path[128], cmd[160];
	static const double want_t[] = { 30.5, 34.982, 36, 38.031, 40.079, 40.5 };
	static const double want_seq[] = { 7, 10, 20, 30, 50, 60 };
	const json_t *p, *pt;
	double last = -1;
	struct recording r;
	size_t n = 0, i;
	json_t *rec, *rep;
	struct pm *a;
	int err;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/rec", dir);
	write_file(dir, "rec.incidents",
		   "{\"type\":\"header\",\"time\":20,\"seq\":1,\"format\":2,\"run\":\"r0\","
		   "\"file\":\"incidents\",\"boot_id\":\"b\"}\n"
		   "{\"type\":\"event\",\"time\":30.5,\"seq\":7,\"event\":{\"time\":30.5,"
		   "\"event\":\"destroy\",\"pool\":\"8\",\"addr\":\"0x8\",\"gen\":1,"
		   "\"inflight\":5}}\n"
		   "{\"type\":\"header\",\"time\":41,\"seq\":70,\"format\":2,\"run\":\"r1\","
		   "\"file\":\"incidents\",\"boot_id\":\"b\"}\n" SNAP(34.982, 10, 750)
			   SNAP(40.079, 50, 0) SNAP(40.079, 50, 0));
	write_file(dir, "rec.1",
		   "{\"type\":\"header\",\"time\":36,\"seq\":20,\"format\":2,\"run\":\"r1\","
		   "\"boot_id\":\"b\"}\n" SNAP(38.031, 30, 750) SNAP(40.079, 50, 0));
	write_file(dir, "rec",
		   "{\"type\":\"header\",\"time\":40.5,\"seq\":60,\"format\":2,\"run\":\"r1\","
		   "\"boot_id\":\"b\"}\n");
	CHECK_INT(recording_open(&r, path), 0);
	while ((err = recording_next(&r, &rec)) > 0) {
		double t = jnum(rec, "time", NAN);
		bool hdr = !strcmp(jstr(rec, "type", ""), "header");

		/* records in time order; a header also goes before a record of its run */
		if (hdr && !strcmp(jstr(rec, "run", ""), "r0"))
			CHECK(n == 0, "r0's header first");
		if (!hdr) {
			CHECK(t >= last, "in time order: %g after %g", t, last);
			last = t;
		}
		if (!hdr || jnum(rec, "seq", 0) == 20 || jnum(rec, "seq", 0) == 60) {
			CHECK(n < 6, "%zu records", n + 1);
			if (n < 6) {
				NUM(rec, "time", want_t[n]);
				NUM(rec, "seq", want_seq[n]);
				/* the copies: r0's destroy and the first snapshot */
				CHECK(recording_kept(&r) == (n <= 1), "record %zu kept: %d", n,
				      recording_kept(&r));
			}
			n++;
		}
		json_decref(rec);
	}
	CHECK_INT(err, 0);
	CHECK_INT(n, 6);
	recording_close(&r);

	CHECK_INT(recording_open(&r, path), 0);
	a = pm_new();
	pm_context(a, 10000, "b", "h", none_alive);
	CHECK_INT(pm_read(a, &r), 0);
	rep = pm_report(a, path, NULL);
	p = json_array_get(json_object_get(rep, "pools"), 0);
	pt = json_object_get(p, "inflight_over_time");
	/* 750 at 34.982 (38.031's 750 is no change), 0 at 40.079: each once, in order */
	CHECK_INT(json_array_size(pt), 2);
	for (i = 0; i < 2 && i < json_array_size(pt); i++) {
		static const double t[] = { 34.982, 40.079 }, v[] = { 750, 0 };

		CHECK_NEAR(json_real_value(json_array_get(json_array_get(pt, i), 0)) +
				   json_integer_value(json_array_get(json_array_get(pt, i), 0)),
			   t[i], 1e-6);
		CHECK_NEAR(json_number_value(json_array_get(json_array_get(pt, i), 1)), v[i], 1e-9);
	}
	json_decref(rep);
	pm_free(a);
	recording_close(&r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0, "clean");
}

int main(void)
{
	TEST(test_every_record_type);
	TEST(test_parts_within_the_bound);
	TEST(test_incidents_budget);
	TEST(test_incidents_read_with_the_set);
	TEST(test_incidents_in_time_order);
	return unit_done();
}
