// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <yaml.h>

#include "lib/util.h"
#include "output/postmortem_fmt.h"

/* ---- text ---------------------------------------------------------------------- */

static const char *clock_str(char *buf, size_t len, double t)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (isnan(t)) {
		snprintf(buf, len, "-");
		return buf;
	}
	localtime_r(&s, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)((t - s) * 1000));
	return buf;
}

static void text_pool(FILE *f, const struct jv *p)
{
	const struct jv *tl = jv_get(p, "timeline"), *h = jv_get(p, "holders");
	const struct jv *pg = jv_get(p, "oldest_pages"), *st = jv_get(p, "release_stacks");
	const struct jv *ser = jv_get(p, "inflight_over_time"), *dma = jv_get(p, "dma");
	char a[32], b[32];
	size_t i, j;

	fprintf(f, "pool %.0f %s (%s%s, netns %.0f)%s\n", jv_num(jv_get(p, "id"), 0),
		jv_str(jv_get(p, "device"), "-"), jv_str(jv_get(p, "state"), "?"),
		jv_get(p, "driver") && !jv_is_null(jv_get(p, "driver")) ? ", driver " : "",
		jv_num(jv_get(p, "netns"), 0), jv_get(p, "stalled")->b ? "  STALLED" : "");
	fprintf(f, "  inflight %.0f pages (%s)", jv_num(jv_get(p, "inflight"), 0),
		fmt_bytes(a, sizeof(a), jv_num(jv_get(p, "inflight_bytes"), 0)));
	if (!isnan(jv_num(jv_get(p, "detach_age_s"), NAN)))
		fprintf(f, ", destroyed %s ago, %.0f retries",
			fmt_age(b, sizeof(b), jv_num(jv_get(p, "detach_age_s"), 0)),
			jv_num(jv_get(p, "retries"), 0));
	fprintf(f, "; DMA %s\n", jv_str(jv_get(dma, "state"), "unknown"));
	fprintf(f, "  timeline:\n");
	for (i = 0; tl && i < tl->n; i++) {
		const struct jv *e = &tl->items[i];

		fprintf(f, "    %s  %-8s %s%s\n",
			clock_str(a, sizeof(a), jv_num(jv_get(e, "time"), NAN)),
			jv_str(jv_get(e, "event"), ""), jv_str(jv_get(e, "detail"), ""),
			jv_get(e, "derived") ? " (derived)" : "");
	}
	if (ser && ser->n) {
		fprintf(f, "  inflight over time:");
		for (i = 0; i < ser->n && i < 12; i++)
			fprintf(f, " %s %.0f%s",
				clock_str(a, sizeof(a), jv_at(ser, i)->items[0].num),
				jv_at(ser, i)->items[1].num, i + 1 < ser->n && i < 11 ? "," : "");
		fprintf(f, "%s\n", ser->n > 12 ? " ..." : "");
	}
	if (h && h->t == JV_OBJ) {
		const struct jv *hs = jv_get(h, "holders");

		fprintf(f, "  holders (scan at %s):\n",
			clock_str(a, sizeof(a), jv_num(jv_get(h, "time"), NAN)));
		for (i = 0; hs && i < hs->n; i++)
			fprintf(f, "    %7.0f pages  %s\n",
				jv_num(jv_get(&hs->items[i], "pages"), 0),
				jv_str(jv_get(&hs->items[i], "holder"), ""));
	}
	if (pg && pg->n) {
		fprintf(f, "  oldest pages:\n");
		for (i = 0; i < pg->n && i < 5; i++) {
			const struct jv *x = &pg->items[i];
			double age = jv_num(jv_get(x, "age_s"), NAN);

			fprintf(f, "    %s  age %s%s  %s\n", jv_str(jv_get(x, "netmem"), ""),
				jv_get(x, "age_is_lower_bound") &&
						jv_get(x, "age_is_lower_bound")->b ?
					">" :
					"",
				isnan(age) ? "?" : fmt_age(b, sizeof(b), age),
				jv_str(jv_get(x, "holder"), "-"));
		}
	}
	if (st && st->n) {
		fprintf(f, "  the last pages were released by:\n");
		for (i = 0; i < st->n && i < 3; i++) {
			const struct jv *fr = jv_get(&st->items[i], "frames");

			fprintf(f, "    %.0f pages:", jv_num(jv_get(&st->items[i], "count"), 0));
			for (j = 0; fr && j < fr->n && j < 8; j++)
				fprintf(f, "%s%s", j ? " < " : " ", jv_str(&fr->items[j], "?"));
			fputc('\n', f);
		}
	}
}

void postmortem_text(FILE *f, const struct jv *rep)
{
	const struct jv *pools = jv_get(rep, "pools");
	char a[32];
	size_t i;

	fprintf(f, "ppwatch post-mortem (%s, %s, stall after %.0fs): %zu pool%s\n",
		jv_str(jv_get(rep, "source"), "?"),
		clock_str(a, sizeof(a), jv_num(jv_get(rep, "time"), NAN)),
		jv_num(jv_get(rep, "stall_after_s"), 60), pools ? pools->n : 0,
		pools && pools->n == 1 ? "" : "s");
	if (!pools || !pools->n) {
		fprintf(f, "no destroyed pool with pages out, none freed in the recording\n");
		return;
	}
	for (i = 0; i < pools->n; i++) {
		fputc('\n', f);
		text_pool(f, &pools->items[i]);
	}
}

/* ---- YAML --------------------------------------------------------------------------- */

static int yaml_put(yaml_emitter_t *e, yaml_event_t *ev)
{
	return yaml_emitter_emit(e, ev) ? 0 : -EIO;
}

static int scalar(yaml_emitter_t *e, const char *s, bool plain)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, strlen(s), plain, !plain,
				     plain ? YAML_PLAIN_SCALAR_STYLE :
					     YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	return yaml_put(e, &ev);
}

static int yaml_value(yaml_emitter_t *e, const struct jv *v)
{
	yaml_event_t ev;
	char buf[64];
	size_t i;
	int err = 0;

	switch (v->t) {
	case JV_NULL:
		return scalar(e, "null", true);
	case JV_BOOL:
		return scalar(e, v->b ? "true" : "false", true);
	case JV_NUM:
		snprintf(buf, sizeof(buf), "%.15g", v->num);
		return scalar(e, buf, true);
	case JV_STR:
		return scalar(e, v->str, false);
	case JV_ARR:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		err = yaml_put(e, &ev);
		for (i = 0; !err && i < v->n; i++)
			err = yaml_value(e, &v->items[i]);
		yaml_sequence_end_event_initialize(&ev);
		return err ?: yaml_put(e, &ev);
	case JV_OBJ:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
		err = yaml_put(e, &ev);
		for (i = 0; !err && i < v->n; i++) {
			err = scalar(e, v->keys[i], true);
			err = err ?: yaml_value(e, &v->items[i]);
		}
		yaml_mapping_end_event_initialize(&ev);
		return err ?: yaml_put(e, &ev);
	}
	return 0;
}

int postmortem_yaml(FILE *f, const struct jv *rep)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int err;

	if (!yaml_emitter_initialize(&e))
		return -ENOMEM;
	yaml_emitter_set_output_file(&e, f);
	yaml_emitter_set_unicode(&e, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	err = yaml_put(&e, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	err = err ?: yaml_put(&e, &ev);
	err = err ?: yaml_value(&e, rep);
	yaml_document_end_event_initialize(&ev, 1);
	err = err ?: yaml_put(&e, &ev);
	yaml_stream_end_event_initialize(&ev);
	err = err ?: yaml_put(&e, &ev);
	yaml_emitter_delete(&e);
	return err;
}
