/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-pool record: first sight, identity, address reuse and lifecycle
 * events. Shared by every hook family (ledger, lifecycle, discovery).
 */
#ifndef __PPWATCH_POOL_BPF_H
#define __PPWATCH_POOL_BPF_H

#include "maps.bpf.h"
#include "config.bpf.h"
#include "core_fixes.bpf.h"

#define PPW_LOOPBACK_IFINDEX	1

/* How a pool was first seen; decides which counter the event already moved. */
enum ppw_seen {
	PPW_SEEN_HOLD,		/* page_pool_state_hold: hold counter includes this page */
	PPW_SEEN_RELEASE,	/* page_pool_state_release: release counter does */
	PPW_SEEN_OTHER,		/* page_pool_release, update_nid */
	PPW_SEEN_DISCOVERY,	/* the discovery scan */
};

/* Session-unique pool generation: (address, gen) never repeats. */
PPW_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pool_seq SEC(".maps");

static __always_inline __u32 next_gen(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&pool_seq, &zero);

	if (!v)
		return 0;
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
	if (bpf_core_field_exists(net->net_cookie))
		r->netns_cookie = BPF_CORE_READ(net, net_cookie);
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
		cp = (void *)cur - bpf_core_field_offset(struct device_private, knode_parent.n_node);
		child = BPF_CORE_READ(cp, device);
		if (child && device_is_netdev(child))
			return (void *)child - bpf_core_field_offset(struct net_device, dev);
		cur = BPF_CORE_READ(cur, next);
	}
	return NULL;
}

static __always_inline void pool_fill_identity(struct ppw_pool *r, struct page_pool *pool)
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

static __always_inline void emit(__u32 type, struct ppw_pool *rec, __s32 inflight,
				 __u32 hold, __u32 release, __s32 nid, __u64 cnt)
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
	e->pool = rec->addr;
	e->gen = rec->gen;
	e->id = rec->id;
	e->inflight = inflight;
	e->hold = hold;
	e->release = release;
	e->nid = nid;
	e->cnt = cnt;
	__builtin_memcpy(&e->rec, rec, sizeof(*rec));
	bpf_ringbuf_submit(e, 0);
}

/*
 * Find the record of 'pool', creating it on first sight. A record whose pool
 * was freed (or whose kernel id differs) belongs to an earlier pool at the
 * same address: it is retired (reported) and replaced. Only a hold can start
 * a new pool at a freed address: a late release of the old pool's last page
 * may still be running when page_pool_release() reports it freed.
 */
static __always_inline struct ppw_pool *
pool_get(struct page_pool *pool, enum ppw_seen how, __u32 arg)
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
		emit(PPW_EV_POOL_RETIRED, rec, rec->last_inflight, rec->hold_cnt,
		     rec->release_cnt, rec->nid, rec->destroy_cnt);
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
	pool_fill_identity(s, pool);
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

	destroy = BPF_CORE_READ(pool, destroy_cnt);
	if (destroy) {
		/* destroyed before we looked: a zombie already */
		s->state = PPW_POOL_DETACHED;
		s->destroy_cnt = destroy;
		s->kernel_detach_time = pool_detach_time_raw(pool);
		s->dma_mapped_left = pool_dma_mapped_left(pool) > 0;
	}

	if (bpf_map_update_elem(&pools, &key, s, flags)) {
		rec = bpf_map_lookup_elem(&pools, &key);
		if (rec)	/* another CPU created it first */
			return rec;
		cnt_inc(PPW_CNT_POOLS_FULL);
		return NULL;
	}
	rec = bpf_map_lookup_elem(&pools, &key);
	if (rec)
		emit(PPW_EV_POOL_NEW, rec, rec->last_inflight, rec->hold_cnt,
		     rec->release_cnt, rec->nid, rec->destroy_cnt);
	return rec;
}

#endif /* __PPWATCH_POOL_BPF_H */
