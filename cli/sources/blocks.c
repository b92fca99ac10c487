// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	size_t len;
	char *buf;
	int err;

	memset(out, 0, sizeof(*out));
	if (!blocks_available(s))
		return -EOPNOTSUPP;
	s->skel->bss->blocks_pool = pool;
	/* one pool's walk writes at most this much (the iterator's buffer) */
	err = session_iter_read(s->skel->links.blocks_walk, "item blocks", "blocks_walk",
				(PPW_MAX_BLOCK_RECS + 1) * sizeof(struct ppw_blk_rec), &buf, &len);
	if (!err) {
		err = blocks_parse(out, buf, len);
		if (err)
			p_err("item blocks: reading the blocks_walk iterator: %s", strerror(-err));
	}
	free(buf);
	return err;
}
