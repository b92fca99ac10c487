// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/addr_set.h"
#include "lib/vec.h"
#include "model/vmcore_holders.h"
#include "model/vmcore_read.h"

#define AF_INET_     2
#define AF_INET6_    10
#define SOCK_DGRAM_  2
#define IPPROTO_UDP_ 17
#define FD_CHUNK     512

struct hwalk {
	struct kmem *m;
	const struct vmcore_layout *l;
	const struct vmcore_haddrs *a;
	const struct reading *rd;
	struct scan_result *out;
	struct vmcore_hstats *st;
	struct addr_set seen; /* the sockets walked */
	/* the socket being walked */
	uint64_t sk;
	struct ppw_rec_sock *rec;
	int err; /* -ENOMEM only: the rest is counted */
};

static void cut(struct hwalk *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cut(struct hwalk *h, const char *fmt, ...)
{
	va_list ap;

	h->st->cut++;
	if (h->st->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(h->st->why, sizeof(h->st->why), fmt, ap);
	va_end(ap);
}

/*
 * Brent's cycle check on a list walk: a damaged dump's list that loops
 * without coming back to its head is seen within twice its length, not
 * at the walk's bound
 */
struct loopcheck {
	uint64_t mark;
	uint32_t power, steps;
};

static bool looped(struct loopcheck *c, uint64_t p)
{
	if (p == c->mark)
		return true;
	if (++c->steps == c->power) {
		c->mark = p;
		c->power = c->power ? 2 * c->power : 1;
		c->steps = 0;
	}
	return false;
}

static int rd_u64(struct hwalk *h, uint64_t addr, uint64_t *v)
{
	return kmem_u64(h->m, addr, v);
}

/* a member that may be a bitfield, 0 when it cannot be read */
static uint64_t get(struct hwalk *h, uint64_t base, struct vm_field f)
{
	uint64_t v = 0;

	return vm_read_bits(h->m, base, f, &v) ? 0 : v;
}

/* first time this socket is seen: true (and it is remembered) */
static bool first_sighting(struct hwalk *h, uint64_t sk)
{
	int r = addr_set_add(&h->seen, sk);

	if (r < 0)
		h->err = r;
	return r > 0;
}

/* the dump's pool at addr (the reading is sorted by address: model/vmcore_walk.c) */
static bool is_pool(const struct reading *rd, uint64_t addr)
{
	size_t lo = 0, hi = rd->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t a = rd->pools[mid].rec.addr;

		if (a == addr)
			return true;
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* struct page of a direct-map address, 0 if it is not one */
static uint64_t virt_to_page(struct hwalk *h, uint64_t va)
{
	if (va < h->a->page_offset)
		return 0;
	return h->a->vmemmap + ((va - h->a->page_offset) >> h->a->page_shift) * h->l->h.page_size;
}

/*
 * the head page of pg: compound_head (or 7.1's compound_info) holds the
 * head + 1, or, where compound_info_has_mask(), a mask with bit 0 set
 * that the tail's own address is ANDed with (ones from bit 63 down, then
 * zeros: never a head's address + 1), as bpf/core_fixes_scan.bpf.h decodes
 */
static uint64_t compound_head(struct hwalk *h, uint64_t pg)
{
	uint64_t info, low;

	if (vm_read_field(h->m, pg, h->l->h.compound_head, &info) || !(info & 1))
		return pg;
	low = ~(info & ~1ULL);
	if (!(low & (low + 1)))
		return pg & info;
	return info - 1;
}

/*
 * The pool of struct page (or net_iov) pg: page->pp, or with the item-block
 * series page->pp_item, whose page-aligned block starts with the pool
 * (page_pool_item_to_block(); bpf/core_fixes.bpf.h, 7): 0 when none.
 */
static uint64_t pool_of(struct hwalk *h, uint64_t pg)
{
	const struct vmcore_layout *l = h->l;
	uint64_t v = 0;

	if (vm_has(l->h.pp))
		return vm_read_field(h->m, pg, l->h.pp, &v) ? 0 : v;
	if (vm_read_field(h->m, pg, l->b.page_item, &v) || !KERNEL_PTR(v))
		return 0;
	v &= ~((1ULL << h->a->page_shift) - 1);
	return vm_read_field(h->m, v, l->b.blk_pp, &v) ? 0 : v;
}

/* one netmem (a struct page, or a net_iov with bit 0 set) of the socket being walked */
static void emit(struct hwalk *h, uint64_t netmem, uint32_t where)
{
	uint64_t pg = netmem & ~1ULL, pool;
	struct ppw_rec_page *r;

	if (!KERNEL_PTR(pg))
		return;
	if (!(netmem & 1))
		pg = compound_head(h, pg);
	pool = pool_of(h, pg);
	if (!pool || !is_pool(h->rd, pool)) {
		h->st->nonpp++;
		h->rec->nonpp_pages++;
		return;
	}
	r = VEC_PUSH(h->out->pages, h->out->npages, h->out->cappages);
	if (!r) {
		h->err = -ENOMEM;
		return;
	}
	r->holder = h->sk;
	r->netmem = netmem & 1 ? netmem : pg;
	r->pool = pool;
	r->where = where;
	r->stack_id = -1;
	h->st->pages++;
}

/* an skb's head page and frags; its frag_list's when it is not on one itself */
static void scan_skb(struct hwalk *h, uint64_t skb, uint32_t where, bool in_fraglist)
{
	const struct vmcore_layout *l = h->l;
	uint64_t head, end, shinfo, nr, netmem, fl;
	struct loopcheck lc = { .power = 1 };
	unsigned i;

	h->st->skbs++;
	h->rec->skbs++;
	if (!in_fraglist)
		h->rec->unread += (uint32_t)get(h, skb, l->h.skb_len);
	if (vm_read_field(h->m, skb, l->h.skb_head, &head) || !KERNEL_PTR(head) ||
	    vm_read_field(h->m, skb, l->h.skb_end, &end)) {
		cut(h, "an skb at %#llx is not in the dump", (unsigned long long)skb);
		return;
	}
	/* sk_buff_data_t: an offset from head on 64-bit kernels, a pointer otherwise */
	shinfo = l->h.skb_end.size == 8 ? end : head + end;
	if (get(h, skb, l->h.head_frag))
		emit(h, virt_to_page(h, head),
		     where		 ?:
			     in_fraglist ? PPW_IN_FRAGLIST :
					   PPW_IN_HEAD);
	nr = get(h, shinfo, l->h.nr_frags);
	if (nr > VH_MAX_FRAGS) {
		cut(h, "an skb at %#llx has %llu frags", (unsigned long long)skb,
		    (unsigned long long)nr);
		nr = 0;
	}
	for (i = 0; i < nr && !h->err; i++) {
		uint64_t at = shinfo + vm_off(l->h.frags) + (uint64_t)i * l->h.frag_size;

		if (!vm_read_field(h->m, at, l->h.frag_page, &netmem) && netmem)
			emit(h, netmem, where ?: in_fraglist ? PPW_IN_FRAGLIST : PPW_IN_FRAG);
	}
	if (in_fraglist || vm_read_field(h->m, shinfo, l->h.frag_list, &fl))
		return;
	for (i = 0; KERNEL_PTR(fl) && !h->err; i++) {
		if (looped(&lc, fl)) {
			cut(h, "a frag_list that loops");
			h->rec->flags |= PPW_SF_TRUNCATED;
			return;
		}
		if (i == VH_MAX_FRAGLIST) {
			cut(h, "a frag_list longer than %u skbs", VH_MAX_FRAGLIST);
			h->rec->flags |= PPW_SF_TRUNCATED;
			return;
		}
		scan_skb(h, fl, where, true);
		if (vm_read_field(h->m, fl, l->h.skb_next, &fl))
			return;
	}
}

/* the skbs of a queue (struct sk_buff_head at q: next at sk_buff's own offset) */
static void scan_queue(struct hwalk *h, uint64_t q, uint32_t where)
{
	struct loopcheck lc = { .power = 1 };
	uint64_t skb;
	uint32_t n = 0;

	if (vm_read_field(h->m, q, h->l->h.skb_next, &skb))
		return;
	while (skb != q && !h->err) {
		if (!KERNEL_PTR(skb) || n++ == VH_MAX_SKBS || looped(&lc, skb)) {
			cut(h, "socket %#llx: a queue %s", (unsigned long long)h->sk,
			    !KERNEL_PTR(skb) ? "with a bad pointer" :
			    n > VH_MAX_SKBS  ? "longer than the bound" :
					       "that loops");
			h->rec->flags |= PPW_SF_TRUNCATED;
			return;
		}
		scan_skb(h, skb, where, false);
		if (vm_read_field(h->m, skb, h->l->h.skb_next, &skb)) {
			cut(h, "an skb at %#llx is not in the dump", (unsigned long long)skb);
			return;
		}
	}
}

static void walk_sock(struct hwalk *h, uint64_t sk, uint32_t ino)
{
	const struct vmcore_layout *l = h->l;
	struct ppw_rec_sock *r;
	uint64_t net, v;

	r = VEC_PUSH(h->out->socks, h->out->nsocks, h->out->capsocks);
	if (!r) {
		h->err = -ENOMEM;
		return;
	}
	h->st->sockets++;
	h->sk = sk;
	h->rec = r;
	r->sk = sk;
	r->ino = ino;
	r->flags = PPW_SF_VIA_FD;
	r->family = (uint16_t)get(h, sk, l->h.family);
	r->state = (uint16_t)get(h, sk, l->h.state);
	r->lport = (uint16_t)get(h, sk, l->h.num);
	v = get(h, sk, l->h.dport);
	r->rport = (uint16_t)((v & 0xff) << 8 | (v >> 8 & 0xff)); /* to host order */
	r->type = (uint16_t)get(h, sk, l->h.type);
	r->protocol = (uint16_t)get(h, sk, l->h.protocol);
	r->rmem = (uint32_t)get(h, sk, l->h.rmem);
	if (r->family == AF_INET_) {
		kmem_read(h->m, sk + vm_off(l->h.rcv_saddr), r->laddr, 4);
		kmem_read(h->m, sk + vm_off(l->h.daddr), r->raddr, 4);
	} else if (r->family == AF_INET6_ && vm_has(l->h.v6_rcv_saddr)) {
		kmem_read(h->m, sk + vm_off(l->h.v6_rcv_saddr), r->laddr, 16);
		kmem_read(h->m, sk + vm_off(l->h.v6_daddr), r->raddr, 16);
	}
	if (!vm_read_field(h->m, sk, l->h.net, &net) && KERNEL_PTR(net)) {
		if (!vm_read_field(h->m, net, l->net_inum, &v))
			r->netns_ino = (uint32_t)v;
		if (!vm_read_field(h->m, net, l->net_cookie, &v))
			r->netns_cookie = v;
	}
	if (vm_has(l->h.rcvq))
		scan_queue(h, sk + vm_off(l->h.rcvq), 0);
	if (vm_has(l->h.reader_q) && r->protocol == IPPROTO_UDP_ && r->type == SOCK_DGRAM_ &&
	    (r->family == AF_INET_ || r->family == AF_INET6_))
		scan_queue(h, sk + vm_off(l->h.reader_q), PPW_IN_READER);
}

/* one file of a process: a socket's owner, and the socket walked once */
static void one_file(struct hwalk *h, uint64_t file, uint32_t pid, uint32_t tgid, uint32_t fd,
		     const char *comm)
{
	const struct vmcore_layout *l = h->l;
	uint64_t fop, sock, sk, inode, ino = 0;
	struct ppw_rec_owner *o;

	if (vm_read_field(h->m, file, l->h.f_op, &fop) || fop != h->a->socket_file_ops)
		return;
	if (vm_read_field(h->m, file, l->h.private_data, &sock) || !KERNEL_PTR(sock) ||
	    vm_read_field(h->m, sock, l->h.sock_sk, &sk) || !KERNEL_PTR(sk))
		return;
	if (!vm_read_field(h->m, file, l->h.f_inode, &inode) && KERNEL_PTR(inode))
		vm_read_field(h->m, inode, l->h.i_ino, &ino);
	o = VEC_PUSH(h->out->owners, h->out->nowners, h->out->capowners);
	if (!o) {
		h->err = -ENOMEM;
		return;
	}
	o->sk = sk;
	o->ino = (uint32_t)ino;
	o->pid = pid;
	o->tgid = tgid;
	o->fd = fd;
	memcpy(o->comm, comm, sizeof(o->comm));
	if (first_sighting(h, sk))
		walk_sock(h, sk, (uint32_t)ino);
}

static void one_task(struct hwalk *h, uint64_t task)
{
	const struct vmcore_layout *l = h->l;
	uint64_t files, fdt, max, arr, chunk[FD_CHUNK];
	uint32_t pid, tgid, i, j, n;
	char comm[16] = { 0 };

	h->st->tasks++;
	pid = (uint32_t)get(h, task, l->h.pid);
	tgid = (uint32_t)get(h, task, l->h.tgid);
	kmem_read(h->m, task + vm_off(l->h.comm), comm, sizeof(comm) - 1);
	if (vm_read_field(h->m, task, l->h.files, &files) || !KERNEL_PTR(files) ||
	    vm_read_field(h->m, files, l->h.fdt, &fdt) || !KERNEL_PTR(fdt) ||
	    vm_read_field(h->m, fdt, l->h.max_fds, &max) ||
	    vm_read_field(h->m, fdt, l->h.fd, &arr) || !KERNEL_PTR(arr))
		return;
	if (max > VH_MAX_FDS) {
		cut(h, "pid %u has %llu fds: the first %u walked", pid, (unsigned long long)max,
		    VH_MAX_FDS);
		max = VH_MAX_FDS;
	}
	for (i = 0; i < max && !h->err; i += n) {
		n = max - i < FD_CHUNK ? (uint32_t)(max - i) : FD_CHUNK;
		if (kmem_read(h->m, arr + (uint64_t)i * 8, chunk, (size_t)n * 8)) {
			cut(h, "pid %u: its fd table is not in the dump", pid);
			return;
		}
		for (j = 0; j < n && !h->err; j++) {
			if (!KERNEL_PTR(chunk[j]))
				continue;
			h->st->fds++;
			one_file(h, chunk[j], pid, tgid, i + j, comm);
		}
	}
}

/*
 * each pool's own pages, as bpf/holders.bpf.c's pool_own_pages() reads
 * them: its alloc cache's count, its ptr_ring's entries (between
 * consumer_head and producer; full when they meet on a set slot) or the
 * item-block series' ring count, the page it hands out in fragments
 */
static void pool_records(struct hwalk *h)
{
	const struct vmcore_layout *l = h->l;
	size_t i;

	for (i = 0; i < h->rd->n && !h->err; i++) {
		const struct ppw_pool *p = &h->rd->pools[i].rec;
		uint64_t a = p->addr, prod, cons, size, queue, slot, v;
		struct ppw_rec_pool *r = VEC_PUSH(h->out->pools, h->out->npools, h->out->cappools);

		if (!r) {
			h->err = -ENOMEM;
			return;
		}
		r->pool = a;
		r->gen = p->gen;
		r->hold = (uint32_t)p->hold_cnt;
		r->release = (uint32_t)p->release_cnt;
		r->alloc_count = (uint32_t)get(h, a, l->h.alloc_count);
		if (!vm_read_field(h->m, a, l->h.frag_pg, &v) && KERNEL_PTR(v & ~1ULL))
			r->frag_netmem = (v & 1) ? v : compound_head(h, v);
		if (vm_has(l->h.ring_count)) {
			r->ring_count = (uint32_t)get(h, a, l->h.ring_count);
			continue;
		}
		prod = get(h, a, l->h.ring_prod);
		cons = get(h, a, l->h.ring_cons);
		size = get(h, a, l->h.ring_size);
		r->ring_size = (uint32_t)size;
		if (!size || prod >= size || cons >= size ||
		    vm_read_field(h->m, a, l->h.ring_queue, &queue))
			continue;
		r->ring_count = (uint32_t)((prod + size - cons) % size);
		if (!r->ring_count && !kmem_u64(h->m, queue + cons * 8, &slot) && slot)
			r->ring_count = (uint32_t)size;
	}
}

/* what the walk needs of the layout and the symbols: NULL, or what is missing */
static const char *missing(const struct vmcore_layout *l, const struct vmcore_haddrs *a)
{
	if (!a->init_task)
		return "the symbol init_task";
	if (!a->socket_file_ops)
		return "the symbol socket_file_ops";
	if (!a->page_offset || !a->vmemmap || !a->page_shift)
		return "the direct map (page_offset_base, VMCOREINFO's vmemmap)";
	if (!vm_has(l->h.tasks) || !vm_has(l->h.files) || !vm_has(l->h.fdt) ||
	    !vm_has(l->h.max_fds) || !vm_has(l->h.fd) || !vm_has(l->h.f_op) ||
	    !vm_has(l->h.private_data) || !vm_has(l->h.sock_sk))
		return "a process's files in the kernel's BTF";
	if (!vm_has(l->h.rcvq) || !vm_has(l->h.skb_next) || !vm_has(l->h.skb_head) ||
	    !vm_has(l->h.skb_end) || !vm_has(l->h.nr_frags) || !vm_has(l->h.frags) ||
	    !vm_has(l->h.frag_page) || !l->h.frag_size)
		return "struct sk_buff's members in the kernel's BTF";
	if ((!vm_has(l->h.pp) && (!vm_has(l->b.page_item) || !vm_has(l->b.blk_pp))) ||
	    !vm_has(l->h.compound_head) || !l->h.page_size)
		return "struct page's pp (or pp_item) in the kernel's BTF";
	return NULL;
}

int vmcore_holders(struct kmem *m, const struct vmcore_layout *l, const struct vmcore_haddrs *a,
		   const struct reading *rd, struct scan_result *out, struct vmcore_hstats *st)
{
	struct hwalk h = { .m = m, .l = l, .a = a, .rd = rd, .out = out, .st = st };
	struct loopcheck lc = { .power = 1 };
	uint64_t head, p;
	const char *no;
	uint32_t n = 0;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(*st));
	no = missing(l, a);
	if (no) {
		snprintf(st->why, sizeof(st->why), "no holder walk: %s is not known", no);
		return 0;
	}
	st->walked = true;
	pool_records(&h);
	head = a->init_task + vm_off(l->h.tasks);
	if (rd_u64(&h, head, &p)) {
		snprintf(st->why, sizeof(st->why),
			 "init_task's list of processes is not in the dump");
		st->walked = false;
		return 0;
	}
	while (p != head && !h.err) {
		if (!KERNEL_PTR(p) || n++ == VH_MAX_TASKS || looped(&lc, p)) {
			cut(&h, "the list of processes %s",
			    !KERNEL_PTR(p)   ? "has a bad pointer" :
			    n > VH_MAX_TASKS ? "is longer than the bound" :
					       "loops");
			break;
		}
		one_task(&h, p - vm_off(l->h.tasks));
		if (rd_u64(&h, p, &p)) {
			cut(&h, "a process at %#llx is not in the dump",
			    (unsigned long long)(p - vm_off(l->h.tasks)));
			break;
		}
	}
	addr_set_free(&h.seen);
	if (h.err)
		scan_free(out);
	return h.err;
}
