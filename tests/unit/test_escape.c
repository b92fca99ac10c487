// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one escape for untrusted text (lib/escape.h). */
#include "unit.h"

#include "lib/escape.h"
#include "lib/util.h"

static const char *esc(const char *s, size_t len)
{
	static char buf[256];

	esc_buf(buf, sizeof(buf), s, len);
	return buf;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1)

static void test_passes_utf8(void)
{
	CHECK_STR(ESC("eth0"), "eth0");
	CHECK_STR(ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7"),
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");
	CHECK_STR(ESC("a\\b \"q\" 100%"), "a\\b \"q\" 100%"); /* backslash left as it is */
	CHECK(esc_clean("nginx", 5), "clean");
}

static void test_escapes_bytes(void)
{
	/* control characters: C0, DEL, C1 (U+0085, U+009B as UTF-8) */
	CHECK_STR(ESC("a\nb\tc\x1b[31m\x7f"), "a\\x0ab\\x09c\\x1b[31m\\x7f");
	CHECK_STR(ESC("\xc2\x85\xc2\x9b\xc2\xa0"), "\\xc2\\x85\\xc2\\x9b\xc2\xa0");
	CHECK_STR(ESC("n\0ul"), "n\\x00ul");
	/* not UTF-8: a stray byte, a truncated sequence, an overlong form, a surrogate, past U+10FFFF */
	CHECK_STR(ESC("\xff\xfe"), "\\xff\\xfe");
	CHECK_STR(ESC("x\xe2\x82"), "x\\xe2\\x82");
	CHECK_STR(ESC("\xc0\xaf\xe0\x80\xaf"), "\\xc0\\xaf\\xe0\\x80\\xaf");
	CHECK_STR(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	CHECK_STR(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	/* noncharacters XML cannot carry */
	CHECK_STR(ESC("\xef\xbf\xbe\xef\xbf\xbd"), "\\xef\\xbf\\xbe\xef\xbf\xbd");
	CHECK(!esc_clean("\xff", 1), "not clean");
}

static void test_idempotent(void)
{
	static const char raw[] = "p\xff\x01\xc3\xa9\xed\xa0\x80";
	char once[128], twice[128];

	esc_buf(once, sizeof(once), raw, sizeof(raw) - 1);
	esc_buf(twice, sizeof(twice), once, strlen(once));
	CHECK_STR(once, twice);
	CHECK(esc_clean(once, strlen(once)), "an escape needs no escape");
}

static void test_cut(void)
{
	char b[8];

	/* snprintf-style: the whole length back, the output cut at a unit */
	CHECK_INT(esc_buf(b, sizeof(b), "ab\xff\xff", 4), 10);
	CHECK_STR(b, "ab\\xff");
	CHECK_INT(esc_buf(b, 4, "\xc3\xa9\xc3\xa9", 4), 4);
	CHECK_STR(b, "\xc3\xa9");
	CHECK_INT(esc_buf(b, 0, "x", 1), 1);
	CHECK_STR(esc_str("plain", b, sizeof(b)), "plain");
	CHECK_STR(esc_str("\x01", b, sizeof(b)), "\\x01");
}

static void test_put_quoted(void)
{
	char *buf;

	/* a format's quoting applies to the escape's backslash too */
	CAPTURE(buf, f, esc_put(f, "a\"\\\xff\n", 5, "\"\\"));
	CHECK_STR(buf, "a\\\"\\\\\\\\xff\\\\x0a");
	free(buf);
	CAPTURE(buf, f, esc_put(f, "a\"\\\xff", 4, NULL));
	CHECK_STR(buf, "a\"\\\\xff");
	free(buf);
}

/* raw bytes inside JSON strings become the escape's text; nothing else changes */
static void test_json_raw(void)
{
	static const struct {
		const char *in, *out;
		size_t fixed;
	} t[] = {
		{ "{\"a\":\"b\"}", "{\"a\":\"b\"}", 0 },
		{ "{\"d\":\"e\xfft\"}", "{\"d\":\"e\\\\xfft\"}", 1 },
		/* well-formed UTF-8 and C1 controls stay; a truncated sequence does not */
		{ "\"caf\xc3\xa9 \xc2\x85 \xe2\x82\"", "\"caf\xc3\xa9 \xc2\x85 \\\\xe2\\\\x82\"",
		  2 },
		/* raw control characters inside a string; a tab outside one is JSON's blank */
		{ "{\t\"x\":\"a\tb\x1b\"}", "{\t\"x\":\"a\\\\x09b\\\\x1b\"}", 2 },
		/* an escaped quote does not end the string; bytes outside strings stay */
		{ "[\"q\\\"\xff\",\xff]", "[\"q\\\"\\\\xff\",\xff]", 1 },
		/* a backslash at a string's end: the next byte is the escaped one */
		{ "\"\\\\\"\xff", "\"\\\\\"\xff", 0 },
	};
	char out[256];
	size_t i, n, fixed;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		n = esc_json_raw(out, t[i].in, strlen(t[i].in), &fixed);
		out[n] = 0;
		CHECK_STR(out, t[i].out);
		CHECK_INT(fixed, t[i].fixed);
	}
}

int main(void)
{
	TEST(test_passes_utf8);
	TEST(test_escapes_bytes);
	TEST(test_idempotent);
	TEST(test_cut);
	TEST(test_put_quoted);
	TEST(test_json_raw);
	return unit_done();
}
