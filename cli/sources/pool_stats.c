// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	size_t len;
	char *buf;
	int err;

	memset(out, 0, sizeof(*out));
	if (!stats_available(s))
		return -EOPNOTSUPP;
	err = session_iter_read(s->skel->links.stats_walk, "pool statistics", "stats_walk",
				64 * sizeof(struct ppw_stats_rec), &buf, &len);
	if (!err) {
		err = stats_parse(out, buf, len);
		if (err)
			p_err("pool statistics: reading the stats_walk iterator: %s",
			      strerror(-err));
	}
	free(buf);
	if (err)
		stats_scan_free(out);
	return err;
}
