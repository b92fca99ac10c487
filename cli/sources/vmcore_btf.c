// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "sources/vmcore_btf.h"

#define ANON_DEPTH 8 /* anonymous structs within anonymous structs */

int vmcore_btf_parse(const void *data, size_t len, struct btf **out)
{
	struct btf *btf;

	*out = NULL;
	if (len < sizeof(struct btf_header) || len > VB_MAX_BYTES)
		return -EINVAL;
	btf = btf__new(data, (__u32)len);
	if (!btf)
		return errno ? -errno : -EINVAL;
	*out = btf;
	return 0;
}

int vmcore_btf_read(struct kmem *m, uint64_t start, uint64_t stop, struct btf **out, char *why,
		    size_t whylen)
{
	uint64_t len = stop - start;
	void *buf;
	int err;

	*out = NULL;
	if (!start || stop <= start || len > VB_MAX_BYTES) {
		snprintf(
			why, whylen,
			"__start_BTF %#llx, __stop_BTF %#llx: no BTF of at most %u MiB between them",
			(unsigned long long)start, (unsigned long long)stop, VB_MAX_BYTES >> 20);
		return -EINVAL;
	}
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	err = kmem_read(m, start, buf, len);
	if (err) {
		snprintf(why, whylen, "the kernel's BTF (%llu bytes at %#llx) is not in the dump",
			 (unsigned long long)len, (unsigned long long)start);
		free(buf);
		return err;
	}
	err = vmcore_btf_parse(buf, len, out);
	if (err)
		snprintf(why, whylen, "the kernel's BTF (%llu bytes at %#llx) does not parse: %s",
			 (unsigned long long)len, (unsigned long long)start, strerror(-err));
	free(buf);
	return err;
}

/* a type with its typedefs and qualifiers taken off */
static const struct btf_type *resolved(const struct btf *btf, __u32 id, __u32 *rid)
{
	int r = btf__resolve_type(btf, id);

	if (r < 0)
		return NULL;
	if (rid)
		*rid = (__u32)r;
	return btf__type_by_id(btf, (__u32)r);
}

/* member NAME of the struct or union ID, looking into anonymous ones */
static bool member(const struct btf *btf, __u32 id, const char *name, int depth, int64_t *bit_off,
		   __u32 *type, __u32 *bit_size)
{
	const struct btf_type *t = resolved(btf, id, NULL);
	const struct btf_member *m;
	__u32 i, n;

	if (!t || !(btf_is_struct(t) || btf_is_union(t)) || depth > ANON_DEPTH)
		return false;
	m = btf_members(t);
	n = btf_vlen(t);
	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		int64_t off = btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			*bit_off = off;
			*type = m->type;
			*bit_size = btf_member_bitfield_size(t, i);
			return true;
		}
		if (member(btf, m->type, name, depth + 1, bit_off, type, bit_size)) {
			*bit_off += off;
			return true;
		}
	}
	return false;
}

/* "a.b.c" of struct SNAME: where it is, or VM_ABSENT; *type its type */
static struct vm_field path_of(const struct btf *btf, const char *sname, const char *path,
			       __u32 *type)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	struct vm_field f = { 0 };
	char part[64];
	const char *p = path, *dot;
	__s64 size;
	__u32 t, bsz = 0;
	int64_t off;

	if (id <= 0)
		return VM_ABSENT;
	t = (__u32)id;
	for (;;) {
		dot = strchr(p, '.');
		snprintf(part, sizeof(part), "%.*s", dot ? (int)(dot - p) : (int)strlen(p), p);
		if (!member(btf, t, part, 0, &off, &t, &bsz))
			return VM_ABSENT;
		f.bit_off += off;
		if (!dot)
			break;
		if (bsz)
			return VM_ABSENT;
		p = dot + 1;
	}
	size = btf__resolve_size(btf, t);
	if (size < 0 || size > 1 << 20)
		return VM_ABSENT;
	f.size = (uint32_t)size;
	f.bit_size = bsz;
	if (type)
		*type = t;
	return f;
}

static struct vm_field at(const struct btf *btf, const char *sname, const char *path)
{
	return path_of(btf, sname, path, NULL);
}

/* the type's name after its typedefs? no: the name of the member's own (first) type */
static bool type_named(const struct btf *btf, __u32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	return n && !strcmp(n, name);
}

/*
 * kernels with POSIX auxiliary clocks (Debian's 7.3 among them) keep their
 * timekeepers in an array, timekeeper_data[], tk_core being a macro for its
 * element TIMEKEEPER_CORE (enum timekeeper_ids): that element's offset, from
 * BTF (0 where the kernel has no such enum)
 */
static uint64_t core_timekeeper_off(const struct btf *btf)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	int id = btf__find_by_name_kind(btf, "timekeeper_ids", BTF_KIND_ENUM);
	int tk = btf__find_by_name_kind(btf, "tk_data", BTF_KIND_STRUCT);
	__s64 size = tk > 0 ? btf__resolve_size(btf, (__u32)tk) : -1;
	unsigned i;

	t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	if (!t || size <= 0)
		return 0;
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		const char *n = btf__name_by_offset(btf, e->name_off);

		if (n && !strcmp(n, "TIMEKEEPER_CORE") && e->val >= 0 && e->val < 64)
			return (uint64_t)e->val * (uint64_t)size;
	}
	return 0;
}

/* the struct a typedef names (skb_frag_t: struct bio_vec, or struct skb_frag), and its size */
static const char *typedef_struct(const struct btf *btf, const char *name, uint32_t *size)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	const struct btf_type *t;
	__s64 sz;
	__u32 rid;

	t = id > 0 ? resolved(btf, (__u32)id, &rid) : NULL;
	if (!t || !btf_is_struct(t))
		return NULL;
	sz = btf__resolve_size(btf, rid);
	if (sz <= 0 || sz > 256)
		return NULL;
	*size = (uint32_t)sz;
	return btf__name_by_offset(btf, t->name_off);
}

/* the holder walk's members (model/vmcore_holders.c); an absent one: that walk is not done */
static void holders_layout(const struct btf *btf, struct vmcore_layout *l)
{
	const char *frag;
	int id;
	__s64 size;

	l->h.tasks = at(btf, "task_struct", "tasks");
	l->h.pid = at(btf, "task_struct", "pid");
	l->h.tgid = at(btf, "task_struct", "tgid");
	l->h.comm = at(btf, "task_struct", "comm");
	l->h.files = at(btf, "task_struct", "files");
	l->h.fdt = at(btf, "files_struct", "fdt");
	l->h.max_fds = at(btf, "fdtable", "max_fds");
	l->h.fd = at(btf, "fdtable", "fd");
	l->h.f_op = at(btf, "file", "f_op");
	l->h.private_data = at(btf, "file", "private_data");
	l->h.f_inode = at(btf, "file", "f_inode");
	l->h.i_ino = at(btf, "inode", "i_ino");
	l->h.sock_sk = at(btf, "socket", "sk");
	l->h.family = at(btf, "sock", "__sk_common.skc_family");
	l->h.state = at(btf, "sock", "__sk_common.skc_state");
	l->h.num = at(btf, "sock", "__sk_common.skc_num");
	l->h.dport = at(btf, "sock", "__sk_common.skc_dport");
	l->h.rcv_saddr = at(btf, "sock", "__sk_common.skc_rcv_saddr");
	l->h.daddr = at(btf, "sock", "__sk_common.skc_daddr");
	l->h.v6_rcv_saddr = at(btf, "sock", "__sk_common.skc_v6_rcv_saddr");
	l->h.v6_daddr = at(btf, "sock", "__sk_common.skc_v6_daddr");
	l->h.net = at(btf, "sock", "__sk_common.skc_net.net");
	l->h.type = at(btf, "sock", "sk_type");
	l->h.protocol = at(btf, "sock", "sk_protocol");
	l->h.rcvq = at(btf, "sock", "sk_receive_queue");
	l->h.rmem = at(btf, "sock", "sk_backlog.rmem_alloc.counter");
	/* struct udp_sock begins with its inet_sock, whose struct sock is first */
	l->h.reader_q = at(btf, "udp_sock", "reader_queue");
	l->h.skb_next = at(btf, "sk_buff", "next");
	l->h.skb_head = at(btf, "sk_buff", "head");
	l->h.skb_end = at(btf, "sk_buff", "end");
	l->h.skb_len = at(btf, "sk_buff", "len");
	l->h.head_frag = at(btf, "sk_buff", "head_frag");
	l->h.nr_frags = at(btf, "skb_shared_info", "nr_frags");
	l->h.frags = at(btf, "skb_shared_info", "frags");
	l->h.frag_list = at(btf, "skb_shared_info", "frag_list");
	/* skb_frag_t: struct skb_frag with a netmem_ref (6.9 on), struct bio_vec before */
	frag = typedef_struct(btf, "skb_frag_t", &l->h.frag_size);
	l->h.frag_page = VM_ABSENT;
	if (frag && !strcmp(frag, "skb_frag"))
		l->h.frag_page = at(btf, "skb_frag", "netmem");
	if (frag && !vm_has(l->h.frag_page))
		l->h.frag_page = at(btf, frag, "bv_page");
	l->h.alloc_count = at(btf, "page_pool", "alloc.count");
	l->h.ring_prod = at(btf, "page_pool", "ring.producer");
	l->h.ring_cons = at(btf, "page_pool", "ring.consumer_head");
	l->h.ring_size = at(btf, "page_pool", "ring.size");
	l->h.ring_queue = at(btf, "page_pool", "ring.queue");
	l->h.ring_count = at(btf, "page_pool", "ring.count.counter"); /* the item-block series' */
	l->h.frag_pg = at(btf, "page_pool", "frag_page");
	/* renamed compound_info for 7.1 (bpf/core_fixes_scan.bpf.h says how it changed) */
	l->h.compound_head = at(btf, "page", "compound_head");
	if (!vm_has(l->h.compound_head))
		l->h.compound_head = at(btf, "page", "compound_info");
	l->h.pp = at(btf, "page", "pp");
	l->h.pp_magic = at(btf, "page", "pp_magic");
	id = btf__find_by_name_kind(btf, "page", BTF_KIND_STRUCT);
	size = id > 0 ? btf__resolve_size(btf, (__u32)id) : -1;
	l->h.page_size = size > 0 && size <= 256 ? (uint32_t)size : 0;
}

/* the item-block series' types (absent elsewhere: no blocks read) */
static void blocks_layout(const struct btf *btf, struct vmcore_layout *l)
{
	int id = btf__find_by_name_kind(btf, "page_pool_item", BTF_KIND_STRUCT);
	__s64 size = id > 0 ? btf__resolve_size(btf, (__u32)id) : -1;

	l->b.item_size = size > 0 && size <= 256 ? (uint32_t)size : 0;
	l->b.pool_list = at(btf, "page_pool", "item_blocks");
	l->b.pool_cur = at(btf, "page_pool", "item_blk");
	l->b.pool_idx = at(btf, "page_pool", "item_blk_idx");
	l->b.list_next = at(btf, "list_head", "next");
	l->b.blk_list = at(btf, "page_pool_item_block", "list");
	l->b.blk_flags = at(btf, "page_pool_item_block", "flags");
	l->b.blk_ref = at(btf, "page_pool_item_block", "ref.refs.counter");
	l->b.blk_items = at(btf, "page_pool_item_block", "items");
	l->b.blk_pp = at(btf, "page_pool_item_block", "pp");
	l->b.item_netmem = at(btf, "page_pool_item", "pp_netmem");
	l->b.page_item = at(btf, "page", "pp_item");
}

int vmcore_layout_of(const struct btf *btf, struct vmcore_layout *l, char *why, size_t whylen)
{
	const struct btf_type *t;
	__u32 type = 0;
	int id;
	__s64 size;

	memset(l, 0, sizeof(*l));
	id = btf__find_by_name_kind(btf, "page_pool", BTF_KIND_STRUCT);
	size = id > 0 ? btf__resolve_size(btf, (__u32)id) : -1;
	if (size <= 0 || size > 64 * 1024) {
		snprintf(why, whylen,
			 "the kernel's BTF has no struct page_pool: a kernel without "
			 "page pools (CONFIG_PAGE_POOL)");
		return -ENOENT;
	}
	l->pool_size = (uint32_t)size;
	l->xa_head = at(btf, "xarray", "xa_head");
	l->xn_shift = at(btf, "xa_node", "shift");
	l->xn_slots = path_of(btf, "xa_node", "slots", &type);
	t = btf__type_by_id(btf, type);
	if (t && btf_is_array(t))
		l->xa_chunk = btf_array(t)->nelems;
	l->order = at(btf, "page_pool", "p.order");
	l->pool_size_param = at(btf, "page_pool", "p.pool_size");
	l->nid = at(btf, "page_pool", "p.nid");
	l->dev = at(btf, "page_pool", "p.dev");
	l->napi = at(btf, "page_pool", "p.napi");
	l->p_flags = at(btf, "page_pool", "p.flags");
	l->hold = at(btf, "page_pool", "pages_state_hold_cnt");
	l->release = at(btf, "page_pool", "pages_state_release_cnt.counter");
	l->dma_map = at(btf, "page_pool", "dma_map");
	l->dma_sync = at(btf, "page_pool", "dma_sync");
	l->destroy_cnt = at(btf, "page_pool", "destroy_cnt");
	l->user_cnt = at(btf, "page_pool", "user_cnt.refs.counter");
	l->defer_start = at(btf, "page_pool", "defer_start");
	l->netdev = at(btf, "page_pool", "slow.netdev");
	l->id = at(btf, "page_pool", "user.id");
	l->detach_time = path_of(btf, "page_pool", "user.detach_time", &type);
	l->detach_time_is_ns = vm_has(l->detach_time) && type_named(btf, type, "ktime_t");
	l->dma_mapped_head = at(btf, "page_pool", "dma_mapped.xa_head");
	l->xdp_mem_id = at(btf, "page_pool", "xdp_mem_id");
	l->mp_priv = at(btf, "page_pool", "mp_priv");
	if (btf__find_by_name_kind(btf, "page_pool_item", BTF_KIND_STRUCT) > 0)
		l->unmap = UNMAP_ITEM_BLOCKS;
	else if (vm_has(l->dma_mapped_head))
		l->unmap = UNMAP_XARRAY;
	else
		l->unmap = UNMAP_ON_RETURN;
	l->nd_name = at(btf, "net_device", "name");
	l->nd_ifindex = at(btf, "net_device", "ifindex");
	l->nd_net = at(btf, "net_device", "nd_net.net");
	l->nd_dev = at(btf, "net_device", "dev");
	l->net_inum = at(btf, "net", "ns.inum");
	l->net_cookie = at(btf, "net", "net_cookie");
	l->napi_id = at(btf, "napi_struct", "napi_id");
	l->dev_name = at(btf, "device", "kobj.name");
	l->dev_driver = at(btf, "device", "driver");
	l->dev_class = at(btf, "device", "class");
	l->dev_in_sysfs = at(btf, "device", "kobj.state_in_sysfs");
	l->dev_p = at(btf, "device", "p");
	l->devp_device = at(btf, "device_private", "device");
	l->drv_name = at(btf, "device_driver", "name");
	l->class_name = at(btf, "class", "name");
	l->tk_in_core = at(btf, "tk_data", "timekeeper");
	l->tk_core_off = core_timekeeper_off(btf);
	l->tk_mono_base = at(btf, "timekeeper", "tkr_mono.base");
	l->tk_offs_boot = at(btf, "timekeeper", "offs_boot");
	l->tk_xtime_sec = at(btf, "timekeeper", "xtime_sec");
	l->uts_nodename = at(btf, "uts_namespace", "name.nodename");
	l->uts_release = at(btf, "uts_namespace", "name.release");
	holders_layout(btf, l);
	blocks_layout(btf, l);
	/* the page_pools xarray (6.8 on), else the page scan (model/vmcore_walk.h) */
	if ((!vm_has(l->id) || !vm_has(l->xa_head) || !vm_has(l->xn_slots) || !l->xa_chunk) &&
	    (!vm_has(l->h.pp_magic) || !vm_has(l->h.pp) || !l->h.page_size)) {
		snprintf(why, whylen,
			 "the kernel's BTF has neither the page_pools xarray's types (6.8 on) nor "
			 "struct page's pp_magic and pp: no way to find its pools");
		return -ENOENT;
	}
	return 0;
}
