/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one loader path: probe -> open -> set map sizes, rodata, autoload ->
 * load -> attach. Every subcommand that needs BPF goes through here.
 */
#ifndef __PPWATCH_SOURCES_LOADER_H
#define __PPWATCH_SOURCES_LOADER_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "sources/kfeatures.h"

enum attach_mode {
	ATTACH_AUTO,
	ATTACH_TP_BTF,		/* tp_btf/: BTF-typed raw tracepoint */
	ATTACH_RAW_TP,		/* raw_tp/ */
	ATTACH_TRACEPOINT,	/* tracepoint/: needs tracefs */
};

struct session_opts {
	enum attach_mode mode;
	uint64_t max_pages;	/* page ledger entries */
	uint32_t max_pools;
	uint32_t ringbuf_bytes;
	ring_buffer_sample_fn on_event;
	void *event_ctx;
	bool holders;		/* load the holder-scan iterators */
	uint32_t stack_every;	/* --stacks: 1 in N events (0: off) */
	uint32_t max_stacks;
	uint32_t max_skbs;	/* holder scan: skbs walked per queue */
	uint32_t scan_ringbuf_bytes;
};

struct ppwatch_bpf;

struct session {
	struct ppwatch_bpf *skel;
	struct ring_buffer *rb;
	struct features feat;
	struct mem_layout {
		uint64_t page_offset;	/* what the scan was told (0: from kallsyms) */
		uint64_t vmemmap;
		bool from_kallsyms;
	} layout;
	struct session_opts opts;
	enum attach_mode mode;	/* the one that loaded */
	int ncpus;
};

int session_open(struct session *s, const struct session_opts *o);
/* run the discovery iterator once: pools that exist but make no events */
int session_discover(struct session *s);
/* wait up to timeout_ms for lifecycle events; returns events handled or -errno */
int session_poll(struct session *s, int timeout_ms);
void session_close(struct session *s);
/* sum of a per-CPU counter (enum ppw_counter) */
int session_counters(struct session *s, __u64 *out, int n);

const char *attach_mode_name(enum attach_mode m);
int attach_mode_parse(const char *s, enum attach_mode *m);

#endif /* __PPWATCH_SOURCES_LOADER_H */
