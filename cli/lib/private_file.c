// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/private_file.h"
#include "lib/util.h"

static int say_how(int err, bool with_errno, char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* why = the message, and errno's text with_errno; returns -err */
static int say_how(int err, bool with_errno, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	n = strlen(why);
	if (with_errno && n < len)
		snprintf(why + n, len - n, ": %s", strerror(err));
	return -err;
}

#define say(err, why, len, ...)	      say_how(err, false, why, len, __VA_ARGS__)
#define say_errno(err, why, len, ...) say_how(err, true, why, len, __VA_ARGS__)

/* "group adm" or "group 4" */
static const char *group_name(gid_t gid, char *buf, size_t len)
{
	struct group *g = getgrgid(gid);

	if (g && g->gr_name)
		snprintf(buf, len, "group %s", g->gr_name);
	else
		snprintf(buf, len, "group %u", (unsigned)gid);
	return buf;
}

int file_perm_group(struct file_perm *p, const char *name, char *why, size_t len)
{
	struct group *g;
	uint64_t v;

	errno = 0;
	g = getgrnam(name);
	if (g) {
		p->gid = g->gr_gid;
	} else if (!parse_u64(name, 0, UINT32_MAX - 1, &v)) {
		p->gid = v;
	} else {
		return say(EINVAL, why, len, "no such group '%s'", name);
	}
	p->group = true;
	return 0;
}

mode_t file_perm_mode(const struct file_perm *p)
{
	return p && p->group ? 0640 : 0600;
}

/* a directory another user could change the files of: why, or NULL */
static int check_dir(int fd, const char *dir, char *why, size_t len)
{
	uid_t me = geteuid();
	struct stat st;
	char g[64];

	if (fstat(fd, &st))
		return say_errno(errno, why, len, "the directory %s", dir);
	if (st.st_uid != 0 && st.st_uid != me)
		return say(EPERM, why, len,
			   "the directory %s belongs to uid %u, who could swap the files "
			   "ppwatch writes there: give a directory root owns",
			   dir, (unsigned)st.st_uid);
	if (st.st_mode & S_IWOTH)
		return say(EPERM, why, len,
			   "the directory %s is writable by every user (mode %04o): they could "
			   "plant, swap or read the files ppwatch writes there; give one only "
			   "root writes (mkdir -m 0700 DIR), such as /var/lib/ppwatch",
			   dir, (unsigned)(st.st_mode & 07777));
	if ((st.st_mode & S_IWGRP) && st.st_gid != 0)
		return say(EPERM, why, len,
			   "the directory %s is writable by %s (mode %04o): its members could "
			   "plant, swap or read the files ppwatch writes there; give one only "
			   "root writes (chmod g-w, or mkdir -m 0700 DIR)",
			   dir, group_name(st.st_gid, g, sizeof(g)),
			   (unsigned)(st.st_mode & 07777));
	return 0;
}

int private_dir_make(const char *path, char *made, size_t made_len, char *why, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], *p;
	struct stat st;
	int n = 0;

	if (made_len)
		made[0] = 0;
	if (!slash || slash == path)
		return 0; /* the current or the root directory */
	if ((size_t)(slash - path) >= sizeof(dir))
		return say(ENAMETOOLONG, why, len, "the directory of %s: a path too long", path);
	memcpy(dir, path, slash - path);
	dir[slash - path] = 0;
	if (!stat(dir, &st))
		return 0;
	/* each component from the top: the missing ones made 0700 */
	for (p = dir + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = 0;
		if (mkdir(dir, 0700)) {
			if (errno != EEXIST)
				return say_errno(errno, why, len,
						 "making the directory %s (mkdir -m 0700; make it, "
						 "or give -o a file in a directory that is there)",
						 dir);
		} else if (!n++ && made_len) {
			snprintf(made, made_len, "%s", dir);
		}
		*p = c;
		if (!c)
			break;
	}
	return n;
}

int private_dir_open(const char *path, const char **base, char *why, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, err;

	*base = slash ? slash + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return say(EISDIR, why, len, "%s: a directory; give the path of a file", path);
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, slash - path);
	if (!dir)
		return say_errno(ENOMEM, why, len, "opening the directory of %s", path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = say_errno(errno, why, len, "opening the directory %s", dir);
	} else {
		err = check_dir(fd, dir, why, len);
		if (err)
			close(fd);
	}
	free(dir);
	return err ? err : fd;
}

/* the mode and group p says */
static int own(int fd, const struct file_perm *p, char *why, size_t len)
{
	char g[64];

	if (p && p->group && fchown(fd, (uid_t)-1, p->gid))
		return say_errno(errno, why, len, "giving it to %s",
				 group_name(p->gid, g, sizeof(g)));
	if (fchmod(fd, file_perm_mode(p)))
		return say_errno(errno, why, len, "setting its mode to %04o",
				 (unsigned)file_perm_mode(p));
	return 0;
}

int private_file_adopt(int fd, const struct file_perm *p, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return say_errno(errno, why, len, "fstat");
	if (!S_ISREG(st.st_mode))
		return say(EINVAL, why, len, "not a regular file; give a file's path");
	if (st.st_nlink > 1)
		return say(EINVAL, why, len,
			   "it has other hard links (writing it would change them too); give "
			   "another path");
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return say(EPERM, why, len,
			   "it belongs to uid %u (ppwatch writes only files of its own); "
			   "remove it or give another path",
			   (unsigned)st.st_uid);
	return own(fd, p, why, len);
}

int private_file_create(int dirfd, const char *base, const char *name, int flags,
			const struct file_perm *p, char *why, size_t len)
{
	int fd, err;

	fd = openat(dirfd, base, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return say_errno(errno, why, len, "creating %s", name);
	err = own(fd, p, why, len);
	if (err) {
		char reason[256];

		snprintf(reason, sizeof(reason), "%s", why);
		err = say(-err, why, len, "creating %s: %s", name, reason);
	}
	if (!err && fsync(dirfd))
		err = say_errno(errno, why, len, "syncing the directory of %s", name);
	if (err) {
		close(fd);
		unlinkat(dirfd, base, 0);
		return err;
	}
	return fd;
}
