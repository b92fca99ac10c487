// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppvm-bpf: tp_btf programs for the VM tests. They read what the page_pool
 * tracepoints of the kernel series hand to BPF (the pool, the item block)
 * and the item block state of a pool, so that the tests check what a BPF
 * tool like ppwatch can see, not what the trace buffer prints.
 *
 * Item block layouts come from the running kernel (CO-RE): the local
 * ___ppvm types name only the fields used here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ppvm-bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct page_pool_item___ppvm {
	unsigned long encoded_next;
	unsigned long pp_netmem;
	struct llist_node lentry;
} __attribute__((preserve_access_index));

struct page_pool_item_block___ppvm {
	void *pp;
	struct list_head list;
	unsigned int flags;
	refcount_t ref;
	struct page_pool_item___ppvm items[];
} __attribute__((preserve_access_index));

struct page_pool___ppvm {
	struct page_pool_item_block___ppvm *item_blk;
	unsigned int item_blk_idx;
	bool items_exhausted;
	struct list_head item_blocks;
	u32 item_blks_prealloc;
	u32 item_blks_dyn;
} __attribute__((preserve_access_index));

/*
 * The DMA state of a pool, read from the kernel's own structures: the
 * dma_map bit (v6.9 on; pool->p.flags & PP_FLAG_DMA_MAP before), and the
 * dma_mapped xarray of every mapped page (v6.16, stable 6.12.34), which
 * page_pool_scrub() empties at destroy. No dma_mapped: the legacy regime.
 * (The bits through a flavour without the struct's cache-line alignment:
 * clang 14 cannot relocate a bitfield through the over-aligned type.)
 */
struct page_pool___ppvm_bits {
	bool dma_map : 1;
} __attribute__((preserve_access_index));

struct page_pool_params___ppvm_flags {
	unsigned int flags;
} __attribute__((preserve_access_index));

struct page_pool___ppvm_old {
	struct page_pool_params___ppvm_flags p;
} __attribute__((preserve_access_index));

struct page_pool___ppvm_xa {
	struct xarray dma_mapped;
} __attribute__((preserve_access_index));

struct page_pool___ppvm_user {
	struct {
		u32 id;
	} user;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* pools whose first page_pool_state_hold was recorded (PPVM_DMA_LIVE) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} seen SEC(".maps");

static __always_inline struct ppvm_ev *ev_new(__u32 kind, struct page_pool *pool)
{
	struct page_pool___ppvm_user *u = (void *)pool;
	struct ppvm_ev *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e)
		return NULL;
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pool = (__u64)pool;
	/* pool->user: v6.8 on */
	if (bpf_core_field_exists(u->user))
		e->id = BPF_CORE_READ(u, user.id);
	return e;
}

static __always_inline void block_fields(struct ppvm_ev *e, struct page_pool *pool,
					 struct page_pool_item_block___ppvm *block)
{
	struct page_pool___ppvm *p = (void *)pool;

	e->block = (__u64)block;
	e->v[0] = (__u64)BPF_CORE_READ(block, pp);
	e->v[1] = BPF_CORE_READ(block, flags);
	e->v[2] = BPF_CORE_READ(block, ref.refs.counter);
	e->v[3] = BPF_CORE_READ(p, item_blks_prealloc);
	e->v[4] = BPF_CORE_READ(p, item_blks_dyn);
}

static __always_inline int block_ev(__u32 kind, struct page_pool *pool,
				    struct page_pool_item_block___ppvm *block, u32 dyn)
{
	struct ppvm_ev *e = ev_new(kind, pool);

	if (!e)
		return 0;
	block_fields(e, pool, block);
	e->v[5] = dyn;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/page_pool_item_block_alloc")
int BPF_PROG(block_alloc, struct page_pool *pool, struct page_pool_item_block___ppvm *block,
	     u32 dyn)
{
	return block_ev(PPVM_BLOCK_ALLOC, pool, block, dyn);
}

SEC("tp_btf/page_pool_item_block_free")
int BPF_PROG(block_free, struct page_pool *pool, struct page_pool_item_block___ppvm *block, u32 dyn)
{
	return block_ev(PPVM_BLOCK_FREE, pool, block, dyn);
}

SEC("tp_btf/page_pool_item_fast_empty")
int BPF_PROG(fast_empty, struct page_pool *pool)
{
	struct page_pool___ppvm *p = (void *)pool;
	struct ppvm_ev *e = ev_new(PPVM_FAST_EMPTY, pool);

	if (!e)
		return 0;
	e->v[0] = BPF_CORE_READ(pool, pages_state_hold_cnt) -
		  BPF_CORE_READ(pool, pages_state_release_cnt.counter);
	e->v[1] = BPF_CORE_READ(p, items_exhausted);
	e->v[4] = BPF_CORE_READ(p, item_blks_dyn);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* the item-block series: (pool, inflight, unmapped, blocks, duration_ns) */
SEC("tp_btf/page_pool_destroy_unmap")
int BPF_PROG(destroy_unmap5, struct page_pool *pool, s32 inflight, u32 unmapped, u32 blocks,
	     u64 duration_ns)
{
	struct page_pool___ppvm *p = (void *)pool;
	struct ppvm_ev *e = ev_new(PPVM_DESTROY_UNMAP, pool);

	if (!e)
		return 0;
	e->v[0] = inflight;
	e->v[1] = unmapped;
	e->v[2] = blocks;
	e->v[3] = duration_ns;
	e->v[4] = BPF_CORE_READ(p, item_blks_prealloc);
	e->v[5] = BPF_CORE_READ(p, item_blks_dyn);
	e->nargs = 5;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * The per-block occupancy of a pool, at each page_pool_release (destroy,
 * then every retry of a pool with pages in flight): walk pool->item_blocks
 * and count the items in use in each block.
 *  - dynamic block (flags & 1): its reference count, less the items never
 *    handed out if it is pool->item_blk (ITEMS_PER_PAGE - item_blk_idx);
 *  - pre-allocated block: the items not on a free list. A free item's
 *    lentry.next is NULL or points at another item's lentry; an item in use
 *    holds a netmem there (a struct page pointer, or a net_iov one | 1),
 *    which is never at the offset of an lentry within an item.
 */
struct scan_ctx {
	__u64 items; /* address of items[0] */
	__u32 isize;
	__u32 ioff; /* offset of items[] in the block */
	__u32 loff; /* offset of lentry in an item */
	__u32 inuse;
};

static long scan_item(__u64 i, struct scan_ctx *c)
{
	__u64 v = 0, off;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)(c->items + i * c->isize + c->loff));
	if (!v)
		return 0;
	/* free: v is &item->lentry of an item of some block */
	off = v & 4095;
	if (off >= c->ioff + c->loff && (off - c->ioff - c->loff) % c->isize == 0)
		return 0;
	c->inuse++;
	return 0;
}

#define MAX_BLOCKS 64

SEC("tp_btf/page_pool_release")
int BPF_PROG(release, struct page_pool *pool, s32 inflight, u32 hold, u32 release)
{
	struct page_pool___ppvm *p = (void *)pool;
	__u32 loff_list = bpf_core_field_offset(struct page_pool_item_block___ppvm, list);
	__u32 nitems, sum = 0, n = 0;
	struct page_pool_item_block___ppvm *cur;
	struct list_head *head, *node;
	__u32 cur_idx;
	int i;

	if (!bpf_core_field_exists(p->item_blocks))
		return 0;
	head = (void *)pool + bpf_core_field_offset(struct page_pool___ppvm, item_blocks);
	cur = BPF_CORE_READ(p, item_blk);
	cur_idx = BPF_CORE_READ(p, item_blk_idx);
	nitems = (4096 - bpf_core_field_offset(struct page_pool_item_block___ppvm, items)) /
		 bpf_core_type_size(struct page_pool_item___ppvm);
	node = BPF_CORE_READ(head, next);

	for (i = 0; i < MAX_BLOCKS && node != head; i++) {
		struct page_pool_item_block___ppvm *b = (void *)node - loff_list;
		struct ppvm_ev *e = ev_new(PPVM_BLOCK, pool);
		__u32 flags = BPF_CORE_READ(b, flags);
		int ref = BPF_CORE_READ(b, ref.refs.counter);
		__u32 inuse;

		if (flags & 1) {
			inuse = ref;
			if (b == cur)
				inuse -= nitems - cur_idx;
		} else {
			struct scan_ctx c = {
				.items = (__u64)b +
					 bpf_core_field_offset(struct page_pool_item_block___ppvm,
							       items),
				.isize = bpf_core_type_size(struct page_pool_item___ppvm),
				.ioff = bpf_core_field_offset(struct page_pool_item_block___ppvm,
							      items),
				.loff = bpf_core_field_offset(struct page_pool_item___ppvm, lentry),
			};

			bpf_loop(nitems, scan_item, &c, 0);
			inuse = c.inuse;
		}
		sum += inuse;
		n++;
		if (e) {
			e->block = (__u64)b;
			e->v[0] = flags;
			e->v[1] = ref;
			e->v[2] = inuse;
			e->v[3] = nitems;
			bpf_ringbuf_submit(e, 0);
		}
		node = BPF_CORE_READ(node, next);
	}

	struct ppvm_ev *e = ev_new(PPVM_BLOCKS, pool);

	if (!e)
		return 0;
	e->v[0] = inflight;
	e->v[1] = n;
	e->v[2] = sum;
	e->v[3] = BPF_CORE_READ(p, item_blks_prealloc);
	e->v[4] = BPF_CORE_READ(p, item_blks_dyn);
	e->v[5] = node == head; /* the walk saw the whole list */
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* v: inflight (or -1: at a hold), dma_map, xarray present, xarray empty */
static __always_inline int dma_ev(__u32 kind, struct page_pool *pool, s32 inflight)
{
	struct page_pool___ppvm_bits *b = (void *)pool;
	struct page_pool___ppvm_old *o = (void *)pool;
	struct page_pool___ppvm_xa *x = (void *)pool;
	struct ppvm_ev *e = ev_new(kind, pool);

	if (!e)
		return 0;
	e->v[0] = inflight;
	if (bpf_core_field_exists(b->dma_map))
		e->v[1] = BPF_CORE_READ_BITFIELD_PROBED(b, dma_map);
	else if (bpf_core_field_exists(o->p.flags))
		e->v[1] = BPF_CORE_READ(o, p.flags) & 1; /* PP_FLAG_DMA_MAP */
	if (bpf_core_field_exists(x->dma_mapped)) {
		e->v[2] = 1;
		e->v[3] = BPF_CORE_READ(x, dma_mapped.xa_head) == NULL;
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* every page_pool_release: destroy (the xarray already scrubbed), retries */
SEC("tp_btf/page_pool_release")
int BPF_PROG(release_dma, struct page_pool *pool, s32 inflight)
{
	return dma_ev(PPVM_DMA, pool, inflight);
}

/* a pool's first page out (its mapping made before the event): once a pool */
SEC("tp_btf/page_pool_state_hold")
int BPF_PROG(hold_dma, struct page_pool *pool)
{
	__u64 k = (__u64)pool;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&seen, &k))
		return 0;
	bpf_map_update_elem(&seen, &k, &one, BPF_ANY);
	return dma_ev(PPVM_DMA_LIVE, pool, -1);
}
