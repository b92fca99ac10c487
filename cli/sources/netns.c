// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/vec.h"
#include "ppwatch.h"
#include "sources/netns.h"

const struct netns *netns_find(const struct netns_list *l, unsigned long ino)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].ino == ino)
			return &l->v[i];
	return NULL;
}

/* ino's entry marked as seen by this scan: false if there is none */
static bool seen(struct netns_list *l, unsigned long ino)
{
	struct netns *ns = (struct netns *)netns_find(l, ino);

	if (ns)
		ns->seen = true;
	return ns != NULL;
}

/*
 * The entries this scan did not see: closed. Our own namespace stays (the
 * list's way back, and where ppwatch runs).
 */
static void prune(struct netns_list *l)
{
	size_t i, k = 0;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].seen || l->v[i].ino == l->self_ino) {
			l->v[k++] = l->v[i];
			continue;
		}
		p_dbg("network namespace %s (%lu): no process or name holds it any more: closed",
		      l->v[i].name, l->v[i].ino);
		close(l->v[i].fd);
	}
	l->n = k;
}

#define NSFS_MAGIC_ 0x6e736673 /* linux/magic.h's NSFS_MAGIC */

/*
 * A file that is not a namespace is left out: /run/netns keeps the empty
 * file of a namespace whose bind mount is gone (a failed 'ip netns add' or
 * 'ip netns del' midway), and setns() on it fails with EINVAL.
 */
static int add(struct netns_list *l, const char *path, const char *name)
{
	struct netns *ns;
	struct statfs sf;
	struct stat st;
	int fd;

	if (stat(path, &st))
		return -errno;
	if (seen(l, st.st_ino))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) || sf.f_type != NSFS_MAGIC_) {
		close(fd);
		return 0;
	}
	ns = VEC_PUSH(l->v, l->n, l->cap);
	if (!ns) {
		close(fd);
		return -ENOMEM;
	}
	ns->ino = st.st_ino;
	ns->fd = fd;
	ns->seen = true;
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	return 1;
}

/*
 * A namespace that cannot be opened (a process that exited meanwhile) is
 * left out; not reading /proc or our own namespace is an error (reported).
 */
int netns_scan(struct netns_list *l, const struct ppw_netns_rec *procs, size_t n)
{
	char path[300], name[64];
	struct dirent *de;
	struct stat st;
	size_t i;
	DIR *d;

	if (!l->self_fd) {
		l->self_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (l->self_fd < 0 || fstat(l->self_fd, &st)) {
			int err = -errno;

			p_err("opening our network namespace (/proc/self/ns/net): %s: is /proc "
			      "mounted?",
			      strerror(-err));
			if (l->self_fd >= 0)
				close(l->self_fd);
			l->self_fd = 0;
			return err;
		}
		l->self_ino = st.st_ino;
		add(l, "/proc/self/ns/net", "self");
	}
	for (i = 0; i < l->n; i++)
		l->v[i].seen = false;
	d = opendir("/run/netns");
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
			add(l, path, de->d_name);
		}
		closedir(d);
	}
	if (procs) {
		/* the namespaces the task walk saw: a process's only for one not known yet */
		for (i = 0; i < n; i++) {
			if ((i && procs[i].inum == procs[i - 1].inum) || seen(l, procs[i].inum))
				continue;
			snprintf(path, sizeof(path), "/proc/%u/ns/net", procs[i].pid);
			snprintf(name, sizeof(name), "pid:%u", procs[i].pid);
			add(l, path, name);
		}
		prune(l);
		return 0;
	}
	d = opendir("/proc");
	if (!d) {
		int err = -errno;

		p_err("listing processes (/proc) for their network namespaces: %s", strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		snprintf(name, sizeof(name), "pid:%.32s", de->d_name);
		add(l, path, name);
	}
	closedir(d);
	prune(l);
	return 0;
}

void netns_free(struct netns_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		close(l->v[i].fd);
	if (l->self_fd > 0)
		close(l->self_fd);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int netns_run(const struct netns_list *l, const struct netns *ns, int (*fn)(void *), void *arg)
{
	int ret;

	if (ns->ino == l->self_ino)
		return fn(arg);
	if (setns(ns->fd, CLONE_NEWNET))
		return -errno;
	ret = fn(arg);
	if (setns(l->self_fd, CLONE_NEWNET)) {
		/* cannot happen short of a kernel bug; carrying on would mix namespaces */
		p_err("returning to the original network namespace: %s", strerror(errno));
		exit(2);
	}
	return ret;
}
