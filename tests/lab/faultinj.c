// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Transient faults for the recorder's tests, injected from outside
 * (LD_PRELOAD=faultinj.so): ppwatch itself has no test hooks. With
 * PPW_FAULT_ITER_EIO_WHILE=PATH, every read of a BPF iterator (an fd that
 * is anon_inode:bpf_iter: the holder scan's, discovery's) fails with EIO
 * while PATH exists, as a walk that made no progress does; every other
 * read is the real one. The test makes and removes PATH when what it
 * waits for has happened (a window in seconds since the start was a race
 * with a loaded machine's slow start).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ssize_t (*real_read)(int, void *, size_t);
static const char *flag;

static int is_iter(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;
	link[n] = 0;
	return !strcmp(link, "anon_inode:bpf_iter");
}

ssize_t read(int fd, void *buf, size_t len)
{
	if (!real_read)
		real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (flag && is_iter(fd) && !access(flag, F_OK)) {
		errno = EIO;
		return -1;
	}
	return real_read(fd, buf, len);
}

__attribute__((constructor)) static void faultinj_init(void)
{
	const char *s = getenv("PPW_FAULT_ITER_EIO_WHILE");

	flag = s && *s ? s : NULL;
}
