// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "lib/escape.h"

/*
 * The unit at p (n > 0 bytes left): a character or one stray byte. Returns
 * its length; *esc says whether it is shown as \xHH per byte. Well-formed
 * UTF-8 as Unicode's table 3-7 has it: no overlong forms, no surrogates,
 * nothing past U+10FFFF.
 */
static size_t unit(const unsigned char *p, size_t n, bool *esc)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80) {
		*esc = c < 0x20 || c == 0x7f;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : lo;
		hi = c == 0xed ? 0x9f : hi;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : lo;
		hi = c == 0xf4 ? 0x8f : hi;
	} else {
		*esc = true;
		return 1;
	}
	if (n < len || p[1] < lo || p[1] > hi) {
		*esc = true;
		return 1;
	}
	for (i = 2; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*esc = true;
			return 1;
		}
	}
	/* C1 controls (U+0080..U+009F), U+FFFE and U+FFFF (XML cannot carry them) */
	*esc = (c == 0xc2 && p[1] < 0xa0) || (c == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
	return len;
}

static const char hex[] = "0123456789abcdef";

size_t esc_buf(char *dst, size_t cap, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t total = 0, off = 0, n, i, out;
	bool esc, cut = false;

	while (p < end) {
		n = unit(p, end - p, &esc);
		out = esc ? 4 * n : n;
		if (!cut && off + out < cap) {
			for (i = 0; i < n; i++) {
				if (!esc) {
					dst[off++] = p[i];
					continue;
				}
				dst[off++] = '\\';
				dst[off++] = 'x';
				dst[off++] = hex[p[i] >> 4];
				dst[off++] = hex[p[i] & 0xf];
			}
		} else {
			cut = true;
		}
		total += out;
		p += n;
	}
	if (cap)
		dst[off] = 0;
	return total;
}

bool esc_clean(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	bool esc;

	while (p < end) {
		p += unit(p, end - p, &esc);
		if (esc)
			return false;
	}
	return true;
}

const char *esc_str(const char *s, char *buf, size_t cap)
{
	size_t len = strlen(s);

	if (esc_clean(s, len))
		return s;
	esc_buf(buf, cap, s, len);
	return buf;
}

void esc_put(FILE *f, const char *s, size_t len, const char *quote)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t n, i;
	bool esc;

	while (p < end) {
		n = unit(p, end - p, &esc);
		for (i = 0; i < n; i++) {
			if (esc) {
				/* the escape's own backslash is quoted like any other */
				if (quote && strchr(quote, '\\'))
					fputc('\\', f);
				fprintf(f, "\\x%c%c", hex[p[i] >> 4], hex[p[i] & 0xf]);
			} else {
				if (quote && p[i] && strchr(quote, p[i]))
					fputc('\\', f);
				fputc(p[i], f);
			}
		}
		p += n;
	}
}

size_t esc_json_raw(char *dst, const char *src, size_t len, size_t *fixed)
{
	const unsigned char *p = (const unsigned char *)src, *end = p + len;
	bool in_str = false, after_bs = false, esc;
	size_t off = 0, n;
	unsigned char c;

	*fixed = 0;
	while (p < end) {
		c = *p;
		if (!in_str || after_bs || (c >= 0x20 && c < 0x80)) {
			/* outside a string, the character after a backslash, or plain ASCII */
			if (!in_str)
				in_str = c == '"';
			else if (after_bs)
				after_bs = false;
			else if (c == '\\')
				after_bs = true;
			else if (c == '"')
				in_str = false;
			dst[off++] = c;
			p++;
			continue;
		}
		n = c >= 0x80 ? unit(p, end - p, &esc) : 1;
		if (n > 1) {
			/* well-formed UTF-8 (C1 controls too: JSON allows them) */
			memcpy(dst + off, p, n);
			off += n;
			p += n;
			continue;
		}
		/* a raw control character, or a byte of no character */
		dst[off++] = '\\';
		dst[off++] = '\\';
		dst[off++] = 'x';
		dst[off++] = hex[c >> 4];
		dst[off++] = hex[c & 0xf];
		(*fixed)++;
		p++;
	}
	return off;
}
