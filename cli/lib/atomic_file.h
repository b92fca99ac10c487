/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A file replaced whole or not at all: written to a temporary file beside
 * it (PATH.XXXXXX, so a reader that takes *.prom, as node_exporter's
 * textfile collector does, never sees it half written), synced, and
 * renamed over PATH. For export --textfile.
 */
#ifndef __PPWATCH_LIB_ATOMIC_FILE_H
#define __PPWATCH_LIB_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* 0, or -errno; *what says which step failed ("creating a file beside PATH") */
int atomic_file_write(const char *path, const void *buf, size_t len, mode_t mode,
		      const char **what);

#endif /* __PPWATCH_LIB_ATOMIC_FILE_H */
