// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "model/recording.h"
#include "output/pm_text.h"
#include "output/pm_verdict_fmt.h"
#include "output/pool_verdict_fmt.h"

static enum pv_code code_of(const char *name)
{
	enum pv_code c;

	for (c = PV_UNKNOWN; c <= PV_STUCK; c++)
		if (!strcmp(pool_verdict_name(c), name))
			return c;
	return PV_UNKNOWN;
}

static double age_ended(const json_t *pool)
{
	const json_t *kl = json_object_get(pool, "kernel_log");

	return jnum(kl ? kl : pool, "ended_after_s", NAN);
}

static void facts(const json_t *pool, const json_t *v, struct pv_facts *f)
{
	const json_t *tr = json_object_get(v, "trend"), *kl = json_object_get(pool, "kernel_log");

	memset(f, 0, sizeof(*f));
	f->code = code_of(jstr(v, "verdict", ""));
	f->inflight = jnum(v, "inflight", NAN);
	f->min_inflight = jnum(kl ? kl : pool, "min_inflight", f->inflight);
	f->bytes = jnum(v, "bytes", NAN);
	f->bytes_estimated = json_is_true(json_object_get(v, "bytes_estimated"));
	f->from_age = jnum(tr, "from_age_s", NAN);
	f->from = jnum(tr, "from", NAN);
	f->to_age = jnum(tr, "to_age_s", NAN);
	f->to = jnum(tr, "to", NAN);
	f->steady_s = jnum(tr, "steady_s", NAN);
	f->rate_per_s = jnum(v, "rate_pages_per_s", NAN);
	f->eta_s = jnum(v, "eta_s", NAN);
	f->nholders = json_array_size(json_object_get(v, "holders"));
	json_t *h;
	size_t i;

	json_array_foreach(json_object_get(v, "holders"), i, h)
		f->attributed += jnum(h, "pages", 0);
	f->unattributed = jnum(v, "unattributed", NAN);
	f->driver = json_string_value(json_object_get(v, "driver"));
	f->freed_by = json_string_value(json_object_get(v, "freed_by"));
	f->ended_after_s = age_ended(pool);
	f->rebooted = json_is_true(json_object_get(v, "rebooted"));
}

/* the pool as a command names it: its id, else every pool */
static const char *pool_arg(char *buf, size_t len, const json_t *pool)
{
	double id = jnum(pool, "id", NAN);

	if (id > 0 && id <= UINT32_MAX)
		snprintf(buf, len, " %.0f", id);
	else
		buf[0] = 0;
	return buf;
}

static void next_cmd(json_t *next, const char *fmt, const char *arg)
{
	char buf[160];

	snprintf(buf, sizeof(buf), fmt, arg);
	json_array_append_new(next, json_string(buf));
}

/* what to run next, by verdict and by what the report came from */
static json_t *next_steps(const json_t *rep, const json_t *pool, enum pv_code c)
{
	const json_t *v = json_object_get(pool, "verdict");
	bool live = !strcmp(jstr(rep, "source", ""), "live");
	bool vmcore = !strcmp(jstr(rep, "source", ""), "vmcore");
	bool log_only = !strcmp(jstr(pool, "from", ""), "kernel_log");
	json_t *next = json_array();
	char id[24];

	if (!next)
		return NULL;
	pool_arg(id, sizeof(id), pool);
	if (c == PV_FREED)
		return next;
	if (log_only) {
		switch (c) {
		case PV_ACCOUNTING_BUG:
			next_cmd(next,
				 "on the host: ppwatch pools (the pool whose inflight is "
				 "negative, and its driver)%s",
				 "");
			next_cmd(
				next,
				"before the next unload: ppwatch record -o /var/lib/ppwatch/pp.jsonl "
				"--stacks%s (the release stacks show the path that releases twice)",
				"");
			break;
		case PV_DRAINING:
			next_cmd(next,
				 "on the host: ppwatch watch -e freed%s (says when it is freed)",
				 "");
			next_cmd(next, "ppwatch holders%s (who still holds its pages)", id);
			break;
		default:
			next_cmd(next,
				 "on the host, while it stalls: ppwatch postmortem (links these "
				 "lines to the pool, its holders and what to do)%s",
				 "");
			next_cmd(next, "ppwatch holders%s (who holds its pages)", id);
			next_cmd(
				next,
				"before the next unload: ppwatch record -o /var/lib/ppwatch/pp.jsonl "
				"--stacks%s (the stacks that take and release its pages)",
				"");
		}
		return next;
	}
	switch (c) {
	case PV_HELD:
		if (vmcore)
			next_cmd(
				next,
				"the host is gone: the holders above are who held the pages when "
				"the kernel was dumped; after the reboot, find why that process did "
				"what its remedy names%s",
				"");
		else
			next_cmd(
				next,
				"do what each holder's remedy says, then: ppwatch watch -e freed%s",
				"");
		break;
	case PV_LEAKED:
		next_cmd(next, "ppwatch pages%s (its oldest pages, their ages)", id);
		if (!json_is_true(json_object_get(v, "stacks_recorded")) ||
		    !json_array_size(json_object_get(v, "hold_stacks")))
			next_cmd(
				next,
				"to have the stacks that took its pages next time: ppwatch record -o "
				"/var/lib/ppwatch/pp.jsonl --stacks%s, before the device goes down",
				"");
		next_cmd(next,
			 "the driver's ring: unload or reset the driver (modprobe -r, "
			 "ethtool --reset) to give its pages back%s",
			 "");
		break;
	case PV_ACCOUNTING_BUG:
		next_cmd(
			next,
			"ppwatch record -o /var/lib/ppwatch/pp.jsonl --stacks%s: its release stacks show "
			"the path that released twice",
			"");
		break;
	case PV_DRAINING:
		next_cmd(next, "ppwatch watch -e freed%s (says when it is freed)", "");
		break;
	case PV_STUCK:
	case PV_UNKNOWN:
		if (vmcore)
			next_cmd(
				next,
				"after the reboot, keep ppwatch record running%s: its holder scans "
				"name who holds a pool's pages before the next crash",
				"");
		else
			next_cmd(next,
				 live ? "ppwatch holders%s" : "on the host: ppwatch holders%s", id);
		break;
	case PV_FREED:
		break;
	}
	return next;
}

static int prose_one(const json_t *rep, json_t *pool)
{
	json_t *v = json_object_get(pool, "verdict"), *next;
	struct pv_facts f;
	char buf[1024];

	if (!json_is_object(v))
		return 0;
	facts(pool, v, &f);
	if (f.code == PV_UNKNOWN && !strcmp(jstr(rep, "source", ""), "vmcore"))
		f.unknown_why = "the dump's processes hold none of them: they are where ppwatch "
				"does not read a dump yet (queues, sockets without an fd)";
	pool_verdict_say(buf, sizeof(buf), &f);
	next = next_steps(rep, pool, f.code);
	if (json_object_set_new(v, "summary", json_string(buf)) || !next ||
	    json_object_set_new(v, "next", next))
		return -ENOMEM;
	return 0;
}

int postmortem_prose(json_t *rep)
{
	json_t *pool;
	size_t i;
	int err = 0;

	json_array_foreach(json_object_get(rep, "pools"), i, pool) err = prose_one(rep, pool) ?:
												err;
	json_array_foreach(json_object_get(json_object_get(rep, "kernel_log"), "gone"), i, pool)
		err = prose_one(rep, pool) ?: err;
	return err;
}

/* ---- text ------------------------------------------------------------------------------ */

void pm_text_log_summary(FILE *f, const json_t *rep)
{
	const json_t *kl = json_object_get(rep, "kernel_log"), *fm, *x;
	double stall = jnum(kl, "stall_lines", 0), np = jnum(kl, "pools", 0);
	const char *key;
	char a[32], b[32];
	bool first = true;

	if (!json_is_object(kl))
		return;
	fputs("kernel log ", f);
	put_str(f, kl, "source", "?");
	fprintf(f, ": %s line%s", count_str(a, sizeof(a), jnum(kl, "lines", 0)),
		jnum(kl, "lines", 0) == 1 ? "" : "s");
	fm = json_object_get(kl, "formats");
	/* the forms its lines came in; for /dev/kmsg's own records, none to say */
	if (json_object_size(fm) != 1 || !json_object_get(fm, jstr(kl, "source", ""))) {
		fputs(" (", f);
		json_object_foreach((json_t *)fm, key, x)
		{
			fprintf(f, "%s%s %s", first ? "" : ", ", key,
				count_str(b, sizeof(b), json_number_value(x)));
			first = false;
		}
		fprintf(f, "%s)", first ? "none" : "");
	}
	if (jnum(kl, "boots", 0) > 1)
		fprintf(f, ", %s boots", count_str(a, sizeof(a), jnum(kl, "boots", 0)));
	if (json_is_string(json_object_get(kl, "kernel"))) {
		fputs(", kernel ", f);
		put_str(f, kl, "kernel", "");
	}
	if (stall > 0)
		fprintf(f, ": %s \"stalled pool shutdown\" line%s of %s pool%s\n",
			count_str(a, sizeof(a), stall), stall == 1 ? "" : "s",
			count_str(b, sizeof(b), np), np == 1 ? "" : "s");
	else
		fputs(": no \"stalled pool shutdown\" line\n", f);
	if (jnum(kl, "unread_lines", 0) > 0) {
		x = json_object_get(kl, "unread_first");
		fprintf(f,
			"%s line%s it without an inflight and a sec ppwatch can read; the "
			"first, line %s: ",
			count_str(a, sizeof(a), jnum(kl, "unread_lines", 0)),
			jnum(kl, "unread_lines", 0) == 1 ? " says" : "s say",
			count_str(b, sizeof(b), jnum(x, "line", 0)));
		put_str(f, x, "text", "");
		fputc('\n', f);
	}
	if (jnum(kl, "negative_warnings", 0) > 0)
		fprintf(f,
			"the kernel warned %s time%s of a negative inflight (the first: %s): a "
			"page released twice\n",
			count_str(a, sizeof(a), jnum(kl, "negative_warnings", 0)),
			jnum(kl, "negative_warnings", 0) == 1 ? "" : "s",
			count_str(b, sizeof(b), jnum(kl, "negative_first", 0)));
	if (jnum(kl, "lines_not_grouped", 0) > 0)
		fprintf(f, "%s lines of pools past the first %s not grouped\n",
			count_str(a, sizeof(a), jnum(kl, "lines_not_grouped", 0)),
			count_str(b, sizeof(b), np));
}

static void put_holders(FILE *f, const json_t *v)
{
	const json_t *h;
	char a[32];
	size_t i;

	json_array_foreach(json_object_get(v, "holders"), i, h)
	{
		fprintf(f, "    %s %s  ", count_str(a, sizeof(a), jnum(h, "pages", 0)),
			jnum(h, "pages", 0) == 1 ? "page" : "pages");
		put_str(f, h, "holder", "?");
		fputc('\n', f);
		if (json_is_string(json_object_get(h, "remedy"))) {
			fputs("      what to do: ", f);
			put_str(f, h, "remedy", "");
			fputc('\n', f);
		}
	}
}

static void put_stacks(FILE *f, const json_t *v)
{
	const json_t *st = json_object_get(v, "hold_stacks"), *s;
	char a[32];
	size_t i;

	if (json_array_size(st)) {
		fputs("    its pages were taken at (sampled hold stacks):\n", f);
		json_array_foreach(st, i, s)
		{
			fprintf(f, "      %s:", count_str(a, sizeof(a), jnum(s, "count", 0)));
			put_frames(f, json_object_get(s, "frames"));
		}
	} else if (json_is_false(json_object_get(v, "stacks_recorded"))) {
		fputs("    no stacks were recorded: the recorder ran without --stacks\n", f);
	}
}

bool pm_verdict_is(const json_t *pool, const char *verdict)
{
	return !strcmp(jstr(json_object_get(pool, "verdict"), "verdict", ""), verdict);
}

void pm_text_verdict(FILE *f, const json_t *pool)
{
	const json_t *v = json_object_get(pool, "verdict"), *x;
	size_t i;

	if (!json_is_object(v))
		return;
	fputs("  verdict: ", f);
	put_str(f, v, "summary", jstr(v, "verdict", "?"));
	fputc('\n', f);
	put_holders(f, v);
	if (!strcmp(jstr(v, "verdict", ""), "leaked"))
		put_stacks(f, v);
	json_array_foreach(json_object_get(v, "next"), i, x)
	{
		fputs(i ? "        " : "  next: ", f);
		esc_put(f, json_string_value(x), strlen(json_string_value(x)), NULL);
		fputc('\n', f);
	}
}

static void put_line_ref(FILE *f, const json_t *l)
{
	char a[32];

	if (json_is_string(json_object_get(l, "time")))
		put_str(f, l, "time", "");
	else
		fprintf(f, "line %s", count_str(a, sizeof(a), jnum(l, "line", 0)));
}

static void put_match(FILE *f, const json_t *m)
{
	const json_t *x;
	char a[32];
	size_t i, n;

	if (!json_is_object(m))
		return;
	fputs("    linked by its ", f);
	n = json_array_size(json_object_get(m, "by"));
	json_array_foreach(json_object_get(m, "by"), i, x)
	{
		const char *w = json_string_value(x);

		fprintf(f, "%s%s",
			!i	   ? "" :
			i + 1 == n ? " and " :
				     ", ",
			!strcmp(w, "destroy_time") ? "destroy time" :
			!strcmp(w, "inflight")	   ? "inflight at the line's age" :
			!strcmp(w, "age")	   ? "age (warned about within the minute)" :
						     w);
	}
	fputs(": ", f);
	put_str(f, m, "confidence", "?");
	if (json_is_true(json_object_get(m, "ambiguous"))) {
		fputs(", as well fit:", f);
		json_array_foreach(json_object_get(m, "candidates"), i, x)
		{
			if (json_is_number(x))
				fprintf(f, " %s", count_str(a, sizeof(a), json_number_value(x)));
			else if (json_is_string(x))
				fprintf(f, " %s", json_string_value(x));
		}
	}
	if (json_is_number(json_object_get(m, "zone_shift_s")))
		fprintf(f, "; the log's local times are %s off this zone's: not compared",
			fmt_age(a, sizeof(a), fabs(jnum(m, "zone_shift_s", 0))));
	if (json_is_true(json_object_get(m, "shared")))
		fputs(", another group of lines took this pool first", f);
	json_array_foreach(json_object_get(m, "conflicts"), i, x)
	{
		if (!strcmp(json_string_value(x), "destroy_time"))
			fprintf(f, ", but the destroy times differ by %s: the log of another boot?",
				fmt_age(a, sizeof(a), jnum(m, "destroy_times_apart_s", NAN)));
		else
			fputs(", but the recording's inflight at the line's age is not the line's",
			      f);
	}
	fputc('\n', f);
}

static void put_log(FILE *f, const json_t *kl)
{
	const json_t *first = json_object_get(kl, "first"), *last = json_object_get(kl, "last"),
		     *pt;
	const json_t *pts = json_object_get(kl, "inflight_by_sec");
	double lines = jnum(kl, "lines", 0);
	char a[32], b[32];
	size_t i, n = json_array_size(pts);

	fprintf(f, "  kernel log: %s line%s, ", count_str(a, sizeof(a), lines),
		lines == 1 ? "" : "s");
	put_line_ref(f, first);
	if (lines > 1) {
		fputs(" to ", f);
		put_line_ref(f, last);
		fprintf(f, " (%s and %s after the destroy)",
			fmt_age(a, sizeof(a), jnum(first, "sec", NAN)),
			fmt_age(b, sizeof(b), jnum(last, "sec", NAN)));
	} else {
		fprintf(f, " (%s after the destroy)",
			fmt_age(a, sizeof(a), jnum(first, "sec", NAN)));
	}
	fputc('\n', f);
	if (n > 1) {
		fputs("    inflight:", f);
		json_array_foreach(pts, i, pt)
		{
			if (i == 6 && n > 8) {
				fputs(" ...", f);
				i = n - 2;
				continue;
			}
			if (i > 6 && i < n - 2)
				continue;
			fprintf(f, "%s %s at %s", i ? "," : "",
				count_str(a, sizeof(a), json_number_value(json_array_get(pt, 1))),
				fmt_age(b, sizeof(b), json_number_value(json_array_get(pt, 0))));
		}
		fputc('\n', f);
	} else if (lines > 1) {
		fprintf(f, "    inflight %s at every line\n",
			count_str(a, sizeof(a), jnum(last, "inflight", 0)));
	}
	if (json_is_true(json_object_get(kl, "destroyed_together")))
		fputs("    destroyed in the same second as another pool: their lines told apart by "
		      "order\n",
		      f);
	fputs("    last: ", f);
	put_str(f, last, "text", "");
	fputc('\n', f);
	put_match(f, json_object_get(kl, "match"));
}

void pm_text_kernel_log(FILE *f, const json_t *pool)
{
	const json_t *kl = json_object_get(pool, "kernel_log"), *x;
	size_t i;

	if (json_is_object(kl))
		put_log(f, kl);
	json_array_foreach(json_object_get(pool, "kernel_log_also"), i, x) put_log(f, x);
}

static void log_pool_title(FILE *f, const json_t *kl)
{
	char a[32];

	if (json_is_number(json_object_get(kl, "id"))) {
		fprintf(f, "pool %s", count_str(a, sizeof(a), jnum(kl, "id", 0)));
	} else {
		/* before 6.8 the line names no pool: told apart by when it was destroyed */
		fputs("pool (no id: the kernel's line has none before 6.8)", f);
		if (!isnan(jnum(kl, "destroyed_printk_s", NAN)))
			fprintf(f, " destroyed at [%12.6f]", jnum(kl, "destroyed_printk_s", 0));
		if (!isnan(jnum(json_object_get(kl, "first"), "inflight", NAN)))
			fprintf(f, ", %s inflight at its first line",
				count_str(a, sizeof(a),
					  jnum(json_object_get(kl, "first"), "inflight", 0)));
	}
	if (json_is_string(json_object_get(kl, "device"))) {
		fputc(' ', f);
		put_str(f, kl, "device", "");
	}
	if (jnum(kl, "boot", 0) > 0)
		fprintf(f, " (boot %s of the log)",
			count_str(a, sizeof(a), jnum(kl, "boot", 0) + 1));
}

void pm_text_log_pool(FILE *f, const json_t *pool)
{
	log_pool_title(f, json_object_get(pool, "kernel_log"));
	fputs(pm_verdict_is(pool, "freed") ? ", from the kernel log  stalled, freed since\n" :
					     ", from the kernel log  STALLED\n",
	      f);
	pm_text_verdict(f, pool);
	pm_text_kernel_log(f, pool);
}

void pm_text_gone(FILE *f, const json_t *rep)
{
	const json_t *gone = json_object_get(json_object_get(rep, "kernel_log"), "gone"), *g;
	char a[32], b[32];
	size_t i, n = json_array_size(gone);

	if (!n)
		return;
	fprintf(f,
		"\n%zu more pool%s of the kernel log %s gone: no pool on this host fits %s now\n",
		n, n == 1 ? "" : "s", n == 1 ? "is" : "are", n == 1 ? "it" : "them");
	json_array_foreach(gone, i, g)
	{
		const json_t *last = json_object_get(g, "last");

		fputs("  ", f);
		log_pool_title(f, g);
		fprintf(f, ": %s line%s to ", count_str(a, sizeof(a), jnum(g, "lines", 0)),
			jnum(g, "lines", 0) == 1 ? "" : "s");
		put_line_ref(f, last);
		fprintf(f, ", %s inflight %s after the destroy; freed since\n",
			count_str(a, sizeof(a), jnum(last, "inflight", 0)),
			fmt_age(b, sizeof(b), jnum(last, "sec", NAN)));
	}
}
