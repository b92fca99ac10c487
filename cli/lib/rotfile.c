// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/rotfile.h"

/* the first bytes of every file 'ppwatch record' writes */
#define HEADER_START "{\"type\":\"header\""

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

/* FILE.k (FILE itself for k = 0), or NULL without memory */
static char *nth(const struct rotfile *r, unsigned k)
{
	char *s;

	if (!k)
		return strdup(r->path);
	return asprintf(&s, "%s.%u", r->path, k) < 0 ? NULL : s;
}

/* a file 'ppwatch record' wrote: it starts with a header */
static bool a_recording(const char *path)
{
	char buf[sizeof(HEADER_START) - 1];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) &&
	      !memcmp(buf, HEADER_START, sizeof(buf));
	close(fd);
	return yes;
}

/*
 * Recordings left beyond FILE.(max_files - 1) by a recorder that kept
 * more: they would make the set bigger than it may be. Only files that
 * are recordings go; anything else named so is left alone.
 */
static void drop_beyond(struct rotfile *r)
{
	unsigned k;
	char *name;

	for (k = r->max_files; k < ROTFILE_MAX_FILES; k++) {
		name = nth(r, k);
		if (!name || access(name, F_OK)) {
			free(name);
			return;
		}
		if (a_recording(name))
			unlink(name);
		free(name);
	}
}

/* a new, empty FILE (none may be there) */
static int create(struct rotfile *r)
{
	r->fd = open(r->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (r->fd < 0)
		return failed(r, errno, "creating %s", r->path);
	r->size = r->start = 0;
	if (fsync(r->dirfd))
		return failed(r, errno, "syncing the directory of %s", r->path);
	return 0;
}

/* FILE.(N-2) -> FILE.(N-1), ..., FILE -> FILE.1 */
static int shift(struct rotfile *r)
{
	char *from, *to;
	unsigned k;
	int err = 0;

	for (k = r->max_files - 1; k >= 1 && !err; k--) {
		from = nth(r, k - 1);
		to = nth(r, k);
		if (!from || !to)
			err = failed(r, ENOMEM, "rotating %s", r->path);
		else if (rename(from, to) && errno != ENOENT)
			err = failed(r, errno, "renaming %s to %s", from, to);
		free(from);
		free(to);
	}
	return err;
}

int rotfile_open(struct rotfile *r, const char *path, uint64_t max_size, unsigned max_files)
{
	const char *why = NULL;
	struct stat st;
	char *dir;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = r->dirfd = -1;
	r->max_size = max_size;
	r->max_files = max_files ? max_files : 1;
	r->path = strdup(path);
	dir = r->path ? strdup(r->path) : NULL;
	if (!dir) {
		free(r->path);
		r->path = NULL;
		return failed(r, ENOMEM, "opening %s", path);
	}
	r->dirfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (r->dirfd < 0) {
		err = failed(r, errno, "opening the directory of %s", path);
		goto fail;
	}
	/* not through a symlink; O_NONBLOCK: a FIFO must not block the open */
	r->fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
	if (r->fd < 0) {
		err = errno;
		if (err == ELOOP) {
			failed(r, 0, "opening %s for writing: %s (a symlink: give the file itself)",
			       path, strerror(err));
			err = -err;
		} else {
			err = failed(r, err, "opening %s for writing", path);
		}
		goto fail;
	}
	why = fstat(r->fd, &st)	       ? strerror(errno) :
	      !S_ISREG(st.st_mode)     ? "not a regular file" :
	      st.st_nlink > 1	       ? "it has other hard links" :
	      fcntl(r->fd, F_SETFL, 0) ? strerror(errno) :
					 NULL;
	if (why) {
		err = failed(r, 0, "opening %s for writing: %s", path, why);
		goto fail;
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
	if (ftruncate(r->fd, 0)) {
		err = failed(r, errno, "truncating %s", path);
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
	return r->path && r->max_size && r->size > r->start && r->size + len > r->max_size;
}

int rotfile_rotate(struct rotfile *r)
{
	int old = r->fd, err;

	if (!r->path)
		return 0;
	r->rotations++;
	if (r->max_files == 1) {
		/* one file: it starts over */
		if (ftruncate(r->fd, 0) || lseek(r->fd, 0, SEEK_SET))
			return failed(r, errno, "truncating %s", r->path);
		r->size = r->start = 0;
		return 0;
	}
	err = shift(r);
	if (err)
		return err;
	err = create(r);
	if (err) {
		r->fd = old; /* renamed: written no more */
		return err;
	}
	close(old);
	return 0;
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
	r->fd = r->dirfd = -1;
	return err;
}
