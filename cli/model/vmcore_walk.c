// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/addr_set.h"
#include "lib/vec.h"
#include "model/pp_magic.h"
#include "model/reading.h"
#include "model/vmcore_read.h"
#include "model/vmcore_walk.h"

#define XA_MAX_DEPTH 12		 /* 64-bit indices, 6 bits a level: 11 levels at most */
#define STRUCT_MAX   (64 * 1024) /* the largest struct read whole */
#define LOOPBACK_IDX 1
#define MAX_ORDER    20 /* far above any kernel's MAX_PAGE_ORDER */

struct walk {
	struct kmem *m;
	const struct vmcore_layout *l;
	const struct vmcore_addrs *a;
	struct vmcore_walk *w;
	uint8_t *pool; /* the struct page_pool being read */
	int err;       /* -ENOMEM only: the rest is counted */
};

static void note(struct vmcore_walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct vmcore_walk *w, const char *fmt, ...)
{
	va_list ap;

	if (w->first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->first_error, sizeof(w->first_error), fmt, ap);
	va_end(ap);
}

/* a char * member's string */
static int read_str_ptr(struct kmem *m, uint64_t addr, struct vm_field f, char *buf, size_t len)
{
	uint64_t p;

	buf[0] = 0;
	if (vm_read_field(m, addr, f, &p) || !KERNEL_PTR(p))
		return -ENOENT;
	return kmem_str(m, p, buf, len);
}

/* ifname, ifindex, namespace of a net_device: true if it reads as one */
static bool netdev_fill(struct walk *k, struct ppw_pool *r, uint64_t nd)
{
	const struct vmcore_layout *l = k->l;
	uint64_t ifindex, net, v;

	if (!KERNEL_PTR(nd) || vm_read_field(k->m, nd, l->nd_ifindex, &ifindex) ||
	    (int32_t)ifindex <= 0)
		return false;
	r->ifindex = (int32_t)ifindex;
	if (vm_has(l->nd_name))
		kmem_str(k->m, nd + vm_off(l->nd_name), r->ifname, sizeof(r->ifname));
	if (!vm_read_field(k->m, nd, l->nd_net, &net) && KERNEL_PTR(net)) {
		if (!vm_read_field(k->m, net, l->net_inum, &v))
			r->netns_ino = (uint32_t)v;
		if (!vm_read_field(k->m, net, l->net_cookie, &v))
			r->netns_cookie = v;
	}
	return true;
}

/*
 * Is the device at dev still registered (bpf/pool.bpf.h's
 * device_registered(), which says why each): in sysfs, and its private
 * part pointing back at it.
 */
static bool device_registered(struct walk *k, uint64_t dev)
{
	const struct vmcore_layout *l = k->l;
	uint64_t v = 0, back = 0;

	if (vm_read_bits(k->m, dev, l->dev_in_sysfs, &v) || !v)
		return false;
	return !vm_read_field(k->m, dev, l->dev_p, &v) && KERNEL_PTR(v) &&
	       !vm_read_field(k->m, v, l->devp_device, &back) && back == dev;
}

/*
 * p.dev: its name, driver, and the net_device it is the device of. A
 * destroyed pool holds no reference to it (bpf/pool.bpf.h says why): read
 * only while it is still registered, else the device is unknown.
 */
static void device_fill(struct walk *k, struct ppw_pool *r, uint64_t dev)
{
	const struct vmcore_layout *l = k->l;
	uint64_t drv, cls;
	bool netdev;
	char cname[4];

	if (!KERNEL_PTR(dev))
		return;
	if (r->destroy_cnt && !device_registered(k, dev)) {
		r->flags |= PPW_PF_DEV_GONE;
		return;
	}
	/* veth and others: p.dev is a net_device's own device */
	netdev = vm_has(l->nd_dev) && !vm_read_field(k->m, dev, l->dev_class, &cls) &&
		 KERNEL_PTR(cls) && !read_str_ptr(k->m, cls, l->class_name, cname, sizeof(cname)) &&
		 !strcmp(cname, "net");
	read_str_ptr(k->m, dev, l->dev_name, r->devname, sizeof(r->devname));
	if (!vm_read_field(k->m, dev, l->dev_driver, &drv) && KERNEL_PTR(drv))
		read_str_ptr(k->m, drv, l->drv_name, r->driver, sizeof(r->driver));
	if (netdev && !(r->flags & PPW_PF_HAS_NETDEV) && netdev_fill(k, r, dev - vm_off(l->nd_dev)))
		r->flags |= PPW_PF_DEV_NETDEV;
}

/* one pool, as the BPF side's pool_get() fills a record */
static void pool_one(struct walk *k, uint64_t addr)
{
	const struct vmcore_layout *l = k->l;
	struct vmcore_walk *w = k->w;
	size_t len = l->pool_size;
	struct pool_obs *o;
	struct ppw_pool *r;
	uint64_t v;
	int err;

	w->entries++;
	if (!KERNEL_PTR(addr) || (err = kmem_read(k->m, addr, k->pool, len))) {
		w->unreadable++;
		note(w, "the page_pool at %#llx is not in the dump", (unsigned long long)addr);
		return;
	}
	if (w->rd.n >= VW_MAX_POOLS) {
		w->not_listed++;
		return;
	}
	o = VEC_PUSH(w->rd.pools, w->rd.n, w->rd.cap);
	if (!o) {
		k->err = -ENOMEM;
		return;
	}
	memset(o, 0, sizeof(*o));
	r = &o->rec;
	r->addr = addr;
	r->gen = 1;
#define GET(f, dst)                                       \
	do {                                              \
		if (!vm_field_of(k->pool, len, l->f, &v)) \
			dst = v;                          \
	} while (0)
	GET(id, r->id);
	if (vm_has(l->id))
		r->flags |= PPW_PF_HAS_ID;
	GET(order, r->order);
	GET(pool_size_param, r->pool_size);
	GET(nid, r->nid);
	GET(hold, r->hold_cnt);
	GET(release, r->release_cnt);
	GET(destroy_cnt, r->destroy_cnt);
	GET(xdp_mem_id, r->xdp_mem_id);
	if (r->order > MAX_ORDER) {
		/* no kernel allocates such pages: not a pool (a damaged pointer or dump) */
		note(w, "the page_pool at %#llx has order %u: not a pool", (unsigned long long)addr,
		     r->order);
		w->unreadable++;
		w->rd.n--;
		return;
	}
	r->base_hold = r->hold_cnt;
	r->base_release = r->release_cnt;
	r->last_inflight = (int32_t)(r->hold_cnt - r->release_cnt);
	if (vm_has(l->dma_map)) {
		if (!vm_field_of(k->pool, len, l->dma_map, &v) && v)
			r->flags |= PPW_PF_DMA_MAP;
		if (!vm_field_of(k->pool, len, l->dma_sync, &v) && v)
			r->flags |= PPW_PF_DMA_SYNC;
	} else if (!vm_field_of(k->pool, len, l->p_flags, &v)) {
		/* PP_FLAG_DMA_MAP, PP_FLAG_DMA_SYNC_DEV (include/net/page_pool/types.h) */
		r->flags |= (v & 1 ? PPW_PF_DMA_MAP : 0) | (v & 2 ? PPW_PF_DMA_SYNC : 0);
	}
	if (!vm_field_of(k->pool, len, l->mp_priv, &v) && v)
		r->flags |= PPW_PF_MEM_PROVIDER;
	GET(defer_start, r->defer_start);
	if (r->defer_start && w->clock && k->a->jiffies) {
		/* dated as the BPF side dates it (model/ages.h), by the dump's clocks */
		r->defer_jiffies = k->a->jiffies;
		r->defer_mono_ns = w->mono_ns;
		r->defer_boot_ns = w->rd.now_ns;
	}
	/* before destroy_cnt (6.8): page_pool_destroy() put the last user, or deferred */
	if (!vm_has(l->destroy_cnt) &&
	    ((!vm_field_of(k->pool, len, l->user_cnt, &v) && (int32_t)v <= 0) || r->defer_start))
		r->destroy_cnt = 1;
	if (r->destroy_cnt) {
		/* destroyed: a zombie, since it is still listed (page_pool_unlist() frees) */
		r->state = PPW_POOL_DETACHED;
		GET(detach_time, r->kernel_detach_time);
		if (!vm_field_of(k->pool, len, l->dma_mapped_head, &v))
			r->dma_mapped_left = v != 0;
	}
	if (!vm_field_of(k->pool, len, l->napi, &v) && KERNEL_PTR(v)) {
		uint64_t id;

		r->flags |= PPW_PF_HAS_NAPI;
		if (!vm_read_field(k->m, v, l->napi_id, &id))
			r->napi_id = (uint32_t)id;
	}
	/* slow.netdev: NULL, NET_PTR_POISON (its namespace went away) or a net_device */
	if (!vm_field_of(k->pool, len, l->netdev, &v) && netdev_fill(k, r, v)) {
		r->flags |= PPW_PF_HAS_NETDEV;
		if (r->ifindex == LOOPBACK_IDX)
			r->flags |= PPW_PF_ORPHANED;
	}
	if (!vm_field_of(k->pool, len, l->dev, &v))
		device_fill(k, r, v);
#undef GET
}

/* an xarray entry: a node to go down, a pool, or nothing (value, sibling, retry, zero) */
static void xa_entry(struct walk *k, uint64_t e, int depth)
{
	const struct vmcore_layout *l = k->l;
	uint64_t node, shift, *slots;
	uint32_t i;

	if (!e || k->err)
		return;
	if ((e & 3) != 2) {
		if (!(e & 1))
			pool_one(k, e);
		return;
	}
	if (e <= 4096)
		return; /* an internal entry that is no node: sibling, retry, zero */
	node = e - 2;
	if (depth >= XA_MAX_DEPTH || ++k->w->xa_nodes > VW_MAX_NODES) {
		note(k->w, "the page_pools xarray is deeper or larger than a kernel makes it");
		k->w->unreadable++;
		return;
	}
	slots = malloc(l->xa_chunk * sizeof(*slots));
	if (!slots) {
		k->err = -ENOMEM;
		return;
	}
	if (vm_read_field(k->m, node, l->xn_shift, &shift) ||
	    kmem_read(k->m, node + vm_off(l->xn_slots), slots, l->xa_chunk * sizeof(*slots))) {
		note(k->w, "an xa_node of page_pools at %#llx is not in the dump",
		     (unsigned long long)node);
		k->w->unreadable++;
		free(slots);
		return;
	}
	for (i = 0; i < l->xa_chunk && !k->err; i++)
		xa_entry(k, slots[i], depth + 1);
	free(slots);
}

#define SCAN_BYTES 4096		/* struct pages read at once: one vmemmap page */
#define SCAN_SKIP  (2ULL << 20) /* two chunks missing in a row: on to the next 2 MiB */

/*
 * Every struct page from pfn 0 to max_pfn, read a vmemmap page at a time:
 * the pools the pages marked as page_pool's point to. A chunk the dump
 * does not have (a hole in memory, or not dumped) is counted; two in a
 * row skip to the next 2 MiB of vmemmap (a section's struct pages are
 * mapped whole, 2 MiB at a time, where the kernel can).
 */
static int page_scan(struct walk *k, struct addr_set *ps)
{
	const struct vmcore_layout *l = k->l;
	struct vmcore_pscan *sc = &k->w->scan;
	uint32_t psz = l->h.page_size, per = SCAN_BYTES / psz, i;
	uint64_t pfn = 0, max = k->a->max_pfn, at, magic, pool, next;
	uint8_t buf[SCAN_BYTES];
	bool missed = false;
	int err = 0;

	if (max > VW_MAX_PFN) {
		note(k->w,
		     "max_pfn %#llx is past what the page scan reads: pfns from %#llx not read",
		     (unsigned long long)max, (unsigned long long)VW_MAX_PFN);
		max = VW_MAX_PFN;
	}
	sc->ran = true;
	while (pfn < max && !err) {
		uint32_t n = max - pfn < per ? (uint32_t)(max - pfn) : per;

		at = k->a->vmemmap + pfn * psz;
		if (kmem_read(k->m, at, buf, (size_t)n * psz)) {
			next = pfn + n;
			if (missed) /* the rest of this 2 MiB of struct pages */
				next = (((at | (SCAN_SKIP - 1)) + 1 - k->a->vmemmap) + psz - 1) /
				       psz;
			if (next > max || next <= pfn)
				next = max;
			sc->missing += next - pfn;
			pfn = next;
			missed = true;
			continue;
		}
		missed = false;
		for (i = 0; i < n && !err; i++) {
			if (vm_field_of(buf + (size_t)i * psz, psz, l->h.pp_magic, &magic) ||
			    !pp_magic_is_pool(magic))
				continue;
			sc->pool_pages++;
			if (vm_field_of(buf + (size_t)i * psz, psz, l->h.pp, &pool) ||
			    !KERNEL_PTR(pool)) {
				sc->bad_pool_ptr++;
				continue;
			}
			if (ps->n < VW_MAX_POOLS && addr_set_add(ps, pool) < 0)
				err = -ENOMEM;
		}
		sc->pages += n;
		pfn += n;
	}
	if (sc->missing)
		note(k->w, "%llu struct pages are not in the dump (holes, or not dumped)",
		     (unsigned long long)sc->missing);
	return err;
}

/* the pools of the pages the page scan found, each read as the xarray's are */
static int scan_pools(struct walk *k)
{
	struct addr_set ps = { 0 };
	size_t i;
	int err;

	if (!k->a->vmemmap || !k->a->max_pfn || !vm_has(k->l->h.pp_magic) || !vm_has(k->l->h.pp) ||
	    !k->l->h.page_size || k->l->h.page_size > SCAN_BYTES)
		return -ENOENT;
	err = page_scan(k, &ps);
	for (i = 0; !err && !k->err && i < ps.cap; i++)
		if (ps.v[i])
			pool_one(k, ps.v[i]);
	addr_set_free(&ps);
	return err ?: k->err;
}

/* the dump's CLOCK_BOOTTIME and wall clock: the timekeeper at its last update */
static void clock_of(struct walk *k, const struct vmcore_addrs *a)
{
	const struct vmcore_layout *l = k->l;
	struct vmcore_walk *w = k->w;
	uint64_t tk = 0, base, boot, sec;

	if (a->tk_core && vm_has(l->tk_in_core))
		tk = a->tk_core + vm_off(l->tk_in_core);
	else if (a->shadow_tk)
		tk = a->shadow_tk;
	if (!tk || vm_read_field(k->m, tk, l->tk_mono_base, &base) ||
	    vm_read_field(k->m, tk, l->tk_offs_boot, &boot) ||
	    vm_read_field(k->m, tk, l->tk_xtime_sec, &sec) || (int64_t)(base + boot) <= 0) {
		note(w, "the timekeeper is not in the dump: no ages");
		return;
	}
	w->clock = true;
	w->rd.now_ns = base + boot;
	w->mono_ns = base;
	w->real_s = (double)(int64_t)sec;
}

static int by_addr(const void *a, const void *b)
{
	const struct pool_obs *x = a, *y = b;

	return x->rec.addr < y->rec.addr ? -1 : x->rec.addr > y->rec.addr;
}

/* by address, each pool once (the order snapshot_build() expects) */
static void dedup(struct vmcore_walk *w)
{
	size_t i, n = 0;

	qsort(w->rd.pools, w->rd.n, sizeof(*w->rd.pools), by_addr);
	for (i = 0; i < w->rd.n; i++) {
		if (n && w->rd.pools[n - 1].rec.addr == w->rd.pools[i].rec.addr) {
			w->duplicates++;
			continue;
		}
		w->rd.pools[n++] = w->rd.pools[i];
	}
	w->rd.n = n;
	if (w->duplicates)
		note(w, "the page_pools xarray lists a pool more than once (a damaged xarray)");
}

int vmcore_walk(struct kmem *m, const struct vmcore_layout *l, const struct vmcore_addrs *a,
		struct vmcore_walk *w)
{
	struct walk k = { .m = m, .l = l, .a = a, .w = w };
	uint64_t head = 0;
	bool xarray;
	int err = 0;

	memset(w, 0, sizeof(*w));
	w->real_s = NAN;
	/* a page size the dump says, if it is one a kernel has */
	w->rd.page_size = a->page_size >= 4096 && a->page_size <= (1 << 20) &&
					  !(a->page_size & (a->page_size - 1)) ?
				  (uint32_t)a->page_size :
				  4096;
	w->rd.detach_time_is_ns = l->detach_time_is_ns;
	w->rd.level = PPW_LEVEL_COUNTERS;
	w->rd.regime = l->unmap;
	if (a->init_uts_ns) {
		if (vm_has(l->uts_nodename))
			kmem_str(m, a->init_uts_ns + vm_off(l->uts_nodename), w->hostname,
				 sizeof(w->hostname));
		if (vm_has(l->uts_release))
			kmem_str(m, a->init_uts_ns + vm_off(l->uts_release), w->release,
				 sizeof(w->release));
	}
	clock_of(&k, a);
	if (!l->pool_size || l->pool_size > STRUCT_MAX)
		return -ENOENT;
	xarray = a->page_pools && vm_has(l->xa_head) && vm_has(l->xn_slots) && l->xa_chunk &&
		 l->xa_chunk <= 1024;
	if (xarray && vm_read_field(m, a->page_pools, l->xa_head, &head)) {
		note(w, "the page_pools xarray at %#llx is not in the dump",
		     (unsigned long long)a->page_pools);
		return -EFAULT;
	}
	k.pool = malloc(l->pool_size);
	if (!k.pool)
		return -ENOMEM;
	if (xarray)
		xa_entry(&k, head, 0);
	else
		err = scan_pools(&k);
	free(k.pool);
	if (err)
		return err;
	if (w->rd.n)
		dedup(w);
	/*
	 * a detach time is a CLOCK_BOOTTIME instant: without the dump's own
	 * "now" it says nothing of how long ago, so it is not passed on (the
	 * report then says the age is not known, not 0)
	 */
	for (size_t i = 0; !w->clock && i < w->rd.n; i++)
		w->rd.pools[i].rec.kernel_detach_time = 0;
	return k.err;
}

void vmcore_walk_free(struct vmcore_walk *w)
{
	reading_free(&w->rd);
}
