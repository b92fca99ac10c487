/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The page ledger: which pages are inflight, since when and for which
 * pool, folded from the hot path's per-CPU page logs (bpf/ledger.bpf.h;
 * sources/page_log.c drains them into it). Pure: the unit tests fold
 * made-up logs in every order.
 *
 * Each CPU's log is in that CPU's order; between CPUs the fold sees the
 * events in the order it reads the logs, so the release of a page on one
 * CPU can come before its hold on another. The fold does not depend on
 * that order: per page it keeps holds minus releases (c) and the newest
 * event, by jiffies (in one tick: by the log's order on one CPU). A page
 * is inflight when its newest event is a hold.
 *
 * Ties: a page's events in one tick on two CPUs (released on one and held
 * again on another, or held and freed) have no order the logs can tell.
 * The count decides, whatever order the logs are read in: the page is
 * held when holds outnumber releases (c >= 1), else released; redone as
 * each later-read event of the page changes the count, and once more when
 * the entry is final. c = 0 is ambiguous (held and freed in the tick, or
 * a page out before start released and held again): it reads as released,
 * and the tie is counted (l->ties, and per pool).
 *
 * Phantoms: a release the hot path could not log (a full log) or a slot
 * the reader skipped leaves a page that is gone "inflight" here. The
 * collector compares each pool's pages with the kernel's own inflight count
 * and marks the excess (pl_mark_phantoms()): marked pages keep their
 * entries (so a later event of the page folds as usual, and clears the
 * mark) but leave ages, rules and counts. A page a holder scan finds
 * is not one (pl_confirm()).
 *
 * A released page keeps its entry (its count and newest event) until the
 * logs have been read past it: the source says after each pass which
 * jiffies every log has been read up to (j_safe; pl_pass()), and an entry
 * whose newest event is no newer has seen all its events up to then, so
 * it is final. pl_collect() then removes the released ones and settles
 * the ones whose count disagrees with their newest event: c = 0 with a
 * hold newest, or -1 with a release, means the page's first event was the
 * release of a page out before the session began (counted to its pool:
 * unmatched; pending until final); any other disagreement is an event a
 * full log lost. Nothing depends on the order the logs are read in.
 */
#ifndef __PPWATCH_MODEL_PAGE_LEDGER_H
#define __PPWATCH_MODEL_PAGE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define PL_F_HOLD    0x1 /* the newest event is a hold: the page is inflight */
#define PL_F_TIE     0x2 /* its newest tick had events on two CPUs: the count decides */
#define PL_F_PHANTOM 0x4 /* inflight here, gone in the kernel (a lost release) */
#define PL_F_SEEN    0x8 /* a holder scan found it since its newest event: not a phantom */

struct pl_page {
	__u64 netmem; /* 0: a free slot */
	__u64 t;      /* jiffies of the newest event */
	__u32 gen;    /* the generation of its pool (ppw_pool.gen) */
	__u16 cpu;    /* whose log had the newest event */
	__u8 flags;   /* PL_F_* */
	__s8 c;	      /* holds - releases folded */
};

/* per pool generation: what the fold counts for it */
struct pl_gen {
	__u32 gen; /* 0: a free slot */
	__u32 pad;
	__u64 unmatched; /* releases of pages held before start, settled */
	__u64 pending;	 /* the same, not final yet (the last pl_collect()) */
	__u64 untracked; /* holds the ledger had no room for */
	__u64 ties;	 /* events of one page in one tick on two CPUs: decided by the count */
	__u64 lost;	 /* settled counts only a lost event explains */
};

#define PL_HASH_MUL 0x9e3779b97f4a7c15ULL

struct page_ledger {
	struct pl_page *v; /* open addressing, linear probing, 2^bits slots */
	size_t cap, used;  /* slots, slots taken */
	unsigned int bits;
	size_t cap_max;	  /* the most slots it grows to */
	size_t max_pages; /* inflight pages it keeps at most */
	size_t inflight;  /* pages whose newest event is a hold */
	struct pl_gen *g;
	size_t gcap, gused;
	__u64 j_safe; /* every log is read up to these jiffies */
	bool j_known; /* j_safe was set */
	/* what the fold saw, since the start */
	__u64 holds, releases;
	__u64 full;	     /* events it had no room for (holds: untracked) */
	__u64 full_releases; /* of them releases (their pool's unmatched) */
	__u64 ties;	     /* a hold and a release of a page in one tick on two CPUs */
	__u64 lost;	     /* settled counts only a lost event explains */
	__u64 unmatched;     /* settled releases of pages held before start */
};

/* Each returns 0 or -ENOMEM (nothing changed then, the event counted as full). */
int pl_init(struct page_ledger *l, size_t max_pages);
void pl_free(struct page_ledger *l);
int pl_fold(struct page_ledger *l, __u64 netmem, bool release, __u32 gen, __u64 t, __u32 cpu);
/* a netmem's home slot: struct pages are 64-byte, net_iovs 8-byte aligned */
static inline size_t pl_home(const struct page_ledger *l, __u64 netmem)
{
	return (size_t)(((netmem >> 3) * PL_HASH_MUL) >> (64 - l->bits));
}

/*
 * netmem's slot on its way to the cache: a batch prefetched, then folded,
 * hides the misses (inline: a call per record is a fifth of the prefetch)
 */
static inline void pl_prefetch(const struct page_ledger *l, __u64 netmem)
{
	__builtin_prefetch(&l->v[pl_home(l, netmem)], 1);
}
/*
 * A pass over every log ended, each read up to j_safe jiffies at least
 * (the jiffies before those when the pass began, unless a log stopped at
 * a record still being written). Sweeps the final entries when released
 * ones have piled up.
 */
void pl_pass(struct page_ledger *l, __u64 j_safe);
/*
 * One walk over the ledger: final entries settled (released ones removed),
 * each pool's pending count redone, and fn called for every inflight page
 * (fn's non-zero return stops the walk and is returned).
 */
int pl_collect(struct page_ledger *l, int (*fn)(void *arg, const struct pl_page *p), void *arg);
/* the entry of netmem (inflight, or released and not swept yet), or NULL */
const struct pl_page *pl_find(const struct page_ledger *l, __u64 netmem);
/* a pool's counts (zeros for one it never saw): unmatched = settled + pending */
void pl_gen_counts(const struct page_ledger *l, __u32 gen, __u64 *unmatched, __u64 *untracked);
/* a pool's ties and settled losses (zeros for one it never saw) */
void pl_gen_losses(const struct page_ledger *l, __u32 gen, __u64 *ties, __u64 *lost);

/* a pool with more pages here than the kernel can have: mark this many more as phantoms */
struct pl_excess {
	__u32 gen;
	__u32 pad;
	__u64 n;
};

/*
 * Mark, for each pool of x (n of them, any order), its x[i].n oldest
 * inflight pages not marked yet and not confirmed (PL_F_SEEN) as phantoms:
 * one walk over the ledger. Returns the pages marked, or -ENOMEM.
 */
long pl_mark_phantoms(struct page_ledger *l, struct pl_excess *x, size_t n);
/* a holder scan found netmem: not a phantom (until its next event) */
void pl_confirm(struct page_ledger *l, __u64 netmem);
/* the kernel says inflight page netmem is not its pool's any more: a phantom (whoever saw it) */
void pl_mark(struct page_ledger *l, __u64 netmem);
/*
 * Forget the pools keep() says are gone, and the pages left of them (an
 * inflight page of a freed pool is one whose release a full log lost).
 */
void pl_prune(struct page_ledger *l, bool (*keep)(void *arg, __u32 gen), void *arg);
/* the memory it holds */
size_t pl_bytes(const struct page_ledger *l);

/*
 * A pool's pages out that the ledger does not have (level all), from its
 * inflight and ledger pages (phantoms left out), base (out at first sight),
 * unmatched releases and lost holds: at least *lo and at most *hi held
 * before start (a lost hold's page and one from before start cannot be told
 * apart by their release), *untracked the rest: none below 0.
 */
void pl_split(__s64 inflight, __s64 ledger_pages, __s64 base, __u64 unmatched, __u64 lost_holds,
	      __s64 *lo, __s64 *hi, __s64 *untracked);

#endif /* __PPWATCH_MODEL_PAGE_LEDGER_H */
