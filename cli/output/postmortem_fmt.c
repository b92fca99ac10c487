// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yaml.h>

#include "lib/escape.h"
#include "lib/log.h"
#include "lib/util.h"
#include "model/dump_level.h"
#include "model/postmortem.h"
#include "model/recording.h"
#include "output/pm_text.h"
#include "output/pm_verdict_fmt.h"
#include "output/postmortem_fmt.h"

/* ---- text ---------------------------------------------------------------------- */

/*
 * A recorded Unix time as the local HH:MM:SS.mmm; "?" for one no clock
 * shows (a recording may hold any number: no cast without a range check).
 */
static const char *clock_str(char *buf, size_t len, double t)
{
	struct tm tm;
	double s;
	time_t ts;
	int ms;

	if (isnan(t)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (!(t >= 0 && t < 1e11)) {
		snprintf(buf, len, "?");
		return buf;
	}
	s = floor(t);
	ts = (time_t)s;
	ms = (int)((t - s) * 1000);
	if (!localtime_r(&ts, &tm)) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 ms > 999 ? 999 : ms);
	return buf;
}

static void text_timeline(FILE *f, const json_t *tl)
{
	const json_t *e;
	char a[32];
	size_t i;

	fprintf(f, "  timeline:\n");
	json_array_foreach(tl, i, e)
	{
		fprintf(f, "    %s  ", clock_str(a, sizeof(a), jnum(e, "time", NAN)));
		put_str(f, e, "event", "");
		fputc(' ', f);
		put_str(f, e, "detail", "");
		fprintf(f, "%s\n", json_is_true(json_object_get(e, "derived")) ? " (derived)" : "");
	}
}

/* what the reader could not read, and what it read differently */
static void text_input(FILE *f, const json_t *in)
{
	const json_t *files = json_object_get(in, "files"), *x, *d, *cut;
	double damaged = jnum(in, "damaged_lines", 0), escaped = 0, unknown = 0;
	size_t i, j, n = json_array_size(files), shown = 0;
	bool header = false;
	char a[32];

	if (n > 1) {
		fprintf(f, "read %zu files, oldest first:", n);
		json_array_foreach(files, i, x)
		{
			fputs(i ? ", " : " ", f);
			put_str(f, x, "name", "?");
		}
		fprintf(f, " (%s record%s)\n", count_str(a, sizeof(a), jnum(in, "records", 0)),
			jnum(in, "records", 0) == 1 ? "" : "s");
	}
	json_array_foreach(files, i, x)
	{
		header |= json_is_true(json_object_get(x, "header"));
		escaped += jnum(x, "escaped_lines", 0);
		unknown += jnum(x, "unknown_records", 0);
		cut = json_object_get(x, "cut");
		if (!json_is_object(cut))
			continue;
		put_str(f, x, "name", "?");
		fprintf(f, " is cut at byte %s: its last record is incomplete\n",
			count_str(a, sizeof(a), jnum(cut, "at_byte", 0)));
	}
	if (damaged > 0) {
		fprintf(f, "%s damaged line%s skipped:", count_str(a, sizeof(a), damaged),
			damaged == 1 ? "" : "s");
		json_array_foreach(files, i, x)
		{
			json_array_foreach(json_object_get(x, "damaged"), j, d)
			{
				fputs(shown++ ? "; " : " ", f);
				put_str(f, x, "name", "?");
				fprintf(f, ":%s (", count_str(a, sizeof(a), jnum(d, "line", 0)));
				put_str(f, d, "why", "");
				fputc(')', f);
			}
		}
		fprintf(f, "%s\n", shown < damaged ? "; ..." : "");
	}
	if (escaped > 0)
		fprintf(f, "%s line%s had bytes that are not UTF-8: read, shown as \\xHH\n",
			count_str(a, sizeof(a), escaped), escaped == 1 ? "" : "s");
	if (unknown > 0)
		fprintf(f, "%s record%s of a type this ppwatch does not know: skipped\n",
			count_str(a, sizeof(a), unknown), unknown == 1 ? "" : "s");
	if (n && !header)
		fprintf(f, "no header record: not from 'ppwatch record', or its first line is "
			   "damaged\n");
}

static void text_details(FILE *f, const json_t *p)
{
	const json_t *h = json_object_get(p, "holders"), *pg = json_object_get(p, "oldest_pages");
	const json_t *st = json_object_get(p, "release_stacks"), *x;
	char a[32], b[32];
	size_t i;
	double age;

	if (json_is_object(h)) {
		fprintf(f, "  holders (scan at %s):\n",
			clock_str(a, sizeof(a), jnum(h, "time", NAN)));
		json_array_foreach(json_object_get(h, "holders"), i, x)
		{
			fprintf(f, "    %7s pages  ", count_str(b, sizeof(b), jnum(x, "pages", 0)));
			put_str(f, x, "holder", "");
			fputc('\n', f);
		}
	}
	if (json_array_size(pg)) {
		fprintf(f, "  oldest pages:\n");
		json_array_foreach(pg, i, x)
		{
			if (i == 5)
				break;
			age = jnum(x, "age_s", NAN);
			fputs("    ", f);
			put_str(f, x, "netmem", "");
			fprintf(f, "  age %s%s  ",
				json_is_true(json_object_get(x, "age_is_lower_bound")) ? ">" : "",
				isnan(age) ? "?" : fmt_age(b, sizeof(b), age));
			put_str(f, x, "holder", "-");
			fputc('\n', f);
		}
	}
	if (json_array_size(st)) {
		fprintf(f, "  the last pages were released by:\n");
		json_array_foreach(st, i, x)
		{
			if (i == 3)
				break;
			fprintf(f, "    %s pages:", count_str(b, sizeof(b), jnum(x, "count", 0)));
			put_frames(f, json_object_get(x, "frames"));
		}
	}
}

/* the item blocks (the item-block series), as 'ppwatch blocks' counts them */
static void text_blocks(FILE *f, const json_t *o)
{
	char a[32], b[32], c[32];

	if (!json_is_object(o))
		return;
	fprintf(f, "  item blocks: %s of %s items track a page, ",
		count_str(a, sizeof(a), jnum(o, "items_used", 0)),
		count_str(b, sizeof(b), jnum(o, "items", 0)));
	fprintf(f, "in %s pre-allocated and %s dynamic blocks ",
		count_str(a, sizeof(a), jnum(o, "blocks_prealloc", 0)),
		count_str(b, sizeof(b), jnum(o, "blocks_dynamic", 0)));
	fprintf(f, "(%s a block); %s sparse, %s unissued%s\n",
		count_str(a, sizeof(a), jnum(o, "items_per_block", 0)),
		count_str(b, sizeof(b), jnum(o, "sparse_blocks", 0)),
		count_str(c, sizeof(c), jnum(o, "items_unissued", 0)),
		json_is_true(json_object_get(o, "truncated")) ? "; not every block read" : "");
}

static void text_pool(FILE *f, const json_t *p)
{
	const json_t *ser = json_object_get(p, "inflight_over_time"), *pt;
	const json_t *dma = json_object_get(p, "dma");
	char a[32], b[32];
	size_t i, n;

	/* what every command calls it: its id, else "x" its XDP memory id, else "@" its address */
	if (json_is_string(json_object_get(p, "pool")))
		fprintf(f, "pool %s ", jstr(p, "pool", "?"));
	else
		fprintf(f, "pool %s ", count_str(a, sizeof(a), jnum(p, "id", 0)));
	put_str(f, p, "device", "-");
	fputs(" (", f);
	put_str(f, p, "state", "?");
	if (json_is_string(json_object_get(p, "driver"))) {
		fputs(", driver ", f);
		put_str(f, p, "driver", "");
	}
	fprintf(f, ", netns %s)%s\n", count_str(a, sizeof(a), jnum(p, "netns", 0)),
		!json_is_true(json_object_get(p, "stalled")) ? "" :
		pm_verdict_is(p, "freed")		     ? "  stalled, freed since" :
							       "  STALLED");
	fprintf(f, "  inflight %s pages ", count_str(a, sizeof(a), jnum(p, "inflight", 0)));
	fprintf(f, "(%s)", fmt_bytes(a, sizeof(a), jnum(p, "inflight_bytes", 0)));
	if (!isnan(jnum(p, "detach_age_s", NAN))) {
		fprintf(f, ", destroyed %s ago, ",
			fmt_age(b, sizeof(b), jnum(p, "detach_age_s", 0)));
		fprintf(f, "%s retries", count_str(a, sizeof(a), jnum(p, "retries", 0)));
	}
	fputs("; DMA ", f);
	put_str(f, dma, "state", "unknown");
	fputc('\n', f);
	text_blocks(f, json_object_get(p, "block_occupancy"));
	pm_text_verdict(f, p);
	pm_text_kernel_log(f, p);
	text_timeline(f, json_object_get(p, "timeline"));
	if (jnum(p, "events_not_listed", 0) > 0)
		fprintf(f, "    (%s more events not listed: of each kind that repeats, %d are)\n",
			count_str(a, sizeof(a), jnum(p, "events_not_listed", 0)), PM_MINOR_MAX);
	n = json_array_size(ser);
	if (n) {
		fprintf(f, "  inflight over time:");
		json_array_foreach(ser, i, pt)
		{
			if (i == 12)
				break;
			fprintf(f, " %s %s%s",
				clock_str(a, sizeof(a), json_number_value(json_array_get(pt, 0))),
				count_str(b, sizeof(b), json_number_value(json_array_get(pt, 1))),
				i + 1 < n && i < 11 ? "," : "");
		}
		fprintf(f, "%s", n > 12 ? " ..." : "");
		if (jnum(p, "inflight_over_time_dropped", 0) > 0)
			fprintf(f, " (the last %zu changes; %s before them not kept)", n,
				count_str(a, sizeof(a), jnum(p, "inflight_over_time_dropped", 0)));
		fputc('\n', f);
	}
	text_details(f, p);
}

/* what each recorder run covers, and how one ended that has no end record */
static void text_runs(FILE *f, const json_t *rep)
{
	const json_t *runs = json_object_get(rep, "runs"), *r;
	char a[32], b[32], c[32];
	const char *end;
	size_t i;

	if (!strcmp(jstr(rep, "source", ""), "live") || json_object_get(rep, "vmcore"))
		return; /* this window, ended now; a dump: one instant */
	json_array_foreach(runs, i, r)
	{
		end = jstr(r, "end", "");
		fprintf(f, "recorded from %s to %s (%s)",
			clock_str(a, sizeof(a), jnum(r, "from", NAN)),
			clock_str(b, sizeof(b), jnum(r, "to", NAN)),
			fmt_age(c, sizeof(c), jnum(r, "to", NAN) - jnum(r, "from", NAN)));
		if (!strcmp(end, "rebooted"))
			fputs(": no end record, and the host booted since: the recorder ended with "
			      "it (a crash, a power cut or a reboot)",
			      f);
		else if (!strcmp(end, "running"))
			fputs(": no end record yet: its recorder is still running", f);
		else if (!strcmp(end, "killed"))
			fputs(": no end record: the recorder was killed (SIGKILL, the OOM killer) or "
			      "crashed; what it had written is all there is",
			      f);
		else if (!strcmp(end, "no_end"))
			fputs(": no end record: the recorder was killed, crashed or still runs (read "
			      "it on the host and boot that recorded it to tell which)",
			      f);
		else if (!strcmp(end, "error"))
			fputs(": the recorder ended on an error (its stderr said which)", f);
		fputc('\n', f);
	}
}

/* a crash dump: what was read of it, and what ppwatch does not read from one yet */
static void text_vmcore(FILE *f, const json_t *v)
{
	const json_t *x, *sc;
	char a[32], b[32], c[32], d[32];
	size_t i;

	if (!json_is_object(v))
		return;
	fputs("crash dump ", f);
	put_str(f, v, "file", "?");
	fprintf(f, " (%s, %s, ", jstr(v, "format", "?"),
		fmt_bytes(a, sizeof(a), jnum(v, "bytes", NAN)));
	put_str(f, v, "arch", "?");
	fputs("): kernel ", f);
	put_str(f, v, "osrelease", "?");
	fprintf(f, ", symbols from %s, BTF %s from its memory, clock %s\n", jstr(v, "symbols", "?"),
		fmt_bytes(b, sizeof(b), jnum(v, "btf_bytes", NAN)),
		json_is_string(json_object_get(v, "clock")) ?
			"the timekeeper's (at its last update)" :
			"unknown: no ages");
	if (json_is_integer(json_object_get(v, "dump_level"))) {
		char ex[64];
		int lv = (int)json_integer_value(json_object_get(v, "dump_level"));

		/*
		 * No class a level leaves out holds what ppwatch reads, if the
		 * tool that wrote the dump knew the kernel's page classes: a
		 * makedumpfile older than the kernel ("The kernel version is not
		 * supported") may take slab pages for free or user ones
		 */
		fprintf(f, "makedumpfile dump level %d: %s%s\n", lv,
			lv ? dl_excluded(lv, ex, sizeof(ex)) : "every page kept",
			!lv ? "" :
			jnum(v, "unreadable", 0) > 0 ?
			      " pages left out, and kernel memory ppwatch reads with them (below): "
			      "the tool that saved it may not know this kernel's page classes (a "
			      "makedumpfile older than the kernel); a dump at level 1 has it all" :
			      " pages left out, none of them memory ppwatch reads");
	}
	sc = json_object_get(v, "page_scan");
	if (sc)
		fprintf(f,
			"%s pools found by their pages (no page_pools xarray: %s struct pages read, %s of them a pool's, %s not in the dump)",
			count_str(a, sizeof(a), jnum(v, "pools", 0)),
			count_str(b, sizeof(b), jnum(sc, "pages", 0)),
			count_str(c, sizeof(c), jnum(sc, "pool_pages", 0)),
			count_str(d, sizeof(d), jnum(sc, "missing", 0)));
	else
		fprintf(f, "%s pools in the kernel's %s",
			count_str(a, sizeof(a), jnum(v, "pools", 0)), jstr(v, "list", "?"));
	if (jnum(v, "unreadable", 0) > 0) {
		fprintf(f, ", %s not in the dump (",
			count_str(b, sizeof(b), jnum(v, "unreadable", 0)));
		put_str(f, v, "first_error", "?");
		fputc(')', f);
	}
	fputs("; the pools with pages out, live ones too\n", f);
	fputs("not read from a dump yet:", f);
	json_array_foreach(json_object_get(v, "not_read"), i, x)
		fprintf(f, "%s %s", i ? "," : "", json_string_value(x) ?: "?");
	fputs(" (ppwatch-postmortem(8) CRASH DUMPS)\n", f);
}

/* what the recorder could not take: one line a gap */
static void text_gaps(FILE *f, const json_t *rep)
{
	const json_t *g;
	char a[32], b[32], c[32];
	size_t i;

	json_array_foreach(json_object_get(rep, "gaps"), i, g)
	{
		if (!strcmp(jstr(g, "what", ""), "writing"))
			continue; /* said with the records lost */
		fputs("the recorder's ", f);
		put_str(f, g, "what", "?");
		fprintf(f, " failed %s time%s from %s ",
			count_str(a, sizeof(a), jnum(g, "failures", 0)),
			jnum(g, "failures", 0) == 1 ? "" : "s",
			clock_str(b, sizeof(b), jnum(g, "since", NAN)));
		if (isnan(jnum(g, "until", NAN)))
			fputs("on (it had not ended) (", f);
		else
			fprintf(f, "to %s (", clock_str(c, sizeof(c), jnum(g, "until", NAN)));
		put_str(f, g, "error", "?");
		fputs(")\n", f);
	}
	if (jnum(rep, "gaps_not_listed", 0) > 0)
		fprintf(f, "and %s more gaps\n",
			count_str(a, sizeof(a), jnum(rep, "gaps_not_listed", 0)));
}

void postmortem_text(FILE *f, const json_t *rep)
{
	const json_t *pools = json_object_get(rep, "pools"),
		     *vmcore = json_object_get(rep, "vmcore"), *p;
	size_t i, n = json_array_size(pools);
	/* parts of a dump's pool list it lacks (its pools not known) */
	double unread = jnum(vmcore, "unreadable", 0);
	char a[32], b[32];

	if (json_is_true(json_object_get(json_object_get(rep, "kernel_log"), "alone"))) {
		/* a saved log alone */
		fputs("ppwatch post-mortem of a kernel log: ", f);
		fprintf(f, "%zu pool%s\n", n, n == 1 ? "" : "s");
	} else {
		fputs("ppwatch post-mortem (", f);
		put_str(f, rep, "source", "?");
		fprintf(f, ", %s, stall after %ss): %zu pool%s\n",
			clock_str(a, sizeof(a), jnum(rep, "time", NAN)),
			count_str(b, sizeof(b), jnum(rep, "stall_after_s", 60)), n,
			n == 1 ? "" : "s");
	}
	text_input(f, json_object_get(rep, "input"));
	text_vmcore(f, vmcore);
	if (jnum(rep, "lost_records", 0) > 0) {
		fprintf(f, "the recorder could not write %s record%s (",
			count_str(a, sizeof(a), jnum(rep, "lost_records", 0)),
			jnum(rep, "lost_records", 0) == 1 ? "" : "s");
		put_str(f, rep, "lost_why", "?");
		fprintf(f, "): the recording has gaps\n");
	}
	text_runs(f, rep);
	text_gaps(f, rep);
	pm_text_log_summary(f, rep);
	if (!n && unread > 0)
		fprintf(f,
			"no pool with pages out among those the dump has; %s of the pool list "
			"not in it (above): the pools there are not known\n",
			count_str(a, sizeof(a), unread));
	else if (!n && vmcore)
		fprintf(f, "no pool with pages out\n");
	else if (!n && json_object_get(rep, "input"))
		fprintf(f, "no destroyed pool with pages out, none freed in the recording\n");
	else if (!n && !json_object_get(rep, "kernel_log"))
		fprintf(f, "no destroyed pool with pages out\n");
	json_array_foreach(pools, i, p)
	{
		fputc('\n', f);
		if (!strcmp(jstr(p, "from", ""), "kernel_log"))
			pm_text_log_pool(f, p);
		else
			text_pool(f, p);
	}
	pm_text_gone(f, rep);
}

/* ---- JSON ------------------------------------------------------------------------ */

void postmortem_json(struct json *j, const json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_obj_open(j);
		json_object_foreach((json_t *)v, key, x)
		{
			json_key(j, key);
			postmortem_json(j, x);
		}
		json_obj_close(j);
		break;
	case JSON_ARRAY:
		json_arr_open(j);
		json_array_foreach(v, i, x) postmortem_json(j, x);
		json_arr_close(j);
		break;
	case JSON_STRING:
		json_str(j, json_string_value(v));
		break;
	case JSON_INTEGER:
		json_s64(j, json_integer_value(v));
		break;
	case JSON_REAL:
		json_f64(j, json_real_value(v));
		break;
	case JSON_TRUE:
		json_bool(j, true);
		break;
	case JSON_FALSE:
		json_bool(j, false);
		break;
	case JSON_NULL:
		json_put_null(j);
		break;
	}
}

/* ---- YAML --------------------------------------------------------------------------- */

struct ymit {
	yaml_emitter_t e;
	const char *why; /* the first failure */
};

/* emit an event the caller initialized ('ok': its initialize call's result) */
static int emit(struct ymit *y, yaml_event_t *ev, int ok)
{
	if (!ok) {
		y->why = "an event could not be made (a string that is not UTF-8?)";
		return -EIO;
	}
	if (!yaml_emitter_emit(&y->e, ev)) {
		y->why = y->e.problem ? y->e.problem : "the emitter failed";
		return -EIO;
	}
	return 0;
}

/* a scalar: text through lib/escape.h, so libyaml always gets UTF-8 */
static int scalar(struct ymit *y, const char *s, bool quoted)
{
	size_t len = strlen(s), need = esc_buf(NULL, 0, s, len) + 1;
	yaml_event_t ev;
	char *buf = malloc(need);
	int err;

	if (!buf) {
		y->why = strerror(ENOMEM);
		return -ENOMEM;
	}
	esc_buf(buf, need, s, len);
	err = emit(y, &ev,
		   yaml_scalar_event_initialize(
			   &ev, NULL, NULL, (yaml_char_t *)buf, (int)strlen(buf), !quoted, quoted,
			   quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE));
	free(buf);
	return err;
}

static int yaml_value(struct ymit *y, const json_t *v)
{
	yaml_event_t ev;
	const char *key;
	char buf[40];
	json_t *x;
	size_t i;
	int err;

	switch (json_typeof(v)) {
	case JSON_NULL:
		return scalar(y, "null", false);
	case JSON_TRUE:
		return scalar(y, "true", false);
	case JSON_FALSE:
		return scalar(y, "false", false);
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return scalar(y, buf, false);
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.15g", json_real_value(v));
		return scalar(y, buf, false);
	case JSON_STRING:
		return scalar(y, json_string_value(v), true);
	case JSON_ARRAY:
		err = emit(y, &ev,
			   yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
								YAML_BLOCK_SEQUENCE_STYLE));
		json_array_foreach(v, i, x) err = err ?: yaml_value(y, x);
		return err ?: emit(y, &ev, yaml_sequence_end_event_initialize(&ev));
	case JSON_OBJECT:
		err = emit(y, &ev,
			   yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							       YAML_BLOCK_MAPPING_STYLE));
		json_object_foreach((json_t *)v, key, x)
		{
			err = err ?: scalar(y, key, false);
			err = err ?: yaml_value(y, x);
		}
		return err ?: emit(y, &ev, yaml_mapping_end_event_initialize(&ev));
	}
	return 0;
}

int postmortem_yaml(FILE *f, const json_t *rep)
{
	struct ymit y = { 0 };
	yaml_event_t ev;
	int err;

	if (!yaml_emitter_initialize(&y.e))
		return -ENOMEM;
	yaml_emitter_set_output_file(&y.e, f);
	yaml_emitter_set_unicode(&y.e, 1);
	err = emit(&y, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	err = err ?: emit(&y, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0));
	err = err ?: yaml_value(&y, rep);
	err = err ?: emit(&y, &ev, yaml_document_end_event_initialize(&ev, 1));
	err = err ?: emit(&y, &ev, yaml_stream_end_event_initialize(&ev));
	if (!err && !yaml_emitter_flush(&y.e)) {
		y.why = y.e.problem ? y.e.problem : "writing failed";
		err = -EIO;
	}
	yaml_emitter_delete(&y.e);
	if (err)
		p_err("postmortem: YAML: %s", y.why);
	return err;
}
