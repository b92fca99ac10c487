// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The parsers of option and rules values (numbers, durations, sizes), the
 * one escape for untrusted text, and the reader of an io_uring's fdinfo
 * (kernel text), on any bytes, against what they promise: numbers are
 * decimal digits and nothing else, durations are finite and at most
 * DURATION_MAX_S, an escape is clean, idempotent and cut only between
 * units, a ring's slots fit their array and each names a socket or a name.
 */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "lib/util.h"
#include "model/ring_files.h"

static void check_numbers(const char *s)
{
	uint64_t v, w;
	char back[32];
	double d;
	const char *p = s;

	if (!parse_u64(s, 0, UINT64_MAX, &v)) {
		while (*p == '0' && p[1])
			p++;
		snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
		FUZZ_CHECK(!strcmp(back, p)); /* the digits, and only them */
		FUZZ_CHECK(parse_u64(s, v + 1, UINT64_MAX, &w) || v == UINT64_MAX);
	}
	if (!parse_duration(s, &d)) {
		FUZZ_CHECK(isfinite(d) && d >= 0 && d <= DURATION_MAX_S);
		FUZZ_CHECK(s[0] >= '0' && s[0] <= '9');
	}
	if (!parse_size(s, &v))
		FUZZ_CHECK(s[0] >= '0' && s[0] <= '9');
}

static void check_escape(const uint8_t *data, size_t size)
{
	size_t need = esc_buf(NULL, 0, (const char *)data, size), len, cut;
	char *once = malloc(need + 1), *twice = malloc(need + 1), *small, *put = NULL;
	FILE *f;

	if (!once || !twice)
		abort();
	FUZZ_CHECK(esc_buf(once, need + 1, (const char *)data, size) == need);
	FUZZ_CHECK(strlen(once) == need && esc_clean(once, need));
	FUZZ_CHECK(esc_clean((const char *)data, size) == (need == size));
	/* idempotent */
	FUZZ_CHECK(esc_buf(twice, need + 1, once, need) == need && !strcmp(once, twice));
	/* cut short: a prefix of the whole, never inside a unit */
	cut = size ? data[0] % (need + 1) : 0;
	small = malloc(cut + 1);
	esc_buf(small, cut + 1, (const char *)data, size);
	FUZZ_CHECK(!strncmp(small, once, strlen(small)) && esc_clean(small, strlen(small)));
	/* the stream form writes the same */
	f = open_memstream(&put, &len);
	esc_put(f, (const char *)data, size, NULL);
	fclose(f);
	FUZZ_CHECK(len == need && !memcmp(put, once, need));
	free(put);
	free(small);
	free(once);
	free(twice);
}

static void check_ring_fdinfo(const char *s)
{
	struct ring_slot slots[4];
	size_t n = 99, i;
	__u32 files;
	int r = ring_fdinfo_parse(s, slots, 4, &n, &files);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK(n <= 4 && (r == 0 || n == 0));
	for (i = 0; r == 0 && i < n; i++)
		FUZZ_CHECK(memchr(slots[i].name, 0, sizeof(slots[i].name)) &&
			   (!slots[i].ino || !slots[i].name[0]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	check_numbers(s);
	check_escape(data, size);
	check_ring_fdinfo(s);
	free(s);
	return 0;
}
