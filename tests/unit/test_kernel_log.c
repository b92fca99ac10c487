// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel log's "stalled pool shutdown" lines: every form a saved log
 * comes in (tests/unit/klog/: dmesg, dmesg -T, journalctl -k across two
 * boots, syslog with the printk stamp, ISO 8601, /dev/kmsg records, no
 * stamps, downstream variants), unrelated lines around them, grouped into
 * their pools.
 */
#include <errno.h>

#include "unit.h"

#include "lib/util.h"
#include "model/kernel_log.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	CHECK(f != NULL, "%s: %s", path, strerror(errno));
	if (!f)
		return NULL;
	*len = 0;
	do {
		if (*len + 4096 > cap)
			buf = realloc(buf, cap = cap * 2 + 4096);
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

static void read_log(struct klog *k, const char *name)
{
	char path[256];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "tests/unit/klog/%s", name);
	klog_init(k);
	buf = slurp(path, &len);
	if (buf)
		CHECK_INT(klog_feed(k, buf, len), 0);
	free(buf);
	klog_finish(k, NAN);
}

static const struct klog_pool *pool_id(const struct klog *k, unsigned boot, uint32_t id)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->pools[i].has_id && k->pools[i].id == id && k->pools[i].boot == boot)
			return &k->pools[i];
	return NULL;
}

/* one line of each form, alone */
static void test_line_forms(void)
{
	static const struct {
		const char *line;
		enum klog_fmt fmt;
		double mono, wall;
		bool has_id;
		uint32_t id;
		int64_t inflight, sec;
		const char *dev;
		bool variant;
	} c[] = {
		{ "[26825.123456] page_pool_release_retry() stalled pool shutdown: id 51, 4032 inflight 26825 sec",
		  KF_DMESG, 26825.123456, NAN, true, 51, 4032, 26825, "", false },
		{ "[   60.000001] page_pool_release_retry() stalled pool shutdown 1389 inflight 60 sec",
		  KF_DMESG, 60.000001, NAN, false, 0, 1389, 60, "", false },
		{ "page_pool_release_retry() stalled pool shutdown -1783494730 inflight 1451031 sec",
		  KF_NONE, NAN, NAN, false, 0, -1783494730, 1451031, "", false },
		{ "4,930,96210554,-;page_pool_release_retry() stalled pool shutdown 200 inflight 60 sec",
		  KF_KMSG, 96.210554, NAN, false, 0, 200, 60, "", false },
		{ "4,930,96210554,-,caller=T12;page_pool_release_retry() stalled pool shutdown: id 3, 2 inflight 60 sec",
		  KF_KMSG, 96.210554, NAN, true, 3, 2, 60, "", false },
		/* Mon Jan 13 2025 09:32:07 as if UTC: 1736760727 */
		{ "[Mon Jan 13 09:32:07 2025] page_pool_release_retry() stalled pool shutdown 512 inflight 60 sec",
		  KF_DMESG_T, NAN, 1736760727, false, 0, 512, 60, "", false },
		{ "[Mon Jan  6 09:32:07 2025] page_pool_release_retry() stalled pool shutdown 512 inflight 60 sec",
		  KF_DMESG_T, NAN, 1736760727 - 7 * 86400, false, 0, 512, 60, "", false },
		{ "2024-11-20T03:11:45.5+01:00 lb2 kernel: page_pool_release_retry() stalled pool shutdown: id 4, 9 inflight 61 sec",
		  KF_ISO, NAN, 1732072305.5 - 3600, true, 4, 9, 61, "", false },
		{ "2024-11-20 03:11:45,25 page_pool_release_retry() stalled pool shutdown: id 4, 9 inflight 61 sec",
		  KF_ISO, NAN, 1732072305.25, true, 4, 9, 61, "", false },
		{ "<4>1 2024-11-20T03:11:45Z lb2 kernel - - - page_pool_release_retry() stalled pool shutdown: id 4, 9 inflight 61 sec",
		  KF_ISO, NAN, 1732072305, true, 4, 9, 61, "", false },
		{ "Thu 2024-11-20 03:11:45 UTC lb2 kernel: page_pool_release_retry() stalled pool shutdown: id 4, 9 inflight 61 sec",
		  KF_ISO, NAN, 1732072305, true, 4, 9, 61, "", false },
		/* Sep 2 08:41:02 of 2000 (a leap year) as if UTC */
		{ "Sep 02 08:41:02 shaper kernel: page_pool_release_retry() stalled pool shutdown: id 51, 4032 inflight 60 sec",
		  KF_SYSLOG, NAN, 967884062, true, 51, 4032, 60, "", false },
		{ "Mar  4 11:03:14 gw1 kernel: [ 7260.411112] page_pool_release_retry() stalled pool shutdown 1389 inflight 60 sec",
		  KF_SYSLOG, 7260.411112, 952167794, false, 0, 1389, 60, "", false },
		{ "Sep 02 08:41:02.123456 shaper kernel[0]: page_pool_release_retry() stalled pool shutdown: id 1, 1 inflight 60 sec",
		  KF_SYSLOG, NAN, 967884062.123456, true, 1, 1, 60, "", false },
		{ "[  7260.411112] shaper kernel: page_pool_release_retry() stalled pool shutdown: id 1, 1 inflight 60 sec",
		  KF_DMESG, 7260.411112, NAN, true, 1, 1, 60, "", false },
		{ "<4>[  120.500131] mlx5_core 0000:08:00.0 eth2: page_pool_release_retry() stalled pool shutdown: id 7, 12 inflight 120 sec",
		  KF_DMESG, 120.500131, NAN, true, 7, 12, 120, "eth2", true },
		{ "kern  :warn  : [  130.000021] page_pool_release_retry() stalled pool shutdown: id 9 dev eth3, 5 inflight, 20 KiB, 60 sec",
		  KF_DMESG, 130.000021, NAN, true, 9, 5, 60, "eth3", true },
		{ "[  181.000457][  T2231] page_pool_release_retry() stalled pool shutdown: id 7, 12 inflight 181 sec",
		  KF_DMESG, 181.000457, NAN, true, 7, 12, 181, "", false },
		{ "[  191.000020] [    C3] page_pool_release_retry() stalled pool shutdown (eth4): 5 inflight 121 sec",
		  KF_DMESG, 191.00002, NAN, false, 0, 5, 121, "eth4", true },
		{ "[  200.100000] page_pool_release_retry() stalled pool shutdown: id 12, inflight=3 sec=60",
		  KF_DMESG, 200.1, NAN, true, 12, 3, 60, "", true },
		{ "[  +0.000123] page_pool_release_retry() stalled pool shutdown: id 12, 3 inflight 60 sec",
		  KF_NONE, NAN, NAN, true, 12, 3, 60, "", false },
		{ "Stalled pool shutdown: id 4294967295, 0 pages inflight 2 secs", KF_NONE, NAN,
		  NAN, true, 4294967295u, 0, 2, "", true },
	};
	struct klog_line l;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		enum klog_kind kind =
			klog_parse_line(c[i].line, strlen(c[i].line), &l, NULL, NULL, 0);

		CHECK(kind == KL_STALL, "%zu: %s: kind %d", i, c[i].line, kind);
		CHECK(l.fmt == c[i].fmt, "%zu: format %s", i, klog_fmt_name(l.fmt));
		if (isnan(c[i].mono))
			CHECK(isnan(l.t.mono), "%zu: mono %f", i, l.t.mono);
		else
			CHECK_NEAR(l.t.mono, c[i].mono, 1e-6);
		if (isnan(c[i].wall))
			CHECK(isnan(l.t.wall), "%zu: wall %f", i, l.t.wall);
		else
			CHECK(fabs(l.t.wall - c[i].wall) < 1e-3, "%zu: wall %.3f != %.3f", i,
			      l.t.wall, c[i].wall);
		CHECK(l.has_id == c[i].has_id && l.id == c[i].id, "%zu: id %u", i, l.id);
		CHECK(l.inflight == c[i].inflight, "%zu: inflight %lld", i, (long long)l.inflight);
		CHECK(l.sec == c[i].sec, "%zu: sec %lld", i, (long long)l.sec);
		CHECK(!strcmp(l.dev, c[i].dev), "%zu: dev '%s'", i, l.dev);
		CHECK(l.variant == c[i].variant, "%zu: variant %d", i, l.variant);
	}
	/* zones and stamps */
	klog_parse_line(c[7].line, strlen(c[7].line), &l, NULL, NULL, 0);
	CHECK(l.t.zoned && !l.t.noyear, "ISO with a zone");
	CHECK_STR(l.stamp, "2024-11-20T03:11:45.5+01:00");
	klog_parse_line(c[5].line, strlen(c[5].line), &l, NULL, NULL, 0);
	CHECK(!l.t.zoned && !l.t.noyear, "dmesg -T: local");
	CHECK_STR(l.stamp, "[Mon Jan 13 09:32:07 2025]");
	klog_parse_line(c[11].line, strlen(c[11].line), &l, NULL, NULL, 0);
	CHECK(!l.t.zoned && l.t.noyear, "syslog: no year");
	CHECK_NEAR(klog_wall_unix(&l.t, 3600, 2025), 1756802462 - 3600, 1e-6);
	CHECK_NEAR(klog_wall_unix(&l.t, 0, 2024), 1725266462, 1e-6);
}

/* what is not a stall line, or not one that can be read */
static void test_line_others(void)
{
	static const char *const other[] = {
		"",
		"[    5.104311] IPv6: ADDRCONF(NETDEV_CHANGE): eth2: link becomes ready",
		"[ 1903.554107] audit: name=\"/etc/page_pool\" stalled pool",
		"4,930,96210554,-",
		"[99999999999999999999.1] x",
		"\xff\xfe[\x01",
	};
	static const char *const unread[] = {
		"[  210.000000] page_pool_release_retry() stalled pool shutdown: id 13 what",
		"stalled pool shutdown 12 inflight",
		"stalled pool shutdown 1234567890123456789 inflight 60 sec",
		"stalled pool shutdown",
	};
	struct klog_line l;
	char kernel[64] = "";
	int64_t neg = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(other); i++)
		CHECK(klog_parse_line(other[i], strlen(other[i]), &l, &neg, kernel,
				      sizeof(kernel)) == KL_OTHER,
		      "%zu", i);
	for (i = 0; i < ARRAY_SIZE(unread); i++)
		CHECK(klog_parse_line(unread[i], strlen(unread[i]), &l, &neg, NULL, 0) ==
			      KL_STALL_UNREAD,
		      "%zu: %s", i, unread[i]);
	CHECK(klog_parse_line("[    0.000000] Linux version 6.1.0-27-amd64 (x) #1", 48, &l, &neg,
			      kernel, sizeof(kernel)) == KL_BANNER,
	      "banner");
	CHECK_STR(kernel, "6.1.0-27-amd64");
	CHECK(klog_parse_line("-- Boot 3f4c1e7a --", 19, &l, &neg, NULL, 0) == KL_BOOT, "boot");
	CHECK(klog_parse_line("-- Logs begin at Mon --", 23, &l, &neg, NULL, 0) == KL_OTHER,
	      "journal's head");
	CHECK(klog_parse_line("[ 1.0] Negative(-5) inflight packet-pages", 41, &l, &neg, NULL, 0) ==
			      KL_NEGATIVE &&
		      neg == -5,
	      "negative %lld", (long long)neg);
}

/* dmesg, ids: one pool draining, one constant; the rest of the log around them */
static void test_dmesg(void)
{
	const struct klog_pool *a, *b;
	struct klog k;

	read_log(&k, "dmesg.log");
	CHECK_INT(k.lines, 17);
	CHECK_INT(k.stall_lines, 8);
	CHECK_INT(k.n, 2);
	CHECK_INT(k.boots, 1);
	CHECK_STR(k.kernel, "6.12.38+deb13-amd64");
	CHECK_INT(k.by_fmt[KF_DMESG], 17);
	a = pool_id(&k, 0, 17);
	b = pool_id(&k, 0, 18);
	CHECK(a && b, "pools 17 and 18");
	if (!a || !b)
		goto out;
	CHECK_INT(a->lines, 4);
	CHECK_INT(a->first.inflight, 199);
	CHECK_INT(a->last.inflight, 170);
	CHECK_INT(a->last.sec, 243);
	CHECK_INT(klog_npoints(a), 4);
	CHECK_INT(klog_npoints(b), 1);
	CHECK_INT(b->min_inflight, 1024);
	CHECK_STR(a->grouped_by, "id");
	CHECK(!a->ended, "a file ends with its last line");
	CHECK_STR(a->first.stamp, "[ 1880.129371]");
out:
	klog_free(&k);
}

/* dmesg -T, no ids: two pools destroyed in the same second, a third later */
static void test_dmesg_t(void)
{
	const struct klog_pool *p;
	struct klog k;
	size_t i;

	read_log(&k, "dmesg-T.log");
	CHECK_INT(k.stall_lines, 11);
	CHECK_INT(k.n, 3);
	CHECK_INT(k.by_fmt[KF_DMESG_T], 17);
	for (i = 0; i < k.n; i++) {
		p = &k.pools[i];
		CHECK_STR(p->grouped_by, "destroy time");
		CHECK(p->min_inflight == p->max_inflight, "constant");
	}
	if (k.n == 3) {
		CHECK(k.pools[0].first.inflight == 1389 && k.pools[0].lines == 5, "first");
		CHECK(k.pools[1].first.inflight == 512 && k.pools[1].lines == 5, "second");
		CHECK(k.pools[2].first.inflight == 64 && k.pools[2].lines == 1, "third");
		CHECK(k.pools[0].together && k.pools[1].together && !k.pools[2].together,
		      "the two destroyed together, and said so");
	}
	klog_free(&k);
}

/* journalctl -k, two boots: the ids start again */
static void test_journal(void)
{
	const struct klog_pool *p;
	struct klog k;

	read_log(&k, "journalctl-k.log");
	CHECK_INT(k.boots, 2);
	CHECK_INT(k.n, 4);
	CHECK_INT(k.stall_lines, 10);
	CHECK_STR(k.kernel, "6.8.0-45-generic");
	p = pool_id(&k, 0, 51);
	CHECK(p && p->lines == 2 && p->rebooted && p->ended,
	      "boot 0's pool 51: ended by the reboot");
	p = pool_id(&k, 1, 51);
	CHECK(p && p->lines == 4 && !p->rebooted && !p->ended, "boot 1's pool 51");
	CHECK(p && p->first.t.noyear, "syslog's stamps");
	CHECK_INT(k.by_fmt[KF_SYSLOG], 18);
	klog_free(&k);
}

/* syslog lines with the printk stamp: grouped by it; ISO, negative; kmsg records */
static void test_syslog_iso_kmsg(void)
{
	struct klog k;

	read_log(&k, "syslog.log");
	CHECK_INT(k.n, 1);
	CHECK_INT(k.stall_lines, 4);
	CHECK(k.n && !isnan(k.pools[0].last.t.mono) && k.pools[0].last.inflight == 1389,
	      "syslog + printk stamp");
	/* the log goes on 33 s past its last stall line: its next warning not due yet */
	CHECK(k.n && !k.pools[0].ended && fabs(k.pools[0].ended_after_s - 33) < 1e-6,
	      "ended %.0f s after", k.n ? k.pools[0].ended_after_s : 0);
	klog_free(&k);

	read_log(&k, "iso.log");
	CHECK_INT(k.n, 1);
	CHECK_INT(k.negative_warnings, 1);
	CHECK_INT(k.negative_first, -5);
	CHECK(k.n && k.pools[0].min_inflight == -1783494730, "negative inflight");
	CHECK(k.n && k.pools[0].first.t.zoned, "zoned");
	klog_free(&k);

	read_log(&k, "kmsg.log");
	CHECK_INT(k.n, 1);
	CHECK_STR(k.kernel, "6.1.0-27-amd64");
	CHECK(k.n && k.pools[0].lines == 3 && k.pools[0].last.sec == 182, "kmsg");
	/* the log goes on 3 minutes past its last stall line: it stopped warning */
	CHECK(k.n && k.pools[0].ended, "ended %.0f s after", k.n ? k.pools[0].ended_after_s : 0);
	CHECK(k.n && !strcmp(k.pools[0].last.stamp, "[  218.221003]"), "%s", k.pools[0].last.stamp);
	CHECK_INT(k.by_fmt[KF_KMSG], 7);
	klog_free(&k);
	/* live: the log runs on to now */
	read_log(&k, "kmsg.log");
	klog_finish(&k, 218.3);
	CHECK(k.n && !k.pools[0].ended, "its last line 0.1 s ago");
	klog_finish(&k, 400);
	CHECK(k.n && k.pools[0].ended, "its last line 3 min ago");
	klog_free(&k);
}

/* no stamps: the sec of the lines is the clock; variants */
static void test_nostamp_variants(void)
{
	const struct klog_pool *p;
	struct klog k;

	read_log(&k, "nostamp.log");
	CHECK_INT(k.n, 1);
	CHECK(k.n && k.pools[0].lines == 4 && !strcmp(k.pools[0].grouped_by, "sequence"),
	      "by sequence");
	CHECK(k.n && k.pools[0].last.inflight == 170 && klog_npoints(&k.pools[0]) == 4, "draining");
	klog_free(&k);

	read_log(&k, "variants.log");
	CHECK_INT(k.n, 3);
	CHECK_INT(k.unread_lines, 1);
	CHECK_INT(k.unread_first, 6);
	p = pool_id(&k, 0, 7);
	CHECK(p && p->lines == 2 && !strcmp(p->dev, "eth2"), "id 7 on eth2");
	p = pool_id(&k, 0, 9);
	CHECK(p && p->lines == 2 && !strcmp(p->dev, "eth3"), "id 9 on eth3");
	p = pool_id(&k, 0, 12);
	CHECK(p && p->lines == 2 && p->last.inflight == 3, "id 12");
	klog_free(&k);
}

/* several pools without ids or stamps, lines interleaved; the points kept */
static void test_sequence_and_bounds(void)
{
	struct klog k;
	char line[128];
	int i;

	static const char seq[] = "stalled pool shutdown 10 inflight 60 sec\n"
				  "stalled pool shutdown 20 inflight 60 sec\n"
				  "stalled pool shutdown 9 inflight 121 sec\n"
				  "stalled pool shutdown 20 inflight 121 sec\n"
				  "stalled pool shutdown 8 inflight 182 sec\n";

	klog_init(&k);
	/* A destroyed at 0, B at 30: A60 B60 A121 B121 A182 */
	klog_feed(&k, seq, strlen(seq));
	klog_finish(&k, NAN);
	CHECK_INT(k.n, 2);
	CHECK(k.n == 2 && k.pools[0].lines == 3 && k.pools[0].last.inflight == 8, "A");
	CHECK(k.n == 2 && k.pools[1].lines == 2 && k.pools[1].last.inflight == 20, "B");
	klog_free(&k);

	/* one pool for a day: its first point and its last changes */
	klog_init(&k);
	for (i = 0; i < 1440; i++) {
		snprintf(
			line, sizeof(line),
			"[%d.5] page_pool_release_retry() stalled pool shutdown: id 5, %d inflight %d sec",
			100 + 60 * i, 5000 - i, 60 + 60 * i);
		klog_feed_line(&k, line, strlen(line));
	}
	klog_finish(&k, NAN);
	CHECK_INT(k.n, 1);
	CHECK_INT(klog_npoints(&k.pools[0]), KLOG_POINTS_MAX);
	CHECK_INT(klog_point(&k.pools[0], 0)->inflight, 5000);
	CHECK_INT(klog_point(&k.pools[0], KLOG_POINTS_MAX - 1)->inflight, 5000 - 1439);
	CHECK_INT(klog_point(&k.pools[0], 1)->inflight, 5000 - 1439 + KLOG_POINTS_MAX - 2);
	CHECK_INT(k.pools[0].pts_dropped, 1440 - KLOG_POINTS_MAX);
	klog_free(&k);

	/* more pools than kept: counted */
	klog_init(&k);
	for (i = 0; i < KLOG_POOLS_MAX + 10; i++) {
		snprintf(line, sizeof(line), "stalled pool shutdown: id %d, 1 inflight 60 sec", i);
		klog_feed_line(&k, line, strlen(line));
	}
	CHECK_INT(k.n, KLOG_POOLS_MAX);
	CHECK_INT(k.lines_not_grouped, 10);
	klog_free(&k);
}

int main(void)
{
	TEST(test_line_forms);
	TEST(test_line_others);
	TEST(test_dmesg);
	TEST(test_dmesg_t);
	TEST(test_journal);
	TEST(test_syslog_iso_kmsg);
	TEST(test_nostamp_variants);
	TEST(test_sequence_and_bounds);
	return unit_done();
}
