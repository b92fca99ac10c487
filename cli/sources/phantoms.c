// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/util.h"
#include "model/reconcile.h"
#include "sources/phantoms.h"

/* after new release losses, once a second at most: the kernel looks at the suspects */
static long check_phantoms(struct collector *c, struct reading *rd, __u64 losses)
{
	__u64 *nm = NULL, *pool = NULL, *now = NULL;
	size_t n = 0, i;
	long marked = 0;
	int err;

	if (losses <= c->checked_losses || rd->now_ns < c->next_check_ns)
		return 0;
	err = ledger_suspects(&c->log.led, rd, c->log.skipped, &nm, &pool, &n);
	now = err ? NULL : calloc(n ? n : 1, sizeof(*now));
	err = err ?: !now ? -ENOMEM : page_log_check(&c->log, nm, now, n);
	if (err && err != -ENOMEM)
		p_warn("looking at %zu ledger pages in the kernel (prog 'page_check'): %s; the "
		       "counts decide which are phantoms",
		       n, strerror(-err));
	for (i = 0; !err && i < n; i++) {
		if (now[i] == PPW_CHECK_UNKNOWN) {
			c->cannot_check = true;
			break;
		}
		/* gone back to the allocator (pp_magic cleared), or another pool's now */
		if (now[i] != pool[i]) {
			pl_mark(&c->log.led, nm[i]);
			marked++;
		}
	}
	p_dbg("ledger: %zu pages looked at in the kernel, %ld phantoms", n, marked);
	free(nm);
	free(pool);
	free(now);
	c->checked_losses = losses;
	c->next_check_ns = rd->now_ns + NSEC_PER_SEC;
	if (err == -ENOMEM)
		return err;
	c->cannot_check |= err != 0;
	return marked;
}

long collector_find_phantoms(struct collector *c, struct reading *rd)
{
	__u64 slack = page_log_unread(&c->log) + (__u64)c->s->ncpus;
	struct pl_excess *x = NULL;
	size_t n = 0;
	long marked = 0;
	int err;

	if (!c->cannot_check) {
		marked = check_phantoms(c, rd, ledger_phantom_losses(rd, c->log.skipped));
		if (marked || !c->cannot_check)
			return marked;
	}
	/* the kernel cannot tell: the counts decide (model/reconcile.h) */
	err = ledger_excess(rd, c->log.skipped, slack, &x, &n);
	if (!err && n)
		marked = pl_mark_phantoms(&c->log.led, x, n);
	else
		marked = err;
	free(x);
	if (marked < 0)
		p_err("reconciling the page ledger with the kernel: %s", strerror((int)-marked));
	return marked;
}
