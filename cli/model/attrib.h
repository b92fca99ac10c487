/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Attribution (pure): scan records + the snapshot -> who holds each pool's
 * inflight pages. Every page is counted once; what no holder explains is
 * "unattributed", so holders always sum to the pool's inflight. Each
 * holder gets a description and what to do about it (model/holder_desc.c).
 */
#ifndef __PPWATCH_MODEL_ATTRIB_H
#define __PPWATCH_MODEL_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"
#include "ppwatch.h"

/* What a holder scan found (sources/holder_scan.c): the records of holders.bpf.c. */
struct scan_result {
	struct ppw_rec_sock *socks;
	size_t nsocks, capsocks;
	struct ppw_rec_page *pages;
	size_t npages, cappages;
	struct ppw_rec_owner *owners;
	size_t nowners, capowners;
	struct ppw_rec_pool *pools;
	size_t npools, cappools;
	struct ppw_rec_defer *defer;
	size_t ndefer, capdefer;
	struct ppw_rec_inflight *inflight;
	size_t ninflight, capinflight;
	struct ppw_rec_qdisc *qdiscs;
	size_t nqdiscs, capqdiscs;
	struct ppw_rec_fragq *fragqs;
	size_t nfragqs, capfragqs;
	/*
	 * What the kernel keeps that BPF cannot walk, per namespace, from its
	 * own counters (sources/holder_scan.c reads /proc/net there).
	 */
	struct scan_unwalked {
		__u32 netns_ino;
		__u64 nfqueue_packets; /* /proc/net/netfilter/nfnetlink_queue queue_total */
		__u32 nfqueue_queues;
	} * unwalked;
	size_t nunwalked, capunwalked;
	/*
	 * Who holds the sockets no process has an fd for (sources/sock_owners.c):
	 * each socket file an io_uring registered, as the ring's fdinfo lists
	 * it, and the function that reads each kernel socket (kallsyms).
	 */
	struct scan_ring_file {
		__u32 pid;
		__u32 fd; /* the ring's */
		char comm[16];
		__u32 slot;
		__u32 ino;     /* 0: the kernel does not name the file (name has its protocol) */
		char name[16]; /* "UDP", "TCPv6" where there is no ino */
	} * ring_files;
	size_t nring_files, capring_files;
	bool rings_read; /* the rings were looked at (a socket needed them) */
	struct scan_hook {
		__u64 addr;
		char name[48]; /* "xs_data_ready", or "" when kallsyms does not say */
	} * hooks;
	size_t nhooks, caphooks;
	__u32 skb_defer_max; /* net.core.skb_defer_max: skbs a CPU's defer list holds at most */
	__u32 ncpus;
	int layout_ok; /* virt_to_page self-check: 1 ok, 0 wrong, -1 not run */
	bool layout_from_kallsyms;
	unsigned int netns_scanned;
	unsigned int netns_failed;
	__u64 drops;	 /* page records lost: scan ring full */
	__u64 walks_cut; /* walks that stopped at a bound (frag_list, defer list, CPUs) */
	__u64 gone;	 /* queues and sockets in flight listed, not found again to walk */
	double elapsed_s;
};

/* Free what a scan collected. */
void scan_free(struct scan_result *r);

/* what holds a socket (HK_SOCKET): who must act for its pages to come back */
enum sock_held_by {
	SH_PROCESS,	 /* an fd of a process (owners) */
	SH_IN_FLIGHT,	 /* only an SCM_RIGHTS message carries its file (carrier) */
	SH_ORPHAN,	 /* closed by its process (SOCK_DEAD): TCP ends it on its own */
	SH_ACCEPT_QUEUE, /* a child no accept() has taken yet */
	SH_KERNEL,	 /* made in the kernel: NFS, iSCSI, nvme-tcp, a tunnel (hook) */
	SH_IO_URING,	 /* an io_uring's registered file (ring) */
	SH_NO_FD,	 /* an open file no process has an fd for, not named by any ring */
	SH_UNKNOWN,	 /* its record is gone */
};

enum holder_kind {
	HK_SOCKET,
	HK_POOL_CACHE,	 /* the pool's alloc cache */
	HK_POOL_RING,	 /* the pool's recycle ring */
	HK_POOL_FRAG,	 /* the page the pool carves fragments from */
	HK_DEFER,	 /* a CPU's skb defer list */
	HK_QDISC,	 /* packets queued in a qdisc */
	HK_FRAGQ,	 /* fragments waiting for reassembly */
	HK_UNATTRIBUTED, /* driver rings, in-flight skbs, lost to a bound... */
};

#define HOLDER_MAX_OWNERS 4

struct holder_owner {
	__u32 pid;
	__u32 fd;
	char comm[16];
};

struct holder {
	enum holder_kind kind;
	__u64 key;			 /* the socket, queue or qdisc address; the CPU */
	const struct ppw_rec_sock *sock; /* HK_SOCKET */
	/* HK_SOCKET in flight: the SCM_RIGHTS message's carrier socket, or NULL */
	const struct ppw_rec_sock *carrier;
	struct holder_owner carrier_owner; /* who holds the carrier (carrier_owners > 0) */
	__u32 carrier_owners;
	const struct ppw_rec_qdisc *qdisc;	  /* HK_QDISC */
	const struct ppw_rec_qdisc *qdisc_parent; /* the classful qdisc above it, if any */
	const struct ppw_rec_fragq *fragq;	  /* HK_FRAGQ */
	__u32 cpu;				  /* HK_DEFER */
	enum sock_held_by held_by;		  /* HK_SOCKET */
	struct holder_owner ring;		  /* SH_IO_URING: the ring's process and fd */
	__u32 ring_slot;			  /* SH_IO_URING: its slot in the ring */
	__u32 ring_candidates;			  /* SH_NO_FD: unnamed ring slots of its protocol */
	struct holder_owner ring_candidate;	  /* SH_NO_FD: the first of them */
	char hook[48];				  /* SH_KERNEL: the function that reads it, or "" */
	/* SH_ACCEPT_QUEUE: the TCP listener on its address (the first of 'listeners') */
	const struct ppw_rec_sock *listener;
	__u32 listeners;		    /* more than one: SO_REUSEPORT */
	struct holder_owner listener_owner; /* who holds the listener (listener_owners > 0) */
	__u32 listener_owners;
	struct holder_owner owners[HOLDER_MAX_OWNERS];
	__u32 nowners; /* may exceed HOLDER_MAX_OWNERS */
	__s64 pages;
	__u64 bytes;
	__u64 head_pages;     /* in skb linear parts */
	__u64 frag_pages;     /* in frags and frag_lists */
	double oldest_age_s;  /* NAN: unknown */
	bool oldest_at_least; /* pages from before start: lower bound */
	char desc[160];	      /* "udp 192.0.2.2:5001 ino 123 pid 45 comm fd 3" */
	char remedy[320];     /* what to do about it, one sentence */
};

struct pool_holders {
	const struct pool_row *row; /* identity (snapshot row) */
	__s64 inflight;		    /* at scan time */
	__u64 page_bytes;	    /* PAGE_SIZE << order */
	__s64 attributed;
	__s64 unattributed; /* inflight - attributed when positive (the JSON's; negative: moved) */
	/*
	 * attributed - inflight when positive: pages the walk saw in two places,
	 * because the pool took them back and lent them again while the walk
	 * ran (its counts are read at the end); attributed - moved +
	 * unattributed = inflight
	 */
	__s64 moved;
	struct holder *v;
	size_t n, cap;
};

struct holders_report {
	struct pool_holders *pools;
	size_t n;
	/* indexes into the scan, sorted for lookups */
	const struct ppw_rec_page **page_idx; /* by netmem, first sighting first */
	size_t npage_idx;
	const struct ppw_rec_sock **sock_idx;	      /* by sk */
	const struct ppw_rec_owner **owner_idx;	      /* by sk */
	const struct ppw_rec_inflight **inflight_idx; /* by sk */
	const struct ppw_rec_qdisc **qdisc_idx;	      /* by qdisc */
	const struct ppw_rec_qdisc **qdisc_dev_idx;   /* by device, handle major */
	const struct ppw_rec_fragq **fragq_idx;	      /* by queue */
	const struct ppw_rec_sock **listen_idx;	      /* TCP listeners by netns, port */
	size_t nlisten_idx;
	const struct scan_result *scan;
	__u64 sockets, skbs, truncated_sockets, nonpp_pages, pages_seen;
	__u64 inflight_sockets, orphans, qdisc_packets, frag_queues;
	bool defer_readable;
	__u32 defer_skbs;
	/* queues that hold packets but were not walked: where unattributed pages may be */
	char unwalked[240];
};

struct attrib_params {
	__u64 now_ns; /* CLOCK_BOOTTIME of the scan */
	__u32 page_size;
};

int attrib_build(struct holders_report *rep, const struct scan_result *scan,
		 const struct snapshot *snap, const struct attrib_params *p);
void attrib_free(struct holders_report *rep);
/* the holder of one page, for 'pages': NULL if no holder has it */
const struct ppw_rec_page *attrib_page_holder(const struct holders_report *rep, __u64 netmem);
/* describe the holder of a page record, e.g. "udp 192.0.2.2:5001 ino 9 pid 4 x fd 3" */
const char *holder_desc_of(char *buf, size_t len, const struct holders_report *rep,
			   const struct ppw_rec_page *pg);

/* lookups into a report's sorted indexes (NULL: not in the scan) */
const struct ppw_rec_sock *attrib_sock(const struct holders_report *rep, __u64 sk);
const struct ppw_rec_inflight *attrib_inflight(const struct holders_report *rep, __u64 sk);
const struct ppw_rec_qdisc *attrib_qdisc(const struct holders_report *rep, __u64 qdisc);
const struct ppw_rec_fragq *attrib_fragq(const struct holders_report *rep, __u64 fq);
/* the owner records of sk: the index of the first in owner_idx, *n of them */
size_t attrib_owners(const struct holders_report *rep, __u64 sk, size_t *n);

#endif /* __PPWATCH_MODEL_ATTRIB_H */
