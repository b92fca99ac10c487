/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Attribution (pure): scan records + the snapshot -> who holds each pool's
 * inflight pages. Every page is counted once; what no holder explains is
 * "unattributed", so holders always sum to the pool's inflight.
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
	int layout_ok; /* virt_to_page self-check: 1 ok, 0 wrong, -1 not run */
	bool layout_from_kallsyms;
	unsigned int netns_scanned;
	unsigned int netns_failed;
	__u64 drops;	 /* page records lost: scan ring full */
	__u64 walks_cut; /* walks that stopped at a bound (frag_list, defer list, CPUs) */
	double elapsed_s;
};

/* Free what a scan collected. */
void scan_free(struct scan_result *r);

enum holder_kind {
	HK_SOCKET,
	HK_POOL_CACHE,	 /* the pool's alloc cache */
	HK_POOL_RING,	 /* the pool's recycle ring */
	HK_POOL_FRAG,	 /* the page the pool carves fragments from */
	HK_DEFER,	 /* a CPU's skb defer list */
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
	const struct ppw_rec_sock *sock; /* HK_SOCKET */
	__u32 cpu;			 /* HK_DEFER */
	struct holder_owner owners[HOLDER_MAX_OWNERS];
	__u32 nowners; /* may exceed HOLDER_MAX_OWNERS */
	__s64 pages;
	__u64 bytes;
	__u64 head_pages;     /* in skb linear parts */
	__u64 frag_pages;     /* in frags and frag_lists */
	double oldest_age_s;  /* NAN: unknown */
	bool oldest_at_least; /* pages from before start: lower bound */
	char desc[160];	      /* "udp 192.0.2.2:5001 ino 123 pid 45 comm fd 3" */
};

struct pool_holders {
	const struct pool_row *row; /* identity (snapshot row) */
	__s64 inflight;		    /* at scan time */
	__u64 page_bytes;	    /* PAGE_SIZE << order */
	__s64 attributed;
	__s64 unattributed;
	struct holder *v;
	size_t n, cap;
};

struct holders_report {
	struct pool_holders *pools;
	size_t n;
	/* indexes into the scan, sorted for lookups */
	const struct ppw_rec_page **page_idx; /* by netmem, first sighting first */
	size_t npage_idx;
	const struct ppw_rec_sock **sock_idx;	/* by sk */
	const struct ppw_rec_owner **owner_idx; /* by sk */
	const struct scan_result *scan;
	__u64 sockets, skbs, truncated_sockets, nonpp_pages, pages_seen;
	bool defer_readable;
	__u32 defer_skbs;
};

struct attrib_params {
	__u64 now_ns; /* CLOCK_BOOTTIME of the scan */
	__u32 page_size;
};

int attrib_build(struct holders_report *rep, const struct scan_result *scan,
		 const struct snapshot *snap, const struct attrib_params *p);
void attrib_free(struct holders_report *rep);
const char *holder_kind_name(enum holder_kind k);
/* the socket's family/protocol, e.g. "udp", "tcp6", "unix", "packet" */
const char *sock_proto_name(const struct ppw_rec_sock *s);
/* "192.0.2.2:5001" (or "[2001:db8::1]:80"); "" for non-IP sockets */
const char *sock_addr_str(char *buf, size_t len, int family, const __u8 *addr, __u16 port);

/* the holder of one page, for 'pages': NULL if no holder has it */
const struct ppw_rec_page *attrib_page_holder(const struct holders_report *rep, __u64 netmem);
/* describe the holder of a page record, e.g. "udp 192.0.2.2:5001 ino 9 pid 4 x fd 3" */
const char *holder_desc_of(char *buf, size_t len, const struct holders_report *rep,
			   const struct ppw_rec_page *pg);

#endif /* __PPWATCH_MODEL_ATTRIB_H */
