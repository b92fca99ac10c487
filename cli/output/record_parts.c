// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "output/record_parts.h"

/* room kept in every part for ,"part":K,"parts":N and ,"elements_dropped":N}, "]}\n" */
#define PART_RESERVE  48
#define CLOSE_RESERVE 48

/* ---- capturing ------------------------------------------------------------------------ */

struct json *rp_capture_begin(struct rp_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->s, &c->n);
	if (!c->f)
		return NULL;
	json_init(&c->j, c->f, false);
	return &c->j;
}

int rp_capture_end(struct rp_capture *c, struct rp_piece *out, bool members)
{
	int err = 0;

	*out = (struct rp_piece){ 0 };
	if (!c->f || fclose(c->f))
		err = -ENOMEM;
	c->f = NULL;
	if (!err && members) {
		/* "{...}" -> "..." */
		if (c->n < 2 || c->s[0] != '{' || c->s[c->n - 1] != '}') {
			err = -EINVAL;
		} else {
			memmove(c->s, c->s + 1, c->n - 2);
			c->n -= 2;
			c->s[c->n] = 0;
		}
	}
	if (err) {
		free(c->s);
		return err;
	}
	out->s = c->s;
	out->n = c->n;
	return 0;
}

/* ---- building ------------------------------------------------------------------------- */

void rparts_init(struct rparts *p, const char *key)
{
	memset(p, 0, sizeof(*p));
	p->key = key;
}

void rparts_free(struct rparts *p)
{
	size_t i, k;

	for (i = 0; i < p->ng; i++) {
		free(p->g[i].head.s);
		for (k = 0; k < p->g[i].ninner; k++)
			free(p->g[i].inner[k].s);
		free(p->g[i].inner);
	}
	free(p->g);
	free(p->each.s);
	free(p->once.s);
	memset(p, 0, sizeof(*p));
}

static struct rp_group *new_group(struct rparts *p, struct rp_piece head)
{
	struct rp_group *g = VEC_PUSH(p->g, p->ng, p->cap);

	if (!g) {
		free(head.s);
		p->nomem = true;
		return NULL;
	}
	memset(g, 0, sizeof(*g));
	g->head = head;
	return g;
}

void rparts_add(struct rparts *p, struct rp_piece whole)
{
	new_group(p, whole);
}

void rparts_group(struct rparts *p, struct rp_piece members, const char *inner_key)
{
	struct rp_group *g = new_group(p, members);

	if (g)
		g->inner_key = inner_key;
}

void rparts_inner(struct rparts *p, struct rp_piece item)
{
	struct rp_group *g = p->ng ? &p->g[p->ng - 1] : NULL;
	struct rp_piece *x;

	if (!g || !g->inner_key || !(x = VEC_PUSH(g->inner, g->ninner, g->cap))) {
		free(item.s);
		p->nomem = true;
		return;
	}
	*x = item;
}

/* ---- emitting ------------------------------------------------------------------------- */

/* the parts as they are built: what follows the prefix (and the part members) */
struct emitter {
	const struct rparts *p;
	size_t start; /* bytes a part takes before its first element, with the prefix */
	size_t limit;
	struct rp_piece *v; /* the parts */
	size_t n, cap;
	uint64_t *drops; /* per part */
	size_t dcap;
	char *cur; /* the part being built */
	size_t len, ccap;
	size_t elems; /* in it */
	bool in_group, group_items;
	int err;
};

static void add(struct emitter *e, const char *s, size_t n)
{
	char *p;

	if (e->err)
		return;
	if (e->len + n + 1 > e->ccap) {
		p = vec_grow(e->cur, &e->ccap, e->len + n + 1, 1);
		if (!p) {
			e->err = -ENOMEM;
			return;
		}
		e->cur = p;
	}
	memcpy(e->cur + e->len, s, n);
	e->len += n;
	e->cur[e->len] = 0;
}

#define ADDS(e, lit) add(e, lit, sizeof(lit) - 1)

static void add_member_text(struct emitter *e, const struct rp_piece *m)
{
	if (!m->n)
		return;
	ADDS(e, ",");
	add(e, m->s, m->n);
}

/* a new part: EACH, ONCE for the first, the array opened */
static void part_open(struct emitter *e)
{
	uint64_t *d;

	e->len = 0;
	e->elems = 0;
	add_member_text(e, &e->p->each);
	if (!e->n)
		add_member_text(e, &e->p->once);
	ADDS(e, ",\"");
	add(e, e->p->key, strlen(e->p->key));
	ADDS(e, "\":[");
	if (!e->err && e->n >= e->dcap) {
		d = vec_grow(e->drops, &e->dcap, e->n + 1, sizeof(*d));
		if (!d)
			e->err = -ENOMEM;
		else
			e->drops = d;
	}
	if (!e->err)
		e->drops[e->n] = 0;
}

/* room left in the current part for elements */
static size_t room(const struct emitter *e)
{
	size_t used = e->start + e->len + CLOSE_RESERVE;

	return used < e->limit ? e->limit - used : 0;
}

static void group_close(struct emitter *e)
{
	if (e->in_group)
		ADDS(e, "]}");
	e->in_group = false;
}

static void part_close(struct emitter *e)
{
	struct rp_piece *x;

	group_close(e);
	ADDS(e, "]");
	if (e->err)
		return;
	x = VEC_PUSH(e->v, e->n, e->cap);
	if (!x) {
		e->err = -ENOMEM;
		return;
	}
	x->s = e->cur;
	x->n = e->len;
	e->cur = NULL;
	e->ccap = e->len = 0;
	part_open(e);
}

/* the part as it is cannot take n more bytes: a new one, if it has anything */
static bool make_room(struct emitter *e, size_t n)
{
	if (n <= room(e))
		return true;
	if (e->elems)
		part_close(e);
	return n <= room(e);
}

static void whole(struct emitter *e, const struct rp_piece *x)
{
	size_t comma = e->elems > 0;

	if (!make_room(e, x->n + comma)) {
		e->drops[e->n]++;
		return;
	}
	if (e->elems++)
		ADDS(e, ",");
	add(e, x->s, x->n);
}

/* ,{MEMBERS,"KEY":[ : what a group's piece costs before its items */
static size_t group_cost(const struct rp_group *g)
{
	return 1 + 1 + g->head.n + 1 + strlen(g->inner_key) + 4 + 2;
}

static void group_open(struct emitter *e, const struct rp_group *g)
{
	if (e->elems++)
		ADDS(e, ",");
	ADDS(e, "{");
	add(e, g->head.s, g->head.n);
	if (g->head.n)
		ADDS(e, ",");
	ADDS(e, "\"");
	add(e, g->inner_key, strlen(g->inner_key));
	ADDS(e, "\":[");
	e->in_group = true;
	e->group_items = false;
}

static void group(struct emitter *e, const struct rp_group *g)
{
	size_t total = group_cost(g), k;

	for (k = 0; k < g->ninner; k++)
		total += g->inner[k].n + 1;
	/* whole where it fits, in this part or a new one */
	if (!make_room(e, total) &&
	    !make_room(e, group_cost(g) + (g->ninner ? g->inner[0].n : 0))) {
		e->drops[e->n]++;
		return;
	}
	group_open(e, g);
	for (k = 0; k < g->ninner; k++) {
		const struct rp_piece *x = &g->inner[k];

		if (x->n + 1 > room(e)) {
			/* the rest in the next part, the group's members again */
			group_close(e);
			part_close(e);
			if (group_cost(g) + x->n > room(e)) {
				e->drops[e->n]++;
				continue;
			}
			group_open(e, g);
		}
		if (e->group_items)
			ADDS(e, ",");
		add(e, x->s, x->n);
		e->group_items = true;
	}
	group_close(e);
}

int rparts_emit(const struct rparts *p, const char *prefix, size_t limit,
		int (*out)(void *arg, const char *buf, size_t len), void *arg, unsigned *parts,
		uint64_t *dropped)
{
	struct emitter e = { .p = p, .limit = limit };
	size_t i, plen = strlen(prefix);
	char *line = NULL, mid[80];
	size_t llen, lcap = 0;
	int err = 0;

	*parts = 0;
	*dropped = 0;
	e.start = plen + PART_RESERVE;
	part_open(&e);
	for (i = 0; i < p->ng && !e.err; i++) {
		if (p->g[i].inner_key)
			group(&e, &p->g[i]);
		else
			whole(&e, &p->g[i].head);
	}
	if (e.elems || !e.n)
		part_close(&e);
	err = e.err;
	for (i = 0; !err && i < e.n; i++) {
		mid[0] = 0;
		if (e.n > 1)
			snprintf(mid, sizeof(mid), ",\"part\":%zu,\"parts\":%zu", i + 1, e.n);
		if (e.drops[i])
			snprintf(mid + strlen(mid), sizeof(mid) - strlen(mid),
				 ",\"elements_dropped\":%llu", (unsigned long long)e.drops[i]);
		*dropped += e.drops[i];
		llen = plen + strlen(mid) + e.v[i].n + 2;
		if (llen + 1 > lcap) {
			char *l = realloc(line, llen + 1);

			if (!l) {
				err = -ENOMEM;
				break;
			}
			line = l;
			lcap = llen + 1;
		}
		snprintf(line, lcap, "%s%s%s}\n", prefix, mid, e.v[i].s);
		err = out(arg, line, llen);
		if (!err)
			(*parts)++;
	}
	free(line);
	for (i = 0; i < e.n; i++)
		free(e.v[i].s);
	free(e.v);
	free(e.drops);
	free(e.cur);
	return err;
}
