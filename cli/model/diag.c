// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "model/diag.h"

void diag_add(struct diags *d, struct rpos p, const char *fmt, ...)
{
	struct diag_msg *m;
	va_list ap;

	if (d->errors++ >= DIAG_MAX)
		return;
	m = VEC_NEXT(d->msgs, d->n, d->cap);
	if (!m) {
		d->nomem = true;
		return;
	}
	m->pos = p;
	m->seq = d->n;
	va_start(ap, fmt);
	if (vasprintf(&m->text, fmt, ap) < 0)
		d->nomem = true;
	else
		d->n++;
	va_end(ap);
}

static int diag_cmp(const void *a, const void *b)
{
	const struct diag_msg *x = a, *y = b;

	if (x->pos.line != y->pos.line)
		return x->pos.line - y->pos.line;
	if (x->pos.col != y->pos.col)
		return x->pos.col - y->pos.col;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void diag_flush(struct diags *d)
{
	size_t i;

	if (d->n)
		qsort(d->msgs, d->n, sizeof(*d->msgs), diag_cmp);
	for (i = 0; i < d->n; i++) {
		if (d->out && d->msgs[i].pos.line)
			fprintf(d->out, "%s:%d:%d: error: %s\n", d->file, d->msgs[i].pos.line,
				d->msgs[i].pos.col, d->msgs[i].text);
		else if (d->out)
			fprintf(d->out, "%s: error: %s\n", d->file, d->msgs[i].text);
		free(d->msgs[i].text);
	}
	if (d->out && d->errors > DIAG_MAX)
		fprintf(d->out, "%s: error: %d more errors not shown\n", d->file,
			d->errors - DIAG_MAX);
	free(d->msgs);
	d->msgs = NULL;
	d->n = d->cap = 0;
}

const char *diag_echo(const char *s, size_t len, char buf[DIAG_ECHO_MAX + 4])
{
	/* esc_buf() cuts between characters and escapes, never inside one */
	if (esc_buf(buf, DIAG_ECHO_MAX + 1, s, len) > DIAG_ECHO_MAX)
		strcat(buf, "...");
	return buf;
}

size_t diag_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, tmp, d[64];

	if (la >= ARRAY_SIZE(d) || lb >= ARRAY_SIZE(d))
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = d[j];
			d[j] = a[i - 1] == b[j - 1] ?
				       prev :
				       1 + (prev < d[j] ? (prev < d[j - 1] ? prev : d[j - 1]) :
							  (d[j] < d[j - 1] ? d[j] : d[j - 1]));
			prev = tmp;
		}
	}
	return d[lb];
}
