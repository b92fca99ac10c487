// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer, the column renderer and the parsers. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "lib/json.h"
#include "output/table.h"
#include "lib/util.h"

static void test_json_escaping(void)
{
	struct json j;
	char *buf;

	CAPTURE(buf, f, {
		json_init(&j, f, false);
		json_obj_open(&j);
		json_kv_str(&j, "s", "a\"b\\c\nd\te\x01");
		json_kv_f64(&j, "nan", NAN);
		json_kv_f64(&j, "int", 3.0);
		json_kv_f64(&j, "frac", 0.25);
		json_kv_s64(&j, "neg", -5);
		json_key(&j, "arr");
		json_arr_open(&j);
		json_u64(&j, 1);
		json_bool(&j, true);
		json_put_null(&j);
		json_arr_close(&j);
		json_key(&j, "empty");
		json_obj_open(&j);
		json_obj_close(&j);
		json_obj_close(&j);
		json_end(&j);
	});
	/* control characters as lib/escape.h has them, then JSON's own quoting */
	CHECK_STR(buf, "{\"s\":\"a\\\"b\\\\c\\\\x0ad\\\\x09e\\\\x01\",\"nan\":null,\"int\":3,"
		       "\"frac\":0.25,\"neg\":-5,\"arr\":[1,true,null],\"empty\":{}}\n");
	free(buf);
}

/* JSON numbers for any double: no out-of-range cast, no buffer overrun */
static void test_json_f64(void)
{
	static const struct {
		double v;
		const char *want;
	} t[] = {
		{ 0.25, "0.25" },
		{ -0.0, "0" },
		{ -1e-9, "0" },
		{ 1700000000.123456, "1700000000.123456" },
		{ 9007199254740992.0, "9007199254740992" },
		{ 1e15 + 0.5, "1000000000000000.5" },
		{ 9.3e18, "9.3e+18" },
		{ -9.3e18, "-9.3e+18" },
		{ 1e57, "1e+57" },
		{ 1e300, "1e+300" },
		{ -1.7976931348623157e308, "-1.7976931348623157e+308" },
		{ 0.1 + 0.2, "0.3" },
	};
	struct json j;
	char *buf;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		CAPTURE(buf, f, {
			json_init(&j, f, false);
			json_f64(&j, t[i].v);
		});
		CHECK(!strcmp(buf, t[i].want), "%.17g: '%s' != '%s'", t[i].v, buf, t[i].want);
		free(buf);
	}
}

static void test_json_lines(void)
{
	struct json j;
	char *buf;

	/* a stream of documents is one object per line */
	CAPTURE(buf, f, {
		json_init(&j, f, false);
		json_obj_open(&j);
		json_kv_u64(&j, "n", 1);
		json_obj_close(&j);
		json_end(&j);
		json_obj_open(&j);
		json_kv_u64(&j, "n", 2);
		json_obj_close(&j);
		json_end(&j);
	});
	CHECK_STR(buf, "{\"n\":1}\n{\"n\":2}\n");
	free(buf);
}

struct r {
	const char *name;
	unsigned long long a, b;
};

static const struct ocol cols[] = {
	{ "name", "NAME", 6, OF_PLAIN, OC_LEFT },
	{ "x.a", "A", 5, OF_BYTES, 0 },
	{ "x.b", "B", 5, OF_AGE, 0 },
	{ "hidden", "H", 3, OF_PLAIN, OC_JSON },
};

static void get(const void *p, int c, struct oval *v, void *ctx)
{
	const struct r *r = p;

	switch (c) {
	case 0:
		OV_STR(v, r->name);
		break;
	case 1:
		OV_U64(v, r->a);
		break;
	case 2:
		OV_U64(v, r->b);
		v->null = !r->b;
		break;
	case 3:
		OV_BOOL(v, true);
		break;
	}
}

static void test_columns(void)
{
	struct r rows[] = { { "long-name", 2048, 65 }, { "b", 1, 0 } };
	struct oview ov = { cols, 4, get, NULL };
	struct json j;
	char *buf;

	CAPTURE(buf, f, out_text(f, &ov, rows, 2, sizeof(rows[0]), false, true));
	CHECK_STR(buf, "NAME       A     B\n"
		       "long-n 2.0KiB 1m05s\n"
		       "b         1B     -\n");
	free(buf);
	/* dotted keys nest; JSON-only columns appear; text-null is null */
	CAPTURE(buf, f, {
		json_init(&j, f, false);
		out_json_rows(&j, &ov, rows, 2, sizeof(rows[0]));
		json_end(&j);
	});
	CHECK_STR(buf, "[{\"name\":\"long-name\",\"x\":{\"a\":2048,\"b\":65},\"hidden\":true},"
		       "{\"name\":\"b\",\"x\":{\"a\":1,\"b\":null},\"hidden\":true}]\n");
	free(buf);
	CHECK_INT(ocol_find(&ov, "x.b"), 2);
	CHECK_INT(ocol_find(&ov, "h"), 3);   /* unique prefix */
	CHECK_INT(ocol_find(&ov, "x."), -1); /* ambiguous */
	CHECK_INT(out_sort(rows, 2, sizeof(rows[0]), &ov, "x.a", true), 0);
	CHECK_STR(rows[0].name, "b");
}

/* untrusted names in a table: escaped, cut and padded by characters */
static void test_columns_untrusted(void)
{
	struct r rows[] = { { "\xc3\xa9t\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 1, 1 },
			    { "a\xff\x1b", 1, 1 } };
	struct oview ov = { cols, 3, get, NULL };
	char *buf;

	CAPTURE(buf, f, out_text(f, &ov, rows, 2, sizeof(rows[0]), false, false));
	CHECK_STR(buf, "\xc3\xa9t\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9    1B  1.0s\n"
		       "a\\xff     1B  1.0s\n");
	free(buf);
}

static void test_parsers(void)
{
	uint64_t u;
	double d;

	CHECK_INT(parse_u64("42", 0, 100, &u), 0);
	CHECK_INT(u, 42);
	/* decimal only: no base prefix, no blanks, no sign (strtoull took " -1" as 2^64-1) */
	CHECK_INT(parse_u64("010", 0, 100, &u), 0);
	CHECK_INT(u, 10);
	CHECK_INT(parse_u64("0x10", 0, 100, &u), -EINVAL);
	CHECK_INT(parse_u64(" -1", 0, UINT64_MAX, &u), -EINVAL);
	CHECK_INT(parse_u64(" 1", 0, 100, &u), -EINVAL);
	CHECK_INT(parse_u64("+1", 0, 100, &u), -EINVAL);
	CHECK_INT(parse_u64("18446744073709551615", 0, UINT64_MAX, &u), 0);
	CHECK_INT(parse_u64("18446744073709551616", 0, UINT64_MAX, &u), -EINVAL);
	CHECK_INT(parse_u64("101", 0, 100, &u), -EINVAL);
	CHECK_INT(parse_u64("-1", 0, 100, &u), -EINVAL);
	CHECK_INT(parse_u64("4x", 0, 100, &u), -EINVAL);
	CHECK_INT(parse_u64("", 0, 100, &u), -EINVAL);
	CHECK_INT(parse_duration("30s", &d), 0);
	CHECK_NEAR(d, 30, 0);
	CHECK_INT(parse_duration("500ms", &d), 0);
	CHECK_NEAR(d, 0.5, 1e-12);
	CHECK_INT(parse_duration("2m", &d), 0);
	CHECK_NEAR(d, 120, 0);
	CHECK_INT(parse_duration("1.5", &d), 0);
	CHECK_NEAR(d, 1.5, 0);
	CHECK_INT(parse_duration("3w", &d), -EINVAL);
	CHECK_INT(parse_duration("-1s", &d), -EINVAL);
	/* digits, a fraction, a unit: no hex float, exponent, infinity, blanks */
	CHECK_INT(parse_duration("0x1p3", &d), -EINVAL);
	CHECK_INT(parse_duration("1e300", &d), -EINVAL);
	CHECK_INT(parse_duration("1e3ms", &d), -EINVAL);
	CHECK_INT(parse_duration("inf", &d), -EINVAL);
	CHECK_INT(parse_duration("nan", &d), -EINVAL);
	CHECK_INT(parse_duration(" 5s", &d), -EINVAL);
	CHECK_INT(parse_duration(".5s", &d), -EINVAL);
	CHECK_INT(parse_duration("5.s", &d), -EINVAL);
	CHECK_INT(parse_duration("", &d), -EINVAL);
	CHECK_INT(parse_duration("3650d", &d), 0);
	CHECK_NEAR(d, DURATION_MAX_S, 0);
	CHECK_INT(parse_duration("3651d", &d), -EINVAL);
	CHECK_INT(parse_duration("99999999999999999999999999999999999999999d", &d), -EINVAL);
	CHECK_INT(parse_size("64k", &u), 0);
	CHECK_INT(u, 65536);
	CHECK_INT(parse_size("1GiB", &u), 0);
	CHECK_INT(u, 1ULL << 30);
	CHECK_INT(parse_size("12q", &u), -EINVAL);
	CHECK_INT(parse_size(" -1", &u), -EINVAL);
	CHECK_INT(parse_size("0x10", &u), -EINVAL);
	CHECK_INT(parse_size("17179869184G", &u), -EINVAL);
}

/* read_file(): the whole file and its length, NULs inside counted; a pipe too; bounded */
static void test_read_file(void)
{
	char path[] = "/tmp/ppwatch-read.XXXXXX", fifo[64], *buf;
	size_t len;
	pid_t pid;
	int fd, st;

	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	CHECK_INT(write(fd, "ab\0cd", 5), 5);
	close(fd);
	CHECK_INT(read_file(path, 5, &buf, &len), 0);
	CHECK_INT(len, 5);
	CHECK(buf && !memcmp(buf, "ab\0cd", 6), "the bytes, NUL-terminated");
	free(buf);
	/* one byte past the limit */
	CHECK_INT(read_file(path, 4, &buf, &len), -EFBIG);
	CHECK(buf == NULL && len == 0, "nothing kept");
	CHECK_INT(truncate(path, 0), 0);
	CHECK_INT(read_file(path, 4, &buf, &len), 0);
	CHECK(buf && !*buf && len == 0, "empty: an empty string");
	free(buf);
	unlink(path);
	CHECK_INT(read_file(path, 4, &buf, &len), -ENOENT);
	/* a pipe, as '-f <(...)' gives, read to its end */
	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	pid = fork();
	if (!pid) {
		fd = open(fifo, O_WRONLY);
		for (int i = 0; i < 3000; i++)
			if (write(fd, "0123456789", 10) != 10)
				_exit(1);
		_exit(0);
	}
	CHECK_INT(read_file(fifo, 1 << 20, &buf, &len), 0);
	CHECK_INT(len, 30000);
	CHECK(buf && !strncmp(buf + 29990, "0123456789", 10), "the pipe's last bytes");
	free(buf);
	waitpid(pid, &st, 0);
	unlink(fifo);
}

static void test_formats(void)
{
	char b[32];

	CHECK_STR(fmt_bytes(b, sizeof(b), 0), "0B");
	CHECK_STR(fmt_bytes(b, sizeof(b), 1536), "1.5KiB");
	CHECK_STR(fmt_bytes(b, sizeof(b), 300 << 20), "300MiB");
	CHECK_STR(fmt_age(b, sizeof(b), 0.25), "250ms");
	CHECK_STR(fmt_age(b, sizeof(b), 12.34), "12.3s");
	CHECK_STR(fmt_age(b, sizeof(b), 245), "4m05s");
	CHECK_STR(fmt_age(b, sizeof(b), 7380), "2h03m");
	CHECK_STR(fmt_age(b, sizeof(b), 3 * 86400 + 4 * 3600), "3d04h");
	/* recorded values may be anything: no undefined cast */
	CHECK_STR(fmt_age(b, sizeof(b), NAN), "?");
	CHECK_STR(fmt_age(b, sizeof(b), -1e300), "0ms");
	CHECK_STR(fmt_age(b, sizeof(b), 1e300), "1.16e+295d");
	CHECK_STR(fmt_age(b, sizeof(b), INFINITY), "?");
}

int main(void)
{
	TEST(test_json_escaping);
	TEST(test_json_f64);
	TEST(test_json_lines);
	TEST(test_columns);
	TEST(test_columns_untrusted);
	TEST(test_parsers);
	TEST(test_formats);
	TEST(test_read_file);
	return unit_done();
}
