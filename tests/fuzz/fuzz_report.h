/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A post-mortem report in each of its formats (output/postmortem_fmt.h),
 * well-formed: text lines the escape leaves alone, JSON that jansson reads
 * back, YAML that libyaml loads. For the targets that build one
 * (fuzz_postmortem, fuzz_kernel_log).
 */
#ifndef __PPWATCH_FUZZ_REPORT_H
#define __PPWATCH_FUZZ_REPORT_H

#include "fuzz.h"
#include "output/postmortem_fmt.h"

static inline void fuzz_check_report(const json_t *rep, bool pretty)
{
	char *buf = NULL;
	size_t len = 0;
	struct json j;
	FILE *f;

	f = open_memstream(&buf, &len);
	postmortem_text(f, rep);
	fclose(f);
	fuzz_check_text(buf, len);
	free(buf);

	f = open_memstream(&buf, &len);
	json_init(&j, f, pretty);
	postmortem_json(&j, rep);
	json_end(&j);
	fclose(f);
	fuzz_check_json(buf, len);
	free(buf);

	f = open_memstream(&buf, &len);
	FUZZ_CHECK(!postmortem_yaml(f, rep));
	fclose(f);
	fuzz_check_yaml(buf, len);
	free(buf);
}

#endif /* __PPWATCH_FUZZ_REPORT_H */
