// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The four renderings of a check report: text, TAP, JUnit XML and JSON.
 * Every format carries the same facts: the one-line summary of each check
 * and, where there is more (several pools over a limit, the --run
 * post-mortem), the details. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "output/report_fmt.h"

/*
 * Text for people, TAP and XML: names and rules are untrusted, so control
 * characters and bytes that are not UTF-8 go through lib/escape.h; a
 * multi-line field is escaped line by line.
 */
static void put_clean(FILE *f, const char *str, size_t len)
{
	esc_put(f, str, len, NULL);
}

static void put_str(FILE *f, const char *s)
{
	put_clean(f, s, strlen(s));
}

/* ---- renderers ------------------------------------------------------------------ */

int report_format_parse(const char *s, enum report_format *f)
{
	if (!strcmp(s, "text"))
		*f = REPORT_TEXT;
	else if (!strcmp(s, "tap"))
		*f = REPORT_TAP;
	else if (!strcmp(s, "junit") || !strcmp(s, "xml"))
		*f = REPORT_JUNIT;
	else if (!strcmp(s, "json"))
		*f = REPORT_JSON;
	else
		return -EINVAL;
	return 0;
}

static const char *text_tag(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return "PASS ";
	case VERDICT_FAIL:
		return "FAIL ";
	default:
		return "ERROR";
	}
}

static void put_indented(FILE *f, const char *text, const char *indent)
{
	const char *p = text, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		fputs(indent, f);
		put_clean(f, p, nl ? (size_t)(nl - p) : strlen(p));
		fputc('\n', f);
		p = nl ? nl + 1 : NULL;
	}
}

/* details worth printing: several findings, or a --run post-mortem */
static bool has_details(const struct check_result *r)
{
	return r->details && *r->details && (r->nfindings > 1 || !strcmp(r->key, "run"));
}

void report_text(FILE *f, const struct check_report *rep, const struct report_meta *m)
{
	size_t i, p, fl, e;

	for (i = 0; i < rep->n; i++) {
		const struct check_result *r = &rep->r[i];

		fprintf(f, "%s ", text_tag(r->v));
		put_str(f, r->name);
		fputs(": ", f);
		put_str(f, r->what);
		fputs(": ", f);
		put_str(f, r->summary);
		fputc('\n', f);
		if (has_details(r))
			put_indented(f, r->details, "      ");
	}
	report_count(rep, &p, &fl, &e);
	fprintf(f, "ppwatch check: %zu %s, %zu passed, %zu failed", rep->n,
		rep->n == 1 ? "check" : "checks", p, fl);
	if (e)
		fprintf(f, ", %zu could not be checked", e);
	fputc('\n', f);
}

/* a TAP description: no '#' (it starts a directive) and one line */
static void tap_desc(FILE *f, const char *s)
{
	const char *p;

	for (p = s; *p; p++) {
		if (*p == '#') {
			put_clean(f, s, p - s);
			fputs("\\#", f);
			s = p + 1;
		} else if (*p == '\n' || *p == '\t') {
			put_clean(f, s, p - s);
			fputc(' ', f);
			s = p + 1;
		}
	}
	put_str(f, s);
}

/* a double-quoted YAML scalar: the escape, then YAML's backslash quoting */
static void yaml_quoted(FILE *f, const char *str)
{
	fputc('"', f);
	esc_put(f, str, strlen(str), "\"\\");
	fputc('"', f);
}

void report_tap(FILE *f, const struct check_report *rep, const struct report_meta *m)
{
	size_t i;

	fprintf(f, "TAP version 13\n1..%zu\n", rep->n);
	for (i = 0; i < rep->n; i++) {
		const struct check_result *r = &rep->r[i];

		fprintf(f, "%s %zu - ", r->v == VERDICT_PASS ? "ok" : "not ok", i + 1);
		tap_desc(f, r->name);
		fputs(": ", f);
		tap_desc(f, r->what);
		fputs("\n  ---\n  message: ", f);
		yaml_quoted(f, r->summary);
		fprintf(f, "\n  severity: %s\n",
			r->v == VERDICT_PASS ? "none" :
			r->v == VERDICT_FAIL ? "fail" :
					       "error");
		if (r->v == VERDICT_ERROR)
			fputs("  note: \"could not check\"\n", f);
		if (has_details(r)) {
			fputs("  details: |\n", f);
			put_indented(f, r->details, "    ");
		}
		fputs("  ...\n", f);
	}
}

/* XML 1.0 text or attribute, line by line: the escape, then XML's entities */
static void xml_esc(FILE *f, const char *str)
{
	const char *nl;
	size_t len, need;
	char *buf, *p;

	for (; *str; str = nl ? nl + 1 : str + len) {
		nl = strchr(str, '\n');
		len = nl ? (size_t)(nl - str) : strlen(str);
		need = esc_buf(NULL, 0, str, len) + 1;
		buf = malloc(need);
		if (!buf)
			return;
		esc_buf(buf, need, str, len);
		for (p = buf; *p; p++) {
			switch (*p) {
			case '&':
				fputs("&amp;", f);
				break;
			case '<':
				fputs("&lt;", f);
				break;
			case '>':
				fputs("&gt;", f);
				break;
			case '"':
				fputs("&quot;", f);
				break;
			case '\'':
				fputs("&apos;", f);
				break;
			default:
				fputc(*p, f);
			}
		}
		free(buf);
		if (nl)
			fputc('\n', f);
	}
}

void report_junit(FILE *f, const struct check_report *rep, const struct report_meta *m)
{
	size_t i, p, fl, e;

	report_count(rep, &p, &fl, &e);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites name=\"ppwatch check\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"%zu\" time=\"%.3f\">\n",
		rep->n, fl, e, m->duration_s);
	fprintf(f,
		"  <testsuite name=\"ppwatch check\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"%zu\" skipped=\"0\" time=\"%.3f\"",
		rep->n, fl, e, m->duration_s);
	if (m->timestamp) {
		fputs(" timestamp=\"", f);
		xml_esc(f, m->timestamp);
		fputc('"', f);
	}
	if (m->hostname) {
		fputs(" hostname=\"", f);
		xml_esc(f, m->hostname);
		fputc('"', f);
	}
	fputs(">\n", f);
	if (m->rules_file || m->version) {
		fputs("    <properties>\n", f);
		if (m->version) {
			fputs("      <property name=\"ppwatch.version\" value=\"", f);
			xml_esc(f, m->version);
			fputs("\"/>\n", f);
		}
		if (m->rules_file) {
			fputs("      <property name=\"ppwatch.rules\" value=\"", f);
			xml_esc(f, m->rules_file);
			fputs("\"/>\n", f);
		}
		fputs("    </properties>\n", f);
	}
	for (i = 0; i < rep->n; i++) {
		const struct check_result *r = &rep->r[i];
		bool run = !strcmp(r->key, "run");

		fputs("    <testcase classname=\"ppwatch.check.", f);
		xml_esc(f, r->name);
		fputs("\" name=\"", f);
		xml_esc(f, r->what);
		fprintf(f, "\" time=\"%.3f\"", run ? m->duration_s : 0.0);
		if (r->v == VERDICT_PASS && !has_details(r)) {
			fputs("/>\n", f);
			continue;
		}
		fputs(">\n", f);
		if (r->v != VERDICT_PASS) {
			fprintf(f, "      <%s message=\"",
				r->v == VERDICT_FAIL ? "failure" : "error");
			xml_esc(f, r->summary);
			fprintf(f, "\" type=\"%s\">",
				r->v == VERDICT_FAIL ? r->key : "could-not-check");
			xml_esc(f, r->summary);
			fputc('\n', f);
			if (has_details(r))
				xml_esc(f, r->details);
			fprintf(f, "</%s>\n", r->v == VERDICT_FAIL ? "failure" : "error");
		} else {
			fputs("      <system-out>", f);
			xml_esc(f, r->summary);
			fputc('\n', f);
			xml_esc(f, r->details);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
}

void report_json(struct json *j, const struct check_report *rep, const struct report_meta *m)
{
	size_t i, k, p, fl, e;
	int code = report_exit_code(rep);

	report_count(rep, &p, &fl, &e);
	json_kv_str(j, "result", code == 0 ? "pass" : code == 1 ? "fail" : "error");
	json_kv_s64(j, "exit_status", code);
	json_key(j, "summary");
	json_obj_open(j);
	json_kv_u64(j, "checks", rep->n);
	json_kv_u64(j, "passed", p);
	json_kv_u64(j, "failed", fl);
	json_kv_u64(j, "errors", e);
	json_obj_close(j);
	json_key(j, "checks");
	json_arr_open(j);
	for (i = 0; i < rep->n; i++) {
		const struct check_result *r = &rep->r[i];

		json_obj_open(j);
		json_kv_str(j, "rule", r->name);
		json_kv_str(j, "check", r->key);
		json_kv_f64(j, "limit", r->limit);
		json_kv_str(j, "what", r->what);
		json_kv_str(j, "result", verdict_name(r->v));
		json_kv_str(j, "message", r->summary);
		json_kv_u64(j, "pools_checked", r->npools);
		json_key(j, "findings");
		json_arr_open(j);
		for (k = 0; k < r->nfindings; k++) {
			const struct finding *x = &r->findings[k];

			json_obj_open(j);
			json_key(j, "id");
			x->pool_id ? json_u64(j, x->pool_id) : json_put_null(j);
			json_kv_str(j, "pool", x->pool);
			json_kv_str(j, "device", x->device);
			json_kv_f64(j, "value", x->value);
			json_kv_bool(j, "at_least", x->at_least);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}
