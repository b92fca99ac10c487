/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A whole small configuration file, read the way a file named by a user
 * must be: a regular file only (a FIFO or a device would block or never
 * end), opened without blocking, bounded in size, and text (a NUL byte
 * inside is refused). For model/web_config.h's reader and the web config
 * itself.
 */
#ifndef __PPWATCH_LIB_SMALL_FILE_H
#define __PPWATCH_LIB_SMALL_FILE_H

#include <stddef.h>

/*
 * 0 and *out (malloc'd, NUL-terminated), or a positive errno: EFBIG
 * (more than max bytes, or a NUL inside), ENODATA (empty), ENOTSUP (not
 * a regular file), or open(2)'s and read(2)'s
 */
int small_file_read(const char *path, size_t max, char **out);

#endif /* __PPWATCH_LIB_SMALL_FILE_H */
