/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the lab's tools (ppgen, ppkinds) share: clocks, namespaces, arguments. */
#ifndef __PPWATCH_LABUTIL_H
#define __PPWATCH_LABUTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the tool's name in its messages: set by each tool */
static const char *lab_tool;

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", lab_tool, what, strerror(errno));
	exit(1);
}

static inline int enter_netns(const char *ns)
{
	char path[PATH_MAX];
	int fd;

	if (!ns)
		return 0;
	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (setns(fd, CLONE_NEWNET))
		die("setns");
	close(fd);
	return 0;
}

static inline int self_netns(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("/proc/self/ns/net");
	return fd;
}

static inline void parse_addr(const char *s, struct sockaddr_in *sa)
{
	char buf[64], *colon;

	snprintf(buf, sizeof(buf), "%s", s);
	colon = strrchr(buf, ':');
	if (!colon) {
		fprintf(stderr, "%s: '%s': expected ADDR:PORT\n", lab_tool, s);
		exit(2);
	}
	*colon = 0;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, buf, &sa->sin_addr) != 1) {
		fprintf(stderr, "%s: '%s': not an IPv4 address\n", lab_tool, buf);
		exit(2);
	}
}

static inline long parse_num(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "%s: invalid %s '%s'\n", lab_tool, what, s);
		exit(2);
	}
	return v;
}


/* write "LINE" to FILE atomically (tmp + rename): a test polls for it */
static inline void write_ready(const char *file, const char *line)
{
	char tmp[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fputs(line, f);
	fclose(f);
	if (rename(tmp, file))
		die("rename");
}

#endif /* __PPWATCH_LABUTIL_H */
