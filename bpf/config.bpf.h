/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The read-only settings user space writes before load (cli/sources/loader.c,
 * configure_rodata(); 'rodata' of the skeleton): const volatile cfg_*,
 * defined once in ledger.bpf.c (PPW_DEFINE_MAPS, like the shared maps) and
 * declared extern everywhere else, so 'bpftool gen object' links one copy.
 *
 * The bounds of every walk are in ppwatch.h, which user space shares (it
 * reports them); kernel differences (CO-RE shims) in core_fixes.bpf.h and core_fixes_scan.bpf.h.
 */
#ifndef __PPWATCH_CONFIG_BPF_H
#define __PPWATCH_CONFIG_BPF_H

#include "ppwatch.h"

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
 * keep counters only (no page log, whose slots are reserved with an
 * atomic add), update shared fields with plain stores and
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
/* records in each CPU's page log (a power of two: 2^cfg_log_shift) */
PPW_CFG(__u32, cfg_log_recs, 1);
PPW_CFG(__u32, cfg_log_shift, 0);

/* The holder scan. page_pool's signature in page->pp_magic and the mask
 * that keeps only the signature bits (cli/sources/loader.c has the values). */
PPW_CFG(__u64, cfg_pp_signature, 0);
PPW_CFG(__u64, cfg_pp_magic_mask, 0);
/* The direct map and vmemmap, used when the kernel does not export
 * page_offset_base / vmemmap_base (ledger.bpf.c: layout_*()). */
PPW_CFG(__u64, cfg_page_offset, 0);
PPW_CFG(__u64, cfg_vmemmap, 0);
PPW_CFG(__u32, cfg_page_shift, 12);
/* where struct page keeps a tail page's way to its head (compound_head,
 * or compound_info on 7.1 and later); 0: no such field
 * (core_fixes_scan.bpf.h: page_compound_head()) */
PPW_CFG(__u32, cfg_page_compound_off, 0);
/* skbs walked per queue (and per defer list, per TCP out-of-order tree) */
PPW_CFG(__u32, cfg_max_skbs, 65536);
/* possible CPUs and NUMA nodes: the per-CPU defer lists to walk, the
 * per-CPU pool slots to clear when a pool is freed */
PPW_CFG(__u32, cfg_nr_cpus, 1);
PPW_CFG(__u32, cfg_nr_nodes, 1);

#endif /* __PPWATCH_CONFIG_BPF_H */
