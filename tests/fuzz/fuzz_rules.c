// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules loader and evaluator on any bytes: a rules file is parsed
 * (errors are printed, escaped, and must not cost more than a moment:
 * run.sh's -timeout catches a slow input), and one that parses is
 * evaluated against a fixed snapshot and rendered in all four formats.
 */
#include <errno.h>

#include "fixtures.h"
#include "fuzz.h"
#include "lib/json.h"
#include "model/rules.h"
#include "model/rules_eval.h"
#include "output/report_fmt.h"

static struct pool_row rows[4];
static struct snapshot snap;

static void make_snapshot(void)
{
	rows[0] = fixture_row(7, "eth0", ROW_LIVE, 1200, 4);
	rows[1] = fixture_row(9, "eth\xff\x1b", ROW_ZOMBIE, 500, 90);
	rows[1].detach_age_s = 75;
	rows[2] = fixture_row(12, "vb", ROW_LIVE, 0, 0);
	rows[2].item_stats = true;
	rows[3] = fixture_row(13, "vb", ROW_FREED, 0, 0);
	snprintf(rows[0].driver, sizeof(rows[0].driver), "mlx5_core");
	snap = (struct snapshot){ .rows = rows, .n = 4, .max_pages = 1 << 20 };
	snap.counters[PPW_CNT_LEDGER_FULL] = 3;
}

static int resolve(const char *name, __u32 *ino)
{
	*ino = 4026532246U;
	return strcmp(name, "lab") ? -ENOENT : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_meta meta = { .version = "fuzz",
				    .timestamp = "2026-01-01T00:00:00",
				    .hostname = "h",
				    .rules_file = "fuzz.yaml" };
	struct check_report rep = { 0 };
	struct ruleset rs;
	char *buf = NULL;
	size_t len = 0;
	struct json j;
	FILE *f;
	int n;

	if (!snap.n)
		make_snapshot();
	f = open_memstream(&buf, &len);
	n = rules_parse(&rs, "fuzz.yaml", (const char *)data, size, f);
	if (!n)
		n = rules_resolve_netns(&rs, resolve, f);
	fclose(f);
	FUZZ_CHECK(n >= 0 || n == -ENOMEM);
	/* what the file said comes back escaped */
	fuzz_check_text(buf, len);
	free(buf);
	if (n) {
		rules_free(&rs);
		return 0;
	}
	FUZZ_CHECK(rs.n > 0);
	FUZZ_CHECK(!rules_eval(&rs, &snap, &rep));

	f = open_memstream(&buf, &len);
	report_text(f, &rep, &meta);
	report_tap(f, &rep, &meta);
	report_junit(f, &rep, &meta);
	fclose(f);
	fuzz_check_text(buf, len);
	free(buf);

	f = open_memstream(&buf, &len);
	json_init(&j, f, size & 1);
	json_obj_open(&j);
	report_json(&j, &rep, &meta);
	json_obj_close(&j);
	json_end(&j);
	fclose(f);
	fuzz_check_json(buf, len);
	free(buf);

	report_free(&rep);
	rules_free(&rs);
	return 0;
}
