// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "output/event_table.h"
#include "output/holder_table.h"
#include "output/pool_table.h"
#include "sources/holder_scan.h"
#include "sources/page_list.h"
#include "sources/recorder.h"
#include "sources/stacks.h"

/* a stream that takes everything and keeps nothing: where a record goes that cannot be built */
static ssize_t discard(void *c, const char *buf, size_t len)
{
	return len;
}

static void begin_record(struct recorder *w)
{
	w->buf = NULL;
	w->len = 0;
	w->mem = open_memstream(&w->buf, &w->len);
	if (!w->mem)
		w->err = -ENOMEM;
	json_init(&w->j, w->mem ? w->mem : w->sink, false);
}

static void begin(struct recorder *w, const char *type)
{
	begin_record(w);
	json_obj_open(&w->j);
	json_kv_str(&w->j, "type", type);
	json_kv_f64(&w->j, "time", now_real_s());
}

/* the record built since begin(), as bytes (*buf malloc'd): 0 or -ENOMEM */
static int built(struct recorder *w, char **buf, size_t *len)
{
	int err = w->err;

	json_end(&w->j);
	if (w->mem && fclose(w->mem) && !err)
		err = -ENOMEM; /* the sink stays open */
	w->mem = NULL;
	w->err = 0;
	*buf = w->buf;
	*len = w->len;
	w->buf = NULL;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

/* a full disk or quota: the record is lost, the recording goes on */
static bool lossy(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

static void count_lost(struct recorder *w, int err, size_t len)
{
	double now = now_mono_s();

	w->lost++;
	w->lost_total++;
	w->lost_bytes += len;
	w->lost_err = -err;
	if (w->lost_warned && now - w->lost_warned < 60)
		return;
	w->lost_warned = now;
	p_warn("record: %s: records are lost until there is room (%llu so far)", w->out->what,
	       (unsigned long long)w->lost_total);
}

/* write bytes, or count them lost: 0, or -errno for what ends the recording (reported) */
static int write_bytes(struct recorder *w, const char *buf, size_t len)
{
	int err = rotfile_write(w->out, buf, len);

	if (lossy(err)) {
		count_lost(w, err, len);
		return -EAGAIN;
	}
	if (err)
		p_err("record: %s", w->out->what);
	return err;
}

static void header_fields(struct recorder *w);

/* the header a new file starts with, so it stands alone */
static int new_file(struct recorder *w)
{
	size_t len;
	char *buf;
	int err;

	begin(w, "header");
	header_fields(w);
	json_obj_close(&w->j);
	err = built(w, &buf, &len);
	if (err) {
		p_err("record: the header: %s", strerror(-err));
		return err;
	}
	err = write_bytes(w, buf, len);
	free(buf);
	if (err == -EAGAIN)
		return 0;
	rotfile_mark_start(w->out);
	err = err ?: rotfile_sync(w->out);
	if (err && err != -EAGAIN)
		p_err("record: %s", w->out->what);
	return err;
}

/* what a full disk kept out, said before the next record that gets in */
static int write_gap(struct recorder *w)
{
	size_t len;
	char *buf;
	int err;

	begin(w, "gap");
	json_kv_u64(&w->j, "lost_records", w->lost);
	json_kv_u64(&w->j, "lost_bytes", w->lost_bytes);
	json_kv_str(&w->j, "why", strerror(w->lost_err));
	json_obj_close(&w->j);
	err = built(w, &buf, &len);
	if (err)
		return 0; /* said with the next one */
	err = rotfile_write(w->out, buf, len);
	free(buf);
	if (!err) {
		w->lost = w->lost_bytes = 0;
		w->records++;
	}
	return lossy(err) ? 0 : err;
}

/*
 * The record built since begin() to the file: into a new file first when
 * it would take this one past --max-size, after a gap record when some
 * were lost, and synced when it matters after a power cut. 0, or -errno
 * for what ends the recording (reported).
 */
static int emit(struct recorder *w, bool sync)
{
	size_t len;
	char *buf;
	int err;

	err = built(w, &buf, &len);
	if (err) {
		p_err("record: building a record: %s", strerror(-err));
		return err;
	}
	if (rotfile_due(w->out, len)) {
		err = rotfile_rotate(w->out);
		if (err)
			p_err("record: %s", w->out->what);
		err = err ?: new_file(w);
	}
	if (!err && w->lost)
		err = write_gap(w);
	if (!err) {
		err = write_bytes(w, buf, len);
		if (!err)
			w->records++;
		if (!err && sync && (err = rotfile_sync(w->out)))
			p_err("record: %s", w->out->what);
		err = err == -EAGAIN ? 0 : err;
	}
	free(buf);
	return err;
}

static int end(struct recorder *w)
{
	json_obj_close(&w->j);
	return emit(w, false);
}

static void header_fields(struct recorder *w)
{
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
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
}

/* a retry worth a line: the first ones of a pool, one a minute, any that sees inflight change */
static bool retry_worth(struct recorder *w, const struct life_event *e)
{
	struct rec_retry *r = NULL;
	size_t i;

	for (i = 0; i < w->nretries; i++)
		if (w->retries[i].pool == e->pool && w->retries[i].gen == e->gen)
			r = &w->retries[i];
	if (e->kind == LE_FREED && r) {
		*r = w->retries[--w->nretries];
		return true;
	}
	if (e->kind != LE_RETRY)
		return true;
	if (!r) {
		r = VEC_PUSH(w->retries, w->nretries, w->cap_retries);
		if (!r)
			return true; /* no memory to remember: write them all */
		*r = (struct rec_retry){ e->pool, e->gen, e->inflight };
		return true;
	}
	if (e->retry <= REC_RETRIES_ALL || !(e->retry % REC_RETRIES_ALL) ||
	    e->inflight != r->inflight) {
		r->inflight = e->inflight;
		return true;
	}
	w->retries_thinned++;
	return false;
}

/* the life feed's deliver callback: a destroy, stall or free scans at once */
static bool write_event(void *arg, const struct life_event *e)
{
	struct recorder *w = arg;
	struct event_row er;

	bool matters = e->kind == LE_DESTROY || e->kind == LE_STALLED || e->kind == LE_FREED;
	int err;

	if (!retry_worth(w, e))
		return w->scan_now || w->fatal;
	event_row_of(&er, e, &w->feed.ec);
	/* the event's own object, with "type" first */
	begin_record(w);
	json_obj_open(&w->j);
	json_kv_str(&w->j, "type", "event");
	json_key(&w->j, "event");
	render_event_json(&w->j, &er);
	json_obj_close(&w->j);
	err = emit(w, matters);
	if (err && !w->fatal)
		w->fatal = err;
	if (matters)
		w->scan_now = w->sync_scan = true;
	return w->scan_now || w->fatal;
}

static int write_snapshot(struct recorder *w)
{
	int err = monitor_sample(&w->m);

	if (err)
		return err;
	begin(w, "snapshot");
	render_pools_json(&w->j, &w->m.cur);
	render_losses_json(&w->j, &w->m.cur);
	return end(w);
}

/*
 * Holders of every pool, and the oldest pages of the destroyed ones;
 * synced when a destroy, stall or free asked for them.
 */
static int write_scan(struct recorder *w)
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
	err = end(w);
	for (i = 0; !err && i < w->m.cur.n; i++) {
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
		err = end(w);
		page_list_free(&l);
	}
	holders_release(&scan, &rep);
	if (!err && w->sync_scan && (err = rotfile_sync(w->out)))
		p_err("record: %s", w->out->what);
	w->sync_scan = false;
	return err;
}

static int write_stacks(struct recorder *w)
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
	free(v);
	return end(w);
}

int recorder_open(struct recorder *w, struct rotfile *out, const struct recorder_opts *o)
{
	struct monitor_opts mo = o->mon;
	int err;

	memset(w, 0, sizeof(*w));
	w->out = out;
	w->o = *o;
	w->sink = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = discard });
	if (!w->sink) {
		p_err("record: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	life_feed_init(&w->feed, o->stall_after, write_event, w);
	w->have_ksyms = !ksyms_load(&w->k, NULL);
	if (o->stack_every && !w->have_ksyms) {
		p_err("reading /proc/kallsyms for stacks: run as root");
		life_feed_free(&w->feed);
		fclose(w->sink);
		return -EPERM;
	}
	mo.subscribe = true;
	mo.holders = true;
	mo.stack_every = o->stack_every;
	mo.keep_freed_s = 3600;
	mo.on_event = life_feed_on_event;
	mo.on_ntf = monitor_feed_ntf;
	mo.arg = &w->feed;
	err = monitor_open(&w->m, &mo);
	if (err) {
		ksyms_free(&w->k);
		life_feed_free(&w->feed);
		fclose(w->sink);
		return err;
	}
	life_feed_start(&w->feed, &w->m.kernel, boot_to_real_s());
	err = new_file(w);
	err = err ?: write_snapshot(w); /* discovery: 'new' events for what exists */
	err = err ?: w->fatal;
	err = err ?: write_scan(w);
	return err;
}

int recorder_run(struct recorder *w, double duration)
{
	double now = now_mono_s(), end_t = now + (duration ? duration : 1e12);
	double next_snapshot = now + w->o.snapshot_every, next_scan = now + w->o.scan_every;
	double next_tick = now + 1, until;
	int err = 0;

	while (!err && !exiting && (now = now_mono_s()) < end_t) {
		until = next_tick < next_snapshot ? next_tick : next_snapshot;
		until = until < next_scan ? until : next_scan;
		err = monitor_wait(&w->m, until < end_t ? until : end_t, NULL, 0);
		err = err ?: w->fatal;
		if (err)
			break;
		now = now_mono_s();
		if (now >= next_tick) {
			life_feed_tick(&w->feed, now_boot_ns());
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
		err = err ?: w->fatal;
	}
	return err;
}

int recorder_close(struct recorder *w)
{
	int err;

	err = write_snapshot(w);
	err = err ?: write_scan(w);
	err = err ?: write_stacks(w);
	err = err ?: w->fatal;
	if (!err) {
		begin(w, "end");
		json_kv_u64(&w->j, "records", w->records);
		json_kv_u64(&w->j, "lost_records", w->lost_total);
		json_kv_u64(&w->j, "retries_thinned", w->retries_thinned);
		err = end(w);
	}
	monitor_close(&w->m);
	life_feed_free(&w->feed);
	ksyms_free(&w->k);
	free(w->retries);
	fclose(w->sink);
	return err;
}
