// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/small_file.h"

int small_file_read(const char *path, size_t max, char **out)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;
	size_t cap = 0;
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	FILE *f;

	*out = NULL;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		err = fd < 0 ? errno : ENOTSUP;
		if (fd >= 0)
			close(fd);
		return err;
	}
	/* getdelim on NUL: the whole file, unless a NUL stops it */
	n = getdelim(&buf, &cap, '\0', f);
	err = n < 0 && ferror(f) ? errno : 0;
	if (!err && n > 0 && ((size_t)n > max || strlen(buf) != (size_t)n))
		err = EFBIG;
	fclose(f);
	if (err || n <= 0) {
		free(buf);
		return err ?: ENODATA;
	}
	*out = buf;
	return 0;
}
