/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A file replaced whole or not at all: written to a temporary file beside
 * it (PATH.XXXXXX, so a reader that takes *.prom, as node_exporter's
 * textfile collector does, never sees it half written), synced, and
 * renamed over PATH, the directory synced. For export --textfile.
 *
 * Private as every file ppwatch makes (lib/private_file.h): 0600, or 0640
 * with a group, whatever the umask; the directory must be one only root
 * (or the user ppwatch runs as) writes; a PATH that is a symlink or not a
 * regular file is refused, never replaced.
 */
#ifndef __PPWATCH_LIB_ATOMIC_FILE_H
#define __PPWATCH_LIB_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/private_file.h"

/*
 * 0, or -errno with what says which step failed and why, naming the file
 * (escaped: a path is anyone's text). perm NULL: 0600.
 */
int atomic_file_write(const char *path, const void *buf, size_t len, const struct file_perm *perm,
		      char *what, size_t what_len);

#endif /* __PPWATCH_LIB_ATOMIC_FILE_H */
