/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An io_uring's registered files as the kernel lists them (pure): the
 * ring's /proc/PID/fdinfo/FD has "UserFiles:\tN" and then a line a slot,
 * "%5u: NAME". NAME is the file's path where the kernel prints one (7.3:
 * "socket:[1234]"), its dentry's own name where it does not (6.12: "UDP",
 * "TCPv6" for a socket: the slot's protocol is known, not which socket),
 * "<none>" for an empty slot. A ring whose lock was busy lists no slot.
 * This is how ppwatch finds the socket io_uring holds when no process has
 * an fd for it (model/attrib.c).
 */
#ifndef __PPWATCH_MODEL_RING_FILES_H
#define __PPWATCH_MODEL_RING_FILES_H

#include <stddef.h>

#include <linux/types.h>

struct ring_slot {
	__u32 slot;
	__u32 ino;     /* "socket:[ino]"; 0: the kernel did not name the file */
	char name[16]; /* the dentry's name where there is no path ("UDP"), else "" */
};

/*
 * The registered socket files of one ring's fdinfo text: at most max
 * into out, *n of them (files that are not sockets left out; a name that
 * is no path is kept: it may be a socket's); *files: the ring's
 * UserFiles count. 0, or -EINVAL when the text is no io_uring fdinfo.
 */
int ring_fdinfo_parse(const char *text, struct ring_slot *out, size_t max, size_t *n, __u32 *files);

#endif /* __PPWATCH_MODEL_RING_FILES_H */
