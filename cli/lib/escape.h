/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Text from elsewhere is untrusted: process and interface names (any
 * local user sets them), driver names, recorded strings from another host,
 * rules files. Every output format shows such text through the one escape
 * here, so a name reads the same in text, JSON, YAML and Prometheus
 * output, and none of them can carry bytes that break the document or
 * drive a terminal.
 *
 * Valid UTF-8 passes through. Each byte of an invalid sequence (overlong
 * forms, surrogates, beyond U+10FFFF, truncated), and each byte of a
 * control character (C0, DEL, C1) or of the noncharacters U+FFFE and
 * U+FFFF, becomes the four characters \xHH (lower-case hex). Nothing else
 * changes, a backslash included, so escaping is idempotent: a recording
 * replayed on another host shows what the live run showed. Each format
 * then applies its own quoting on top (JSON and Prometheus label values
 * put a backslash before '"' and '\').
 */
#ifndef __PPWATCH_LIB_ESCAPE_H
#define __PPWATCH_LIB_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The escape of s[0..len) into dst (cap bytes, NUL-terminated when cap >
 * 0), snprintf-style: returns the length of the whole escape; when that is
 * cap or more the output was cut, never inside a character or an escape.
 */
size_t esc_buf(char *dst, size_t cap, const char *s, size_t len);

/* s itself when it needs no escape, else its escape in buf (cut to fit) */
const char *esc_str(const char *s, char *buf, size_t cap);

/*
 * The escape of s[0..len) written to f; the characters in 'quote' (NULL:
 * none) get a backslash before them, for formats that quote with one.
 */
void esc_put(FILE *f, const char *s, size_t len, const char *quote);

/* true when s[0..len) is left as it is by the escape */
bool esc_clean(const char *s, size_t len);

/*
 * A line of JSON from elsewhere (a recording), made readable by a strict
 * parser without losing what its strings say: inside string literals,
 * each byte of an invalid UTF-8 sequence and each raw control character
 * (C0) becomes the JSON text \\xHH, which reads back as the four
 * characters \xHH the escape above gives that byte; nothing outside a
 * string changes, so a line that is not JSON stays not JSON. dst has room
 * for 5 * len bytes. Returns the length written; *fixed: bytes replaced.
 */
size_t esc_json_raw(char *dst, const char *src, size_t len, size_t *fixed);

#endif /* __PPWATCH_LIB_ESCAPE_H */
