// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A crash dump's pool devices (model/vmcore_walk.c, device_fill): a pool
 * destroyed when the dump was taken holds no reference to p.dev, so its
 * name and driver are read only while the device is registered (in
 * sysfs, its private part pointing back at it); else the device is
 * unknown (PPW_PF_DEV_GONE). A live pool's device is its driver's, read.
 */
#include "model/vmcore_walk.h"
#include "fake_mem.h"
#include "unit.h"
#include "vmcore_fixture.h"

#define XA    0xffff888000001000ULL
#define POOL  0xffff888000003000ULL
#define DEV   0xffff888000005000ULL
#define PRIV  0xffff888000006000ULL
#define CLS   0xffff888000007000ULL
#define NAMES 0xffff888000008000ULL /* "eth9", then "pci" */

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, 8);
}

/*
 * The xarray's one pool (its head entry), on device DEV (vmcore_fixture's
 * layout: struct device's name at 0, class at 16, state_in_sysfs bit 1 of
 * byte 24, private part at 32; that part's device at 0)
 */
static void put_dumped(struct fake *f, uint64_t destroy, bool in_sysfs, uint64_t back)
{
	uint8_t *pool, *dev, *names;

	put64(region(f, XA, 16), 8, POOL);
	pool = region(f, POOL, 128);
	put64(pool, 16, DEV);
	put64(pool, 48, destroy);
	dev = region(f, DEV, 64);
	put64(dev, 0, NAMES);
	put64(dev, 16, CLS);
	dev[24] = in_sysfs ? 2 : 0;
	put64(dev, 32, PRIV);
	put64(region(f, PRIV, 8), 0, back);
	put64(region(f, CLS, 8), 0, NAMES + 8);
	names = region(f, NAMES, 16);
	memcpy(names, "eth9", 5);
	memcpy(names + 8, "pci", 4);
}

/* the dump's one pool: its device name and whether it is unknown */
static void walk_one(uint64_t destroy, bool in_sysfs, uint64_t back, const char *name, bool gone)
{
	struct vmcore_layout l = vmcore_small_layout(true);
	struct vmcore_addrs a = { .page_pools = XA, .page_size = 4096 };
	struct fake f = { 0 };
	struct kmem m = { .read = fake_read, .ctx = &f };
	struct vmcore_walk w;

	put_dumped(&f, destroy, in_sysfs, back);
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(w.rd.n, 1);
	if (w.rd.n == 1) {
		CHECK_STR(w.rd.pools[0].rec.devname, name);
		CHECK_INT(!!(w.rd.pools[0].rec.flags & PPW_PF_DEV_GONE), gone);
	}
	vmcore_walk_free(&w);
	fake_free(&f);
}

static void test_device(void)
{
	/* destroyed, its device registered: named */
	walk_one(1, true, DEV, "eth9", false);
	/* destroyed, its device out of sysfs (device_del() ran): unknown */
	walk_one(1, false, DEV, "", true);
	/* destroyed, the bytes say "in sysfs" but the private part is another's: reused memory */
	walk_one(1, true, PRIV, "", true);
	/* live: its driver's device, read as it is */
	walk_one(0, false, 0, "eth9", false);
}

int main(void)
{
	TEST(test_device);
	return unit_done();
}
