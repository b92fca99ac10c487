// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ksyms.h"
#include "lib/log.h"
#include "lib/vec.h"
#include "model/ring_files.h"
#include "sources/sock_owners.h"

/* an fdinfo is a page or two; a ring with thousands of files lists more */
#define FDINFO_MAX (1U << 20)
#define RING_SLOTS 4096

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* a socket with a file that no process has an fd for (owned: the sorted sockets that have one) */
static bool file_without_fd(const struct ppw_rec_sock *s, const __u64 *owned, size_t n)
{
	if (s->flags & (PPW_SF_DEAD | PPW_SF_KERNEL | PPW_SF_NO_FILE | PPW_SF_NO_SOCKET |
			PPW_SF_VIA_FD | PPW_SF_IN_FLIGHT))
		return false;
	return !bsearch(&s->sk, owned, n, sizeof(*owned), u64_cmp);
}

/* a kernel socket: its reader names its kernel user */
static bool kernel_sock(const struct ppw_rec_sock *s)
{
	return !(s->flags & PPW_SF_DEAD) && (s->flags & (PPW_SF_KERNEL | PPW_SF_NO_FILE));
}

/* the whole of a /proc file (its size is not known before), NUL-terminated */
static char *read_proc(const char *path)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			if (cap >= FDINFO_MAX || !(nb = realloc(buf, cap * 2)))
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r <= 0)
			break;
		len += r;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

static void read_comm(unsigned int pid, char *comm, size_t len)
{
	char path[64], *t;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	t = read_proc(path);
	snprintf(comm, len, "%s", t ? t : "?");
	comm[strcspn(comm, "\n")] = 0;
	free(t);
}

/* the socket files one ring lists */
static int read_ring(struct scan_result *scan, unsigned int pid, unsigned int fd,
		     struct ring_slot *slots)
{
	struct scan_ring_file *f;
	char path[64], *text;
	size_t n = 0, i;
	__u32 files;

	snprintf(path, sizeof(path), "/proc/%u/fdinfo/%u", pid, fd);
	text = read_proc(path);
	if (!text)
		return 0; /* gone */
	if (ring_fdinfo_parse(text, slots, RING_SLOTS, &n, &files))
		n = 0;
	free(text);
	for (i = 0; i < n; i++) {
		f = VEC_PUSH(scan->ring_files, scan->nring_files, scan->capring_files);
		if (!f)
			return -ENOMEM;
		memset(f, 0, sizeof(*f));
		f->pid = pid;
		f->fd = fd;
		read_comm(pid, f->comm, sizeof(f->comm));
		f->slot = slots[i].slot;
		f->ino = slots[i].ino;
		memcpy(f->name, slots[i].name, sizeof(f->name));
	}
	return 0;
}

/* every process's io_uring fds ("anon_inode:[io_uring]") */
static int read_rings(struct scan_result *scan)
{
	struct ring_slot *slots = calloc(RING_SLOTS, sizeof(*slots));
	char path[64], link[64];
	struct dirent *p, *d;
	DIR *proc, *fds;
	unsigned int pid, fd;
	ssize_t r;
	int err = 0;

	proc = slots ? opendir("/proc") : NULL;
	if (!proc) {
		free(slots);
		return slots ? 0 : -ENOMEM;
	}
	while (!err && (p = readdir(proc))) {
		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		pid = strtoul(p->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%u/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while (!err && (d = readdir(fds))) {
			if (!isdigit((unsigned char)d->d_name[0]))
				continue;
			fd = strtoul(d->d_name, NULL, 10);
			snprintf(path, sizeof(path), "/proc/%u/fd/%u", pid, fd);
			r = readlink(path, link, sizeof(link) - 1);
			if (r <= 0)
				continue;
			link[r] = 0;
			if (strcmp(link, "anon_inode:[io_uring]"))
				continue;
			err = read_ring(scan, pid, fd, slots);
		}
		closedir(fds);
	}
	closedir(proc);
	free(slots);
	return err;
}

static int read_hooks(struct scan_result *scan)
{
	struct scan_hook *h;
	struct ksyms k;
	char *plus;
	size_t i, j;
	int err;

	err = ksyms_load(&k, NULL);
	if (err) {
		p_dbg("kernel sockets' readers: /proc/kallsyms: %s", strerror(-err));
		return 0;
	}
	for (i = 0; i < scan->nsocks && !err; i++) {
		const struct ppw_rec_sock *s = &scan->socks[i];

		if (!kernel_sock(s) || !s->hook)
			continue;
		for (j = 0; j < scan->nhooks && scan->hooks[j].addr != s->hook; j++)
			;
		if (j < scan->nhooks)
			continue;
		h = VEC_PUSH(scan->hooks, scan->nhooks, scan->caphooks);
		if (!h) {
			err = -ENOMEM;
			break;
		}
		h->addr = s->hook;
		ksyms_fmt(&k, s->hook, h->name, sizeof(h->name));
		/* a function's own address: its name; anything else is not a reader ppwatch knows */
		plus = strstr(h->name, "+0x");
		if (plus && !strcmp(plus, "+0x0"))
			*plus = 0;
		else
			h->name[0] = 0;
	}
	ksyms_free(&k);
	return err;
}

int sock_owners_read(struct scan_result *scan)
{
	size_t i, n = scan->nowners + scan->ninflight;
	bool rings = false, hooks = false;
	__u64 *owned;
	int err = 0;

	/* the sockets a process or a message in flight holds: no ring is needed for them */
	owned = malloc((n ?: 1) * sizeof(*owned));
	if (!owned)
		return -ENOMEM;
	for (i = 0; i < scan->nowners; i++)
		owned[i] = scan->owners[i].sk;
	for (i = 0; i < scan->ninflight; i++)
		owned[scan->nowners + i] = scan->inflight[i].sk;
	qsort(owned, n, sizeof(*owned), u64_cmp);
	for (i = 0; i < scan->nsocks; i++) {
		rings |= file_without_fd(&scan->socks[i], owned, n);
		hooks |= kernel_sock(&scan->socks[i]);
	}
	free(owned);
	if (rings) {
		err = read_rings(scan);
		scan->rings_read = true;
	}
	if (hooks && !err)
		err = read_hooks(scan);
	return err;
}
