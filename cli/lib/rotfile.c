// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/rotfile.h"

/* what failed, with errno's text unless err is 0; returns -err (or -EINVAL) */
static int failed(struct rotfile *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failed(struct rotfile *r, int err, const char *fmt, ...)
{
	char msg[sizeof(r->what)];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = strlen(msg);
	if (err)
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err));
	/* a path is anyone's text */
	esc_buf(r->what, sizeof(r->what), msg, strlen(msg));
	return err ? -err : -EINVAL;
}

/* what private_file said (why: its message, err: -errno) */
static int failed_why(struct rotfile *r, int err, const char *why)
{
	failed(r, 0, "%s", why);
	return err;
}

/* FILE.k's name in the directory (FILE's own for k = 0), or its path (for messages) */
static const char *nth_of(const struct rotfile *r, bool path, unsigned k, char *buf, size_t len)
{
	const char *f = path ? r->path : r->base;

	if (!k)
		snprintf(buf, len, "%s", f);
	else
		snprintf(buf, len, "%s.%u", f, k);
	return buf;
}

#define nth(r, k, buf, len)	 nth_of(r, false, k, buf, len)
#define nth_path(r, k, buf, len) nth_of(r, true, k, buf, len)

enum kind { NONE, EMPTY, RECORDING, OTHER, NOT_PLAIN };

/* what is at FILE.k: nothing, an empty file, a recording (it starts with a header), other */
static enum kind kind_of(struct rotfile *r, unsigned k, int *fdp)
{
	char buf[sizeof(ROTFILE_HEADER_START) - 1], name[4096];
	struct stat st;
	enum kind kd;
	ssize_t n;
	int fd;

	*fdp = -1;
	if (fstatat(r->dirfd, nth(r, k, name, sizeof(name)), &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? NONE : OTHER;
	if (!S_ISREG(st.st_mode))
		return NOT_PLAIN;
	fd = openat(r->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return OTHER;
	n = read(fd, buf, sizeof(buf));
	kd = n == 0 ? EMPTY :
	     n == (ssize_t)sizeof(buf) && !memcmp(buf, ROTFILE_HEADER_START, sizeof(buf)) ?
		      RECORDING :
		      OTHER;
	*fdp = fd;
	return kd;
}

/*
 * FILE.k is one rotation may replace or move: nothing, or a recording or
 * an empty file of ours, its mode made private (one a recorder before
 * this one left with another mode). 0, or -errno (r->what).
 */
static int ours(struct rotfile *r, unsigned k)
{
	char path[4096], why[400];
	enum kind kd;
	int fd, err;

	kd = kind_of(r, k, &fd);
	nth_path(r, k, path, sizeof(path));
	switch (kd) {
	case NONE:
		return 0;
	case NOT_PLAIN:
		return failed(r, 0,
			      "%s is not a regular file, and rotation touches only the files "
			      "it made: move it away, or give another FILE",
			      path);
	case OTHER:
		if (fd >= 0)
			close(fd);
		return failed(r, 0,
			      "%s is not a recording (it does not start with a header), and "
			      "rotation touches only the files it made: move it away, or give "
			      "another FILE",
			      path);
	case EMPTY:
	case RECORDING:
		break;
	}
	err = private_file_adopt(fd, &r->perm, why, sizeof(why));
	close(fd);
	if (err)
		return failed(r, 0, "%s: %s", path, why);
	return 0;
}

/*
 * Recordings left beyond FILE.(max_files - 1) by a recorder that kept
 * more: they would make the set bigger than it may be. Only files that
 * are recordings go; anything else named so is left alone.
 */
static void drop_beyond(struct rotfile *r)
{
	char name[4096];
	enum kind kd;
	unsigned k;
	int fd;

	for (k = r->max_files; k < ROTFILE_MAX_FILES; k++) {
		kd = kind_of(r, k, &fd);
		if (fd >= 0)
			close(fd);
		if (kd == NONE)
			return;
		if (kd == RECORDING || kd == EMPTY)
			unlinkat(r->dirfd, nth(r, k, name, sizeof(name)), 0);
	}
}

/* a new, empty FILE (none may be there), the directory synced */
static int create(struct rotfile *r)
{
	char why[400];
	int fd;

	fd = private_file_create(r->dirfd, r->base, r->path, O_WRONLY, &r->perm, why, sizeof(why));
	if (fd < 0)
		return failed_why(r, fd, why);
	r->fd = fd;
	r->size = r->start = 0;
	return 0;
}

/* FILE.(N-2) -> FILE.(N-1), ..., FILE -> FILE.1; FILE.(N-1) dropped only if ours */
static int shift(struct rotfile *r)
{
	char from[4096], to[4096], fp[4096], tp[4096];
	unsigned k;
	int err;

	err = ours(r, r->max_files - 1);
	if (err)
		return err;
	for (k = r->max_files - 1; k >= 1; k--) {
		nth(r, k - 1, from, sizeof(from));
		nth(r, k, to, sizeof(to));
		if (renameat(r->dirfd, from, r->dirfd, to) && errno != ENOENT)
			return failed(r, errno, "renaming %s to %s",
				      nth_path(r, k - 1, fp, sizeof(fp)),
				      nth_path(r, k, tp, sizeof(tp)));
	}
	return 0;
}

/* FILE as it is: opened and checked, or created; 0 or -errno (r->what) */
static int open_file(struct rotfile *r, struct stat *st)
{
	char why[400];
	int err;

	memset(st, 0, sizeof(*st));
	/* what is there first: a FIFO opened to write would block or fail first */
	if (fstatat(r->dirfd, r->base, st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return failed(r, errno, "opening %s for writing", r->path);
		memset(st, 0, sizeof(*st));
		return create(r);
	}
	if (S_ISLNK(st->st_mode)) {
		failed(r, 0, "opening %s for writing: %s (a symlink: give the file itself)",
		       r->path, strerror(ELOOP));
		return -ELOOP;
	}
	if (!S_ISREG(st->st_mode))
		return failed(r, 0,
			      "opening %s for writing: not a regular file; give a file's path",
			      r->path);
	r->fd = openat(r->dirfd, r->base, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0)
		return failed(r, errno, "opening %s for writing", r->path);
	err = private_file_adopt(r->fd, &r->perm, why, sizeof(why));
	if (err)
		return failed(r, 0, "opening %s for writing: %s", r->path, why);
	if (fstat(r->fd, st) || fcntl(r->fd, F_SETFL, 0))
		return failed(r, errno, "opening %s for writing", r->path);
	return 0;
}

int rotfile_open(struct rotfile *r, const char *path, uint64_t max_size, unsigned max_files,
		 const struct file_perm *perm)
{
	char why[400];
	struct stat st;
	enum kind kd;
	unsigned k;
	int err, fd;

	memset(r, 0, sizeof(*r));
	r->fd = r->dirfd = -1;
	r->max_size = max_size;
	r->max_files = max_files ? max_files : 1;
	if (perm)
		r->perm = *perm;
	r->path = strdup(path);
	if (!r->path)
		return failed(r, ENOMEM, "opening %s", path);
	r->dirfd = private_dir_open(r->path, &r->base, why, sizeof(why));
	if (r->dirfd < 0) {
		err = failed_why(r, r->dirfd, why);
		goto fail;
	}
	/* the files rotation will move or drop: ours, or the set is refused */
	for (k = 1; k < r->max_files; k++) {
		err = ours(r, k);
		if (err)
			goto fail;
	}
	err = open_file(r, &st);
	if (err)
		goto fail;
	if (st.st_size > 0) {
		kd = kind_of(r, 0, &fd);
		if (fd >= 0)
			close(fd);
		if (kd != RECORDING) {
			err = failed(
				r, 0,
				"%s has data that is not a recording (it does not start with a "
				"header): not overwritten; remove it, or give another FILE",
				r->path);
			goto fail;
		}
	}
	drop_beyond(r);
	if (st.st_size > 0 && r->max_files > 1) {
		/* what a recorder before this one left: kept, as FILE.1 */
		close(r->fd);
		r->fd = -1;
		err = shift(r);
		err = err ?: create(r);
		if (err)
			goto fail;
		r->rotations++;
		return 0;
	}
	if (st.st_size > 0 && ftruncate(r->fd, 0)) {
		err = failed(r, errno, "truncating %s", r->path);
		goto fail;
	}
	return 0;
fail:
	rotfile_close(r);
	return err;
}

void rotfile_open_fd(struct rotfile *r, int fd, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->dirfd = -1;
	r->max_files = 1;
	r->name = name;
}

bool rotfile_due(const struct rotfile *r, size_t len)
{
	if (!r->path)
		return false;
	return r->fd < 0 || (r->max_size && r->size > r->start && r->size + len > r->max_size);
}

int rotfile_rotate(struct rotfile *r)
{
	char p1[4096];
	int err = 0;

	if (!r->path)
		return 0;
	if (r->fd < 0) {
		/* a rotation before this one renamed FILE away but could not make the new one */
		err = create(r);
		if (!err)
			r->rotations++;
		return err;
	}
	if (r->max_files == 1) {
		/* one file: it starts over */
		if (ftruncate(r->fd, 0) || lseek(r->fd, 0, SEEK_SET))
			return failed(r, errno, "truncating %s", r->path);
		r->size = r->start = 0;
		r->rotations++;
		return 0;
	}
	/* what it holds is on disk before it is renamed and closed */
	if (fdatasync(r->fd) && errno != EINVAL)
		return failed(r, errno, "syncing %s before rotating it", r->path);
	err = shift(r);
	if (err)
		return err; /* nothing renamed: the old file goes on */
	if (close(r->fd))
		err = failed(r, errno, "closing %s", nth_path(r, 1, p1, sizeof(p1)));
	r->fd = -1;
	r->rotations++;
	return create(r) ?: err;
}

void rotfile_mark_start(struct rotfile *r)
{
	r->start = r->size;
}

int rotfile_write(struct rotfile *r, const void *buf, size_t len)
{
	const char *p = buf;
	size_t done = 0;
	ssize_t n;
	int err;

	if (r->fd < 0)
		return failed(r, ENOENT, "writing %s: no file (the last rotation made none)",
			      r->path ? r->path : r->name);
	while (done < len) {
		n = write(r->fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			/* never half a record: a reader would see it run into the next */
			if (done && ftruncate(r->fd, r->size) == 0)
				lseek(r->fd, r->size, SEEK_SET);
			return failed(r, err, "writing %s", r->path ? r->path : r->name);
		}
		done += n;
	}
	r->size += len;
	return 0;
}

int rotfile_sync(struct rotfile *r)
{
	if (r->fd < 0)
		return 0;
	if (fdatasync(r->fd) && errno != EINVAL && errno != EROFS)
		return failed(r, errno, "syncing %s", r->path ? r->path : r->name);
	return 0;
}

int rotfile_close(struct rotfile *r)
{
	int err = 0;

	if (r->path && r->fd >= 0) {
		if (fdatasync(r->fd) && errno != EINVAL)
			err = failed(r, errno, "syncing %s", r->path);
		if (close(r->fd) && !err)
			err = failed(r, errno, "closing %s", r->path);
	}
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->path);
	r->path = NULL;
	r->base = NULL;
	r->fd = r->dirfd = -1;
	return err;
}
