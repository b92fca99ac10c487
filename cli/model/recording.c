// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/escape.h"
#include "lib/vec.h"
#include "model/recording.h"

#define BLOCK (1u << 20) /* read this much at a time */

static const char *const known_types[] = {
	"header", "event", "snapshot", "holders", "pages", "stacks", "end", "gap",
};

static int depth(const json_t *v)
{
	const json_t *x;
	const char *k;
	int d = 0, c;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x)
		{
			c = depth(x);
			d = c > d ? c : d;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
		{
			c = depth(x);
			d = c > d ? c : d;
		}
	} else {
		return 0;
	}
	return d + 1;
}

/* a parsed line that is a record, or why not */
static const char *not_a_record(const json_t *rec)
{
	if (!json_is_object(rec) || !json_is_string(json_object_get(rec, "type")))
		return "not a ppwatch record (an object with a \"type\")";
	if (depth(rec) > RECORDING_MAX_DEPTH)
		return "nested deeper than any ppwatch record";
	return NULL;
}

static bool known(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof(known_types) / sizeof(known_types[0]); i++)
		if (!strcmp(type, known_types[i]))
			return true;
	return false;
}

/* ---- opening ----------------------------------------------------------------------- */

static int add_file(struct recording *r, FILE *f, const char *name)
{
	struct recording_file *rf = VEC_NEXT(r->files, r->n, r->cap);

	if (!rf || !(rf->name = strdup(name)))
		return -ENOMEM;
	rf->fp = f;
	r->n++;
	return 0;
}

static int reader_init(struct recording *r)
{
	memset(r, 0, sizeof(*r));
	r->blk = malloc(BLOCK);
	return r->blk ? 0 : -ENOMEM;
}

int recording_open_stream(struct recording *r, FILE *f, const char *name)
{
	int err = reader_init(r);

	err = err ?: add_file(r, f, name);
	if (err)
		recording_close(r);
	return err;
}

/* has a file of this identity been opened already? */
static bool seen(const struct stat *ids, size_t n, const struct stat *st)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i].st_dev == st->st_dev && ids[i].st_ino == st->st_ino)
			return true;
	return false;
}

int recording_open(struct recording *r, const char *path)
{
	struct stat *ids = NULL, st;
	size_t k, count = 1, nids = 0, i;
	char *name = NULL;
	FILE *f;
	int err;

	err = reader_init(r);
	if (err)
		return err;
	r->own = true;
	/*
	 * The set as it is now: FILE.1, FILE.2, ... as long as they go on, past
	 * one missing (a crash between a rotation's renames leaves FILE.k
	 * missing beside FILE.k+1); count is one past the last there.
	 */
	for (k = 1; k < RECORDING_MAX_FILES; k++) {
		free(name);
		if (asprintf(&name, "%s.%zu", path, k) < 0) {
			name = NULL;
			err = -ENOMEM;
			goto out;
		}
		if (!lstat(name, &st))
			count = k + 1;
		else if (k >= count + 1)
			break;
	}
	ids = calloc(count, sizeof(*ids));
	if (!ids) {
		err = -ENOMEM;
		goto out;
	}
	/* newest first: a rotation meanwhile moves files towards the ones still to open */
	for (k = 0; k < count; k++) {
		free(name);
		name = NULL;
		if ((k && asprintf(&name, "%s.%zu", path, k) < 0) ||
		    (!k && !(name = strdup(path)))) {
			name = NULL;
			err = -ENOMEM;
			goto out;
		}
		f = fopen(name, "re");
		if (!f) {
			if (k && errno == ENOENT) /* rotated away since */
				continue;
			if (!k && errno == ENOENT && count > 1) {
				/* a crash between a rotation's renames and its new file */
				r->newest_missing = true;
				continue;
			}
			err = -errno;
			r->failed = path;
			goto out;
		}
		if (!fstat(fileno(f), &st)) {
			if (seen(ids, nids, &st)) {
				fclose(f);
				continue;
			}
			ids[nids++] = st;
		}
		err = add_file(r, f, name);
		if (err) {
			fclose(f);
			goto out;
		}
	}
	/* the incidents kept past rotation: read first (the set's records are newer) */
	free(name);
	if (asprintf(&name, "%s.incidents", path) < 0) {
		name = NULL;
		err = -ENOMEM;
		goto out;
	}
	f = fopen(name, "re");
	if (f && (err = add_file(r, f, name))) {
		fclose(f);
		goto out;
	}
	r->has_incidents = f != NULL && r->n > 1;
	/* oldest first */
	for (i = 0; i < r->n / 2; i++) {
		struct recording_file x = r->files[i];

		r->files[i] = r->files[r->n - 1 - i];
		r->files[r->n - 1 - i] = x;
	}
out:
	free(name);
	free(ids);
	if (err) {
		/* r->failed points at path, which outlives the reader */
		const char *failed = r->failed;

		recording_close(r);
		r->failed = failed;
	}
	return err;
}

void recording_close(struct recording *r)
{
	size_t i;

	for (i = r->next_copy; i < r->ncopies; i++)
		json_decref(r->copies[i].rec);
	free(r->copies);
	for (i = 0; i < r->nruns; i++)
		json_decref(r->runs[i].hdr);
	free(r->runs);
	json_decref(r->ahead);
	json_decref(r->queued);

	for (i = 0; i < r->n; i++) {
		if (r->own && r->files[i].fp)
			fclose(r->files[i].fp);
		free(r->files[i].name);
	}
	free(r->files);
	free(r->blk);
	free(r->line);
	free(r->fix);
	memset(r, 0, sizeof(*r));
}

/* ---- lines ------------------------------------------------------------------------- */

static int grow(char **buf, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 4096;
	char *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*buf, c);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = c;
	return 0;
}

/*
 * The current file's next line into r->line, without its newline: its
 * length (0 and !*nl at the end of the file), or -errno. A line longer
 * than RECORDING_MAX_LINE is read past but not kept (*toolong).
 */
static ssize_t next_line(struct recording *r, FILE *f, bool *nl, bool *toolong)
{
	size_t len = 0, avail, take, got;
	char *s, *e;

	*nl = *toolong = false;
	for (;;) {
		if (r->blk_pos == r->blk_end) {
			if (r->blk_eof)
				return len;
			got = fread(r->blk, 1, BLOCK, f);
			if (got < BLOCK) {
				if (ferror(f))
					return -(errno ? errno : EIO);
				r->blk_eof = true;
			}
			r->blk_pos = 0;
			r->blk_end = got;
			if (!got)
				return len;
		}
		s = r->blk + r->blk_pos;
		avail = r->blk_end - r->blk_pos;
		e = memchr(s, '\n', avail);
		take = e ? (size_t)(e - s) : avail;
		/* the bound counts the newline */
		if (!*toolong && len + take + 1 > RECORDING_MAX_RECORD)
			*toolong = true;
		if (!*toolong) {
			if (grow(&r->line, &r->line_cap, len + take + 1))
				return -ENOMEM;
			memcpy(r->line + len, s, take);
			len += take;
		}
		take += e != NULL;
		r->blk_pos += take;
		r->off += take;
		if (e) {
			*nl = true;
			return len;
		}
	}
}

/* a line with bytes that may need esc_json_raw() */
static bool needs_fix(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	for (; p < end; p++)
		if (*p >= 0x80 || *p < 0x20)
			return true;
	return false;
}

static void damaged(struct recording_file *f, uint64_t from, const char *why, int col, bool cut)
{
	struct recording_damage *d;
	char text[sizeof(d->why)];

	if (cut) {
		f->cut = true;
		f->cut_line = f->lines;
		f->cut_from = from;
		return;
	}
	if (f->damaged < RECORDING_DAMAGE_KEPT) {
		d = &f->damage[f->damaged];
		d->line = f->lines;
		d->byte = from;
		if (col > 0)
			snprintf(text, sizeof(text), "column %d: %s", col, why);
		else
			snprintf(text, sizeof(text), "%s", why);
		esc_buf(d->why, sizeof(d->why), text, strlen(text));
	}
	f->damaged++;
}

/*
 * A header's format: one this ppwatch reads, or -EPROTO with r->why
 * saying what it is and what to do
 */
static int check_format(struct recording *r, struct recording_file *f, const json_t *hdr)
{
	const json_t *v = json_object_get(hdr, "format");
	const char *by = jstr(hdr, "version", "?");
	json_int_t n = !v ? 1 : json_is_integer(v) ? json_integer_value(v) : -1;
	char msg[sizeof(r->why)];

	/* no format at all: what format 1 is read as (it always said it, a hand-made one may not) */

	if (n >= RECORDING_FORMAT_MIN && n <= RECORDING_FORMAT) {
		f->format = n;
		return 0;
	}
	if (n > RECORDING_FORMAT)
		snprintf(msg, sizeof(msg),
			 "%s is in recording format %lld (written by ppwatch %s), newer than "
			 "this ppwatch %s reads (formats %d to %d): read it with ppwatch %s or a "
			 "newer one",
			 f->name, (long long)n, by, PPWATCH_VERSION, RECORDING_FORMAT_MIN,
			 RECORDING_FORMAT, by);
	else
		snprintf(msg, sizeof(msg),
			 "%s has a header whose \"format\" is not a recording format ppwatch "
			 "knows (formats %d to %d are): not a file 'ppwatch record' wrote, or a "
			 "damaged one",
			 f->name, RECORDING_FORMAT_MIN, RECORDING_FORMAT);
	esc_buf(r->why, sizeof(r->why), msg, strlen(msg));
	return -EPROTO;
}

/* the next record of the files in order (FILE.incidents first) */
static int raw_next(struct recording *r, json_t **out)
{
	bool nl, toolong;
	struct recording_file *f;
	json_error_t jerr;
	size_t tlen, fixed;
	const char *why, *text;
	uint64_t from;
	ssize_t len;
	json_t *rec;

	while (r->cur < r->n) {
		f = &r->files[r->cur];
		from = r->off;
		len = next_line(r, f->fp, &nl, &toolong);
		if (len < 0) {
			r->failed = f->name;
			return len;
		}
		if (!len && !nl && !toolong) {
			/* the end of this file */
			f->bytes = r->off;
			r->cur++;
			r->off = 0;
			r->blk_pos = r->blk_end = 0;
			r->blk_eof = false;
			continue;
		}
		f->lines++;
		if (toolong) {
			damaged(f, from, "longer than any ppwatch record", 0, !nl);
			continue;
		}
		if (!len)
			continue; /* an empty line */
		text = r->line;
		tlen = len;
		fixed = 0;
		if (needs_fix(r->line, len)) {
			if (grow(&r->fix, &r->fix_cap, 5 * (size_t)len + 1))
				return -ENOMEM;
			tlen = esc_json_raw(r->fix, r->line, len, &fixed);
			text = r->fix;
		}
		rec = json_loadb(text, tlen, JSON_REJECT_DUPLICATES, &jerr);
		why = rec ? not_a_record(rec) : jerr.text;
		if (why) {
			/* an unfinished last line is the record the recorder was writing */
			damaged(f, from, why, rec ? 0 : jerr.column, !nl);
			json_decref(rec);
			continue;
		}
		f->records++;
		f->escaped += fixed > 0;
		if (!strcmp(jstr(rec, "type", ""), "header")) {
			f->header = true;
			f->incidents |= !strcmp(jstr(rec, "file", ""), "incidents");
			if (check_format(r, f, rec)) {
				json_decref(rec);
				r->failed = f->name;
				return -EPROTO;
			}
		} else if (!known(jstr(rec, "type", ""))) {
			f->unknown++;
		}
		*out = rec;
		return 1;
	}
	return 0;
}

/* ---- FILE.incidents merged into the set ----------------------------------------------- */

/* the run with this id (added if new): its index, or SIZE_MAX without memory */
static size_t run_index(struct recording *r, const char *id)
{
	struct recording_run *x;
	size_t i;

	for (i = 0; i < r->nruns; i++)
		if (!strcmp(r->runs[i].id, id))
			return i;
	x = VEC_NEXT(r->runs, r->nruns, r->capruns);
	if (!x)
		return SIZE_MAX;
	memset(x, 0, sizeof(*x));
	snprintf(x->id, sizeof(x->id), "%s", id);
	x->lo_seq = UINT64_MAX;
	return r->nruns++;
}

/* a set file's first line, when it is a header: its run's lowest seq in the set */
static int note_set_header(struct recording *r, FILE *fp)
{
	char *line = NULL;
	size_t cap = 0, k;
	ssize_t len = getline(&line, &cap, fp);
	json_t *h = len > 0 ? json_loadb(line, len, 0, NULL) : NULL;
	int err = 0;

	free(line);
	if (h && !strcmp(jstr(h, "type", ""), "header") &&
	    json_is_integer(json_object_get(h, "seq"))) {
		k = run_index(r, jstr(h, "run", ""));
		if (k == SIZE_MAX) {
			err = -ENOMEM;
		} else {
			uint64_t seq = json_integer_value(json_object_get(h, "seq"));

			if (seq < r->runs[k].lo_seq)
				r->runs[k].lo_seq = seq;
		}
	}
	json_decref(h);
	if (!err && fseek(fp, 0, SEEK_SET))
		err = -errno;
	return err;
}

static int copy_cmp(const void *a, const void *b)
{
	const struct recording_copy *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->part - y->part;
}

/* the same record kept twice (two slots of one incident): the same run, seq, part and text */
static bool same_copy(const struct recording_copy *x, const struct recording_copy *y)
{
	return x->run == y->run && x->seq == y->seq && x->part == y->part &&
	       json_equal(x->rec, y->rec);
}

/*
 * Read FILE.incidents whole (it is small: the recorder keeps it within a
 * budget) and the set's headers; keep the copies of records the set no
 * longer has (its run's seq under the set's first), once each, by time.
 */
static int merge_prepare(struct recording *r)
{
	size_t i, k, n = r->n, run = SIZE_MAX;
	struct recording_copy *c;
	json_t *rec;
	int err = 0;

	for (i = 1; i < n && !err; i++)
		err = note_set_header(r, r->files[i].fp);
	/* FILE.incidents alone: the reader stops at its end */
	r->n = 1;
	while (!err && (err = raw_next(r, &rec)) > 0) {
		err = 0;
		if (!strcmp(jstr(rec, "type", ""), "header")) {
			run = run_index(r, jstr(rec, "run", ""));
			if (run != SIZE_MAX && !r->runs[run].hdr)
				r->runs[run].hdr = json_incref(rec);
			err = run == SIZE_MAX ? -ENOMEM : 0;
			json_decref(rec);
			continue;
		}
		c = VEC_NEXT(r->copies, r->ncopies, r->capcopies);
		if (!c) {
			json_decref(rec);
			err = -ENOMEM;
			break;
		}
		*c = (struct recording_copy){ rec, jnum(rec, "time", NAN), jnum(rec, "seq", 0),
					      jnum(rec, "part", 1), run };
		r->ncopies++;
	}
	r->n = n;
	if (err < 0)
		return err;
	/* what the set has (the same run, a seq from its first on) wins */
	for (i = k = 0; i < r->ncopies; i++) {
		c = &r->copies[i];
		if (c->run != SIZE_MAX && c->seq >= r->runs[c->run].lo_seq)
			json_decref(c->rec);
		else
			r->copies[k++] = *c;
	}
	r->ncopies = k;
	qsort(r->copies, r->ncopies, sizeof(*r->copies), copy_cmp);
	for (i = k = 0; i < r->ncopies; i++) {
		if (k && same_copy(&r->copies[k - 1], &r->copies[i]))
			json_decref(r->copies[i].rec);
		else
			r->copies[k++] = r->copies[i];
	}
	r->ncopies = k;
	r->cur_run = r->set_run = SIZE_MAX;
	r->merge_ready = true;
	return 0;
}

/* rec, of run 'run', handed out: after its run's header when another run's came last */
static int give(struct recording *r, json_t *rec, bool kept, size_t run, json_t **out)
{
	if (run != SIZE_MAX && run != r->cur_run && r->runs[run].hdr) {
		r->cur_run = run;
		r->queued = rec;
		r->queued_kept = kept;
		*out = json_incref(r->runs[run].hdr);
		r->kept = kept;
		return 1;
	}
	*out = rec;
	r->kept = kept;
	return 1;
}

/* the copy goes before the set's next record: older (at one time: a lower seq) */
static bool copy_first(const struct recording_copy *c, const json_t *next)
{
	double t = jnum(next, "time", NAN);

	if (isnan(c->time) || isnan(t))
		return false;
	return c->time < t || (c->time == t && c->seq < (uint64_t)jnum(next, "seq", 0));
}

int recording_next(struct recording *r, json_t **out)
{
	struct recording_copy *c;
	json_t *rec;
	size_t run;
	int err;

	if (!r->has_incidents) {
		r->kept = false;
		err = raw_next(r, out);
		r->kept = err > 0 && r->cur < r->n && r->files[r->cur].incidents;
		return err;
	}
	if (!r->merge_ready && (err = merge_prepare(r)))
		return err;
	if (r->queued) {
		*out = r->queued;
		r->kept = r->queued_kept;
		r->queued = NULL;
		return 1;
	}
	if (!r->ahead && !r->set_done) {
		err = raw_next(r, &r->ahead);
		if (err < 0)
			return err;
		r->set_done = !err;
	}
	if (r->next_copy < r->ncopies &&
	    (!r->ahead || copy_first(&r->copies[r->next_copy], r->ahead))) {
		c = &r->copies[r->next_copy++];
		return give(r, c->rec, true, c->run, out);
	}
	if (!r->ahead)
		return 0;
	rec = r->ahead;
	r->ahead = NULL;
	if (!strcmp(jstr(rec, "type", ""), "header")) {
		run = run_index(r, jstr(rec, "run", ""));
		if (run == SIZE_MAX) {
			json_decref(rec);
			return -ENOMEM;
		}
		json_decref(r->runs[run].hdr);
		r->runs[run].hdr = json_incref(rec);
		r->set_run = r->cur_run = run;
		*out = rec;
		r->kept = false;
		return 1;
	}
	return give(r, rec, false, r->set_run, out);
}

bool recording_kept(const struct recording *r)
{
	return r->kept;
}

uint64_t recording_records(const struct recording *r)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		n += r->files[i].records;
	return n;
}

/* ---- the summary ------------------------------------------------------------------ */

static json_t *name_of(const char *s)
{
	size_t need = esc_buf(NULL, 0, s, strlen(s)) + 1;
	char *buf = malloc(need);
	json_t *v;

	if (!buf)
		return NULL;
	esc_buf(buf, need, s, strlen(s));
	v = json_string(buf);
	free(buf);
	return v;
}

static json_t *file_summary(const struct recording_file *f)
{
	json_t *o, *dmg = json_array(), *cut = json_null();
	size_t i;

	for (i = 0; dmg && i < f->damaged && i < RECORDING_DAMAGE_KEPT; i++)
		json_array_append_new(
			dmg, json_pack("{sIsIss}", "line", (json_int_t)f->damage[i].line, "byte",
				       (json_int_t)f->damage[i].byte, "why", f->damage[i].why));
	if (f->cut)
		cut = json_pack("{sIsIsI}", "at_byte", (json_int_t)f->bytes, "line",
				(json_int_t)f->cut_line, "record_from_byte",
				(json_int_t)f->cut_from);
	o = json_pack("{s:o?,s:I,s:I,s:I,s:I,s:o?,s:I,s:I,s:b,s:o?}", "name", name_of(f->name),
		      "bytes", (json_int_t)f->bytes, "lines", (json_int_t)f->lines, "records",
		      (json_int_t)f->records, "damaged_lines", (json_int_t)f->damaged, "damaged",
		      dmg, "escaped_lines", (json_int_t)f->escaped, "unknown_records",
		      (json_int_t)f->unknown, "header", f->header, "cut", cut);
	if (o && f->format)
		json_object_set_new(o, "format", json_integer(f->format));
	if (o && f->incidents)
		json_object_set_new(o, "incidents", json_true());
	return o;
}

json_t *recording_summary(const struct recording *r)
{
	uint64_t damaged = 0, cut = 0;
	json_t *files = json_array(), *f;
	size_t i;

	if (!files)
		return NULL;
	for (i = 0; i < r->n; i++) {
		f = file_summary(&r->files[i]);
		if (!f || json_array_append_new(files, f)) {
			json_decref(files);
			return NULL;
		}
		damaged += r->files[i].damaged;
		cut += r->files[i].cut;
	}
	return json_pack("{s:o,s:I,s:I,s:I,s:b}", "files", files, "records",
			 (json_int_t)recording_records(r), "damaged_lines", (json_int_t)damaged,
			 "cut_files", (json_int_t)cut, "newest_missing", r->newest_missing);
}
