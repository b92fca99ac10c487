/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ppwatch export's metrics: a snapshot rendered in the Prometheus text
 * format 0.0.4 or OpenMetrics 1.0.0. Pure: no BPF, no sockets; the unit
 * tests render hand-made snapshots and compare them with golden files.
 *
 * One table describes every metric family (name, type, unit, labels,
 * help); the renderer, 'ppwatch export help' and the docs check all read
 * it.
 */
#ifndef __PPWATCH_OUTPUT_PROM_H
#define __PPWATCH_OUTPUT_PROM_H

#include <stdbool.h>
#include <stdio.h>

#include "model/snapshot.h"
#include "output/prom_device.h"
#include "output/prom_negotiate.h"

/*
 * The kernel's hold and release counters are 32 bits and wrap; the
 * exporter's _total counters must only go up. Each pool's counters are
 * widened to 64 bits from one snapshot to the next (pools are told apart
 * by address and generation, so a new pool at an old address starts over).
 */
struct prom_total {
	__u64 addr;
	__u32 gen;
	__u32 id;
	__u32 last_hold;
	__u32 last_release;
	__u64 hold;
	__u64 release;
	__u64 last_c[PD_NR]; /* its counts the device sums took, last time */
	bool seen;
};

struct prom_totals {
	struct prom_total *t; /* sorted by (addr, gen), netlink-only pools by id */
	size_t n, cap;
	struct prom_devs devs; /* the per-device sums, counters kept across pools */
};

/* after each collection: the pools' totals and the devices' sums of s, which is rendered next */
int prom_totals_update(struct prom_totals *t, const struct snapshot *s);
const struct prom_total *prom_totals_find(const struct prom_totals *t, const struct pool_row *r);
void prom_totals_free(struct prom_totals *t);

/* What ppwatch's sampler measures about itself and the host it runs on. */
struct prom_self {
	const char *version;
	const char *attach; /* tp_btf, raw_tp, tracepoint */
	bool netlink;
	double interval_s;	   /* sampling interval */
	double collect_duration_s; /* the latest collection */
	double collect_seconds_total;
	__u64 collects_total;
	__u64 collect_errors_total;
	double last_collect_time; /* Unix time of the latest good collection */
	/*
	 * Which pools get series of their own (--series): every pool, or
	 * (per device) the informative ones and the top_pools with most
	 * pages out; every device gets its sums either way.
	 */
	bool per_device;
	size_t top_pools;
};

/*
 * What the process that serves knows: its scrapes, its answers, and the
 * exporter's processes together (process_*). The families prom_render()
 * leaves to the server, so that the listener (serve/listener.c) can add
 * them to the exposition the sampler sent.
 */
#define PROM_HTTP_CODES 8
struct prom_serve {
	double scrape_duration_s;	/* the previous scrape's rendering; NAN: none yet */
	int http_code[PROM_HTTP_CODES]; /* HTTP responses by status code */
	__u64 http_count[PROM_HTTP_CODES];
	double cpu_seconds; /* user + system, of every process of the exporter */
	__u64 rss_bytes;
	double start_time; /* Unix time the exporter started */
	bool no_process; /* no process_* families: node_exporter's textfile collector has its own */
};

/*
 * Render every metric for the pools of s that are not freed (freed pools
 * leave the output; with self->per_device only those prom_pools_shown()
 * picks), their devices' sums, ppwatch's own losses and costs. Families without a
 * sample are left out (item stats on kernels without them). The server's
 * families and the end come from prom_render_serve().
 */
void prom_render(FILE *f, enum prom_format fmt, const struct snapshot *s,
		 const struct prom_totals *t, const struct prom_self *self);
/*
 * The server's families (struct prom_serve), and the end of the
 * exposition ('# EOF' in OpenMetrics): after prom_render()'s, once.
 */
void prom_render_serve(FILE *f, enum prom_format fmt, const struct prom_serve *sv);
/* count a response with this status in sv */
void prom_serve_count(struct prom_serve *sv, int code);

/* The metric families, for 'ppwatch export help' and the docs. */
struct prom_family_help {
	const char *name;   /* as in 0.0.4: counters with _total */
	const char *type;   /* gauge, counter */
	const char *labels; /* "pool" = the pool labels; or the extra labels */
	const char *help;
};
size_t prom_families(const struct prom_family_help **out);
/* the labels every per-pool sample has, and every per-device sample */
extern const char *const prom_pool_labels;
extern const char *const prom_device_labels;

#endif /* __PPWATCH_OUTPUT_PROM_H */
