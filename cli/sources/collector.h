/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The collector reads the BPF maps at one instant into a 'struct reading'
 * (model/snapshot.h): the pool records, the per-CPU pool slots folded into
 * them, the page ledger (folded from the page logs: sources/page_log.c)
 * aggregated per pool, the loss counters. It keeps
 * freed pools around for a while so a view can show them, and trims freed
 * records from the BPF map. It only reads maps: running the iterators,
 * draining the ring buffer and asking netlink are the monitor's session
 * step (sources/monitor.c), which hands the retired pools it hears of to
 * collector_retired().
 */
#ifndef __PPWATCH_SOURCES_COLLECTOR_H
#define __PPWATCH_SOURCES_COLLECTOR_H

#include "model/snapshot.h"
#include "sources/loader.h"
#include "sources/page_log.h"

struct rec_key;

struct gen_addr {
	__u32 gen;
	__u64 addr;
};

struct collector {
	struct session *s;
	double keep_freed_s; /* freed pools stay listed this long */

	struct ppw_pool *grave; /* freed pools no longer in the BPF map */
	size_t ngrave, capgrave;
	struct page_log log; /* the page logs and the ledger folded from them */
	__u64 *pkeys;	     /* pool table batch buffers */
	struct ppw_pool *pvals;
	__u32 pcap;
	struct rec_key *rkeys; /* the records read, sorted */
	size_t capkeys;
	__u64 seen_seq;		     /* pool_seq when collector_discovered() last looked */
	__u32 disc_gen;		     /* the newest generation it handed on */
	struct ppw_pcpu_pool *slots; /* the per-CPU slots: every key, every CPU */
	struct gen_addr *gens;	     /* the pools by generation, for the ledger's pages */
	size_t ngens, capgens;
	bool gens_valid; /* gens has this reading's pools (none came or went) */
	/*
	 * The pool table as the last collect left it, sorted by address and
	 * generation: a collect reads again only the records events named
	 * since (a refresh's work is what changed), and the whole table when
	 * pools came or went, a per-CPU slot gave its sums back to a record,
	 * events were lost, a freed record's grace ran out, the kernel counts
	 * items (its counters move with no event) or a minute passed.
	 */
	struct ppw_pool *recs;
	size_t nrecs, caprecs;
	bool full;    /* the next collect reads the whole table */
	__u64 *dirty; /* pools events named since the last collect */
	size_t ndirty, capdirty;
	__u64 evictions;    /* PPW_CNT_PCPU_EVICT when the table was last read */
	__u64 ring_drops;   /* PPW_CNT_RINGBUF_DROP then: a lost event named nobody */
	__u64 next_full_ns; /* CLOCK_BOOTTIME: the whole table again by then */
	__u64 next_trim_ns; /* a freed record's grace ends (0: none) */
	size_t last_grave;  /* graveyard entries the last reading listed */
	__u64 full_reads;   /* whole-table reads so far (the tests and bench count them) */
	/* phantoms (model/reconcile.h): the losses the kernel last looked at, when next */
	__u64 checked_losses, next_check_ns;
	bool cannot_check; /* page_check cannot tell here: the counts decide */
};

/* Each function reports its own failure (the map, the errno) and returns -errno. */
int collector_init(struct collector *c, struct session *s, double keep_freed_s);
/* a PPW_EV_POOL_RETIRED event: the record of a pool whose address was reused */
int collector_retired(struct collector *c, const struct ppw_event *e);
/* every lifecycle event, as it arrives: its pool's record is read at the next collect */
void collector_note_event(struct collector *c, const struct ppw_event *e);
/* the next collect reads the whole table (discovery ran on a kernel that counts items...) */
void collector_note_all(struct collector *c);
/* the pool table's batch buffers, sized to the table on first use (discovered.c shares them) */
int collector_pool_buffers(struct collector *c);
/* read the maps now into rd (its pools: sorted by address and generation) */
int collector_collect(struct collector *c, struct reading *rd);
void collector_free(struct collector *c);

/* an inflight page of the ledger */
struct ledger_page {
	__u64 netmem;
	__u64 pool; /* struct page_pool * (0: a pool the reading does not have) */
	__u32 gen;
	__s32 cpu;	/* whose page log had its hold */
	__u64 hold_ns;	/* CLOCK_BOOTTIME, the middle of the hold's tick */
	__s32 stack_id; /* -1: page_stacks may have it */
};

/*
 * Every inflight page of the pools of generations gens[] (sorted here) in
 * the ledger, in one walk; *out is malloc'd (NULL when none).
 */
int collector_ledger_pages(struct collector *c, __u32 *gens, size_t ngens, struct ledger_page **out,
			   size_t *n);
/* a holder scan's pages: in_ledger, gen, hold_ns from the ledger (BPF leaves them 0) */
void collector_mark_pages(struct collector *c, struct ppw_rec_page *v, size_t n);
/* the page logs: when their next drain is due (now_mono_s()), and the drain if due */
double collector_due(const struct collector *c);
int collector_tick(struct collector *c);

#endif /* __PPWATCH_SOURCES_COLLECTOR_H */
