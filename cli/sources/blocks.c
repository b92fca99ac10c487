// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "ppwatch.skel.h"
#include "sources/blocks.h"

bool blocks_available(const struct session *s)
{
	return s->skel && s->skel->links.blocks_walk;
}

int blocks_scan_run(struct session *s, __u64 pool, struct blocks_scan *out)
{
	/* one pool's walk writes at most this much (the iterator's buffer) */
	size_t cap = (PPW_MAX_BLOCK_RECS + 1) * sizeof(struct ppw_blk_rec), len = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	if (!blocks_available(s))
		return -EOPNOTSUPP;
	s->skel->bss->blocks_pool = pool;
	fd = bpf_iter_create(bpf_link__fd(s->skel->links.blocks_walk));
	if (fd < 0) {
		err = -errno;
		p_err("item blocks: creating the blocks_walk iterator: %s", strerror(-err));
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
		err = blocks_parse(out, buf, len);
	free(buf);
	if (err)
		p_err("item blocks: reading the blocks_walk iterator: %s", strerror(-err));
	return err;
}
