/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A bounded set of rotated files, written record by record: what
 * 'ppwatch record -o FILE --max-size SIZE --max-files N' writes into.
 *
 * FILE is the newest; when a record would take it past SIZE, FILE
 * becomes FILE.1, FILE.1 becomes FILE.2, ... FILE.(N-1) is dropped, and
 * a new FILE begins (with its preamble: the caller writes a header, so
 * each file stands alone). So the set on disk never exceeds N x SIZE,
 * plus one record: a record is never split, and one bigger than SIZE
 * gets a file to itself. N = 1 starts FILE over; SIZE 0 never rotates.
 *
 * Each record goes out whole, in one write(2) (more only if the kernel
 * takes less); one that cannot be written whole (a full disk) is cut
 * back off the file, so a reader never meets half a record followed by
 * the next. rotfile_sync() makes the last one durable (fdatasync), and
 * every rename and new file is made durable in the directory.
 *
 * Opening refuses what root should not write through in a directory
 * others may write (/tmp): a symlink (O_NOFOLLOW), anything but a regular
 * file, a file with other hard links. A FILE already there with records
 * in it (a recorder restarted after a crash) is rotated away, not
 * truncated, when N > 1: the recording of the crash is kept.
 *
 * Pure: no kernel, nothing reported; a failure returns -errno and leaves
 * what failed in r->what for the caller's message.
 */
#ifndef __PPWATCH_LIB_ROTFILE_H
#define __PPWATCH_LIB_ROTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROTFILE_MAX_FILES 1000 /* FILE.1 ... FILE.999, as the reader reads them */

struct rotfile {
	char *path;	    /* NULL: a descriptor the caller gave (stdout, memory) */
	const char *name;   /* then, what messages call it */
	int fd, dirfd;	    /* the current file, its directory */
	uint64_t max_size;  /* 0: never rotated */
	unsigned max_files; /* FILE and FILE.1 .. FILE.(max_files - 1) */
	uint64_t size;	    /* of the current file */
	uint64_t start;	    /* where its preamble ends: no rotation before a record past it */
	uint64_t rotations;
	char what[512]; /* after a failure: what failed ("renaming A to B") */
};

/* FILE, to write; 0 or -errno (r->what) */
int rotfile_open(struct rotfile *r, const char *path, uint64_t max_size, unsigned max_files);
/* a descriptor already open (stdout, a memory file): never rotated nor closed */
void rotfile_open_fd(struct rotfile *r, int fd, const char *name);
/* would a record of len bytes go to a new file? */
bool rotfile_due(const struct rotfile *r, size_t len);
/* FILE -> FILE.1 -> ..., a new FILE: 0 or -errno (r->what) */
int rotfile_rotate(struct rotfile *r);
/* the preamble of the current file ends here */
void rotfile_mark_start(struct rotfile *r);
/* one record, whole, or nothing of it: 0 or -errno (r->what) */
int rotfile_write(struct rotfile *r, const void *buf, size_t len);
/* the records written so far are on disk: 0 or -errno (r->what) */
int rotfile_sync(struct rotfile *r);
/* 0 or -errno (r->what) */
int rotfile_close(struct rotfile *r);

#endif /* __PPWATCH_LIB_ROTFILE_H */
