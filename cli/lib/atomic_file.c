// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"

int atomic_file_write(const char *path, const void *buf, size_t len, mode_t mode, const char **what)
{
	const char *p = buf;
	size_t done = 0;
	char *tmp;
	ssize_t n;
	int fd, err = 0;

	*what = "creating a file beside it";
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	if (fchmod(fd, mode))
		err = -errno;
	*what = "writing a file beside it";
	while (!err && done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	if (!err && fdatasync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path)) {
		*what = "renaming a file beside it over it";
		err = -errno;
	}
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
