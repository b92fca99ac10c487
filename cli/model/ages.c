// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stddef.h>

#include "lib/util.h"
#include "model/ages.h"

double age_since(__u64 now_ns, __u64 then_ns)
{
	return then_ns && now_ns >= then_ns ? (now_ns - then_ns) / 1e9 : 0;
}

/*
 * The HZ values kernels are built with, highest first: of those that fit,
 * the first (the shortest tick, so the youngest age: a lower bound).
 */
static const unsigned int hz_values[] = { 1000, 500, 300, 250, 200, 100 };
/*
 * jiffies_64 and CLOCK_MONOTONIC agree to well under a second after days
 * (the tick updates jiffies from the same clock; measured here: 0.18 s at
 * 742 s up, 0.2 s at days); two seconds tell the HZ values apart except
 * within a few seconds of 300 s up, where the highest that fits is taken.
 */
#define HZ_FIT_S 2.0

/* the HZ values that line jiffies up with mono_ns, highest first: how many, the first */
static size_t hz_fits(__u64 jiffies, __u64 mono_ns, unsigned int *first)
{
	double mono_s = mono_ns / 1e9;
	size_t i, n = 0;

	*first = 0;
	for (i = 0; i < sizeof(hz_values) / sizeof(hz_values[0]); i++) {
		unsigned int hz = hz_values[i];
		/* INITIAL_JIFFIES: (unsigned long)(unsigned int)(-300 * HZ) */
		__u64 initial = (__u64)(__u32)(-300 * (int)hz);
		double up_s = (double)(__s64)(jiffies - initial) / hz;

		if (fabs(up_s - mono_s) <= HZ_FIT_S && !n++)
			*first = hz;
	}
	return n;
}

unsigned int kclock_hz(__u64 jiffies, __u64 mono_ns)
{
	unsigned int hz;

	hz_fits(jiffies, mono_ns, &hz);
	return hz;
}

unsigned int kclock_hz_sure(__u64 jiffies, __u64 mono_ns)
{
	unsigned int hz;

	return hz_fits(jiffies, mono_ns, &hz) == 1 ? hz : 0;
}

/* the destroy's jiffies, dated: the latest CLOCK_BOOTTIME it can have been at, or 0 */
static __u64 defer_destroyed_by(const struct ppw_pool *r)
{
	unsigned int hz;
	__u64 ticks, ago;

	if (!r->defer_start || !r->defer_boot_ns || r->defer_jiffies < r->defer_start)
		return 0;
	hz = kclock_hz(r->defer_jiffies, r->defer_mono_ns);
	if (!hz)
		return 0;
	/* the destroy in tick defer_start, the read in tick defer_jiffies: a tick less apart */
	ticks = r->defer_jiffies - r->defer_start;
	ticks = ticks ? ticks - 1 : 0;
	ago = ticks * (NSEC_PER_SEC / hz);
	return r->defer_boot_ns > ago ? r->defer_boot_ns - ago : 0;
}

__u64 secs_destroyed_by(__u64 detach_s)
{
	return detach_s ? (detach_s + 1) * NSEC_PER_SEC : 0;
}

__u64 pool_destroyed_by(const struct ppw_pool *r, bool detach_time_is_ns)
{
	__u64 by = 0, d;

	if (!r->addr)
		return 0;
	if (r->detach_ns)
		by = r->detach_ns;
	else if (r->kernel_detach_time)
		by = detach_time_is_ns ? r->kernel_detach_time :
					 secs_destroyed_by(r->kernel_detach_time);
	/* each is a latest time the destroy can have been at: the earliest says most */
	d = defer_destroyed_by(r);
	if (d && (!by || d < by))
		by = d;
	return by;
}

double pool_detach_age(const struct ppw_pool *r, __u64 now_ns, bool detach_time_is_ns)
{
	__u64 by;

	if (r->addr && r->detach_ns)
		return age_since(now_ns, r->detach_ns);
	if (r->addr && r->kernel_detach_time) {
		if (detach_time_is_ns)
			return age_since(now_ns, r->kernel_detach_time);
		return now_ns / 1e9 - (double)r->kernel_detach_time;
	}
	by = r->addr ? defer_destroyed_by(r) : 0;
	return by ? age_since(now_ns, by) : NAN;
}

const double pool_age_bounds[POOL_AGE_BUCKETS - 1] = { 1, 10, 60, 600, 3600 };

int pool_age_bucket(double age_s)
{
	int b;

	for (b = 0; b < POOL_AGE_BUCKETS - 1 && age_s >= pool_age_bounds[b]; b++)
		;
	return b;
}
