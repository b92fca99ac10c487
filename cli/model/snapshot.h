/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pure model: reading -> snapshot.
 *
 * A 'reading' is what the collector read at one instant: the BPF pool
 * records, per-pool aggregates of the page ledger (the BPF map of inflight
 * pages), what netlink said, and the loss counters. A 'snapshot' turns a
 * reading (and the previous snapshot, for rates) into rows ready to
 * render. Nothing here touches the kernel: the unit tests drive it with
 * hand-made readings.
 */
#ifndef __PPWATCH_MODEL_SNAPSHOT_H
#define __PPWATCH_MODEL_SNAPSHOT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/ages.h"
#include "model/blocks.h"
#include "model/kernel.h"
#include "model/pool_stats.h"
#include "ppwatch.h"

/* page-pool-get attributes present in a netlink reply */
enum nl_present {
	NLP_IFINDEX = 1U << 0,
	NLP_NAPI_ID = 1U << 1,
	NLP_INFLIGHT = 1U << 2,
	NLP_INFLIGHT_MEM = 1U << 3,
	NLP_DETACH_TIME = 1U << 4,
	NLP_DMABUF = 1U << 5,
	NLP_IO_URING = 1U << 6,
};

struct nl_pool {
	__u32 id;
	__u32 present; /* enum nl_present */
	__u32 ifindex;
	__u32 napi_id;
	__u64 inflight;
	__u64 inflight_mem;
	__u64 detach_time; /* CLOCK_BOOTTIME seconds */
	__u32 dmabuf;
	__u32 netns_ino; /* namespace the dump ran in */
	char ifname[PPW_IFNAMSIZ];
	struct pp_stats stats; /* page-pool-stats-get (source PPS_NONE: none) */
};

struct pool_obs {
	struct ppw_pool rec;  /* rec.addr == 0: known from netlink only */
	__u64 ledger_pages;   /* page-ledger entries of (rec.addr, rec.gen), phantoms not */
	__u64 oldest_hold_ns; /* CLOCK_BOOTTIME; 0: no entry */
	__u64 age_hist[POOL_AGE_BUCKETS]; /* the ledger pages by age */
	__u64 phantoms;			  /* ledger pages the kernel's count says are gone */
	__u64 ties, lost;		  /* the fold's, for this pool (page_ledger.h) */
	bool ages_bound;		  /* the ledger's ages are lower bounds */
	bool has_nl;
	struct nl_pool nl;
	bool has_occ; /* the item-block walk ran on this pool */
	struct block_occupancy occ;
	struct pp_stats stats; /* the stats walk's (source PPS_NONE: none) */
};

/*
 * The newer of two readings of a u32 kernel counter that only goes up
 * (pages_state_hold_cnt, _release_cnt): they wrap, so compare by distance.
 */
static inline __u32 u32_newer(__u32 a, __u32 b)
{
	return (__s32)(b - a) > 0 ? b : a;
}

struct reading {
	struct pool_obs *pools; /* owned: reading_free() */
	size_t n, cap;
	__u64 now_ns;	/* CLOCK_BOOTTIME when collected */
	__u64 start_ns; /* CLOCK_BOOTTIME just before ppwatch attached (0: unknown) */
	__u32 page_size;
	bool detach_time_is_ns; /* see sources/kfeatures.c */
	__u64 counters[PPW_CNT_MAX];
	__u64 max_pages; /* pages the ledger is sized for (0: no ledger) */
	__u64 pages_used;
	__u64 ledger_bytes;		 /* what the kernel charges for the ledger's maps */
	__u64 slot_holds, slot_releases; /* events the per-CPU slots counted */
	enum ppw_level level;		 /* what the hot path records */
	__u32 sample_rate;		 /* sampled level: 1 page in this many */
	enum unmap_regime regime;	 /* how this kernel unmaps at destroy */
};

enum row_state { ROW_LIVE, ROW_ZOMBIE, ROW_FREED };

/* Where a pool's DMA mappings stand. */
enum dma_state {
	DMA_UNKNOWN,	   /* no BPF record (netlink only) */
	DMA_NOT_MAPPED,	   /* the pool never maps its pages (veth, ...) */
	DMA_MAPPED,	   /* live: every inflight page is mapped */
	DMA_UNMAP_PENDING, /* destroyed; the kernel unmaps right after (item blocks) */
	DMA_UNMAPPED,	   /* destroyed, every mapping torn down */
	DMA_HAZARD,	   /* destroyed, pages still mapped until they come back */
};

struct pool_row {
	__u64 addr;
	__u32 gen;
	__u32 id; /* the kernel's (netlink) id, 0 if it has none */
	/*
	 * What to call the pool, never empty: the kernel's id ("13"); before
	 * pool->user.id existed, its XDP memory-model id ("x7"), else the low
	 * half of its address ("@05dfd800"). Stable while the pool lives.
	 */
	char ident[24];
	char ifname[PPW_IFNAMSIZ];
	__s32 ifindex;
	char devname[PPW_DEVNAMSIZ];
	char driver[PPW_DRVNAMSIZ];
	char device[48]; /* what to call it: ifname, else devname */
	__u32 netns_ino;
	__u64 netns_cookie;
	__u32 napi_id;	 /* 0: none */
	__u32 flags;	 /* enum ppw_pool_flags */
	bool has_record; /* ppwatch's BPF side has a record of it (counters known) */
	bool netlink;	 /* listed by netlink */
	enum row_state state;
	__u32 order;
	__u32 pool_size;
	__s32 nid;
	__s64 inflight; /* hold - release, the kernel's own numbers */
	__u64 inflight_bytes;
	__s64 ledger_pages;	/* in the ledger (ages known); -1: no ledger */
	__s64 before_start;	/* held before ppwatch saw the pool; -1: unknown */
	__s64 before_start_min; /* of those, at least this many are still out */
	__s64 before_start_max; /* of those, at most this many (lost holds blur the split) */
	__s64 untracked;	/* not explained: ledger full or lost events; -1: unknown */
	__s64 phantoms;		/* ledger pages gone in the kernel (lost releases); -1: no ledger */
	/* the ledger's losses for this pool: events not logged, by kind; the fold's ties, losses */
	__u64 hold_lost, release_lost, ties, lost;
	bool sampled; /* ledger, ages and before_start from a sample */
	__u32 hold_cnt;
	__u32 release_cnt;
	double hold_per_s; /* NAN: no previous snapshot */
	double release_per_s;
	double oldest_age_s;  /* NAN: nothing inflight, or unknown */
	bool oldest_at_least; /* a lower bound: a page ppwatch did not see taken */
	/*
	 * A page of the pool whose hold ppwatch did not see (out before it
	 * started, or before the pool's destroy) is at least this old: since
	 * ppwatch's start, or the destroy, whichever is older (model/ages.h);
	 * NAN: no bound.
	 */
	double unseen_age_s;
	double destroyed_age_s; /* destroyed: at least this long ago (model/ages.h); NAN unknown */
	__u64 age_hist[POOL_AGE_BUCKETS]; /* ledger pages by age (sampled: the sample) */
	double detach_age_s;		  /* NAN: not detached */
	double freed_age_s;		  /* NAN: not freed */
	double zombie_s;		  /* detach to freed, for freed pools */
	__u64 destroy_cnt;
	__u32 retries;
	__s32 last_inflight; /* from the last page_pool_release */
	double seen_age_s;   /* since ppwatch first saw it */
	enum dma_state dma;
	__s64 dma_still_mapped;	       /* pages still mapped, -1 unknown */
	__s64 dma_unmapped_at_destroy; /* -1 unknown */
	double dma_unmap_age_s;	       /* since the unmap completed, NAN unknown */
	/*
	 * Item-block kernels with ppwatch's series (patches/): allocation
	 * item stats and block counts. 'item_stats'/'item_blocks' false means
	 * "not available on this kernel", which is not the same as 0.
	 */
	bool item_stats;
	__u64 item_fast_empty;
	__u64 item_slow_failed;
	bool item_blocks;
	__u64 blocks_prealloc;
	__u64 blocks_dyn;
	__u64 blocks_dyn_alloc;
	__u64 blocks_dyn_free;
	/* xarray kernels with ppwatch's series (patches/xarray/): pages
	 * dropped in the pool's DMA mapping, for want of an index or a mapping */
	bool dma_index_stats;
	__u64 dma_index_failed;
	bool dma_map_stats;
	__u64 dma_map_failed;
	/*
	 * The unmap at destroy, when its tracepoint fired: page_pool_destroy_unmap
	 * (item blocks, patches/).
	 */
	bool unmap_seen;
	__u32 unmap_pages;
	__u32 unmap_blocks;
	__u64 unmap_took_ns;
	__s32 unmap_inflight;
	/* the item-block walk (any item-block kernel): each block's occupancy summed */
	bool occ_known;
	struct block_occupancy occ;
	/*
	 * Allocation and recycling (CONFIG_PAGE_POOL_STATS): netlink's
	 * page-pool-stats where it lists the pool, else read from the pool;
	 * stats.source PPS_NONE: unknown. Rates of pp_allocated() and
	 * pp_recycled() since the previous snapshot (NAN: no previous).
	 */
	struct pp_stats stats;
	double recycling_pct; /* NAN: unknown, or nothing allocated */
	double alloc_per_s;
	double recycle_per_s;
};

struct snapshot {
	struct pool_row *rows;
	size_t n;
	size_t cap; /* rows allocated: snapshot_rebuild() and view_apply() reuse them */
	__u64 ts_ns;
	double interval_s; /* since the previous snapshot; 0 for the first */
	__u64 counters[PPW_CNT_MAX];
	__u64 max_pages; /* pages the ledger is sized for (0: no ledger) */
	__u64 pages_used;
	__u64 ledger_bytes;
	enum ppw_level level;
	__u32 sample_rate;
};

const char *level_text(enum ppw_level l);
/* "counters", "sampled" or "all"; 0 or -EINVAL */
int level_parse(const char *s, enum ppw_level *l);

struct group_row {
	char device[48];
	char ifname[PPW_IFNAMSIZ];
	__s32 ifindex;
	__u32 netns_ino;
	__u32 page_pools;
	__u32 zombies;
	__s64 live_refs;
	__u64 live_bytes;
	__s64 zombie_refs;
	__u64 zombie_bytes;
	double hold_per_s;
	double release_per_s;
	double oldest_age_s;
	bool oldest_at_least; /* a lower bound (model/ages.h) */
	size_t first;	      /* the row of its first pool: groups come in that order */
};

enum row_state pool_classify(const struct pool_obs *o);
/* the snapshot row of one record, as the views show it */
void pool_row_of(struct pool_row *w, const struct ppw_pool *r, __u64 now_ns, __u32 page_size,
		 bool detach_time_is_ns, enum unmap_regime regime);
const char *row_state_name(enum row_state s);
const char *dma_state_name(enum dma_state s);

int snapshot_build(struct snapshot *out, const struct reading *rd, const struct snapshot *prev);
/*
 * snapshot_build() into a snapshot built before (or zeroed), reusing its
 * rows' memory: a refresh of 10,000 pools allocated and faulted in 5 MiB
 * each time. prev must be another snapshot.
 */
int snapshot_rebuild(struct snapshot *out, const struct reading *rd, const struct snapshot *prev);
void snapshot_free(struct snapshot *s);
/*
 * A pool filter, parsed once from the command line: 'pool X' / 'id X' (a
 * pool's id or name), 'dev NAME' (interface, device or driver name),
 * 'ifindex N', 'netns INODE' (args.c turns a name into its inode), or a plain word that may be any of the first two.
 */
enum pool_filter_kind { PF_ANY, PF_POOL, PF_DEVICE, PF_IFINDEX, PF_NETNS };

struct pool_filter {
	enum pool_filter_kind kind;
	const char *word; /* as given; not copied: it outlives the filter (argv) */
	bool is_num;	  /* word is a decimal number (num) */
	__u64 num;
};

/* 0, or -EINVAL: an ifindex that is not a number */
int pool_filter_parse(struct pool_filter *f, enum pool_filter_kind kind, const char *word);
bool row_matches(const struct pool_row *r, const struct pool_filter *f);
/* keep the rows matching any of the n filters (n == 0: every row) */
void snapshot_filter(struct snapshot *s, const struct pool_filter *f, int n);
/* a copy of src with rows of its own: 0 or -ENOMEM */
int snapshot_copy(struct snapshot *out, const struct snapshot *src);
/* the same into out, a copy made before (or zeroed), reusing its rows' memory */
int snapshot_copy_into(struct snapshot *out, const struct snapshot *src);
/* Set w->ident from w->id, else xdp_mem_id, else w->addr (see struct pool_row). */
void pool_row_name(struct pool_row *w, __u32 xdp_mem_id);
/* drop freed rows */
void snapshot_drop_freed(struct snapshot *s);
/* the sum of every loss counter */
__u64 snapshot_losses(const struct snapshot *s);
int snapshot_group_by_device(const struct snapshot *s, struct group_row **out, size_t *n);

/* the host's totals over a snapshot's pools (freed pools count in none) */
struct snapshot_totals {
	__u64 live, zombies;
	__s64 inflight;
	__u64 inflight_bytes;
};
void snapshot_totals(const struct snapshot *s, struct snapshot_totals *t);

#endif /* __PPWATCH_MODEL_SNAPSHOT_H */
