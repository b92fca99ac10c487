/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a recording ('ppwatch record', sources/rec_writer.c): JSON
 * Lines, one object with a "type" per line, the first a "header". The file
 * may come from another host: every line is checked, and an error names
 * the file and line.
 */
#ifndef __PPWATCH_MODEL_REC_READER_H
#define __PPWATCH_MODEL_REC_READER_H

#include <stddef.h>
#include <stdio.h>

#include "lib/jsonp.h"

/*
 * Every record of f into *out (*n of them). 0, or -EINVAL with the reason
 * reported; *out holds what was read either way: free with rec_free().
 */
int rec_read(FILE *f, const char *name, struct jv ***out, size_t *n);
void rec_free(struct jv **recs, size_t n);

#endif /* __PPWATCH_MODEL_REC_READER_H */
