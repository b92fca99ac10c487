// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sources/kmsg.h"

/* a record is at most PRINTKRB_RECORD_MAX (1 KiB) of text, plus its prefix and dictionary */
#define KMSG_BUF 16384

int kmsg_read(struct klog *k, struct kmsg_stats *st)
{
	static char buf[KMSG_BUF];
	int fd, err = 0;
	ssize_t n;
	char *nl;

	memset(st, 0, sizeof(*st));
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the first record the ring still holds */
	if (lseek(fd, 0, SEEK_SET) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			st->overwritten++; /* the next read goes on with the oldest left */
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		st->records++;
		/* the record's text, without its continuation (" KEY=value") lines */
		nl = memchr(buf, '\n', (size_t)n);
		err = klog_feed_line(k, buf, nl ? (size_t)(nl - buf) : (size_t)n);
		if (err)
			break;
	}
	close(fd);
	return err;
}
