// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "ppwatch.skel.h"
#include "sources/pool_stats.h"

bool stats_available(const struct session *s)
{
	return s->skel && s->skel->links.stats_walk;
}

int stats_scan_run(struct session *s, struct stats_scan *out)
{
	size_t cap = 64 * sizeof(struct ppw_stats_rec), len = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	if (!stats_available(s))
		return -EOPNOTSUPP;
	fd = bpf_iter_create(bpf_link__fd(s->skel->links.stats_walk));
	if (fd < 0) {
		err = -errno;
		p_err("pool statistics: creating the stats_walk iterator: %s", strerror(-err));
		return err;
	}
	for (;;) {
		if (len == cap || !buf) {
			nb = realloc(buf, buf ? cap * 2 : cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			if (buf)
				cap *= 2;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		len += n;
	}
	close(fd);
	if (!err)
		err = stats_parse(out, buf, len);
	free(buf);
	if (err) {
		p_err("pool statistics: reading the stats_walk iterator: %s", strerror(-err));
		stats_scan_free(out);
	}
	return err;
}
