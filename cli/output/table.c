// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "output/table.h"

const char *ocell_text(const struct ocol *c, const struct oval *v, char *buf, size_t len)
{
	char tmp[64];
	double d;

	if (v->null) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (v->t) {
	case OT_STR: {
		const char *str = v->text ? v->text : v->s;

		/* names are untrusted: lib/escape.h */
		if (str && *str)
			esc_buf(buf, len, str, strlen(str));
		else
			snprintf(buf, len, "-");
		return buf;
	}
	case OT_BOOL:
		snprintf(buf, len, "%s", v->b ? "yes" : "no");
		return buf;
	case OT_U64:
		d = (double)v->u;
		break;
	case OT_S64:
		d = (double)v->i;
		break;
	default:
		d = v->f;
		if (!isfinite(d)) {
			snprintf(buf, len, "-");
			return buf;
		}
	}
	switch (c->fmt) {
	case OF_BYTES:
		fmt_bytes(tmp, sizeof(tmp), d);
		break;
	case OF_AGE:
		fmt_age(tmp, sizeof(tmp), d);
		break;
	case OF_RATE:
		snprintf(tmp, sizeof(tmp), "%.0f", d);
		break;
	case OF_HEX:
		snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)v->u);
		break;
	default:
		if (v->t == OT_U64)
			snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v->u);
		else if (v->t == OT_S64)
			snprintf(tmp, sizeof(tmp), "%lld", (long long)v->i);
		else
			snprintf(tmp, sizeof(tmp), "%.1f", d);
	}
	snprintf(buf, len, "%s%s", v->at_least ? ">" : v->estimate ? "~" : "", tmp);
	return buf;
}

bool ocol_shown(const struct ocol *c, bool wide)
{
	if (c->flags & OC_JSON)
		return false;
	return wide || !(c->flags & OC_WIDE);
}

/*
 * The bytes of the first 'cols' columns of escaped text, and how many
 * columns they fill: a character is one, and a cut never splits one nor
 * an escape (\xHH).
 */
static size_t text_prefix(const char *s, int cols, int *n)
{
	size_t i = 0, u;
	int w;

	for (*n = 0; s[i]; i += u, *n += w) {
		if (s[i] == '\\' && s[i + 1] == 'x' && isxdigit((unsigned char)s[i + 2]) &&
		    isxdigit((unsigned char)s[i + 3])) {
			u = w = 4;
		} else {
			for (u = 1; ((unsigned char)s[i + u] & 0xc0) == 0x80; u++)
				;
			w = 1;
		}
		if (*n + w > cols)
			break;
	}
	return i;
}

/* a cell padded by characters; a left-aligned one cut, never inside a character */
static void put_cell(FILE *f, const struct ocol *c, const char *text, bool first, bool last)
{
	int w = c->width, n;
	size_t len;

	if (!first)
		fputc(' ', f);
	if ((c->flags & OC_LEFT) && last) {
		fputs(text, f); /* the last column: whole, no trailing blanks */
		return;
	}
	if (c->flags & OC_LEFT) {
		len = text_prefix(text, w, &n);
		fprintf(f, "%.*s%*s", (int)len, text, w - n, "");
	} else {
		text_prefix(text, w, &n);
		fprintf(f, "%*s%s", w - n, "", text);
	}
}

static int last_shown(const struct oview *ov, bool wide)
{
	int i;

	for (i = ov->ncols - 1; i > 0; i--)
		if (ocol_shown(&ov->cols[i], wide))
			break;
	return i;
}

void out_text(FILE *f, const struct oview *ov, const void *rows, size_t n, size_t row_size,
	      bool wide, bool header)
{
	int last = last_shown(ov, wide), i;
	char buf[128];
	struct oval v;
	bool first;
	size_t r;

	if (header) {
		first = true;
		for (i = 0; i < ov->ncols; i++) {
			if (!ocol_shown(&ov->cols[i], wide))
				continue;
			put_cell(f, &ov->cols[i], ov->cols[i].hdr, first, i == last);
			first = false;
		}
		fputc('\n', f);
	}
	for (r = 0; r < n; r++) {
		const void *row = (const char *)rows + r * row_size;

		first = true;
		for (i = 0; i < ov->ncols; i++) {
			if (!ocol_shown(&ov->cols[i], wide))
				continue;
			memset(&v, 0, sizeof(v));
			ov->get(row, i, &v, ov->ctx);
			put_cell(f, &ov->cols[i], ocell_text(&ov->cols[i], &v, buf, sizeof(buf)),
				 first, i == last);
			first = false;
		}
		fputc('\n', f);
	}
}

static void put_json_value(struct json *j, const struct oval *v)
{
	if (v->null) {
		json_put_null(j);
		return;
	}
	switch (v->t) {
	case OT_STR:
		json_str(j, v->s);
		break;
	case OT_U64:
		json_u64(j, v->u);
		break;
	case OT_S64:
		json_s64(j, v->i);
		break;
	case OT_F64:
		json_f64(j, v->f);
		break;
	case OT_BOOL:
		json_bool(j, v->b);
		break;
	}
}

/* length of the "prefix." part of a dotted key, 0 if none */
static size_t key_prefix(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot ? (size_t)(dot - key) + 1 : 0;
}

void out_json_row(struct json *j, const struct oview *ov, const void *row)
{
	const char *open_pfx = NULL;
	size_t open_len = 0, pl;
	struct oval v;
	char name[64];
	int i;

	json_obj_open(j);
	for (i = 0; i < ov->ncols; i++) {
		const char *key = ov->cols[i].key;

		if (ov->cols[i].flags & OC_TEXT)
			continue;
		pl = key_prefix(key);
		if (open_pfx && (pl != open_len || strncmp(key, open_pfx, pl))) {
			json_obj_close(j);
			open_pfx = NULL;
		}
		if (pl && !open_pfx) {
			snprintf(name, sizeof(name), "%.*s", (int)pl - 1, key);
			json_key(j, name);
			json_obj_open(j);
			open_pfx = key;
			open_len = pl;
		}
		memset(&v, 0, sizeof(v));
		ov->get(row, i, &v, ov->ctx);
		json_key(j, key + pl);
		put_json_value(j, &v);
	}
	if (open_pfx)
		json_obj_close(j);
	if (ov->json_extra)
		ov->json_extra(j, row, ov->ctx);
	json_obj_close(j);
}

void out_json_rows(struct json *j, const struct oview *ov, const void *rows, size_t n,
		   size_t row_size)
{
	size_t r;

	json_arr_open(j);
	for (r = 0; r < n; r++)
		out_json_row(j, ov, (const char *)rows + r * row_size);
	json_arr_close(j);
}

int ocol_find(const struct oview *ov, const char *key)
{
	int i, found = -1;

	for (i = 0; i < ov->ncols; i++)
		if (!strcmp(ov->cols[i].key, key))
			return i;
	for (i = 0; i < ov->ncols; i++) {
		if (!strncmp(ov->cols[i].key, key, strlen(key))) {
			if (found >= 0)
				return -1; /* ambiguous */
			found = i;
		}
	}
	return found;
}

struct sort_ctx {
	const struct oview *ov;
	int col;
	bool reverse;
};

static int oval_cmp(const struct oval *a, const struct oval *b)
{
	double x, y;

	/* numbers inside names in their order: eth2 before eth10, pool 9 before 13 */
	if (a->t == OT_STR)
		return strverscmp(a->s ? a->s : "", b->s ? b->s : "");
	x = a->t == OT_U64  ? (double)a->u :
	    a->t == OT_S64  ? (double)a->i :
	    a->t == OT_BOOL ? a->b :
			      a->f;
	y = b->t == OT_U64  ? (double)b->u :
	    b->t == OT_S64  ? (double)b->i :
	    b->t == OT_BOOL ? b->b :
			      b->f;
	/* numbers: biggest first */
	return x < y ? 1 : x > y ? -1 : 0;
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	struct oval a = { 0 }, b = { 0 };
	bool an, bn;
	int r;

	c->ov->get(pa, c->col, &a, c->ov->ctx);
	c->ov->get(pb, c->col, &b, c->ov->ctx);
	an = a.null || (a.t == OT_F64 && !isfinite(a.f));
	bn = b.null || (b.t == OT_F64 && !isfinite(b.f));
	if (an || bn)
		return an - bn;
	r = oval_cmp(&a, &b);
	return c->reverse ? -r : r;
}

int out_sort(void *rows, size_t n, size_t row_size, const struct oview *ov, const char *key,
	     bool reverse)
{
	struct sort_ctx c = { ov, ocol_find(ov, key), reverse };

	if (c.col < 0)
		return -ENOENT;
	qsort_r(rows, n, row_size, row_cmp, &c);
	return 0;
}
