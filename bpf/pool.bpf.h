/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-pool record: first sight, identity, address reuse and lifecycle
 * events; and each CPU's slots of the pools it saw last, which is all the
 * hot path writes per event. Shared by every hook family (ledger,
 * lifecycle, discovery).
 */
#ifndef __PPWATCH_POOL_BPF_H
#define __PPWATCH_POOL_BPF_H

#include "maps.bpf.h"
#include "config.bpf.h"
#include "core_fixes.bpf.h"

#define PPW_LOOPBACK_IFINDEX 1

/* How a pool was first seen; decides which counter the event already moved. */
enum ppw_seen {
	PPW_SEEN_HOLD,	    /* page_pool_state_hold: hold counter includes this page */
	PPW_SEEN_RELEASE,   /* page_pool_state_release: release counter does */
	PPW_SEEN_OTHER,	    /* page_pool_release, update_nid */
	PPW_SEEN_DISCOVERY, /* the discovery scan */
};

/* Session-unique pool generation: (address, gen) never repeats. */
static __always_inline __u32 next_gen(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&pool_seq, &zero);

	if (!v)
		return 0;
	if (PPW_COMPAT) {
		/* an add without fetch: two pools born at once may share a gen,
		 * never an address */
		__sync_fetch_and_add(v, 1);
		return (__u32)*v;
	}
	return (__u32)__sync_fetch_and_add(v, 1) + 1;
}

/* Store v if it is newer than *p (u32 counters wrap: compare by distance). */
static __always_inline void u32_store_newer(__u32 *p, __u32 v)
{
	__u32 old;
	int i;

	for (i = 0; i < 4; i++) {
		old = *p;
		if ((__s32)(v - old) <= 0)
			return;
		if (PPW_COMPAT) {
			/* a racing older value may win: the next event corrects it */
			*p = v;
			return;
		}
		if (__sync_val_compare_and_swap(p, old, v) == old)
			return;
	}
}

static __always_inline void netdev_fill(struct ppw_pool *r, struct net_device *nd)
{
	struct net *net;

	r->ifindex = BPF_CORE_READ(nd, ifindex);
	BPF_CORE_READ_STR_INTO(&r->ifname, nd, name);
	net = BPF_CORE_READ(nd, nd_net.net);
	if (!net)
		return;
	r->netns_ino = BPF_CORE_READ(net, ns.inum);
	r->netns_cookie = net_cookie_of(net);
}

/* Is this struct device the one embedded in a net_device? */
static __always_inline bool device_is_netdev(struct device *dev)
{
	const char *cls = BPF_CORE_READ(dev, class, name);
	char name[4] = {};

	if (!cls || bpf_probe_read_kernel_str(name, sizeof(name), cls) != 4)
		return false;
	return name[0] == 'n' && name[1] == 'e' && name[2] == 't';
}

/*
 * The net_device among the children of 'dev' (a NIC's PCI device has its
 * net_device as a child): for pools whose driver does not set
 * slow.netdev (all of them before 6.8, and drivers such as vmxnet3 that
 * give only .dev). Children hang on dev->p->klist_children through their
 * own device_private's knode_parent.
 */
static __always_inline struct net_device *netdev_child_of(struct device *dev)
{
	struct device_private *p = BPF_CORE_READ(dev, p), *cp;
	struct list_head *head, *cur;
	struct device *child;
	int i;

	if (!p)
		return NULL;
	head = (void *)p + bpf_core_field_offset(struct device_private, klist_children.k_list);
	cur = BPF_CORE_READ(p, klist_children.k_list.next);
	for (i = 0; i < PPW_MAX_DEV_CHILDREN; i++) {
		if (!cur || cur == head)
			return NULL;
		cp = (void *)cur -
		     bpf_core_field_offset(struct device_private, knode_parent.n_node);
		child = BPF_CORE_READ(cp, device);
		if (child && device_is_netdev(child))
			return (void *)child - bpf_core_field_offset(struct net_device, dev);
		cur = BPF_CORE_READ(cur, next);
	}
	return NULL;
}

/*
 * Is dev still registered? device_del() clears kobj.state_in_sysfs before
 * the last reference can free it, so a device removed whose memory is not
 * reused yet reads 0; memory reused reads whatever is there, and then its
 * private part does not point back at it (dev->p->device, which a
 * registered device's always does). Together they make a freed device's
 * bytes pass only by a coincidence of two values. (A net_device's own
 * device, veth's, is device_del()'d when the net_device unregisters.)
 */
static __always_inline bool device_registered(struct device *dev)
{
	struct kobject *k = (void *)dev + bpf_core_field_offset(struct device, kobj);
	struct device_private *p;

	if (!BPF_CORE_READ_BITFIELD_PROBED(k, state_in_sysfs))
		return false;
	p = BPF_CORE_READ(dev, p);
	return p && BPF_CORE_READ(p, device) == dev;
}

/*
 * A pool's identity. destroyed: it was destroyed before ppwatch first saw
 * it, and page_pool holds no reference to p.dev, so p.dev (and the
 * net_device found through it) is read only while it is still registered;
 * else the device is unknown (PPW_PF_DEV_GONE), never a freed one's name.
 */
static __always_inline void pool_fill_identity(struct ppw_pool *r, struct page_pool *pool,
					       bool destroyed)
{
	struct net_device *nd = pool_netdev(pool);
	struct napi_struct *napi;
	struct device *dev;
	const char *s;

	r->order = BPF_CORE_READ(pool, p.order);
	r->pool_size = BPF_CORE_READ(pool, p.pool_size);
	r->nid = BPF_CORE_READ(pool, p.nid);
	r->flags |= pool_dma_flags(pool);
	r->xdp_mem_id = pool_xdp_mem_id(pool);
	if (bpf_core_field_exists(((struct page_pool___user *)pool)->user.id))
		r->flags |= PPW_PF_HAS_ID;
	if (pool_has_mp(pool))
		r->flags |= PPW_PF_MEM_PROVIDER;

	napi = pool_napi(pool);
	if (napi) {
		r->flags |= PPW_PF_HAS_NAPI;
		r->napi_id = BPF_CORE_READ(napi, napi_id);
	}

	/* slow.netdev may be NULL or NET_PTR_POISON: a failed read gives 0 */
	if (nd && BPF_CORE_READ(nd, ifindex) > 0) {
		netdev_fill(r, nd);
		r->flags |= PPW_PF_HAS_NETDEV;
		if (r->ifindex == PPW_LOOPBACK_IFINDEX)
			r->flags |= PPW_PF_ORPHANED;
	}

	dev = BPF_CORE_READ(pool, p.dev);
	if (!dev)
		return;
	if (destroyed && !device_registered(dev)) {
		r->flags |= PPW_PF_DEV_GONE;
		return;
	}
	s = BPF_CORE_READ(dev, kobj.name);
	if (s)
		bpf_probe_read_kernel_str(r->devname, sizeof(r->devname), s);
	s = BPF_CORE_READ(dev, driver, name);
	if (s)
		bpf_probe_read_kernel_str(r->driver, sizeof(r->driver), s);
	if (r->flags & PPW_PF_HAS_NETDEV)
		return;
	if (device_is_netdev(dev)) {
		/* veth and others: no netdev, but p.dev is the netdev's device */
		nd = (void *)dev - bpf_core_field_offset(struct net_device, dev);
		netdev_fill(r, nd);
		r->flags |= PPW_PF_DEV_NETDEV;
		return;
	}
	nd = netdev_child_of(dev);
	if (nd && BPF_CORE_READ(nd, ifindex) > 0) {
		netdev_fill(r, nd);
		r->flags |= PPW_PF_DEV_CHILD;
	}
}

/* a lifecycle event: the record as it is now, and the inflight count the event reported */
static __always_inline void emit(__u32 type, struct ppw_pool *rec, __s32 inflight)
{
	struct ppw_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		cnt_inc(PPW_CNT_RINGBUF_DROP);
		return;
	}
	e->type = type;
	e->cpu = bpf_get_smp_processor_id();
	e->ts_ns = bpf_ktime_get_boot_ns();
	e->inflight = inflight;
	e->pad = 0;
	__builtin_memcpy(&e->rec, rec, sizeof(*rec));
	bpf_ringbuf_submit(e, 0);
}

/*
 * A destroyed pool's defer_start, once, with the clocks that date it:
 * jiffies, CLOCK_MONOTONIC (which gives the jiffies' HZ) and
 * CLOCK_BOOTTIME, read together (cli/model/ages.c).
 */
static __always_inline void pool_read_defer(struct ppw_pool *r, struct page_pool *pool)
{
	__u64 ds;

	if (r->defer_start)
		return;
	ds = pool_defer_start(pool);
	if (!ds)
		return;
	r->defer_mono_ns = bpf_ktime_get_ns();
	r->defer_jiffies = bpf_jiffies64();
	r->defer_boot_ns = bpf_ktime_get_boot_ns();
	r->defer_start = ds;
}

/*
 * Find the record of 'pool', creating it on first sight. A record whose pool
 * was freed (or whose kernel id differs) belongs to an earlier pool at the
 * same address: it is retired (reported) and replaced. Only a hold can start
 * a new pool at a freed address: a late release of the old pool's last page
 * may still be running when page_pool_release() reports it freed.
 */
static __always_inline struct ppw_pool *pool_get(struct page_pool *pool, enum ppw_seen how,
						 __u32 arg)
{
	__u64 key = (__u64)pool, destroy;
	__u32 id = pool_user_id(pool), zero = 0;
	struct ppw_pool *rec, *s;
	__u64 flags = BPF_NOEXIST;

	rec = bpf_map_lookup_elem(&pools, &key);
	if (rec) {
		if (!(id && rec->id != id) &&
		    !(how == PPW_SEEN_HOLD && rec->state == PPW_POOL_FREED))
			return rec;
		emit(PPW_EV_POOL_RETIRED, rec, rec->last_inflight);
		cnt_inc(PPW_CNT_POOL_REUSE);
		flags = BPF_EXIST;
	}

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return NULL;
	__builtin_memset(s, 0, sizeof(*s));
	s->addr = key;
	s->gen = next_gen();
	s->id = id;
	s->first_seen_ns = bpf_ktime_get_boot_ns();
	destroy = BPF_CORE_READ(pool, destroy_cnt);
	pool_fill_identity(s, pool, destroy);
	if (how == PPW_SEEN_DISCOVERY)
		s->flags |= PPW_PF_DISCOVERED;
	s->flags |= pool_item_counters(pool, s);

	s->hold_cnt = BPF_CORE_READ(pool, pages_state_hold_cnt);
	s->release_cnt = BPF_CORE_READ(pool, pages_state_release_cnt.counter);
	if (how == PPW_SEEN_HOLD)
		s->hold_cnt = arg - 1;
	else if (how == PPW_SEEN_RELEASE)
		s->release_cnt = arg - 1;
	s->base_hold = s->hold_cnt;
	s->base_release = s->release_cnt;
	s->last_inflight = (__s32)(s->hold_cnt - s->release_cnt);

	if (destroy) {
		/* destroyed before we looked: a zombie already */
		s->state = PPW_POOL_DETACHED;
		s->destroy_cnt = destroy;
		s->kernel_detach_time = pool_detach_time_raw(pool);
		pool_read_defer(s, pool);
		s->dma_mapped_left = pool_dma_mapped_left(pool) > 0;
	}

	if (bpf_map_update_elem(&pools, &key, s, flags)) {
		rec = bpf_map_lookup_elem(&pools, &key);
		if (rec) /* another CPU created it first */
			return rec;
		cnt_inc(PPW_CNT_POOLS_FULL);
		return NULL;
	}
	rec = bpf_map_lookup_elem(&pools, &key);
	/*
	 * What discovery creates reaches user space through the table itself
	 * (collector_discovered()): one scan finds every pool of the host at
	 * once, thousands of them, more than the ring holds.
	 */
	if (rec && how != PPW_SEEN_DISCOVERY)
		emit(PPW_EV_POOL_NEW, rec, rec->last_inflight);
	return rec;
}

/* ---- per-CPU pool slots --------------------------------------------------- */

#define PPW_HASH_MUL 0x9e3779b97f4a7c15ULL /* 2^64 / golden ratio */

/*
 * The lower half of a pointer as a number. tp_btf hands the pool as a
 * trusted BTF pointer, on which the verifier allows no arithmetic; a
 * 32-bit move of a pointer gives an unknown scalar to a program allowed
 * to leak pointers (CAP_PERFMON, which ppwatch needs anyway): no helper
 * call on the hot path.
 */
static __always_inline __u32 ptr_lo32(const void *p)
{
	__u32 lo;

	asm volatile("%[lo] = %[p]" : [lo] "=w"(lo) : [p] "w"(p));
	return lo;
}

static __always_inline __u32 pcpu_slot_idx(__u32 lo)
{
	return ((__u64)(lo >> 6) * PPW_HASH_MUL) >> (64 - PPW_PCPU_SLOTS_BITS);
}

/* this CPU's slot of a pool (direct-mapped: another pool may sit in it) */
static __always_inline struct ppw_pcpu_pool *pcpu_slot(const struct page_pool *pool)
{
	__u32 idx = pcpu_slot_idx(ptr_lo32(pool));

	return bpf_map_lookup_elem(&pcpu_pools, &idx);
}

/* a slot's sums, given back when it leaves the slot: to the totals and its record */
static __always_inline void pcpu_give_back(struct ppw_pcpu_pool *pc, struct ppw_pool *rec)
{
	cnt_add(PPW_CNT_HOLD, pc->holds);
	cnt_add(PPW_CNT_RELEASE, pc->releases);
	if (!rec || rec->gen != pc->gen)
		return;
	u32_store_newer(&rec->hold_cnt, pc->hold);
	u32_store_newer(&rec->release_cnt, pc->release);
	if (pc->rel_lost)
		__sync_fetch_and_add(&rec->lost_releases, pc->rel_lost);
	if (pc->untracked)
		__sync_fetch_and_add(&rec->untracked_holds, pc->untracked);
}

/*
 * Fill this CPU's slot with 'pool', on its first event here, after another
 * pool took the slot, or when a counter went back (a new pool at a freed
 * pool's address). The slot's previous pool gets its sums back first.
 * Off the hot path: 0, or -1 when the pool has no record (table full).
 */
PPW_SUBPROG int pcpu_fill(struct ppw_pcpu_pool *pc, struct page_pool *pool, enum ppw_seen how,
			  __u32 arg)
{
	struct ppw_pool *rec;

	if (pc->pool) {
		if (pc->pool != (__u64)pool)
			cnt_inc(PPW_CNT_PCPU_EVICT);
		pcpu_give_back(pc, bpf_map_lookup_elem(&pools, &pc->pool));
	}
	__builtin_memset(pc, 0, sizeof(*pc));
	rec = pool_get(pool, how, arg);
	if (!rec)
		return -1;
	pc->pool = rec->addr;
	pc->gen = rec->gen;
	pc->hold = rec->hold_cnt;
	pc->release = rec->release_cnt;
	pc->base_hold = rec->base_hold;
	pc->base_release = rec->base_release;
	return 0;
}

struct pcpu_clear {
	__u64 pool;
	__u32 idx;
	struct ppw_pool *rec;
};

static __attribute__((unused)) long pcpu_clear_cb(__u64 cpu, void *data)
{
	struct pcpu_clear *c = data;
	struct ppw_pcpu_pool *pc;

	if (cpu >= cfg_nr_cpus)
		return 1;
	pc = bpf_map_lookup_percpu_elem(&pcpu_pools, &c->idx, cpu);
	if (!pc || pc->pool != c->pool)
		return 0;
	pcpu_give_back(pc, c->rec);
	pc->holds = pc->releases = pc->rel_lost = pc->untracked = 0;
	/* unless that CPU took the slot for another pool meanwhile */
	__sync_val_compare_and_swap(&pc->pool, c->pool, 0);
	return 0;
}

/*
 * A pool is freed: give every CPU's slot of it back to its record and
 * empty them, so no slot outlives the pool and a new pool at the same
 * address starts clean.
 */
static __always_inline void pcpu_clear(struct ppw_pool *rec)
{
	struct pcpu_clear c = { .pool = rec->addr, .rec = rec };

	/* (PPW_COMPAT: no bpf_loop; a slot of a freed pool is refilled on
	 * the next event in it, as after an eviction) */
	if (PPW_COMPAT)
		return;
	c.idx = pcpu_slot_idx((__u32)rec->addr);
	bpf_loop(PPW_MAX_CPU_SLOTS, pcpu_clear_cb, &c, 0);
}

#endif /* __PPWATCH_POOL_BPF_H */
