// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "model/incidents.h"

/* what goes first from an open incident when there is not room: left to right */
static const enum inc_slot trim_order[] = {
	IS_STACKS,	 IS_PAGES_LAST,	   IS_PAGES_STALL, IS_PAGES_FIRST, IS_ROW_LAST,
	IS_HOLDERS_LAST, IS_HOLDERS_STALL, IS_RETRY,	   IS_UNMAP,
};

void inc_init(struct incidents *x, size_t budget, unsigned keep_closed)
{
	memset(x, 0, sizeof(*x));
	x->budget = budget;
	x->keep_closed = keep_closed;
}

static void line_free(struct inc_line *l)
{
	free(l->text);
	memset(l, 0, sizeof(*l));
}

static void incident_free(struct incident *i)
{
	int s;

	for (s = 0; s < IS_MAX; s++)
		line_free(&i->slot[s]);
}

void inc_free(struct incidents *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		incident_free(&x->v[i]);
	free(x->v);
	free(x->before);
	memset(x, 0, sizeof(*x));
}

int inc_before(struct incidents *x, const char *text, size_t len)
{
	free(x->before);
	x->before = len ? malloc(len) : NULL;
	x->before_len = x->before ? len : 0;
	if (len && !x->before)
		return -ENOMEM;
	memcpy(x->before, text, len);
	x->dirty = true;
	return 0;
}

/* freed incidents past the last keep_closed: gone */
static void forget_closed(struct incidents *x)
{
	size_t closed = 0, i, k;

	for (i = 0; i < x->n; i++)
		closed += x->v[i].freed;
	for (i = 0; i < x->n && closed > x->keep_closed;) {
		if (!x->v[i].freed) {
			i++;
			continue;
		}
		incident_free(&x->v[i]);
		for (k = i; k + 1 < x->n; k++)
			x->v[k] = x->v[k + 1];
		x->n--;
		closed--;
	}
}

struct incident *inc_get(struct incidents *x, __u64 addr, __u32 gen, bool create, double now)
{
	struct incident *i;
	size_t k;

	for (k = 0; k < x->n; k++)
		if (x->v[k].addr == addr && x->v[k].gen == gen)
			return &x->v[k];
	if (!create)
		return NULL;
	i = VEC_PUSH(x->v, x->n, x->cap);
	if (!i)
		return NULL;
	i->addr = addr;
	i->gen = gen;
	i->began = now;
	x->dirty = true;
	return i;
}

int inc_keep(struct incidents *x, struct incident *i, enum inc_slot s, const char *text, size_t len,
	     double time, uint64_t seq)
{
	struct inc_line *l = &i->slot[s];
	char *t = malloc(len);

	if (!t)
		return -ENOMEM;
	memcpy(t, text, len);
	line_free(l);
	*l = (struct inc_line){ t, len, time, seq };
	if (s == IS_STALLED)
		i->stalled = true;
	if (s == IS_FREED) {
		i->freed = true;
		forget_closed(x);
	}
	x->dirty = true;
	return 0;
}

/* ---- the file ---------------------------------------------------------------------- */

/* what is in the file, and its size: the state a render trims */
struct plan {
	bool before;
	bool *in;   /* per incident */
	bool *slot; /* per incident and slot */
	size_t size;
};

static size_t incident_size(const struct incidents *x, const struct plan *p, size_t k)
{
	size_t s, n = 0;

	if (!p->in[k])
		return 0;
	for (s = 0; s < IS_MAX; s++)
		if (p->slot[k * IS_MAX + s])
			n += x->v[k].slot[s].len;
	return n;
}

static size_t plan_size(const struct incidents *x, const struct plan *p, size_t hlen)
{
	size_t n = hlen + (p->before ? x->before_len : 0), k;

	for (k = 0; k < x->n; k++)
		n += incident_size(x, p, k);
	return n;
}

/* the copies of the freed (or the open) incidents, in trim order, newest first, until it fits */
static void trim_copies(struct incidents *x, struct plan *p, size_t hlen, bool freed)
{
	size_t k, t;

	for (t = 0; t < sizeof(trim_order) / sizeof(trim_order[0]); t++)
		for (k = x->n; k-- > 0 && plan_size(x, p, hlen) > x->budget;)
			if (x->v[k].freed == freed)
				p->slot[k * IS_MAX + trim_order[t]] = false;
}

/*
 * Left out until it fits: what a recorder before left; the freed
 * incidents' copies, then the freed incidents; the open ones' copies, then
 * the open ones. A freed incident loses its copies before it is left out
 * whole: the one incident of a small budget is kept, without its pages.
 */
static void trim(struct incidents *x, struct plan *p, size_t hlen)
{
	size_t k;

	if (plan_size(x, p, hlen) > x->budget)
		p->before = false;
	trim_copies(x, p, hlen, true);
	for (k = 0; k < x->n && plan_size(x, p, hlen) > x->budget; k++)
		if (x->v[k].freed)
			p->in[k] = false;
	trim_copies(x, p, hlen, false);
	for (k = 0; k < x->n && plan_size(x, p, hlen) > x->budget; k++)
		p->in[k] = false;
}

static int by_time(const void *a, const void *b)
{
	const struct inc_line *x = *(const struct inc_line *const *)a;
	const struct inc_line *y = *(const struct inc_line *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

char *inc_render(struct incidents *x, const char *header, size_t hlen, size_t *len)
{
	struct plan p = { .before = x->before_len > 0 };
	const struct inc_line **lines = NULL;
	size_t k, s, n = 0, off;
	char *out = NULL;

	p.in = calloc(x->n + 1, sizeof(*p.in));
	p.slot = calloc((x->n + 1) * IS_MAX, sizeof(*p.slot));
	lines = calloc(x->n * IS_MAX + 1, sizeof(*lines));
	if (!p.in || !p.slot || !lines)
		goto out;
	for (k = 0; k < x->n; k++) {
		p.in[k] = true;
		for (s = 0; s < IS_MAX; s++)
			p.slot[k * IS_MAX + s] = x->v[k].slot[s].text != NULL;
	}
	trim(x, &p, hlen);
	x->dropped = 0;
	for (k = 0; k < x->n; k++) {
		x->dropped += !p.in[k];
		for (s = 0; p.in[k] && s < IS_MAX; s++)
			if (p.slot[k * IS_MAX + s])
				lines[n++] = &x->v[k].slot[s];
	}
	/* each incident's story in the order it happened, the copies of one record together */
	qsort(lines, n, sizeof(*lines), by_time);
	*len = plan_size(x, &p, hlen);
	out = malloc(*len + 1);
	if (!out)
		goto out;
	/* what a recorder before this one kept, under its own header; then this one's */
	off = 0;
	if (p.before) {
		memcpy(out, x->before, x->before_len);
		off = x->before_len;
	}
	memcpy(out + off, header, hlen);
	off += hlen;
	for (k = 0; k < n; k++) {
		/* one record kept in two slots (the stall's scan is the latest): written once */
		if (k && lines[k]->seq == lines[k - 1]->seq && lines[k]->len == lines[k - 1]->len &&
		    !memcmp(lines[k]->text, lines[k - 1]->text, lines[k]->len))
			continue;
		memcpy(out + off, lines[k]->text, lines[k]->len);
		off += lines[k]->len;
	}
	out[off] = 0;
	*len = off;
	x->dirty = false;
out:
	free(p.in);
	free(p.slot);
	free(lines);
	return out;
}
