// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "lib/util.h"
#include "output/holder_table.h"
#include "output/pool_table.h"
#include "sources/holder_scan.h"
#include "sources/page_list.h"
#include "sources/rec_writer.h"
#include "sources/stacks.h"

static void begin(struct rec_writer *w, const char *type)
{
	json_obj_open(&w->j);
	json_kv_str(&w->j, "type", type);
	json_kv_f64(&w->j, "time", now_real_s());
}

static void end(struct rec_writer *w)
{
	json_obj_close(&w->j);
	json_end(&w->j);
	w->records++;
}

static void write_header(struct rec_writer *w)
{
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	begin(w, "header");
	json_kv_u64(&w->j, "format", RECORD_FORMAT);
	json_kv_str(&w->j, "version", PPWATCH_VERSION);
	json_kv_str(&w->j, "hostname", host);
	json_kv_f64(&w->j, "boot_to_real_s", w->feed.ec.boot_to_real);
	json_kv_f64(&w->j, "stall_after_s", w->o.stall_after);
	json_key(&w->j, "kernel");
	json_obj_open(&w->j);
	json_kv_str(&w->j, "release", u.release);
	json_kv_str(&w->j, "attach", w->m.kernel.attach);
	json_kv_str(&w->j, "unmap_regime", unmap_regime_name(w->m.kernel.unmap));
	json_kv_u64(&w->j, "page_size", w->m.kernel.page_size);
	json_kv_bool(&w->j, "netlink", w->m.kernel.netlink);
	json_obj_close(&w->j);
	json_kv_u64(&w->j, "stack_every", w->o.stack_every);
	end(w);
}

/* the life feed's deliver callback: a destroy, stall or free scans at once */
static bool write_event(void *arg, const struct life_event *e)
{
	struct rec_writer *w = arg;
	struct event_row er;

	event_row_of(&er, e, &w->feed.ec);
	/* the event's own object, with "type" first */
	json_obj_open(&w->j);
	json_kv_str(&w->j, "type", "event");
	json_key(&w->j, "event");
	render_event_json(&w->j, &er);
	json_obj_close(&w->j);
	json_end(&w->j);
	w->records++;
	if (e->kind == LE_DESTROY || e->kind == LE_STALLED || e->kind == LE_FREED)
		w->scan_now = true;
	return w->scan_now;
}

static int write_snapshot(struct rec_writer *w)
{
	int err = monitor_sample(&w->m);

	if (err)
		return err;
	begin(w, "snapshot");
	render_pools_json(&w->j, &w->m.cur);
	render_losses_json(&w->j, &w->m.cur);
	end(w);
	return 0;
}

/* holders of every pool, and the oldest pages of the destroyed ones */
static int write_scan(struct rec_writer *w)
{
	struct holders_report rep;
	struct scan_result scan;
	struct page_list l;
	size_t i;
	int err;

	err = holders_take(&w->m, &scan, &rep);
	if (err)
		return err;
	begin(w, "holders");
	render_holders_json(&w->j, &rep);
	end(w);
	for (i = 0; i < w->m.cur.n; i++) {
		const struct pool_row *row = &w->m.cur.rows[i];
		char a[24];

		if (row->state != ROW_ZOMBIE)
			continue;
		if (page_list_build(&l, &w->m, row, &rep, w->have_ksyms ? &w->k : NULL, NAN,
				    w->o.oldest_pages))
			continue;
		begin(w, "pages");
		json_kv_u64(&w->j, "id", row->id);
		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)row->addr);
		json_kv_str(&w->j, "addr", a);
		json_kv_u64(&w->j, "gen", row->gen);
		render_pages_json(&w->j, l.rows, l.n);
		end(w);
		page_list_free(&l);
	}
	holders_release(&scan, &rep);
	return 0;
}

static int write_stacks(struct rec_writer *w)
{
	struct stack_agg *v = NULL;
	size_t n = 0;
	int err;

	if (!w->o.stack_every)
		return 0;
	err = stacks_read(&w->m.s, &w->k, &v, &n);
	if (err)
		return err;
	begin(w, "stacks");
	stacks_write_json(&w->j, &w->k, &w->m.cur, v, n, w->o.stack_every);
	end(w);
	free(v);
	return 0;
}

int rec_writer_open(struct rec_writer *w, FILE *f, const struct rec_writer_opts *o)
{
	struct monitor_opts mo = o->mon;
	int err;

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->o = *o;
	json_init(&w->j, f, false);
	life_feed_init(&w->feed, o->stall_after, write_event, w);
	w->have_ksyms = !ksyms_load(&w->k, NULL);
	if (o->stack_every && !w->have_ksyms) {
		p_err("reading /proc/kallsyms for stacks: run as root");
		life_feed_free(&w->feed);
		return -EPERM;
	}
	mo.subscribe = true;
	mo.holders = true;
	mo.stack_every = o->stack_every;
	mo.keep_freed_s = 3600;
	mo.on_event = life_feed_on_event;
	mo.on_ntf = life_feed_on_ntf;
	mo.arg = &w->feed;
	err = monitor_open(&w->m, &mo);
	if (err) {
		ksyms_free(&w->k);
		life_feed_free(&w->feed);
		return err;
	}
	life_feed_start(&w->feed, &w->m);
	write_header(w);
	err = write_snapshot(w); /* discovery: 'new' events for what exists */
	err = err ?: write_scan(w);
	fflush(w->f);
	return err;
}

int rec_writer_run(struct rec_writer *w, double duration)
{
	double now = now_mono_s(), end_t = now + (duration ? duration : 1e12);
	double next_snapshot = now + w->o.snapshot_every, next_scan = now + w->o.scan_every;
	double next_tick = now + 1, until;
	int err = 0;

	while (!err && !exiting && (now = now_mono_s()) < end_t) {
		until = next_tick < next_snapshot ? next_tick : next_snapshot;
		until = until < next_scan ? until : next_scan;
		err = monitor_wait(&w->m, until < end_t ? until : end_t, NULL, 0);
		if (err)
			break;
		now = now_mono_s();
		if (now >= next_tick) {
			life_feed_tick(&w->feed);
			next_tick = now + 1;
		}
		if (now >= next_snapshot) {
			err = write_snapshot(w);
			next_snapshot = now + w->o.snapshot_every;
		}
		if (!err && (w->scan_now || now >= next_scan)) {
			err = write_scan(w);
			w->scan_now = false;
			next_scan = now + w->o.scan_every;
		}
		if (!err && (fflush(w->f) || ferror(w->f))) {
			err = -(errno ? errno : EIO);
			p_err("record: writing %s: %s", w->o.path ? w->o.path : "the recording",
			      strerror(-err));
		}
	}
	return err;
}

int rec_writer_close(struct rec_writer *w)
{
	int err;

	err = write_snapshot(w);
	err = err ?: write_scan(w);
	err = err ?: write_stacks(w);
	begin(w, "end");
	json_kv_u64(&w->j, "records", w->records);
	end(w);
	fflush(w->f);
	monitor_close(&w->m);
	life_feed_free(&w->feed);
	ksyms_free(&w->k);
	return err;
}
