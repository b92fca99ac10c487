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

#include "lib/bpf_diag.h"
#include "ppwatch.h"
#include "sources/kfeatures.h"

enum attach_mode {
	ATTACH_AUTO,
	ATTACH_TP_BTF,	   /* tp_btf/: BTF-typed raw tracepoint */
	ATTACH_RAW_TP,	   /* raw_tp/ */
	ATTACH_TRACEPOINT, /* tracepoint/: needs tracefs */
};

struct session_opts {
	enum attach_mode mode;
	enum ppw_level level;  /* what the hot path records */
	uint32_t sample_shift; /* sampled level: 1 page in 2^sample_shift */
	uint64_t max_pages;    /* inflight pages the ledger covers */
	uint32_t max_pools;
	uint32_t ringbuf_bytes;
	ring_buffer_sample_fn on_event;
	void *event_ctx;
	bool holders;	      /* load the holder-scan iterators */
	uint32_t stack_every; /* --stacks: 1 in N events (0: off) */
	uint32_t max_stacks;
	uint32_t max_skbs; /* holder scan: skbs walked per queue */
	uint32_t scan_ringbuf_bytes;
};

struct ppwatch_bpf;

struct session {
	struct ppwatch_bpf *skel;
	struct ring_buffer *rb;
	struct features feat;
	struct mem_layout {
		uint64_t page_offset; /* what the scan was told (0: from kallsyms) */
		uint64_t vmemmap;
		bool from_kallsyms;
	} layout;
	struct session_opts opts;
	enum attach_mode mode; /* the one that loaded */
	int ncpus;
	uint64_t ledger_pages; /* pages the ledger keeps: max_pages, or the sample of them */
	uint32_t log_recs;     /* records in each CPU's page log; 0: no page log */
	/* CLOCK_BOOTTIME just before the programs attached: every hold since is seen */
	uint64_t start_ns;
	/* why each attach mode that was tried failed (bpf_diag) */
	struct bpf_diag diag[ATTACH_TRACEPOINT + 1];
	const char *stage;    /* the step that failed last */
	bool discover_warned; /* a failed discovery walk was reported */
	bool netns_warned;    /* a failed namespace walk was reported */
	bool no_array_batch;  /* the kernel has no batch lookups of arrays: key by key */
};

/* Each function reports its own failure (object, errno, what to do) and returns -errno. */
int session_open(struct session *s, const struct session_opts *o);
/* a program of the session hooks tracepoint tp (loaded and attached) */
bool session_hooks(const struct session *s, const char *tp);
/*
 * Run the iterator @link (program @prog) once and read it all into *buf
 * (malloc'd, first @cap bytes, doubled as it fills; the caller frees it
 * whatever the result), *len bytes. 0, or -errno, said here as "@what:
 * creating/reading the @prog iterator: ...".
 */
int session_iter_read(struct bpf_link *link, const char *what, const char *prog, size_t cap,
		      char **buf, size_t *len);
/* run the discovery iterator once: pools that exist but make no events (failure: said once) */
int session_discover(struct session *s);
/*
 * netns_scan() with the processes' namespaces from the task walk (prog
 * 'netns_walk') where it is loaded, else (or if it fails: said once) from /proc
 */
struct netns_list;
int session_netns_scan(struct session *s, struct netns_list *l);
/* wait up to timeout_ms for lifecycle events; events handled, or a handler's -errno */
int session_poll(struct session *s, int timeout_ms);
void session_close(struct session *s);
/*
 * keys 0..n-1 of per-CPU array map into vals (n rows of ncpus values, each
 * its value size rounded up to 8 bytes); 0, or -errno, said here
 */
int session_percpu_rows(struct session *s, const struct bpf_map *map, __u32 n, void *vals);
/* sum of a per-CPU counter (enum ppw_counter) */
int session_counters(struct session *s, __u64 *out, int n);
/* what the kernel charges for a map (its fdinfo "memlock"), or 0 */
uint64_t session_map_bytes(const struct session *s, const struct bpf_map *map);

const char *attach_mode_name(enum attach_mode m);
int attach_mode_parse(const char *s, enum attach_mode *m);

#endif /* __PPWATCH_SOURCES_LOADER_H */
