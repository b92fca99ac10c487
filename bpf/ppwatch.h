/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ppwatch BPF <-> user-space ABI.
 *
 * Everything that crosses the boundary lives here, built from fixed-width
 * types only (no bool, no pointers, explicit padding), so the layout is the
 * same for clang -target bpf and for the host compiler. Both compilers check
 * the layout against the numbers at the end of this file.
 */
#ifndef __PPWATCH_H
#define __PPWATCH_H

#ifndef __VMLINUX_H__ /* BPF side: vmlinux.h has the types */
#include <linux/types.h>
#endif

#define PPW_IFNAMSIZ  16
#define PPW_DEVNAMSIZ 32
#define PPW_DRVNAMSIZ 16

/*
 * ---- walk bounds -----------------------------------------------------------
 * Every bound of a BPF walk (bpf_loop counts and loop limits), in one place:
 * what a walk stops at is counted (PPW_CNT_DISCOVERY_TRUNC,
 * PPW_CNT_SCAN_TRUNC) or reported as truncated, never silent.
 */

/*
 * discovery (discover.bpf.c): every bound is a bpf_loop count, verified
 * once whatever its size, so each is set far above what a host has (a
 * Kubernetes node's pods, a NIC's queues); what still stops at one is
 * counted as discovery_truncated.
 */
#define PPW_MAX_NETNS	    65536     /* network namespaces */
#define PPW_MAX_DEVS	    (1 << 20) /* net_devices per namespace */
#define PPW_MAX_DEV_POOLS   65536     /* pools on one dev->page_pools list (zombies too) */
#define PPW_MAX_VETH_RQ	    4096      /* veth rx queues per device: rtnetlink's limit */
#define PPW_MAX_MEM_BUCKETS (1 << 20) /* buckets of the XDP memory-model table */
#define PPW_MAX_MEM_CHAIN   64	      /* entries in one of its buckets */
/* children of a pool's p.dev searched for its net_device (pool.bpf.h) */
#define PPW_MAX_DEV_CHILDREN 16

/* clearing a freed pool from every CPU's slots (lifecycle.bpf.c): NR_CPUS is at most 8192 */
#define PPW_MAX_CPU_SLOTS 8192

/* holder scan (holders.bpf.c, skbwalk.bpf.h) */
#define PPW_MAX_FRAGS	 48   /* CONFIG_MAX_SKB_FRAGS is at most 45 */
#define PPW_MAX_FRAGLIST 64   /* skbs on one frag_list (GRO makes at most ~45) */
#define PPW_MAX_CPUS	 1024 /* per-CPU defer lists */
#define PPW_MAX_NODES	 8    /* defer lists per CPU (one per NUMA node) */
#define PPW_RB_DEPTH	 64   /* rbtree height (TCP out-of-order queue) */
/* sockets in flight (SCM_RIGHTS) walked per scan, files per skb (SCM_MAX_FD) */
#define PPW_MAX_INFLIGHT  4096
#define PPW_MAX_SCM_FILES 253
/* qdiscs (queues.bpf.c): a device's qdisc_hash buckets (2^4), qdiscs per bucket,
 * fq_codel flows, the bands of pfifo_fast */
#define PPW_MAX_QDISC_BUCKETS 16
#define PPW_MAX_QDISC_CHAIN   65536 /* htb's default leaves all hash to one bucket */
#define PPW_QDISC_BATCH	      64    /* qdiscs scan_qobj walks in one element at most */
#define PPW_MAX_FQ_FLOWS      65536
#define PPW_PFIFO_FAST_BANDS  3
/* qdiscs and reassembly queues a scan lists, then walks */
#define PPW_MAX_QUEUE_OBJS 65536
/* fragment reassembly queues: rhashtable buckets and entries per bucket */
#define PPW_MAX_FRAG_BUCKETS 65536
#define PPW_MAX_FRAG_CHAIN   64

/* item blocks (blocks.bpf.c) */
#define PPW_MAX_BLOCKS	   65536 /* blocks walked per pool (16M items) */
#define PPW_MAX_BLOCK_RECS 1024	 /* block records per pool: the iterator's 32 KiB */

/* Default sizes; user space overrides them before load. */
#define PPW_DEF_MAX_POOLS    16384
#define PPW_DEF_MAX_PAGES    (1U << 20)
#define PPW_DEF_SAMPLE_SHIFT 4 /* the sampled level: 1 page in 16 */
#define PPW_DEF_RINGBUF	     (256 * 1024)
#define PPW_DEF_SCAN_RINGBUF (8 * 1024 * 1024)

/* Where a pool sits in its life. */
enum ppw_pool_state {
	PPW_POOL_LIVE = 0,     /* not destroyed */
	PPW_POOL_DETACHED = 1, /* page_pool_destroy() ran, pages still out: zombie */
	PPW_POOL_FREED = 2,    /* inflight reached 0, struct page_pool freed */
};

enum ppw_pool_flags {
	PPW_PF_DMA_MAP = 1U << 0, /* PP_FLAG_DMA_MAP: pool maps its pages */
	PPW_PF_DMA_SYNC = 1U << 1,
	PPW_PF_HAS_NETDEV = 1U << 2,   /* slow.netdev set: netlink can list it */
	PPW_PF_DEV_NETDEV = 1U << 3,   /* p.dev is the device of a net_device */
	PPW_PF_HAS_ID = 1U << 4,       /* kernel has pool->user.id */
	PPW_PF_DISCOVERED = 1U << 5,   /* first found by the discovery scan */
	PPW_PF_MEM_PROVIDER = 1U << 6, /* mp_priv set (devmem, io_uring zcrx) */
	PPW_PF_HAS_NAPI = 1U << 7,
	PPW_PF_ORPHANED = 1U << 8,     /* netdev gone, re-parented to loopback */
	PPW_PF_ITEM_STATS = 1U << 9,   /* alloc_stats.item_{fast_empty,slow_failed} */
	PPW_PF_ITEM_BLOCKS = 1U << 10, /* item block counters (ppwatch's series) */
	/*
	 * no slow.netdev: the net_device is a child of p.dev (a NIC's PCI
	 * device), found by walking p.dev's children
	 */
	PPW_PF_DEV_CHILD = 1U << 11,
	/* alloc_stats.dma_index_failed (ppwatch's xarray series) */
	PPW_PF_DMA_INDEX_STATS = 1U << 12,
	/* alloc_stats.dma_map_failed (ppwatch's xarray series) */
	PPW_PF_DMA_MAP_STATS = 1U << 13,
	/*
	 * destroyed when first seen, and p.dev no longer registered (a driver
	 * unbound and its device removed, a veth deleted): p.dev not read,
	 * the device unknown
	 */
	PPW_PF_DEV_GONE = 1U << 14,
};

/*
 * One record per struct page_pool seen, keyed by its address. A new pool at
 * an address that held a freed pool gets gen + 1; the old record is reported
 * through a PPW_EV_POOL_RETIRED event first, so nothing is lost.
 */
struct ppw_pool {
	__u64 addr;  /* struct page_pool * */
	__u32 gen;   /* this run's number for the pool: (addr, gen) never repeats in a run */
	__u32 id;    /* pool->user.id (netlink id), 0 if none */
	__u32 flags; /* enum ppw_pool_flags */
	__u32 state; /* enum ppw_pool_state */
	/* slow.netdev, else the net_device behind p.dev (p.dev itself, or its net child) */
	__s32 ifindex;
	__u32 napi_id;
	__u64 netns_cookie;
	__u32 netns_ino;
	__u32 order;
	__u32 pool_size;
	__s32 nid;
	char ifname[PPW_IFNAMSIZ];
	char devname[PPW_DEVNAMSIZ]; /* kobject name of p.dev (e.g. PCI address) */
	char driver[PPW_DRVNAMSIZ];  /* p.dev->driver->name, if bound */

	__u64 first_seen_ns; /* CLOCK_BOOTTIME */
	/* The kernel's own running counters, as last reported. */
	__u32 hold_cnt;	   /* pages_state_hold_cnt */
	__u32 release_cnt; /* pages_state_release_cnt */
	/* The same counters when ppwatch first saw the pool. */
	__u32 base_hold;
	__u32 base_release;
	/* What the ledger saw since then. */
	__u64 ledger_holds;	  /* unused */
	__u64 lost_releases;	  /* releases not recorded: page log full (evicted slots') */
	__u64 untracked_holds;	  /* holds not recorded: page log full */
	__u64 unmatched_releases; /* releases of pages held before start */

	/* Destroy and retry, from the page_pool_release tracepoint. */
	__u64 detach_ns;	  /* first page_pool_release (destroy) seen */
	__u64 kernel_detach_time; /* raw pool->user.detach_time (units: kfeatures.c's detach_time_is_ns) */
	__u64 last_release_ns; /* time of the latest page_pool_release */
	__u64 freed_ns;
	__u64 destroy_cnt;    /* pool->destroy_cnt */
	__u32 release_events; /* page_pool_release calls seen: 1 + retries */
	__s32 last_inflight;  /* inflight it reported last */

	/* DMA-unmap facts (cli/model/snapshot.c turns them into a state per regime) */
	__s32 destroy_inflight; /* pages outside the pool when destroy scrubbed it */
	__u32 dma_mapped_left;	/* dma_mapped xarray not empty at the last release */
	__u32 unmapped_pages;	/* item-block kernels with ppwatch's series: */
	__u32 unmap_blocks;	/*   page_pool_destroy_unmap */
	__u64 unmap_ns;		/*   when, CLOCK_BOOTTIME */
	__u64 unmap_took_ns;

	/* item blocks (the v7 series; block counts need ppwatch's series) */
	__u64 item_fast_empty;
	__u64 item_slow_failed;
	__u32 blocks_prealloc;
	__u32 blocks_dyn;
	__u64 blocks_dyn_alloc;
	__u64 blocks_dyn_free;

	/* pool->xdp_mem_id: the id of the pool's XDP memory model, when a
	 * driver (or a live-frames test run) registered one; 0 if none. The
	 * kernel's own id on every kernel since 5.18, also where pool->user.id
	 * does not exist (before 6.8): unique among live pools, the one
	 * xdp:mem_connect and xdp:mem_disconnect print. */
	__u32 xdp_mem_id;
	__u32 pad2;

	/* pages dropped because their DMA index (dma_mapped xarray entry)
	 * could not be registered, or because they could not be DMA-mapped
	 * (ppwatch's xarray series) */
	__u64 dma_index_failed;
	__u64 dma_map_failed;

	/*
	 * A destroyed pool's own destroy tick, pool->defer_start (jiffies;
	 * 0: not read), and beside it, read at once, jiffies, CLOCK_MONOTONIC
	 * and CLOCK_BOOTTIME: what dates a destroy ppwatch did not see on a
	 * kernel without pool->user.detach_time (cli/model/ages.c).
	 */
	__u64 defer_start;
	__u64 defer_jiffies;
	__u64 defer_mono_ns;
	__u64 defer_boot_ns;
};

/*
 * How much the hot path records (ppwatch --level). Every level keeps the
 * kernel's own hold and release counters per pool and per CPU; the ledger
 * levels also record pages, with their hold time, in the page ledger.
 */
enum ppw_level {
	PPW_LEVEL_COUNTERS = 0, /* no per-page state at all */
	PPW_LEVEL_SAMPLED = 1,	/* the ledger for 1 in 2^N pages, chosen by netmem */
	PPW_LEVEL_ALL = 2,	/* the ledger for every page */
};

/*
 * Per CPU, the pools this CPU saw last, direct-mapped by the pool's
 * address: all the hot path writes at the counters level, with plain
 * stores to this CPU's own cache line (no atomics). User space folds the
 * CPUs: the latest counter of a pool is the newest any CPU saw, its sums
 * the sum over CPUs plus what evicted slots gave back to the pool record.
 */
#define PPW_PCPU_SLOTS_BITS 6
#define PPW_PCPU_SLOTS	    (1U << PPW_PCPU_SLOTS_BITS)

struct ppw_pcpu_pool {
	__u64 pool;	 /* struct page_pool *, 0: empty */
	__u32 gen;	 /* ppw_pool.gen when the slot was filled */
	__u32 hold;	 /* the newest pages_state_hold_cnt this CPU saw */
	__u32 release;	 /* the newest pages_state_release_cnt this CPU saw */
	__u32 base_hold; /* the record's base counters, copied at fill */
	__u32 base_release;
	__u32 pad;
	__u64 holds; /* hold events on this CPU since the fill */
	__u64 releases;
	__u64 rel_lost; /* releases the page log had no room for (their pages stay in the ledger) */
	__u64 untracked; /* holds the page log had no room for */
};

/*
 * The page log (bpf/ledger.bpf.h): per CPU, 2^cfg_log_shift records in
 * the 'page_log' array, CPU after CPU, appended by the hold and release
 * programs and folded into the page ledger by user space
 * (cli/sources/page_log.c), which maps the array read-only and the
 * control lines ('log_ctl') read-write for its tail. A record is
 * complete when its first word's lap bit is its slot's lap parity:
 * PPW_LOG_LAP set on laps 0, 2, 4, ... (so a zeroed log reads empty).
 */
#define PPW_LOG_RELEASE	  0x2ULL /* w: a release (clear: a hold) */
#define PPW_LOG_LAP	  0x4ULL /* w: the lap parity */
#define PPW_LOG_FLAGS	  (PPW_LOG_RELEASE | PPW_LOG_LAP)
#define PPW_LOG_SLACK	  16 /* slots a full log keeps free for events that interrupt others */
#define PPW_DEF_LOG_SHIFT 16 /* 65536 records (1 MiB) per CPU */
/* pages page_check (ledger.bpf.c) looks at per run */
#define PPW_CHECK_PAGES	  128
#define PPW_CHECK_UNKNOWN 1 /* page_check's answer on a kernel without page->pp_magic */

/*
 * netns_walk's record: a process and its network namespace (sources/netns.c
 * opens a namespace it has not seen through /proc/PID/ns/net)
 */
struct ppw_netns_rec {
	__u32 inum; /* the namespace's inode (ns_common.inum) */
	__u32 pid;  /* a process in it (a thread group leader) */
};

struct ppw_log_rec {
	__u64 w;   /* netmem (8-byte aligned, bit 0 set for a net_iov) | flags; written last */
	__u32 gen; /* ppw_pool.gen of the pool */
	__u32 t;   /* jiffies, the low 32 bits */
};

struct ppw_log_ctl {
	__u64 head;	   /* records reserved (BPF) */
	__u64 tail;	   /* records consumed (user space) */
	__u64 dropped;	   /* holds not logged: the log was full */
	__u64 dropped_rel; /* releases not logged: the log was full */
	__u64 pad[4];	   /* a cache line each */
};

/*
 * The holder scan (holders.bpf.c): iterators write fixed-size records to the
 * iterator's seq_file, one small batch per element (a socket, an fd); the
 * records of walks that cover many objects in one element (page records of
 * a socket's queues, the pool table, the defer lists, the qdiscs and
 * fragment queues of every namespace) go through the 'scan_events' ring
 * buffer, which user space drains while it reads (cli/sources/holder_scan.c),
 * so no element outgrows the seq_file's buffer.
 */
enum ppw_rec_type {
	PPW_REC_SOCK = 1,     /* a socket whose queues were walked */
	PPW_REC_PAGE = 2,     /* a page_pool page found in a holder */
	PPW_REC_OWNER = 3,    /* a process holds a socket through an fd */
	PPW_REC_POOL = 4,     /* a pool's own cache/ring/frag page */
	PPW_REC_CHECK = 5,    /* virt_to_page self-check result */
	PPW_REC_DEFER = 6,    /* per-CPU defer list walked (or not readable) */
	PPW_REC_INFLIGHT = 7, /* a socket in flight: its file sits in an skb (SCM_RIGHTS) */
	PPW_REC_QDISC = 8,    /* a qdisc of a device, its backlog and what was walked */
	PPW_REC_FRAGQ = 9,    /* an IP/IPv6 fragment reassembly queue */
};

/* where in a holder a page was found */
enum ppw_where {
	PPW_IN_HEAD = 1,     /* skb linear part (head_frag) */
	PPW_IN_FRAG = 2,     /* skb_shinfo frags[] */
	PPW_IN_FRAGLIST = 3, /* an skb on the frag_list */
	PPW_IN_OOO = 4,	     /* TCP out-of-order queue */
	PPW_IN_READER = 5,   /* UDP reader_queue */
	PPW_IN_DEFER = 6,    /* per-CPU skb defer list */
	PPW_IN_QDISC = 7,    /* an skb queued in a qdisc (holder: the Qdisc) */
	PPW_IN_FRAGQ = 8,    /* a fragment waiting for reassembly (holder: the queue) */
};

enum ppw_sock_flags {
	PPW_SF_TRUNCATED = 1U << 0, /* a queue was longer than the walk bound */
	PPW_SF_VIA_FD = 1U << 1,    /* walked from a process's fd */
	PPW_SF_IN_FLIGHT = 1U << 2, /* reached through an skb carrying its file (SCM_RIGHTS) */
	PPW_SF_DEAD = 1U << 3,	    /* SOCK_DEAD: closed by its process, an orphan until it ends */
	PPW_SF_LOCKED = 1U << 4,    /* walked under its lock (a protocol iterator that locks) */
	PPW_SF_KERNEL = 1U << 5,    /* sk_kern_sock: made in the kernel (sock_create_kern) */
	PPW_SF_NO_SOCKET = 1U << 6, /* no struct socket: a child not accepted yet, or an orphan */
	PPW_SF_NO_FILE = 1U << 7,   /* a struct socket without a file: made in the kernel */
	PPW_SF_ACCEPTQ =
		1U << 8, /* reached through its listener's accept queue (CLOSE: in no table) */
};

struct ppw_rec_sock {
	__u64 sk;
	__u64 netns_cookie;
	__u32 netns_ino;
	__u32 ino;
	__u16 family;
	__u16 type;
	__u16 protocol;
	__u16 state;
	__u16 lport; /* host order */
	__u16 rport;
	__u32 flags;	/* enum ppw_sock_flags */
	__u8 laddr[16]; /* IPv4 in the first 4 bytes */
	__u8 raddr[16];
	__u32 skbs;
	__u32 rmem;	   /* sk_rmem_alloc */
	__u32 nonpp_pages; /* pages that are not page_pool's */
	__u32 unread;	   /* bytes in the skbs of its receive queues */
	/* who reads it: UDP's encap_rcv if set, else sk_data_ready (a kernel text address) */
	__u64 hook;
};

struct ppw_rec_page {
	__u64 holder;  /* struct sock *; the CPU (PPW_IN_DEFER); Qdisc, fragment queue */
	__u64 netmem;  /* head page, bit 0 set for net_iov */
	__u64 pool;    /* struct page_pool * from the page */
	__u64 hold_ns; /* from the ledger, 0 if not in it */
	__u32 gen;     /* ledger entry's pool generation */
	__u32 where;   /* enum ppw_where */
	__u32 in_ledger;
	__s32 stack_id; /* hold stack, -1 if not sampled */
};

struct ppw_rec_owner {
	__u64 sk;
	__u32 ino;
	__u32 pid;
	__u32 tgid;
	__u32 fd;
	char comm[16];
};

struct ppw_rec_pool {
	__u64 pool;
	__u64 frag_netmem; /* partly used frag page the pool keeps, or 0 */
	__u32 gen;
	__u32 alloc_count; /* pages in the alloc cache */
	__u32 ring_count;  /* pages in the recycle ring */
	__u32 ring_size;
	__u32 hold; /* counters read at the same moment */
	__u32 release;
};

struct ppw_rec_check {
	__u64 addr; /* a slab object (the socket) */
	__u64 page; /* what virt_to_page() made of it */
	__u32 ok;   /* the page is that object's slab */
	__u32 pad;
};

struct ppw_rec_defer {
	__u32 cpu;
	__u32 readable; /* 0: this kernel's defer lists are out of reach */
	__u32 skbs;
	__u32 pad;
};

/* a socket whose only reference may be an skb queued on another (unix) socket */
struct ppw_rec_inflight {
	__u64 carrier; /* the socket whose receive queue holds the skb */
	__u64 sk;      /* the socket whose file the skb carries */
	__u32 files;   /* files the skb carries */
	__u32 pad;
};

enum ppw_qdisc_flags {
	PPW_QF_ROOT = 1U << 0,	    /* the device's root qdisc */
	PPW_QF_WALKED = 1U << 1,    /* its queues were walked: pages found are attributed */
	PPW_QF_TRUNCATED = 1U << 2, /* a queue was longer than the walk bound */
};

struct ppw_rec_qdisc {
	__u64 qdisc;
	__u32 netns_ino;
	__s32 ifindex;
	__u32 handle; /* major:minor */
	__u32 parent;
	__u32 qlen;    /* packets, as the qdisc counts them */
	__u32 backlog; /* bytes */
	__u32 skbs;    /* skbs walked */
	__u32 flags;   /* enum ppw_qdisc_flags */
	char kind[16];
	char dev[16];
	__u64 rate_bytes_ps; /* a shaper's rate (tbf), 0 if none or unknown */
};

struct ppw_rec_fragq {
	__u64 fq;
	__u32 netns_ino;
	__u16 family; /* 2 IPv4, 10 IPv6 */
	__u16 protocol;
	__u8 saddr[16]; /* IPv4 in the first 4 bytes */
	__u8 daddr[16];
	__u32 id;    /* the datagram's IP id */
	__u32 len;   /* bytes the whole datagram will have, as far as known */
	__u32 meat;  /* bytes received */
	__u32 skbs;  /* fragments walked */
	__u32 flags; /* 1: truncated */
	__u32 pad;
};

struct ppw_scan_rec {
	__u32 type; /* enum ppw_rec_type */
	__u32 pad;
	union {
		struct ppw_rec_sock sock;
		struct ppw_rec_page page;
		struct ppw_rec_owner owner;
		struct ppw_rec_pool pool;
		struct ppw_rec_check check;
		struct ppw_rec_defer defer;
		struct ppw_rec_inflight inflight;
		struct ppw_rec_qdisc qdisc;
		struct ppw_rec_fragq fragq;
	};
};

/*
 * Item blocks (blocks.bpf.c, kernels with the page_pool item-block series):
 * the blocks_walk iterator writes, for each pool it walks, one
 * PPW_BLK_BLOCK record per block (one pool only, blocks_pool set; at most
 * PPW_MAX_BLOCK_RECS) and then the pool's PPW_BLK_POOL totals (every block,
 * up to PPW_MAX_BLOCKS). Records of both kinds are the same size.
 */
enum ppw_blk_type {
	PPW_BLK_POOL = 1,
	PPW_BLK_BLOCK = 2,
};

struct ppw_blk_rec {
	__u32 type; /* enum ppw_blk_type */
	__u32 gen;
	__u64 pool;
	union {
		struct { /* PPW_BLK_POOL */
			__u32 items_per_block;
			__u32 prealloc;	     /* pre-allocated blocks */
			__u32 dynamic;	     /* dynamic blocks */
			__u32 used_prealloc; /* their items tracking a page */
			__u32 used_dynamic;
			__u32 sparse;	 /* dynamic, not current, < 1/4 used */
			__u32 unissued;	 /* the current block's items not given yet */
			__u32 truncated; /* 1: more than PPW_MAX_BLOCKS blocks */
		} tot;
		struct { /* PPW_BLK_BLOCK */
			__u64 addr;
			__u32 used;	/* items tracking a page */
			__u32 unissued; /* items the pool has not handed out yet */
			__u32 dynamic;
			__u32 current; /* pool->item_blk: items come from it now */
		} blk;
	};
};

/*
 * Allocation and recycling statistics (stats.bpf.c, kernels with
 * CONFIG_PAGE_POOL_STATS): the stats_walk iterator writes one record per
 * pool it knows that is not freed, read from the pool itself: its
 * alloc_stats, and its per-CPU recycle_stats summed over every possible
 * CPU, as page_pool_get_stats() sums them. The counters are in the order
 * of the netdev family's page-pool-stats attributes.
 */
enum ppw_stats_flags {
	PPW_STATS_ALLOC = 1U << 0,   /* alloc[] read (pool->alloc_stats) */
	PPW_STATS_RECYCLE = 1U << 1, /* recycle[] read (pool->recycle_stats, every CPU) */
};

enum ppw_alloc_stat {
	PPW_ALLOC_FAST,
	PPW_ALLOC_SLOW,
	PPW_ALLOC_SLOW_HIGH_ORDER,
	PPW_ALLOC_EMPTY,
	PPW_ALLOC_REFILL,
	PPW_ALLOC_WAIVE,
	PPW_ALLOC_MAX
};

enum ppw_recycle_stat {
	PPW_RECYCLE_CACHED,
	PPW_RECYCLE_CACHE_FULL,
	PPW_RECYCLE_RING,
	PPW_RECYCLE_RING_FULL,
	PPW_RECYCLE_RELEASED_REFCNT,
	PPW_RECYCLE_MAX
};

struct ppw_stats_rec {
	__u64 pool;
	__u32 gen;
	__u32 flags; /* enum ppw_stats_flags */
	__u64 alloc[PPW_ALLOC_MAX];
	__u64 recycle[PPW_RECYCLE_MAX];
};

/* Ring-buffer events: pool lifecycle, rare by construction. */
enum ppw_event_type {
	PPW_EV_POOL_NEW = 1,	 /* first sight of a pool */
	PPW_EV_DESTROY = 2,	 /* first page_pool_release: destroy started */
	PPW_EV_RETRY = 3,	 /* later page_pool_release: retry */
	PPW_EV_FREED = 4,	 /* inflight reached 0 */
	PPW_EV_NID = 5,		 /* page_pool_update_nid */
	PPW_EV_POOL_RETIRED = 6, /* a record is about to be reused: its last state */
	PPW_EV_UNMAP = 7,	 /* page_pool_destroy_unmap: DMA mappings torn down */
	PPW_EV_BLOCK_ALLOC = 8,	 /* a dynamic item block allocated */
	PPW_EV_BLOCK_FREE = 9,	 /* a dynamic item block freed */
	PPW_EV_SLOW_FAILED = 10, /* no dynamic item block: a page allocation failed */
};

/*
 * A lifecycle event: the pool's record as the event left it (its address,
 * generation, id, counters, NUMA node, destroy count) and the inflight
 * count the event reported (page_pool_release's, the unmap's).
 */
struct ppw_event {
	__u32 type; /* enum ppw_event_type */
	__u32 cpu;
	__u64 ts_ns; /* CLOCK_BOOTTIME */
	__s32 inflight;
	__u32 pad;
	struct ppw_pool rec;
};

/* Sampled stacks (--stacks): counts per pool, event kind and stack. */
enum ppw_stack_kind {
	PPW_STACK_HOLD = 1,
	PPW_STACK_RELEASE = 2,
	PPW_STACK_ZOMBIE_RELEASE = 3, /* a page of a destroyed pool came back */
};

struct ppw_stack_key {
	__u64 pool;
	__u32 gen;
	__u32 kind; /* enum ppw_stack_kind */
	__s32 stack_id;
	__u32 pad;
};

#define PPW_STACK_DEPTH 127 /* PERF_MAX_STACK_DEPTH */
#define PPW_DEF_STACKS	16384

/* Per-CPU counters, summed by user space. Every loss has one. */
enum ppw_counter {
	/* state_hold events of evicted per-CPU pool slots (user space adds the live slots') */
	PPW_CNT_HOLD = 0,
	PPW_CNT_RELEASE,	 /* state_release events, the same way */
	PPW_CNT_POOL_RELEASE,	 /* page_pool_release events handled */
	PPW_CNT_LEDGER_FULL,	 /* page log or ledger full: event not recorded (loss) */
	PPW_CNT_POOLS_FULL,	 /* pool table full: pool not tracked (loss) */
	PPW_CNT_RINGBUF_DROP,	 /* lifecycle event dropped, ring full (loss) */
	PPW_CNT_UNMATCHED,	 /* release of a page held before start (user space counts it) */
	PPW_CNT_POOL_REUSE,	 /* address reused by a new pool */
	PPW_CNT_DISCOVERED,	 /* pools found by the discovery scan */
	PPW_CNT_DISCOVERY_TRUNC, /* discovery stopped at a bound (loss) */
	PPW_CNT_STACKS,		 /* stacks taken (sampled) */
	PPW_CNT_STACK_FAIL,	 /* stack not stored: map full or walk failed (loss) */
	PPW_CNT_SCAN_DROP,	 /* holder scan: page record dropped, ring full (loss) */
	PPW_CNT_LEDGER_SPILL,	 /* unused since the page log (was: ledger bucket overflows) */
	PPW_CNT_PCPU_EVICT,	 /* per-CPU pool slots given back to a busier pool */
	PPW_CNT_SCAN_TRUNC, /* holder scan: a walk stopped at its bound (frag_list, defer list, CPUs) */
	/* what ledger_full lumps, by kind (user space counts them) */
	PPW_CNT_HOLD_LOST,    /* holds not recorded: a page log or the ledger full (loss) */
	PPW_CNT_RELEASE_LOST, /* releases not recorded: the same (loss) */
	PPW_CNT_SLOT_SKIPPED, /* page log slots reserved and never written, passed (loss) */
	/* the fold (user space) */
	PPW_CNT_TIES,	  /* a page's hold and release in one tick on two CPUs: the count decided */
	PPW_CNT_LOST,	  /* a page's events that only a lost one explains, settled */
	PPW_CNT_PHANTOMS, /* ledger pages the kernel's count says are gone: out of ages and rules */
	/* the holder scan, again */
	PPW_CNT_SCAN_GONE, /* a queue or socket in flight listed, not found again to walk (gone) */
	PPW_CNT_MAX,
};

/*
 * The layout, checked by both compilers (clang -target bpf and the host's
 * cc): a field that pads differently on one side, or a change nobody meant,
 * stops the build instead of garbling records. Change a number only with
 * the struct it describes.
 */
#define PPW_ABI_SIZE(t, n) _Static_assert(sizeof(struct t) == (n), "ABI: sizeof(struct " #t ")")
#define PPW_ABI_OFF(t, f, n) \
	_Static_assert(__builtin_offsetof(struct t, f) == (n), "ABI: offset of " #t "." #f)
PPW_ABI_SIZE(ppw_pool, 352);
PPW_ABI_OFF(ppw_pool, first_seen_ns, 120);
PPW_ABI_OFF(ppw_pool, item_fast_empty, 256);
PPW_ABI_OFF(ppw_pool, xdp_mem_id, 296);
PPW_ABI_SIZE(ppw_pcpu_pool, 64);
PPW_ABI_SIZE(ppw_log_rec, 16);
PPW_ABI_SIZE(ppw_log_ctl, 64);
PPW_ABI_SIZE(ppw_rec_sock, 96);
PPW_ABI_SIZE(ppw_rec_page, 48);
PPW_ABI_SIZE(ppw_rec_owner, 40);
PPW_ABI_SIZE(ppw_rec_pool, 40);
PPW_ABI_SIZE(ppw_rec_check, 24);
PPW_ABI_SIZE(ppw_rec_defer, 16);
PPW_ABI_SIZE(ppw_rec_inflight, 24);
PPW_ABI_SIZE(ppw_rec_qdisc, 80);
PPW_ABI_SIZE(ppw_rec_fragq, 72);
PPW_ABI_SIZE(ppw_scan_rec, 104);
PPW_ABI_OFF(ppw_scan_rec, sock, 8);
PPW_ABI_SIZE(ppw_event, 376);
PPW_ABI_OFF(ppw_event, rec, 24);
PPW_ABI_SIZE(ppw_stack_key, 24);
PPW_ABI_SIZE(ppw_blk_rec, 48);
PPW_ABI_OFF(ppw_blk_rec, tot, 16);
PPW_ABI_SIZE(ppw_stats_rec, 104);
PPW_ABI_OFF(ppw_stats_rec, recycle, 64);

#endif /* __PPWATCH_H */
