/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the fuzz targets share (libFuzzer, ASan+UBSan; tests/fuzz/run.sh):
 * quiet logs, a NUL-terminated copy of the input, and the checks every
 * output must pass: text lines that lib/escape.h leaves alone, JSON that
 * reads back. A failed check aborts, which libFuzzer reports as a crash.
 */
#ifndef __PPWATCH_FUZZ_H
#define __PPWATCH_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

#include "lib/escape.h"
#include "lib/log.h"

#define FUZZ_CHECK(cond)                                                                         \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_set_level(-1); /* errors are expected: do not print them */
	return 0;
}

/* the input as a C string (cut at its first NUL) */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* every line of text is what the escape leaves alone */
static inline void fuzz_check_text(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		FUZZ_CHECK(esc_clean(p, nl ? (size_t)(nl - p) : (size_t)(end - p)));
		p = nl ? nl + 1 : end;
	}
}

/* JSON text reads back with jansson */
static inline void fuzz_check_json(const char *text, size_t len)
{
	json_error_t err;
	json_t *v = json_loadb(text, len, JSON_DECODE_ANY, &err);

	if (!v)
		fprintf(stderr, "JSON does not read back: %s at %d: %.*s\n", err.text, err.position,
			(int)(len < 400 ? len : 400), text);
	FUZZ_CHECK(v != NULL);
	json_decref(v);
}

/* YAML text loads with libyaml, into a document with a root */
static inline void fuzz_check_yaml(const char *text, size_t len)
{
	yaml_document_t doc;
	yaml_parser_t p;
	int ok;

	FUZZ_CHECK(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	ok = yaml_parser_load(&p, &doc);
	if (!ok)
		fprintf(stderr, "YAML does not load: %s\n", p.problem ? p.problem : "?");
	FUZZ_CHECK(ok);
	FUZZ_CHECK(yaml_document_get_root_node(&doc) != NULL);
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
}

#endif /* __PPWATCH_FUZZ_H */
