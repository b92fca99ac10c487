/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The page ledger against the kernel's own counts, per pool (pure: the
 * collector feeds it a reading, the unit tests hand-made ones).
 *
 * Phantoms. A release the hot path could not log (a full log) or a slot
 * the reader skipped leaves a page "inflight" in the ledger that is gone.
 * The kernel's count bounds a pool's true ledger pages:
 *
 *   true ledger pages <= inflight - (pages out since before start, which
 *   are at least base - unmatched releases - lost releases - skipped slots)
 *
 * The excess over that bound are phantoms for sure. There cannot be more
 * phantoms than releases the pool lost plus slots skipped (the cap), so a
 * pool with no such loss is never touched. Inflight is read after the
 * logs were drained: a release since, counted by the kernel and not folded
 * yet, would make a true page look extra, so the caller allows for what the
 * logs hold unread then (slack).
 *
 * Which pages: the kernel says. After new release losses (at most once a
 * second while they go on) every ledger page of a pool that lost releases
 * is looked at in the kernel (ledger_suspects(), the collector runs BPF
 * prog page_check on them): a page that is no longer its pool's (page_pool
 * clears page->pp_magic when a page goes back to the allocator) is a
 * phantom; nothing is guessed. Only where the kernel cannot tell (no
 * pp_magic, before 5.14) do the counts decide: the excess over the bound
 * (ledger_excess()), the pool's oldest pages (pl_mark_phantoms()). A
 * phantom's hold came before its lost release and its age grows without
 * end (the false alarm the marks are there to stop); when the excess
 * counts every phantom, dropping the k oldest leaves the (k+1)-th oldest,
 * and the oldest true page is at least that old: the age shown is a lower
 * bound, and is marked as one (phantoms the kernel named leave the ages
 * exact). A page a holder scan found is never
 * marked; a later event of a marked page clears the mark.
 *
 * The split. The pages out that the ledger does not have are those out
 * since before start and the untracked (holds a full log lost). A release
 * with no entry (unmatched) is of either kind, and no event tells them
 * apart: before_start is the fewest there can be (what ages may rely on),
 * before_start_max the most, untracked the rest, never below 0.
 */
#ifndef __PPWATCH_MODEL_RECONCILE_H
#define __PPWATCH_MODEL_RECONCILE_H

#include "model/page_ledger.h"
#include "model/snapshot.h"

/*
 * The pools of rd whose ledger pages exceed what the kernel allows, and
 * how many more of each to mark as phantoms (capped): *out is malloc'd,
 * *n of them. skipped: page log slots the reader skipped (any pool's);
 * slack: events the kernel may have counted that the ledger has not folded.
 * 0 or -ENOMEM.
 */
int ledger_excess(const struct reading *rd, __u64 skipped, __u64 slack, struct pl_excess **out,
		  size_t *n);

/* the losses that can leave phantoms: every pool's lost releases, and skipped slots */
__u64 ledger_phantom_losses(const struct reading *rd, __u64 skipped);

/*
 * The ledger's inflight pages of pools of rd that lost releases (any pool
 * when slots were skipped), not marked yet: for the kernel to look at (a
 * holder scan's page too: its release may have been lost since). (*netmem)[i] should be pool (*pool)[i]'s; both malloc'd, *n
 * of them. 0 or -ENOMEM.
 */
int ledger_suspects(struct page_ledger *l, const struct reading *rd, __u64 skipped, __u64 **netmem,
		    __u64 **pool, size_t *n);

#endif /* __PPWATCH_MODEL_RECONCILE_H */
