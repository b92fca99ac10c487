/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Diagnostics about a file being read (a rules file): each error at its
 * 1-based line and column, printed at the end in file order as
 * "FILE:LINE:COL: error: ...", at most DIAG_MAX of them (the rest are
 * counted); and what their wording needs: an excerpt of what the file
 * says, escaped and cut (the file is input, it may be hostile), and the
 * distance between two words, for "did you mean".
 */
#ifndef __PPWATCH_MODEL_DIAG_H
#define __PPWATCH_MODEL_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* a file with more errors than this is not worth reading on */
#define DIAG_MAX 100
/* excerpts: characters shown before "..." */
#define DIAG_ECHO_MAX 40

/* A position in a file, 1-based (0: none). */
struct rpos {
	int line;
	int col;
};

struct diag_msg {
	struct rpos pos;
	size_t seq;
	char *text;
};

struct diags {
	const char *file;
	FILE *out; /* NULL: count only */
	int errors;
	bool nomem;
	struct diag_msg *msgs;
	size_t n, cap;
};

void diag_add(struct diags *d, struct rpos p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* print every error in file order, and free them */
void diag_flush(struct diags *d);
/* s[0..len) escaped (lib/escape.h) and cut at DIAG_ECHO_MAX characters */
const char *diag_echo(const char *s, size_t len, char buf[DIAG_ECHO_MAX + 4]);
/* Levenshtein distance of two short words; SIZE_MAX for long ones */
size_t diag_distance(const char *a, const char *b);

#endif /* __PPWATCH_MODEL_DIAG_H */
