// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * postmortem end to end on any bytes: records, streamed -> report -> text,
 * JSON and YAML. Each output must be well-formed: text lines the escape leaves
 * alone, JSON that jansson reads back, YAML that libyaml loads.
 */
#include <yaml.h>

#include "fuzz.h"
#include "model/postmortem.h"
#include "model/rec_reader.h"
#include "output/postmortem_fmt.h"

static void check_yaml(const char *text, size_t len)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	json_t *rep, *input;
	struct rec_reader r;
	char *buf = NULL;
	struct pm *a;
	size_t len = 0;
	struct json j;
	int err;

	if (!f)
		abort();
	if (!size)
		fgetc(f);
	FUZZ_CHECK(!rec_open_stream(&r, f, "fuzz"));
	a = pm_new();
	FUZZ_CHECK(a != NULL);
	FUZZ_CHECK(pm_read(a, &r) == 0);
	input = rec_summary(&r);
	FUZZ_CHECK(input != NULL);
	rep = pm_report(a, "fuzz", input);
	FUZZ_CHECK(rep != NULL);
	pm_free(a);
	json_decref(input);
	rec_close(&r);
	fclose(f);

	f = open_memstream(&buf, &len);
	postmortem_text(f, rep);
	fclose(f);
	fuzz_check_text(buf, len);
	free(buf);

	f = open_memstream(&buf, &len);
	json_init(&j, f, size & 1); /* pretty or not, by the input */
	postmortem_json(&j, rep);
	json_end(&j);
	fclose(f);
	fuzz_check_json(buf, len);
	free(buf);

	f = open_memstream(&buf, &len);
	err = postmortem_yaml(f, rep);
	fclose(f);
	FUZZ_CHECK(!err);
	check_yaml(buf, len);
	free(buf);

	json_decref(rep);
	return 0;
}
