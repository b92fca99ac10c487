// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/escape.h"

/* what = the message, escaped; returns err */
static int said(char *what, size_t len, int err, const char *msg)
{
	esc_buf(what, len, msg, strlen(msg));
	return err;
}

/* a temporary name beside base that is not there yet: its descriptor, or -errno (why) */
static int temp_file(int dirfd, const char *base, const char *path, const struct file_perm *perm,
		     char *tmp, size_t tmp_len, char *why, size_t why_len)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	char name[4096];
	int tries, i, fd = -EEXIST;

	for (tries = 0; tries < 100 && fd == -EEXIST; tries++) {
		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
			for (i = 0; i < (int)sizeof(rnd); i++)
				rnd[i] = rand();
		snprintf(tmp, tmp_len, "%s.", base);
		for (i = 0; i < (int)sizeof(rnd); i++)
			snprintf(tmp + strlen(tmp), tmp_len - strlen(tmp), "%c",
				 chars[rnd[i] % (sizeof(chars) - 1)]);
		snprintf(name, sizeof(name), "a file beside %s (%s)", path, tmp);
		fd = private_file_create(dirfd, tmp, name, O_WRONLY, perm, why, why_len);
	}
	return fd;
}

int atomic_file_write(const char *path, const void *buf, size_t len, const struct file_perm *perm,
		      char *what, size_t what_len)
{
	/* the temporary name: base (a name, at most NAME_MAX) + "." + 6 */
	char why[1024], tmp[NAME_MAX + 16], msg[1200];
	const char *p = buf, *base;
	int dirfd, fd, err = 0;
	size_t done = 0;
	struct stat st;
	ssize_t n;

	dirfd = private_dir_open(path, &base, why, sizeof(why));
	if (dirfd < 0)
		return said(what, what_len, dirfd, why);
	/* what is there is replaced only if it is a file: never a symlink's target, nor a device */
	if (!fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st.st_mode)) {
		snprintf(msg, sizeof(msg),
			 "%s is %s, not a regular file: not replaced; give a file's path", path,
			 S_ISLNK(st.st_mode) ? "a symlink" :
			 S_ISDIR(st.st_mode) ? "a directory" :
					       "special");
		close(dirfd);
		return said(what, what_len, -EINVAL, msg);
	}
	fd = temp_file(dirfd, base, path, perm, tmp, sizeof(tmp), why, sizeof(why));
	if (fd < 0) {
		close(dirfd);
		return said(what, what_len, fd, why);
	}
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
	if (err) {
		snprintf(msg, sizeof(msg), "writing a file beside %s (%s): %s", path, tmp,
			 strerror(-err));
	} else if (renameat(dirfd, tmp, dirfd, base)) {
		err = -errno;
		snprintf(msg, sizeof(msg), "renaming %s over %s: %s", tmp, path, strerror(-err));
	} else if (fsync(dirfd)) {
		/* renamed: what is left is its durability */
		err = -errno;
		snprintf(msg, sizeof(msg), "syncing the directory of %s: %s", path, strerror(-err));
	}
	if (err) {
		unlinkat(dirfd, tmp, 0);
		said(what, what_len, err, msg);
	}
	close(dirfd);
	return err;
}
