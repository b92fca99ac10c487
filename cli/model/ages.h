/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel says of a page's age when ppwatch did not see its hold:
 * lower bounds, never guesses. Every page of a destroyed pool was taken
 * before the destroy, so it is at least as old as the destroy; a page
 * taken before ppwatch attached is at least as old as ppwatch's start
 * (model/snapshot.c, fill_ages(), uses both).
 *
 * The destroy's time, as the latest it can have been, from the best of:
 *  - ppwatch saw it (page_pool_release from page_pool_destroy()): exact;
 *  - pool->user.detach_time (v6.8): nanoseconds from v7.0, before that
 *    seconds rounded down, so the destroy was before the next second;
 *  - pool->defer_start, the destroy's jiffies, on every kernel (5.10
 *    included), which BPF reads with jiffies, CLOCK_MONOTONIC and
 *    CLOCK_BOOTTIME at once (bpf/pool.bpf.h): HZ is what lines jiffies_64
 *    up with CLOCK_MONOTONIC (it starts at INITIAL_JIFFIES, 2^32 less 300
 *    s of ticks, at boot), and of the HZ values that do, the highest
 *    (the youngest destroy) is taken;
 *  - netlink's detach time (seconds).
 * Pure: the unit tests drive it with made-up records.
 */
#ifndef __PPWATCH_MODEL_AGES_H
#define __PPWATCH_MODEL_AGES_H

#include <linux/types.h>
#include <stdbool.h>

#include "ppwatch.h"

/* seconds from then to now (CLOCK_BOOTTIME ns); 0 if then is 0 or later */
double age_since(__u64 now_ns, __u64 then_ns);
/* the HZ that lines jiffies_64, read at CLOCK_MONOTONIC mono_ns, up; 0 if none does */
unsigned int kclock_hz(__u64 jiffies, __u64 mono_ns);
/* the same, only where one HZ alone fits (not within seconds of 300 s up); else 0 */
unsigned int kclock_hz_sure(__u64 jiffies, __u64 mono_ns);
/*
 * The latest CLOCK_BOOTTIME the pool's destroy can have been at (every
 * page it still has was taken before): 0 if nothing dates it.
 */
__u64 pool_destroyed_by(const struct ppw_pool *r, bool detach_time_is_ns);
/* the same from a detach time in whole seconds of CLOCK_BOOTTIME (netlink's) */
__u64 secs_destroyed_by(__u64 detach_s);
/*
 * Seconds since the pool was destroyed, NAN if it was not (or nothing
 * dates it): what ppwatch saw, else the kernel's detach time, else the
 * destroy's jiffies (a lower bound, within two ticks).
 */
double pool_detach_age(const struct ppw_pool *r, __u64 now_ns, bool detach_time_is_ns);

/* ledger pages by age: < 1s, < 10s, < 1m, < 10m, < 1h, older */
#define POOL_AGE_BUCKETS 6
/* the upper bounds of the age buckets, in seconds (the last one is open) */
extern const double pool_age_bounds[POOL_AGE_BUCKETS - 1];
/* the bucket of a page 'age_s' seconds old */
int pool_age_bucket(double age_s);

#endif /* __PPWATCH_MODEL_AGES_H */
