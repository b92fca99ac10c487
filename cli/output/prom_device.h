/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ppwatch export's per-device series: every pool family summed per
 * (netns, device), and which pools still get series of their own when a
 * host has too many pools for one series set each (--series device).
 *
 * The per-device counters only go up: each is the sum of every pool's
 * count ever seen on the device, pools since freed included (a pool's
 * growth is added at each collection, a new pool's whole count once).
 * Pure: the unit tests feed it hand-made snapshots.
 */
#ifndef __PPWATCH_OUTPUT_PROM_DEVICE_H
#define __PPWATCH_OUTPUT_PROM_DEVICE_H

#include <stdbool.h>
#include <regex.h>
#include <stddef.h>

#include "model/snapshot.h"

/* the per-device counters, summed from the pools' */
enum prom_dev_counter {
	PD_HELD,
	PD_RELEASED,
	PD_RETRIES,
	PD_ITEM_FAST_EMPTY,
	PD_ITEM_SLOW_FAILED,
	PD_BLOCKS_ALLOC,
	PD_BLOCKS_FREE,
	PD_NR,
};

struct prom_dev {
	__u32 netns_ino;
	__s32 ifindex;
	char device[48];
	char driver[PPW_DRVNAMSIZ];
	__u64 c[PD_NR];
	bool seen;
	/* this snapshot's sums (prom_devs_gauges()) */
	__u64 live, zombies;
	__s64 inflight;
	__u64 bytes;
	double oldest_s;		       /* NAN: no pool knows one */
	bool oldest_lower;		       /* oldest_s is a lower bound */
	__s64 ledger, before_start, untracked; /* -1: no pool knows */
	bool item_stats, item_blocks;
	__u64 blocks_prealloc, blocks_dyn;
};

struct prom_devs {
	struct prom_dev *v; /* sorted by (netns, ifindex, device) */
	size_t n, cap;
};

/* the devices of s's unfreed pools, sorted; devices s no longer has leave */
int prom_devs_index(struct prom_devs *d, const struct snapshot *s);
/* the device of a pool, NULL if prom_devs_index() did not see it */
struct prom_dev *prom_devs_find(const struct prom_devs *d, const struct pool_row *r);
/* each device's gauges from s */
void prom_devs_gauges(struct prom_devs *d, const struct snapshot *s);
void prom_devs_free(struct prom_devs *d);

/*
 * Pools that keep series of their own with --series device: zombies, DMA
 * hazards, a page out for PROM_OLD_PAGE_S or more, item allocation
 * failures; and the 'top' with the most pages out.
 */
#define PROM_OLD_PAGE_S 60
int prom_pools_shown(const struct snapshot *s, size_t top, bool *shown);
/*
 * --series auto: per device above PROM_AUTO_POOLS pools (12 series a
 * pool), and back to a series set a pool only at PROM_AUTO_POOLS_BACK or
 * fewer: a host whose pool count moves around the threshold does not
 * switch every pool's series off and on.
 */
#define PROM_AUTO_POOLS	     256
#define PROM_AUTO_POOLS_BACK 192
#define PROM_TOP_POOLS	     20
/* with 'pools' pools now, and per device before ('was'): per device now? */
bool prom_auto_per_device(bool was, size_t pools);

/*
 * --device-include / --device-exclude REGEX, as node_exporter's
 * --collector.netdev.device-include/-exclude: POSIX extended regular
 * expressions matched anywhere in a pool's device name (its interface,
 * else its device: the 'device' label; '^...$' to match it whole). A pool
 * is exported when its device matches the include one (if given) and not
 * the exclude one (if given); the others leave the exposition, their
 * devices' sums too.
 */
struct prom_devsel {
	bool include_set, exclude_set;
	regex_t include, exclude;
};

/* one of the two expressions: 0, or -EINVAL with regcomp's reason in why */
int prom_devsel_set(struct prom_devsel *d, bool include, const char *re, char *why, size_t len);
bool prom_devsel_any(const struct prom_devsel *d);
bool prom_devsel_match(const struct prom_devsel *d, const char *device);
/* drop the rows of s whose device is not selected */
void prom_devsel_filter(const struct prom_devsel *d, struct snapshot *s);
void prom_devsel_free(struct prom_devsel *d);

#endif /* __PPWATCH_OUTPUT_PROM_DEVICE_H */
