// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A kernel log's stalled pools: its lines (model/klog_line.c) grouped into
 * the pools they speak of, as they come.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "lib/vec.h"
#include "model/kernel_log.h"

void klog_init(struct klog *k)
{
	memset(k, 0, sizeof(*k));
	k->last_mono = NAN;
	k->end.mono = k->end.wall = NAN;
}

void klog_free(struct klog *k)
{
	free(k->pools);
	free(k->ids);
	klog_init(k);
}

/* ---- pools by id: an open-addressing table of positions + 1 --------------------------- */

static size_t id_hash(unsigned boot, uint32_t id, size_t cap)
{
	uint64_t h = ((uint64_t)boot << 32 | id) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (cap - 1);
}

static struct klog_pool *by_id(const struct klog *k, unsigned boot, uint32_t id)
{
	size_t i, at;

	if (!k->ids_cap)
		return NULL;
	for (i = id_hash(boot, id, k->ids_cap); (at = k->ids[i]); i = (i + 1) & (k->ids_cap - 1))
		if (k->pools[at - 1].boot == boot && k->pools[at - 1].id == id)
			return &k->pools[at - 1];
	return NULL;
}

/* room for one more id (at most half full); 0 or -ENOMEM */
static int ids_room(struct klog *k)
{
	size_t cap = k->ids_cap ? k->ids_cap * 2 : 64, i, j, at;
	size_t *v;

	if (k->ids_n + 1 <= k->ids_cap / 2)
		return 0;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < k->ids_cap; i++) {
		at = k->ids[i];
		if (!at)
			continue;
		for (j = id_hash(k->pools[at - 1].boot, k->pools[at - 1].id, cap); v[j];
		     j = (j + 1) & (cap - 1))
			;
		v[j] = at;
	}
	free(k->ids);
	k->ids = v;
	k->ids_cap = cap;
	return 0;
}

static void ids_add(struct klog *k, size_t pos)
{
	const struct klog_pool *p = &k->pools[pos];
	size_t j;

	for (j = id_hash(p->boot, p->id, k->ids_cap); k->ids[j]; j = (j + 1) & (k->ids_cap - 1))
		;
	k->ids[j] = pos + 1;
	k->ids_n++;
}

/* ---- which pool a line without an id belongs to ----------------------------------------- */

/* the clock two lines share: 'm' printk, 'w' wall of the same kind, 0 none */
static char shared_clock(const struct klog_time *a, const struct klog_time *b)
{
	if (!isnan(a->mono) && !isnan(b->mono))
		return 'm';
	if (!isnan(a->wall) && !isnan(b->wall) && a->zoned == b->zoned && a->noyear == b->noyear)
		return 'w';
	return 0;
}

/*
 * The same destroy: line time - sec within the stamps' resolution and the
 * kernel's (sec is whole, the warning runs off a one-second retry)
 */
static bool same_destroy(const struct klog_line *a, const struct klog_line *b, char clk)
{
	double ta = clk == 'm' ? a->t.mono : a->t.wall, tb = clk == 'm' ? b->t.mono : b->t.wall;
	double res = fmax(a->t.resolution, b->t.resolution);

	return fabs((ta - (double)a->sec) - (tb - (double)b->sec)) <= 1.5 + (res > 1 ? 1 : res);
}

/* a whole number of minutes later, give or take the retry's drift */
static bool minutes_later(int64_t from, int64_t to)
{
	double gap = (double)to - (double)from, m = round(gap / KLOG_WARN_EVERY);

	return m >= 1 && fabs(gap - m * KLOG_WARN_EVERY) <= 2 + m;
}

/*
 * Of the pools a line may continue, the one least recently continued: when
 * pools were destroyed together, their lines come round in the same order.
 * *met: the line met a pool destroyed with its own (told apart by order).
 */
static struct klog_pool *match(struct klog *k, const struct klog_line *l, bool *met)
{
	struct klog_pool *best = NULL, *p;
	size_t i;
	char clk;

	*met = false;
	for (i = 0; i < k->n; i++) {
		p = &k->pools[i];
		if (p->boot != l->boot || p->has_id)
			continue;
		clk = shared_clock(&p->last.t, &l->t);
		if (clk) {
			if (!same_destroy(&p->last, l, clk))
				continue;
			/* a line a minute per pool: this minute's is another pool's */
			if (l->sec < p->last.sec + KLOG_WARN_EVERY / 2) {
				p->together = true;
				*met = true;
				continue;
			}
		} else if (isnan(p->last.t.mono) && isnan(p->last.t.wall) && isnan(l->t.mono) &&
			   isnan(l->t.wall)) {
			if (!minutes_later(p->last.sec, l->sec))
				continue;
		} else {
			continue;
		}
		if (!best || p->last.lineno < best->last.lineno)
			best = p;
	}
	return best;
}

static void add_point(struct klog_pool *p, int64_t sec, int64_t inflight)
{
	const struct klog_point *last = p->npts ? klog_point(p, p->npts - 1) : NULL;

	if (last && last->inflight == inflight)
		return;
	if (p->npts < KLOG_POINTS_MAX) {
		p->pts[p->npts++] = (struct klog_point){ sec, inflight };
		return;
	}
	/* pts[0] stays the first; 1.. is a ring of the last */
	p->pts[1 + p->head] = (struct klog_point){ sec, inflight };
	p->head = (p->head + 1) % (KLOG_POINTS_MAX - 1);
	p->pts_dropped++;
}

size_t klog_npoints(const struct klog_pool *p)
{
	return p->npts;
}

const struct klog_point *klog_point(const struct klog_pool *p, size_t i)
{
	if (!i || p->npts < KLOG_POINTS_MAX)
		return &p->pts[i];
	return &p->pts[1 + (p->head + i - 1) % (KLOG_POINTS_MAX - 1)];
}

static int add_line(struct klog *k, const struct klog_line *l)
{
	bool met = false;
	struct klog_pool *p = l->has_id ? by_id(k, l->boot, l->id) : match(k, l, &met);

	if (!p) {
		if (k->n >= KLOG_POOLS_MAX) {
			k->lines_not_grouped++;
			return 0;
		}
		if (l->has_id && ids_room(k))
			return -ENOMEM;
		p = VEC_PUSH(k->pools, k->n, k->cap);
		if (!p)
			return -ENOMEM;
		p->boot = l->boot;
		p->has_id = l->has_id;
		p->id = l->id;
		p->grouped_by = l->has_id			       ? "id" :
				!isnan(l->t.mono) || !isnan(l->t.wall) ? "destroy time" :
									 "sequence";
		p->first = *l;
		p->min_inflight = p->max_inflight = l->inflight;
		p->ended_after_s = NAN;
		if (l->has_id)
			ids_add(k, k->n - 1);
	}
	p->together |= met;
	p->lines++;
	p->last = *l;
	if (!p->dev[0] && l->dev[0])
		memcpy(p->dev, l->dev, sizeof(p->dev));
	if (l->inflight < p->min_inflight)
		p->min_inflight = l->inflight;
	if (l->inflight > p->max_inflight)
		p->max_inflight = l->inflight;
	add_point(p, l->sec, l->inflight);
	return 0;
}

static void new_boot(struct klog *k)
{
	k->boot++;
	k->boot_has_lines = false;
	k->last_mono = NAN;
	k->end.mono = k->end.wall = NAN;
}

int klog_feed_line(struct klog *k, const char *line, size_t len)
{
	struct klog_line l;
	char kernel[sizeof(k->kernel)];
	int64_t neg = 0;
	enum klog_kind kind;
	int err = 0;

	k->lines++;
	kind = klog_parse_line(line, len, &l, &neg, kernel, sizeof(kernel));
	l.lineno = k->lines;
	if (kind == KL_BOOT) {
		if (k->boot_has_lines)
			new_boot(k);
		return 0;
	}
	if (kind == KL_BANNER) {
		if (k->boot_has_lines)
			new_boot(k);
		memcpy(k->kernel, kernel, sizeof(k->kernel));
	}
	/* the printk clock going back: the log goes on in a later boot */
	if (!isnan(l.t.mono)) {
		if (k->boot_has_lines && !isnan(k->last_mono) && l.t.mono + 5 < k->last_mono)
			new_boot(k);
		k->last_mono = l.t.mono;
	}
	k->boot_has_lines = true;
	k->boots = k->boot + 1;
	k->by_fmt[l.fmt]++;
	if (!isnan(l.t.mono) && !(k->end.mono >= l.t.mono))
		k->end.mono = l.t.mono;
	if (!isnan(l.t.wall) && !(k->end.wall >= l.t.wall)) {
		k->end.wall = l.t.wall;
		k->end.zoned = l.t.zoned;
		k->end.noyear = l.t.noyear;
	}
	l.boot = k->boot;
	switch (kind) {
	case KL_STALL:
		err = add_line(k, &l);
		if (!err)
			k->stall_lines++;
		else
			k->lost_lines++;
		break;
	case KL_STALL_UNREAD:
		if (!k->unread_lines++) {
			k->unread_first = l.lineno;
			memcpy(k->unread_text, l.text, sizeof(k->unread_text));
		}
		break;
	case KL_NEGATIVE:
		if (!k->negative_warnings++)
			k->negative_first = neg;
		break;
	default:
		break;
	}
	return err;
}

int klog_feed(struct klog *k, const char *buf, size_t len)
{
	const char *p = buf, *e = buf + len, *nl;
	int err = 0;

	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		err = klog_feed_line(k, p, (size_t)((nl ? nl : e) - p)) ?: err;
		p = nl ? nl + 1 : e;
	}
	return err;
}

void klog_finish(struct klog *k, double end_mono)
{
	struct klog_pool *p;
	size_t i;

	if (!isnan(end_mono))
		k->end.mono = end_mono;
	for (i = 0; i < k->n; i++) {
		p = &k->pools[i];
		p->rebooted = p->boot < k->boot;
		p->ended = p->rebooted;
		p->ended_after_s = NAN;
		if (p->rebooted)
			continue;
		/* in each clock the line and the end share: the log's later end */
		if (!isnan(p->last.t.mono) && !isnan(k->end.mono))
			p->ended_after_s = k->end.mono - p->last.t.mono;
		if (!isnan(p->last.t.wall) && !isnan(k->end.wall) &&
		    p->last.t.zoned == k->end.zoned && p->last.t.noyear == k->end.noyear &&
		    !(p->ended_after_s >= k->end.wall - p->last.t.wall))
			p->ended_after_s = k->end.wall - p->last.t.wall;
		/* its next warning was due a minute after its last: past it with room */
		p->ended = p->ended_after_s > KLOG_WARN_EVERY * 1.5;
	}
}
