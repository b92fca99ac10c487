// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/stop.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "model/contract.h"
#include "output/record_build.h"
#include "sources/holder_scan.h"
#include "sources/incident_file.h"
#include "sources/page_list.h"
#include "sources/recorder.h"
#include "sources/stacks.h"

static const char *const gap_what[GAP_MAX] = {
	[GAP_WRITE] = "writing",	   [GAP_ROTATE] = "rotating",
	[GAP_SNAPSHOT] = "snapshot",	   [GAP_SCAN] = "holder scan",
	[GAP_PAGES] = "oldest pages",	   [GAP_STACKS] = "stacks",
	[GAP_BUILD] = "building a record", [GAP_INCIDENTS] = "incidents",
};

/* ---- lines out -------------------------------------------------------------------------- */

/* what a full disk, a quota, a file size limit or no file does: records lost, not the end */
static bool lossy(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG || err == -EIO || err == -ENOENT;
}

static int write_gap(struct recorder *w, enum rec_gap g, bool ended);
static int new_file(struct recorder *w);

/* a transient failure of g (err: positive errno): a gap begins, or goes on */
static void gap_fail(struct recorder *w, enum rec_gap g, int err)
{
	struct recorder_gap *x = &w->gaps[g];
	double now = now_mono_s();

	if (x->open && x->err != err) {
		if (g == GAP_WRITE || g == GAP_ROTATE)
			x->err = err; /* said when there is room again */
		else
			write_gap(w, g, true); /* another failure: that gap ends, this one begins */
	}
	if (!x->open) {
		*x = (struct recorder_gap){ .open = true, .err = err, .since = now_real_s() };
		w->gaps_total++;
		/* what cannot be written is said when it can be: when it ends */
		if (g != GAP_WRITE && g != GAP_ROTATE)
			write_gap(w, g, false);
	}
	x->failures++;
	/* once a minute at most, however often the gap ends and begins again */
	if (w->warned[g] && now - w->warned[g] < 60)
		return;
	w->warned[g] = now;
	if (g == GAP_WRITE || g == GAP_ROTATE)
		p_warn("record: %s: records are lost until there is room (%llu so far)",
		       w->out->what, (unsigned long long)w->lost_total + 1);
	else if (g == GAP_INCIDENTS)
		p_warn("record: %s; tried again when they change (%llu so far)", w->inc.what,
		       (unsigned long long)x->failures);
	else
		p_warn("record: %s failed: %s; recording on (%llu so far)", gap_what[g],
		       strerror(err), (unsigned long long)x->failures);
}

/* g worked: a gap of it ends */
static void gap_ok(struct recorder *w, enum rec_gap g)
{
	if (w->gaps[g].open)
		write_gap(w, g, true);
}

/* a line that could not be written */
static void lose(struct recorder *w, enum rec_gap g, int err, size_t len)
{
	gap_fail(w, g, err);
	w->gaps[g].lost++;
	w->gaps[g].lost_bytes += len;
	w->lost_total++;
}

/* the line, whole, into the current file: 0, or -errno for what ends the recording */
static int write_raw(struct recorder *w, const char *buf, size_t len)
{
	int err = rotfile_write(w->out, buf, len);

	if (!err) {
		w->records++;
		return 0;
	}
	if (lossy(err)) {
		lose(w, GAP_WRITE, -err, len);
		return -EAGAIN;
	}
	p_err("record: %s", w->out->what);
	w->fatal = err;
	return err;
}

/* FILE -> FILE.1 ..., and the new file's header: 0, -EAGAIN (line lost), or what ends it */
static int rotate(struct recorder *w, size_t len)
{
	int err = rotfile_rotate(w->out);

	if (err == -EINVAL || err == -EPERM) {
		/* a file in the set that is not a recording: not the disk's doing */
		p_err("record: %s; the recording stops", w->out->what);
		w->fatal = err;
		return err;
	}
	if (w->out->fd < 0 || w->out->size) {
		/* no new file (none made, or nothing renamed): the line is lost */
		lose(w, GAP_ROTATE, err ? -err : EIO, len);
		return -EAGAIN;
	}
	if (err)
		gap_fail(w, GAP_ROTATE, -err); /* rotated, but the sync before it failed */
	err = new_file(w);
	if (!err)
		gap_ok(w, GAP_ROTATE);
	return err;
}

/*
 * One line (a record with its newline) out: into a new file first when it
 * would take this one past --max-size, after the gap record of what could
 * not be written before it. 0 (written, or lost and counted), or -errno
 * for what ends the recording (reported).
 */
/* the "seq" of a built line ({"type":...,"time":...,"seq":N,...}): where its digits are */
static bool line_seq(const char *buf, size_t len, uint64_t *seq, size_t *at, size_t *end)
{
	static const char key[] = ",\"seq\":";
	const char *p = memmem(buf, len < 128 ? len : 128, key, sizeof(key) - 1), *q;

	if (!p)
		return false;
	q = p += sizeof(key) - 1;
	*seq = 0;
	while (q < buf + len && *q >= '0' && *q <= '9')
		*seq = *seq * 10 + (uint64_t)(*q++ - '0');
	*at = (size_t)(p - buf);
	*end = (size_t)(q - buf);
	return q > p;
}

/* write buf, renumbered as w->renum_* says: 0, -EAGAIN (lost), or what ends it */
static int write_numbered(struct recorder *w, const char *buf, size_t len)
{
	size_t at, end, n;
	uint64_t seq;
	char *copy;
	int err;

	if (!w->renum_from || !line_seq(buf, len, &seq, &at, &end) || seq != w->renum_from)
		return write_raw(w, buf, len);
	copy = malloc(len + 24);
	if (!copy)
		return write_raw(w, buf, len); /* in order but for this number: not worth a loss */
	memcpy(copy, buf, at);
	n = at + (size_t)snprintf(copy + at, 24, "%llu", (unsigned long long)w->renum_to);
	memcpy(copy + n, buf + end, len - end);
	err = write_raw(w, copy, n + len - end);
	free(copy);
	return err;
}

static int put_line(struct recorder *w, const char *buf, size_t len)
{
	uint64_t before = w->seq, seq;
	size_t at, end;
	int err;

	if (w->fatal)
		return w->fatal;
	if (rotfile_due(w->out, len)) {
		err = rotate(w, len);
		if (err)
			return err == -EAGAIN ? 0 : err;
	}
	if (w->gaps[GAP_WRITE].open) {
		err = write_gap(w, GAP_WRITE, true);
		if (err == -EAGAIN)
			lose(w, GAP_WRITE, w->gaps[GAP_WRITE].err, len); /* still no room */
		if (err)
			return err == -EAGAIN ? 0 : err;
	}
	/*
	 * A header or gap went first with a newer number: this line's record
	 * comes after it. Not a later part of a split record, whose parts
	 * before the rotation carry its number (the reader joins them by it).
	 */
	if (w->seq != before && line_seq(buf, len, &seq, &at, &end) && seq <= before &&
	    seq != w->renum_from &&
	    (len - end < 10 || memcmp(buf + end, ",\"part\":", 8) ||
	     !memcmp(buf + end + 8, "1,", 2))) {
		w->renum_from = seq;
		w->renum_to = ++w->seq;
	}
	err = write_numbered(w, buf, len);
	return err == -EAGAIN ? 0 : err;
}

static int put_part(void *arg, const char *buf, size_t len)
{
	return put_line(arg, buf, len);
}

/* ---- building records --------------------------------------------------------------------- */

/* a record built whole (text, with its newline; NULL: no memory): one line out */
static int whole(struct recorder *w, char *text, size_t len, bool raw)
{
	int err;

	if (!text) {
		gap_fail(w, GAP_BUILD, ENOMEM);
		return 0;
	}
	err = raw ? write_raw(w, text, len) : put_line(w, text, len);
	free(text);
	return err;
}

/* a record of many elements (output/record_build.h): written whole, or in parts within the bound */
static int parts(struct recorder *w, const char *type, struct rparts *p, double *time,
		 uint64_t *seq)
{
	char *prefix;

	*time = now_real_s();
	*seq = ++w->seq;
	prefix = p->nomem ? NULL : rbuild_prefix(type, *time, *seq);
	uint64_t dropped = 0;
	unsigned n = 0;
	int err = 0;

	if (!prefix) {
		gap_fail(w, GAP_BUILD, ENOMEM);
		rparts_free(p);
		return 0;
	}
	err = rparts_emit(p, prefix, w->limit, put_part, w, &n, &dropped);
	if (err == -ENOMEM) {
		gap_fail(w, GAP_BUILD, ENOMEM);
		err = 0;
	}
	w->parts += n > 1;
	if (dropped && !w->dropped)
		p_warn("record: a %s record had elements longer than the record bound (%zu bytes): "
		       "left out, and said in the record (elements_dropped)",
		       type, w->limit);
	w->dropped += dropped;
	free(prefix);
	rparts_free(p);
	return err;
}

/* ---- header, gap, end --------------------------------------------------------------------- */

/* the header a new file starts with, so it stands alone (file: "incidents", or NULL) */
static char *header(struct recorder *w, const char *file, size_t *len)
{
	struct rbuild_header h = {
		.run = w->run,
		.boot_id = w->boot_id,
		.attach = w->m.kernel.attach,
		.unmap = w->m.kernel.unmap,
		.page_size = w->m.kernel.page_size,
		.netlink = w->m.kernel.netlink,
		.pp_stats = w->m.kernel.pp_stats,
		.boot_to_real = w->feed.ec.boot_to_real,
		.stall_after = w->o.stall_after,
		.snapshot_every = w->o.snapshot_every,
		.scan_every = w->o.scan_every,
		.stack_every = w->o.stack_every,
		.max_record = w->limit,
		.file = file,
		.pid = getpid(),
	};
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	h.hostname = host;
	h.release = u.release;
	return rbuild_header(&h, now_real_s(), ++w->seq, len);
}

/* room for a file's header: what --max-size keeps for it (it is smaller) */
#define HEADER_RESERVE 1024

/* the bound a file's records keep: the contract's, and --max-size's less the header */
static void set_limit(struct recorder *w)
{
	uint64_t max = w->out->max_size;

	w->limit = RECORDING_MAX_RECORD;
	if (max && max > HEADER_RESERVE && max - HEADER_RESERVE < w->limit)
		w->limit = max - HEADER_RESERVE;
}

/* the header a new file starts with, so it stands alone (synced) */
static int new_file(struct recorder *w)
{
	size_t len;
	char *text;
	int err;

	set_limit(w);
	text = header(w, NULL, &len);
	err = whole(w, text, len, true);
	if (err == -EAGAIN)
		return 0; /* lost, counted */
	if (err)
		return err;
	rotfile_mark_start(w->out);
	err = rotfile_sync(w->out);
	if (err)
		gap_fail(w, GAP_WRITE, -err);
	return 0;
}

/* a gap record: g began (ended false), or ended: 0, -EAGAIN (lost), or what ends it */
static int write_gap(struct recorder *w, enum rec_gap g, bool ended)
{
	struct recorder_gap *x = &w->gaps[g];
	struct rbuild_gap r = {
		.what = gap_what[g],
		.err = x->err,
		.since = x->since,
		.until = ended ? now_real_s() : NAN,
		.failures = x->failures,
		.lost = x->lost,
		.lost_bytes = x->lost_bytes,
	};
	size_t len;
	char *text = rbuild_gap(&r, now_real_s(), ++w->seq, &len);
	int err;

	/* the write gap's own record goes straight out: it is what ends it */
	err = whole(w, text, len, g == GAP_WRITE || g == GAP_ROTATE);
	if (ended && !err) /* else still no room: said with the next one */
		*x = (struct recorder_gap){ 0 };
	return err;
}

/* the recorder's last record: why it ended, what it wrote and lost */
static int write_end(struct recorder *w, const char *why)
{
	struct rbuild_end e = {
		.why = why,
		.records = w->records + 1,
		.lost = w->lost_total,
		.gaps = w->gaps_total,
		.split = w->parts,
		.dropped = w->dropped,
		.thinned = w->retries_thinned,
	};
	size_t len;
	char *text = rbuild_end(&e, now_real_s(), ++w->seq, &len);

	return whole(w, text, len, false);
}

/* ---- events -------------------------------------------------------------------------------- */

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
	size_t len;
	char *text;
	double t;
	bool matters = e->kind == LE_DESTROY || e->kind == LE_STALLED || e->kind == LE_FREED;
	int err;

	if (!retry_worth(w, e))
		return w->scan_now || w->fatal;
	event_row_of(&er, e, &w->feed.ec);
	t = now_real_s();
	text = rbuild_event(&er, t, ++w->seq, &len);
	if (text)
		incf_event(&w->inc, &er, text, len, t, w->seq);
	err = whole(w, text, len, false);
	if (!err && matters && (err = rotfile_sync(w->out))) {
		gap_fail(w, GAP_WRITE, -err);
		err = 0;
	}
	if (matters)
		w->scan_now = w->sync_scan = true;
	return w->scan_now || err || w->fatal;
}

/* ---- snapshots, scans, pages, stacks -------------------------------------------------------- */

/* every pool's state: 0, or -errno when the pools could not be sampled (a gap, if gap) */
static int write_snapshot(struct recorder *w, bool gap)
{
	struct rparts p;
	uint64_t seq;
	double t;
	int err = monitor_sample(&w->m);

	if (err) {
		if (gap)
			gap_fail(w, GAP_SNAPSHOT, -err);
		return err;
	}
	gap_ok(w, GAP_SNAPSHOT);
	rbuild_snapshot(&p, &w->m.cur);
	err = parts(w, "snapshot", &p, &t, &seq);
	incf_snapshot(&w->inc, &w->m.cur, t, seq);
	return err;
}

static int write_holders(struct recorder *w, const struct holders_report *rep)
{
	struct rparts p;
	uint64_t seq;
	double t;
	int err;

	rbuild_holders(&p, rep);
	err = parts(w, "holders", &p, &t, &seq);
	incf_scan(&w->inc, rep, t, seq);
	return err;
}

static int write_pages(struct recorder *w, const struct pool_row *row, const struct page_list *l)
{
	struct rparts p;
	uint64_t seq;
	double t;
	int err;

	rbuild_pages(&p, row, l->rows, l->n);
	err = parts(w, "pages", &p, &t, &seq);
	incf_pages(&w->inc, row, l, t, seq);
	return err;
}

static bool is_zombie(const struct pool_row *row, void *arg)
{
	(void)arg;
	return row->state == ROW_ZOMBIE;
}

/*
 * Holders of every pool, and the oldest pages of the destroyed ones;
 * synced when a destroy, stall or free asked for them. A scan that
 * fails is a gap: 0, or -errno for what ends the recording.
 */
static int write_scan(struct recorder *w)
{
	struct holders_report rep;
	struct scan_result scan;
	struct page_set ps = { 0 };
	struct page_list l;
	int err, perr;
	size_t i;

	err = holders_take(&w->m, &scan, &rep);
	if (err) {
		gap_fail(w, GAP_SCAN, -err);
		return 0;
	}
	gap_ok(w, GAP_SCAN);
	err = write_holders(w, &rep);
	/* the destroyed pools' ledger pages, of the scan's sample, in one walk */
	perr = err ? 0 : page_set_build(&ps, &w->m, is_zombie, NULL, w->have_ksyms);
	if (perr) {
		gap_fail(w, GAP_PAGES, -perr);
		goto out;
	}
	for (i = 0; !err && i < w->m.cur.n; i++) {
		const struct pool_row *row = &w->m.cur.rows[i];

		if (!is_zombie(row, NULL))
			continue;
		err = page_list_build(&l, &w->m, &ps, row, &rep, w->have_ksyms ? &w->k : NULL, NAN,
				      w->o.oldest_pages);
		if (err) {
			gap_fail(w, GAP_PAGES, -err);
			err = 0;
			continue;
		}
		gap_ok(w, GAP_PAGES);
		err = write_pages(w, row, &l);
		page_list_free(&l);
	}
out:
	page_set_free(&ps);
	holders_release(&scan, &rep);
	if (!err && w->sync_scan && (err = rotfile_sync(w->out))) {
		gap_fail(w, GAP_WRITE, -err);
		err = 0;
	}
	w->sync_scan = false;
	return err;
}

static int write_stacks(struct recorder *w)
{
	struct stack_agg *v = NULL;
	struct rparts p;
	uint64_t seq;
	size_t n = 0;
	double t;
	int err;

	if (!w->o.stack_every)
		return 0;
	err = stacks_read(&w->m.s, &w->k, &v, &n);
	if (err) {
		gap_fail(w, GAP_STACKS, -err);
		return 0;
	}
	gap_ok(w, GAP_STACKS);
	rbuild_stacks(&p, &w->k, &w->m.cur, v, n, w->o.stack_every);
	err = parts(w, "stacks", &p, &t, &seq);
	incf_stacks(&w->inc, &w->k, &w->m.cur, v, n, w->o.stack_every, t, seq);
	free(v);
	return err;
}

/* FILE.incidents anew, when it changed (at most once a second, unless force): a failure is a gap */
static void write_incidents(struct recorder *w, bool force)
{
	double now = now_mono_s();
	size_t len;
	char *hdr;
	int err;

	if (!incf_due(&w->inc, now, force))
		return;
	hdr = header(w, "incidents", &len);
	err = hdr ? incf_write(&w->inc, hdr, len, now) : -ENOMEM;
	free(hdr);
	if (err)
		gap_fail(w, GAP_INCIDENTS, -err);
	else
		gap_ok(w, GAP_INCIDENTS);
}

/* ---- the recorder -------------------------------------------------------------------------- */

/* this recorder's id, and the boot's: what tells one recording from another */
static void identify(struct recorder *w)
{
	unsigned char b[8];
	ssize_t n;
	size_t i;
	int fd;

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != sizeof(b))
		for (i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)(now_boot_ns() >> (i * 5)) ^ getpid();
	for (i = 0; i < sizeof(b); i++)
		snprintf(w->run + 2 * i, sizeof(w->run) - 2 * i, "%02x", b[i]);
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, w->boot_id, sizeof(w->boot_id) - 1);
	close(fd);
	w->boot_id[n > 0 ? n : 0] = 0;
	w->boot_id[strcspn(w->boot_id, "\n")] = 0;
}

int recorder_open(struct recorder *w, struct rotfile *out, const struct recorder_opts *o)
{
	struct monitor_opts mo = o->mon;
	int err;

	memset(w, 0, sizeof(*w));
	w->out = out;
	w->o = *o;
	identify(w);
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
	mo.on_ntf = monitor_feed_ntf;
	mo.arg = &w->feed;
	err = monitor_open(&w->m, &mo);
	if (err) {
		ksyms_free(&w->k);
		life_feed_free(&w->feed);
		return err;
	}
	life_feed_start(&w->feed, &w->m.kernel, boot_to_real_s());
	set_limit(w);
	/* a set that rotates keeps its incidents in a file of their own */
	if (out->path && out->max_size && o->incident_size) {
		err = incf_open(&w->inc, out->path, o->incident_size, o->keep_incidents, &o->perm,
				w->limit);
		if (err) {
			monitor_close(&w->m);
			ksyms_free(&w->k);
			life_feed_free(&w->feed);
			incf_close(&w->inc);
			return err;
		}
	}
	err = new_file(w);
	/* discovery: 'new' events for what exists; the pools that cannot be read end it here */
	err = err ?: write_snapshot(w, false);
	if (err && !w->fatal)
		p_err("record: sampling the pools: %s", strerror(-err));
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
			write_snapshot(w, true); /* a failure is a gap */
			next_snapshot = now + w->o.snapshot_every;
		}
		if (!w->fatal && (w->scan_now || now >= next_scan)) {
			/* a destroy's, a stall's or a free's scan: its incident on disk at once */
			bool now_too = w->sync_scan;

			w->scan_now = false;
			err = write_scan(w);
			next_scan = now + w->o.scan_every;
			write_incidents(w, now_too);
		}
		write_incidents(w, false);
		err = err ?: w->fatal;
	}
	return err;
}

int recorder_close(struct recorder *w, const char *why)
{
	enum rec_gap g;
	int err = w->fatal;

	if (!err) {
		write_snapshot(w, true);
		err = w->fatal ?: write_scan(w);
		err = err ?: write_stacks(w);
		/* what is still failing ends with the recording */
		for (g = 0; !err && g < GAP_MAX; g++)
			if (w->gaps[g].open && w->gaps[g].failures)
				write_gap(w, g, true);
		err = err ?: w->fatal;
	}
	if (!err)
		write_incidents(w, true);
	if (!err)
		err = write_end(w, why);
	monitor_close(&w->m);
	life_feed_free(&w->feed);
	ksyms_free(&w->k);
	incf_close(&w->inc);
	free(w->retries);
	return err == -EAGAIN ? 0 : err;
}
