/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A bounded set of rotated files, written record by record: what
 * 'ppwatch record -o FILE --max-size SIZE --max-files N' writes into.
 *
 * FILE is the newest; when a record would take it past SIZE, FILE is
 * synced (fdatasync) and becomes FILE.1, FILE.1 becomes FILE.2, ...
 * FILE.(N-1) is dropped, and a new FILE begins (with its preamble: the
 * caller writes a header, so each file stands alone). So the set on disk
 * never exceeds N x SIZE, plus one record: a record is never split, and
 * one bigger than SIZE gets a file to itself. N = 1 starts FILE over;
 * SIZE 0 never rotates.
 *
 * Each record goes out whole, in one write(2) (more only if the kernel
 * takes less); one that cannot be written whole (a full disk) is cut
 * back off the file, so a reader never meets half a record followed by
 * the next. rotfile_sync() makes the last one durable (fdatasync); every
 * file created (and every rename before it) is made durable in the
 * directory (fsync).
 *
 * The files are private (lib/private_file.h): created 0600, or 0640 with
 * a group, whatever the umask; the directory must be one only root
 * writes; FILE is never reached through a symlink and must be a regular
 * file with no other hard links. Rotation touches only files it made:
 * each of FILE.1 ... FILE.(N-1) already there must be a recording (it
 * starts with a header) or empty, else the set is refused at open, and
 * FILE.(N-1) is checked again before a rotation drops it. A FILE already
 * there with records in it (a recorder restarted after a crash) is
 * rotated away, not truncated, when N > 1: the recording of the crash is
 * kept. FILE missing while FILE.1 is there (a crash between a rotation's
 * renames and its new file) is simply created again.
 *
 * A rotation that renamed FILE away but could not create the new one (no
 * inode left, a quota) leaves no current file (fd -1): rotfile_due() says
 * so, and the next rotation tries the creation again.
 *
 * Pure: no kernel, nothing reported; a failure returns -errno and leaves
 * what failed in r->what for the caller's message.
 */
#ifndef __PPWATCH_LIB_ROTFILE_H
#define __PPWATCH_LIB_ROTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/private_file.h"

#define ROTFILE_MAX_FILES 1000 /* FILE.1 ... FILE.999, as the reader reads them */

struct rotfile {
	char *path;	  /* as given (NULL: a descriptor the caller gave: stdout, memory) */
	const char *base; /* FILE's name in its directory (inside path) */
	const char *name; /* for a descriptor: what messages call it */
	int fd, dirfd;	  /* the current file (-1: none, see above), its directory */
	struct file_perm perm;
	uint64_t max_size;  /* 0: never rotated */
	unsigned max_files; /* FILE and FILE.1 .. FILE.(max_files - 1) */
	uint64_t size;	    /* of the current file */
	uint64_t start;	    /* where its preamble ends: no rotation before a record past it */
	uint64_t rotations;
	char what[512]; /* after a failure: what failed ("renaming A to B: ...") */
};

/* FILE, to write, its files given perm's mode (NULL: 0600); 0 or -errno (r->what) */
int rotfile_open(struct rotfile *r, const char *path, uint64_t max_size, unsigned max_files,
		 const struct file_perm *perm);
/* a descriptor already open (stdout, a memory file): never rotated nor closed */
void rotfile_open_fd(struct rotfile *r, int fd, const char *name);
/* would a record of len bytes go to a new file (or is there no current file)? */
bool rotfile_due(const struct rotfile *r, size_t len);
/*
 * FILE synced and closed, FILE -> FILE.1 -> ..., a new FILE: 0 or -errno
 * (r->what). On a failure r->fd says where it stands: still the old file
 * (nothing was renamed), or -1 (renamed, the new one not made).
 */
int rotfile_rotate(struct rotfile *r);
/* the preamble of the current file ends here */
void rotfile_mark_start(struct rotfile *r);
/* one record, whole, or nothing of it: 0 or -errno (r->what) */
int rotfile_write(struct rotfile *r, const void *buf, size_t len);
/* the records written so far are on disk: 0 or -errno (r->what) */
int rotfile_sync(struct rotfile *r);
/* 0 or -errno (r->what) */
int rotfile_close(struct rotfile *r);

/* the first bytes of every file 'ppwatch record' writes */
#define ROTFILE_HEADER_START "{\"type\":\"header\""

#endif /* __PPWATCH_LIB_ROTFILE_H */
