/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who holds a crash dump's pool pages (pure): the sockets processes have
 * an fd for, walked from the dump's memory as the live holder scan walks
 * them (bpf/holders.bpf.c), into the same records (struct scan_result:
 * sockets, their owners, their pages) that model/attrib.c turns into
 * holders. Every process from init_task's list, each fd of its files
 * whose f_op is socket_file_ops, each socket's receive queue (and UDP's
 * reader queue): every skb's head page and frags, each page counted for a
 * pool when its page->pp is one of the dump's pools.
 *
 * Not walked (the report says so): TCP out-of-order queues, sockets no
 * process has an fd for (orphans, accept queues, kernel sockets, sockets
 * in flight), qdiscs, fragment queues, the per-CPU defer lists, net_iov.
 * A dump is a stopped kernel, so nothing moves while it is read, but it
 * may have been taken mid-update: every pointer is bounded and checked,
 * every list walk bounded, and what stopped a walk is counted.
 */
#ifndef __PPWATCH_MODEL_VMCORE_HOLDERS_H
#define __PPWATCH_MODEL_VMCORE_HOLDERS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/attrib.h"
#include "model/kmem.h"
#include "model/snapshot.h"
#include "model/vmcore_layout.h"

#define VH_MAX_TASKS	(1U << 20)
#define VH_MAX_FDS	(1U << 20) /* per process */
#define VH_MAX_SKBS	(1U << 17) /* per queue */
#define VH_MAX_FRAGS	64	   /* per skb (MAX_SKB_FRAGS is 17 to 45) */
#define VH_MAX_FRAGLIST 4096	   /* skbs on one frag_list */

struct vmcore_haddrs {
	uint64_t init_task;	  /* kallsyms; 0: no walk */
	uint64_t socket_file_ops; /* kallsyms: a file with these f_op is a socket */
	uint64_t page_offset;	  /* page_offset_base's value: the direct map's start */
	uint64_t vmemmap;	  /* VMCOREINFO SYMBOL(vmemmap): struct page of pfn 0 */
	uint32_t page_shift;
};

struct vmcore_hstats {
	bool walked; /* the processes were walked (else why says why not) */
	uint64_t tasks, fds, sockets, skbs, pages, nonpp;
	uint64_t cut;  /* walks stopped at a bound or an unreadable pointer */
	char why[160]; /* why no walk, or the first thing that stopped one */
};

/*
 * Walk the dump's processes into out (zeroed first; scan_free() frees
 * it): 0, or -ENOMEM. A walk that cannot run (a member or symbol missing)
 * is 0 with st->walked false and st->why saying which.
 */
int vmcore_holders(struct kmem *m, const struct vmcore_layout *l, const struct vmcore_haddrs *a,
		   const struct reading *rd, struct scan_result *out, struct vmcore_hstats *st);

#endif /* __PPWATCH_MODEL_VMCORE_HOLDERS_H */
