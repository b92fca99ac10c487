// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/rotfile.h"
#include "sources/incident_file.h"

/* ---- opening ---------------------------------------------------------------------------- */

/* what a recorder before this one left: 0 (kept, or nothing there) or -errno (reported) */
static int read_before(struct incident_file *f, size_t budget)
{
	char prefix[sizeof(ROTFILE_HEADER_START) - 1], esc[600];
	struct stat st;
	char *text;
	ssize_t n;
	int fd, err = 0;

	fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	esc_buf(esc, sizeof(esc), f->path, strlen(f->path));
	if (fd < 0) {
		p_err("record: opening %s: %s%s", esc, strerror(errno),
		      errno == ELOOP ? " (a symlink: the incident file is never one)" : "");
		return -errno;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, prefix, sizeof(prefix), 0) != (ssize_t)sizeof(prefix) ||
	    memcmp(prefix, ROTFILE_HEADER_START, sizeof(prefix))) {
		close(fd);
		if (S_ISREG(st.st_mode) && !st.st_size)
			return 0;
		p_err("record: %s is not a recording ppwatch made (not a file that starts with a "
		      "header), and the incident file replaces it: move it away, or give another "
		      "FILE",
		      esc);
		return -EINVAL;
	}
	/* kept while there is room: no more than the budget is read */
	text = malloc(budget + 1);
	n = text ? pread(fd, text, budget, 0) : -1;
	close(fd);
	if (n > 0) {
		/* whole lines only */
		while (n > 0 && text[n - 1] != '\n')
			n--;
		err = inc_before(&f->x, text, n);
	}
	free(text);
	return err;
}

int incf_open(struct incident_file *f, const char *path, size_t budget, unsigned keep,
	      const struct file_perm *perm, size_t limit)
{
	memset(f, 0, sizeof(*f));
	if (asprintf(&f->path, "%s.incidents", path) < 0) {
		f->path = NULL;
		p_err("record: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (perm)
		f->perm = *perm;
	f->limit = limit;
	inc_init(&f->x, budget, keep);
	f->on = true;
	return read_before(f, budget);
}

void incf_close(struct incident_file *f)
{
	inc_free(&f->x);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* ---- keeping ---------------------------------------------------------------------------- */

static void keep(struct incident_file *f, struct incident *i, enum inc_slot s, const char *text,
		 size_t len, double time, uint64_t seq)
{
	if (text && inc_keep(&f->x, i, s, text, len, time, seq))
		p_warn("record: keeping an incident's records: %s", strerror(ENOMEM));
}

void incf_event(struct incident_file *f, const struct event_row *er, const char *text, size_t len,
		double time, uint64_t seq)
{
	static const enum inc_slot of[LE_KIND_MAX] = {
		[LE_DESTROY] = IS_DESTROY, [LE_STALLED] = IS_STALLED, [LE_UNMAP] = IS_UNMAP,
		[LE_FREED] = IS_FREED,	   [LE_RETRY] = IS_RETRY,
	};
	struct incident *i;

	if (!f->on || er->kind >= LE_KIND_MAX || (!of[er->kind] && er->kind != LE_DESTROY))
		return;
	/* a pool destroyed before the recorder began is an incident from its stall on */
	i = inc_get(&f->x, er->row.addr, er->row.gen,
		    er->kind == LE_DESTROY || er->kind == LE_STALLED || er->kind == LE_UNMAP, time);
	if (i)
		keep(f, i, of[er->kind], text, len, time, seq);
}

/* a sink for the copies: the lines of one record, in memory */
struct buf {
	FILE *f;
	char *text;
	size_t len;
};

static int to_buf(void *arg, const char *line, size_t len)
{
	return fwrite(line, 1, len, ((struct buf *)arg)->f) == len ? 0 : -ENOMEM;
}

/* the record p builds, at the time and seq of the one written: its lines, malloc'd */
static char *lines_of(struct rparts *p, const char *type, double time, uint64_t seq, size_t limit,
		      size_t *len)
{
	char *prefix = p->nomem ? NULL : rbuild_prefix(type, time, seq);
	struct buf b = { 0 };
	uint64_t dropped;
	unsigned n;
	int err = -ENOMEM;

	b.f = prefix ? open_memstream(&b.text, &b.len) : NULL;
	if (b.f)
		err = rparts_emit(p, prefix, limit, to_buf, &b, &n, &dropped);
	if (b.f && fclose(b.f))
		err = -ENOMEM;
	free(prefix);
	rparts_free(p);
	if (err) {
		free(b.text);
		return NULL;
	}
	*len = b.len;
	return b.text;
}

/* s cut down to the incident's pool, in one: false if s does not have it */
static bool one_pool(const struct snapshot *s, const struct incident *i, struct snapshot *one)
{
	size_t r;

	for (r = 0; r < s->n; r++) {
		if (s->rows[r].addr != i->addr || s->rows[r].gen != i->gen)
			continue;
		*one = *s;
		one->rows = &s->rows[r];
		one->n = 1;
		return true;
	}
	return false;
}

void incf_snapshot(struct incident_file *f, const struct snapshot *s, double time, uint64_t seq)
{
	struct snapshot one;
	struct rparts p;
	char *text;
	size_t k, len;

	for (k = 0; f->on && k < f->x.n; k++) {
		struct incident *i = &f->x.v[k];

		if (i->freed || !one_pool(s, i, &one))
			continue;
		rbuild_snapshot(&p, &one);
		text = lines_of(&p, "snapshot", time, seq, f->limit, &len);
		if (!inc_has(i, IS_ROW_FIRST))
			keep(f, i, IS_ROW_FIRST, text, len, time, seq);
		keep(f, i, IS_ROW_LAST, text, len, time, seq);
		free(text);
	}
}

void incf_scan(struct incident_file *f, const struct holders_report *rep, double time, uint64_t seq)
{
	struct holders_report one;
	struct rparts p;
	char *text;
	size_t k, h, len;

	for (k = 0; f->on && k < f->x.n; k++) {
		struct incident *i = &f->x.v[k];

		for (h = 0; !i->freed && h < rep->n; h++) {
			if (rep->pools[h].row->addr != i->addr || rep->pools[h].row->gen != i->gen)
				continue;
			one = *rep;
			one.pools = &rep->pools[h];
			one.n = 1;
			rbuild_holders(&p, &one);
			text = lines_of(&p, "holders", time, seq, f->limit, &len);
			if (!inc_has(i, IS_HOLDERS_FIRST))
				keep(f, i, IS_HOLDERS_FIRST, text, len, time, seq);
			if (i->stalled && !inc_has(i, IS_HOLDERS_STALL))
				keep(f, i, IS_HOLDERS_STALL, text, len, time, seq);
			keep(f, i, IS_HOLDERS_LAST, text, len, time, seq);
			free(text);
		}
	}
}

void incf_pages(struct incident_file *f, const struct pool_row *row, const struct page_list *l,
		double time, uint64_t seq)
{
	struct incident *i = f->on ? inc_get(&f->x, row->addr, row->gen, false, time) : NULL;
	struct rparts p;
	char *text;
	size_t len;

	if (!i || i->freed)
		return;
	rbuild_pages(&p, row, l->rows, l->n);
	text = lines_of(&p, "pages", time, seq, f->limit, &len);
	if (!inc_has(i, IS_PAGES_FIRST))
		keep(f, i, IS_PAGES_FIRST, text, len, time, seq);
	if (i->stalled && !inc_has(i, IS_PAGES_STALL))
		keep(f, i, IS_PAGES_STALL, text, len, time, seq);
	keep(f, i, IS_PAGES_LAST, text, len, time, seq);
	free(text);
}

void incf_stacks(struct incident_file *f, const struct ksyms *k, const struct snapshot *s,
		 const struct stack_agg *v, size_t n, uint64_t every, double time, uint64_t seq)
{
	struct snapshot one;
	struct rparts p;
	char *text;
	size_t j, len;

	for (j = 0; f->on && j < f->x.n; j++) {
		struct incident *i = &f->x.v[j];

		if (!one_pool(s, i, &one))
			continue;
		rbuild_stacks(&p, k, &one, v, n, every);
		text = lines_of(&p, "stacks", time, seq, f->limit, &len);
		keep(f, i, IS_STACKS, text, len, time, seq);
		free(text);
	}
}

/* ---- writing ---------------------------------------------------------------------------- */

bool incf_due(const struct incident_file *f, double now, bool force)
{
	return f->on && f->x.dirty && (force || now - f->written >= 1);
}

int incf_write(struct incident_file *f, const char *header, size_t hlen, double now)
{
	size_t len;
	char *text = inc_render(&f->x, header, hlen, &len);
	int err;

	if (!text) {
		snprintf(f->what, sizeof(f->what), "building %s: %s", f->path, strerror(ENOMEM));
		return -ENOMEM;
	}
	err = atomic_file_write(f->path, text, len, &f->perm, f->what, sizeof(f->what));
	free(text);
	f->written = now;
	if (err)
		f->x.dirty = true; /* tried again */
	if (!err && f->x.dropped > f->warned_dropped) {
		p_warn("record: %s keeps the incidents that fit --incident-size: %llu left out "
		       "(the oldest)",
		       f->path, (unsigned long long)f->x.dropped);
		f->warned_dropped = f->x.dropped;
	}
	return err;
}
