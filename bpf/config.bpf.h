/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Everything that configures ppwatch's BPF side, in one place:
 *
 *   - the read-only settings user space writes before load (cli/sources/loader.c,
 *     'rodata' of the skeleton): const volatile cfg_*, defined once in
 *     ledger.bpf.c (PPW_DEFINE_MAPS, like the shared maps) and declared
 *     extern everywhere else, so 'bpftool gen object' links one copy;
 *   - the bounds of every walk (bpf_loop counts and loop limits): what a
 *     walk stops at is counted or reported as truncated, never silent.
 *
 * Kernel differences (CO-RE shims) live in core_fixes.bpf.h, not here.
 */
#ifndef __PPWATCH_CONFIG_BPF_H
#define __PPWATCH_CONFIG_BPF_H

#ifdef PPW_DEFINE_MAPS
#define PPW_CFG(type, name, def) const volatile type name = def
#else
#define PPW_CFG(type, name, def) extern const volatile type name
#endif

/*
 * PPW_COMPAT: the tracepoint programs built a second time (Makefile:
 * ledger-compat.bpf.o, lifecycle-compat.bpf.o) for kernels whose verifier
 * refuses a program that merely contains a BPF atomic fetch or
 * compare-and-exchange instruction ("bpf: Add BPF_FETCH field / create
 * atomic_fetch_add instruction" and "bpf: Add instructions for
 * atomic_[cmp]xchg", v5.12: "BPF_STX uses reserved fields", reachable or
 * not) or a bpf_loop callback ("bpf: Add bpf_loop helper", v5.17). They
 * keep counters only (no page ledger, whose slots are taken by
 * compare-and-exchange), update shared fields with plain stores and
 * leave a freed pool's per-CPU slots to be refilled. Their names end in
 * _compat; the loader loads them instead of the others where its probes
 * find either missing (cli/sources/kfeatures.c).
 */
#ifdef PPW_COMPAT
#define PPW_NAME(n) n##_compat
#else
#define PPW_NAME(n) n
#define PPW_COMPAT  0
#endif
/* BPF_PROG with a PPW_NAME()d name (BPF_PROG pastes its name unexpanded) */
#define PPW_BPF_PROG(name, args...) BPF_PROG(name, ##args)

/* --stacks: take a stack for 1 in cfg_stack_every events (0: off) */
PPW_CFG(__u32, cfg_stack_every, 0);

/* --level (enum ppw_level): how much the hot path records */
PPW_CFG(__u32, cfg_level, PPW_LEVEL_ALL);
/* the sampled level keeps pages whose netmem hash has these bits clear (2^N - 1) */
PPW_CFG(__u32, cfg_sample_mask, 0);
/* buckets of the ledger array (PPW_LEDGER_WAYS slots each) */
PPW_CFG(__u32, cfg_ledger_buckets, 1);
/* CLOCK_BOOTTIME when the session began: the ledger's hold times count from it */
PPW_CFG(__u64, cfg_epoch_ns, 0);

/* The holder scan. page_pool's signature in page->pp_magic and the mask
 * that keeps only the signature bits (cli/sources/loader.c has the values). */
PPW_CFG(__u64, cfg_pp_signature, 0);
PPW_CFG(__u64, cfg_pp_magic_mask, 0);
/* The direct map and vmemmap, used when the kernel does not export
 * page_offset_base / vmemmap_base (core_fixes.bpf.h: layout_*()). */
PPW_CFG(__u64, cfg_page_offset, 0);
PPW_CFG(__u64, cfg_vmemmap, 0);
PPW_CFG(__u32, cfg_page_shift, 12);
/* skbs walked per queue (and per defer list, per TCP out-of-order tree) */
PPW_CFG(__u32, cfg_max_skbs, 65536);
/* possible CPUs and NUMA nodes: the per-CPU defer lists to walk, the
 * per-CPU pool slots to clear when a pool is freed */
PPW_CFG(__u32, cfg_nr_cpus, 1);
PPW_CFG(__u32, cfg_nr_nodes, 1);

/* ---- walk bounds ---------------------------------------------------------- */

/* discovery (discover.bpf.c) */
#define PPW_MAX_NETNS	    1024  /* network namespaces */
#define PPW_MAX_DEVS	    4096  /* net_devices per namespace */
#define PPW_MAX_DEV_POOLS   256	  /* pools on one dev->page_pools list */
#define PPW_MAX_VETH_RQ	    64	  /* veth rx queues per device */
#define PPW_MAX_MEM_BUCKETS 65536 /* buckets of the XDP memory-model table */
#define PPW_MAX_MEM_CHAIN   64	  /* entries in one of its buckets */
/* children of a pool's p.dev searched for its net_device (pool.bpf.h) */
#define PPW_MAX_DEV_CHILDREN 16

/* clearing a freed pool from every CPU's slots (lifecycle.bpf.c) */
#define PPW_MAX_CPU_SLOTS 4096

/* holder scan (holders.bpf.h) */
#define PPW_MAX_FRAGS	 48   /* CONFIG_MAX_SKB_FRAGS is at most 45 */
#define PPW_MAX_FRAGLIST 1024 /* skbs on one frag_list */
#define PPW_MAX_CPUS	 1024 /* per-CPU defer lists */
#define PPW_MAX_NODES	 8    /* defer lists per CPU (one per NUMA node) */
#define PPW_RB_DEPTH	 64   /* rbtree height (TCP out-of-order queue) */

#endif /* __PPWATCH_CONFIG_BPF_H */
