/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Files only root reads, in directories only root writes: what every
 * file ppwatch makes goes through ('record' through lib/rotfile.h,
 * 'export --textfile' through lib/atomic_file.h). They hold what no
 * other user should see (kernel heap and struct page addresses, pids,
 * process names, socket addresses).
 *
 * - A file is created 0600, or 0640 with a group named for its readers
 *   (as journald's files are for systemd-journal and adm), whatever the
 *   umask: the mode is set on the descriptor after open(2).
 * - Its directory is owned by root (or by the user ppwatch runs as) and
 *   writable by nobody else: not by others (/tmp, even sticky), not by a
 *   group but root's. Otherwise another user could swap, plant or read
 *   the files: refused, saying so.
 * - An existing target is never reached through a symlink, and must be a
 *   regular file with no other hard links, owned by root (or by us).
 *
 * Everything is relative to the directory's descriptor (openat(2) and
 * friends): once checked, the directory cannot be swapped under ppwatch.
 * Pure (no kernel facing beyond files): -errno and a message saying what
 * is wrong and what to do, in the caller's buffer.
 */
#ifndef __PPWATCH_LIB_PRIVATE_FILE_H
#define __PPWATCH_LIB_PRIVATE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* who reads the files: root (0600), and the group's members with group (0640) */
struct file_perm {
	bool group;
	gid_t gid;
};

/* --group NAME (or number): 0, or -EINVAL with why */
int file_perm_group(struct file_perm *p, const char *name, char *why, size_t len);
/* 0600 or 0640 */
mode_t file_perm_mode(const struct file_perm *p);

/*
 * The directory path's file is in, opened and checked: a descriptor, or
 * -errno with why. *base points at the file's name inside path (a path
 * ending in '/', ".", "..": -EISDIR).
 */
int private_dir_open(const char *path, const char **base, char *why, size_t len);
/*
 * Make the directories path's file is in that are not there yet, each
 * 0700 (mkdir -p -m 0700): how many were made (0: it was there), or -errno
 * with why. *made: the topmost one made (for the caller to say), if any.
 */
int private_dir_make(const char *path, char *made, size_t made_len, char *why, size_t len);

/*
 * A file open in a checked directory is fit to write: a regular file with
 * one link, owned by root or us; then given p's mode and group. 0, or
 * -errno with why, which does not name the file ("not a regular file").
 */
int private_file_adopt(int fd, const struct file_perm *p, char *why, size_t len);

/*
 * A new file base in dirfd (O_EXCL, never through a symlink), opened with
 * flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, given p's mode and
 * group, and the directory synced so that its name survives a power cut
 * (name: what messages call it). The descriptor, or -errno with why.
 */
int private_file_create(int dirfd, const char *base, const char *name, int flags,
			const struct file_perm *p, char *why, size_t len);

#endif /* __PPWATCH_LIB_PRIVATE_FILE_H */
