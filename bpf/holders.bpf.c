// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Who holds the pages: an on-demand scan with BPF iterators.
 *
 *   iter/tcp, iter/udp, iter/unix  every socket of the reader's network
 *                                  namespace (user space enters each one)
 *   iter/task_file                 which processes hold which sockets (fds),
 *                                  and the queues of sockets no protocol
 *                                  iterator reaches (packet, raw, ...)
 *   iter/task (first task only)    each pool's own cache, ring, frag page,
 *                                  and the per-CPU skb defer lists (scan_pools)
 *   iter/task (a socket per task)  the sockets in flight (scan_inflight)
 *
 * and, in queues.bpf.c, every namespace's qdiscs and fragment queues.
 *
 * For every skb on a socket's receive queues (and its frag_list), the head
 * page (when the head is a page fragment) and every frag is checked for the
 * page_pool signature; page_pool pages are written out with the pool they
 * belong to and, when the ledger has them, their hold time. User space
 * dedupes and attributes (cli/model/attrib.c). Walks are bpf_loop-bounded and a
 * queue longer than the bound is reported as truncated, never dropped
 * silently (skbwalk.bpf.h).
 *
 * This file defines the scan's maps and globals (scan.bpf.h); the pages of
 * each skb are found by skbscan.bpf.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>

#define PPW_DEFINE_SCAN
#include "scan.bpf.h"
#include "skbwalk.bpf.h"

#define PPW_TCP_CLOSE	     7
#define PPW_TCP_LISTEN	     10
#define PPW_TCP_TIME_WAIT    6
#define PPW_TCP_NEW_SYN_RECV 12
/* children walked from one listener's accept queue (more: truncated) */
#define PPW_MAX_ACCEPTQ 1024

/* user space resets it before each scan: one self-check record per scan */
__u32 check_done;
/* the vmemmap base the scan used, so user space can print pfns */
__u64 used_vmemmap;
/* the next entry of inflight_socks scan_inflight walks */
__u32 inflight_next;

/* a trusted pointer as a plain number: the verifier forbids arithmetic on it */
static __always_inline __u64 scalar_of(const void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &p);
	return v;
}

/* ---- sockets -------------------------------------------------------------------- */

static __always_inline void sock_identity(struct ppw_rec_sock *s, struct sock *sk)
{
	struct net *net = BPF_CORE_READ(sk, __sk_common.skc_net.net);
	struct socket *sock;

	s->sk = (__u64)sk;
	s->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	s->type = BPF_CORE_READ(sk, sk_type);
	s->protocol = BPF_CORE_READ(sk, sk_protocol);
	s->state = BPF_CORE_READ(sk, __sk_common.skc_state);
	/* sock_i_ino(): the socket's own inode (SOCK_INODE), a kernel socket's too (no file) */
	sock = BPF_CORE_READ(sk, sk_socket);
	if (sock)
		s->ino = BPF_CORE_READ(
			(struct inode *)((void *)sock +
					 bpf_core_field_offset(struct socket_alloc, vfs_inode) -
					 bpf_core_field_offset(struct socket_alloc, socket)),
			i_ino);
	s->rmem = BPF_CORE_READ(sk, sk_backlog.rmem_alloc.counter);
	if (net) {
		s->netns_ino = BPF_CORE_READ(net, ns.inum);
		s->netns_cookie = net_cookie_of(net);
	}
	if (s->family != PPW_AF_INET && s->family != PPW_AF_INET6)
		return;
	s->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	if (!s->lport) /* unhashed (a reset TCP socket): the bound port is still here */
		s->lport = bpf_ntohs(BPF_CORE_READ((struct inet_sock *)sk, inet_sport));
	s->rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (s->family == PPW_AF_INET) {
		bpf_probe_read_kernel(
			s->laddr, 4,
			(void *)sk + bpf_core_field_offset(struct sock, __sk_common.skc_rcv_saddr));
		bpf_probe_read_kernel(s->raddr, 4,
				      (void *)sk + bpf_core_field_offset(struct sock,
									 __sk_common.skc_daddr));
	} else if (bpf_core_field_exists(sk->__sk_common.skc_v6_daddr)) {
		bpf_probe_read_kernel(s->laddr, 16,
				      (void *)sk +
					      bpf_core_field_offset(struct sock,
								    __sk_common.skc_v6_rcv_saddr));
		bpf_probe_read_kernel(s->raddr, 16,
				      (void *)sk + bpf_core_field_offset(struct sock,
									 __sk_common.skc_v6_daddr));
	}
}

/*
 * Check virt_to_page() once per scan on a known slab object: the socket.
 * Its page must be a slab of the socket's own kmem_cache (sk_prot->slab).
 */
static __always_inline void pp_self_check(struct seq_file *seq, struct sock *sk)
{
	__u64 want = (__u64)BPF_CORE_READ(sk, __sk_common.skc_prot, slab), pg, cache;
	struct ppw_scan_rec *r;

	if (!seq || check_done || !want) /* (the accept queue's walk: its listener did it) */
		return;
	check_done = 1;
	r = scan_rec(PPW_REC_CHECK);
	if (!r)
		return;
	pg = virt_to_page_addr(scalar_of(sk));
	cache = pg ? slab_cache_of(page_compound_head(pg)) : 0;
	r->check.addr = (__u64)sk;
	r->check.page = pg;
	r->check.ok = cache == want;
	bpf_seq_write(seq, r, sizeof(*r));
}

/* a walked socket's record: a leaf, off the walk's deepest chain */
static __noinline int emit_sock(struct seq_file *seq, struct sock *sk, __u32 flags,
				struct pp_walk *w)
{
	struct ppw_scan_rec *r;

	pp_self_check(seq, sk);
	r = scan_rec(PPW_REC_SOCK);
	if (!r)
		return 0;
	sock_identity(&r->sock, sk);
	r->sock.flags = flags | (w->truncated ? PPW_SF_TRUNCATED : 0);
	if (BPF_CORE_READ(sk, __sk_common.skc_flags) &
	    (1UL << bpf_core_enum_value(enum sock_flags, SOCK_DEAD)))
		r->sock.flags |= PPW_SF_DEAD;
	/* what holds it when no process does: the kernel, an accept queue, a file without an fd */
	if (bpf_core_field_exists(sk->sk_kern_sock) &&
	    BPF_CORE_READ_BITFIELD_PROBED(sk, sk_kern_sock))
		r->sock.flags |= PPW_SF_KERNEL;
	if (!BPF_CORE_READ(sk, sk_socket))
		r->sock.flags |= PPW_SF_NO_SOCKET;
	else if (!BPF_CORE_READ(sk, sk_socket, file))
		r->sock.flags |= PPW_SF_NO_FILE;
	r->sock.hook = 0;
	if (r->sock.protocol == IPPROTO_UDP && bpf_core_type_exists(struct udp_sock))
		r->sock.hook = (__u64)BPF_CORE_READ((struct udp_sock *)sk, encap_rcv);
	if (!r->sock.hook)
		r->sock.hook = (__u64)BPF_CORE_READ(sk, sk_data_ready);
	r->sock.skbs = w->skbs;
	r->sock.nonpp_pages = w->nonpp;
	r->sock.unread = w->bytes;
	/* scan_inflight and an accept queue (no seq) walk many in one element */
	if (!seq || (flags & PPW_SF_IN_FLIGHT))
		emit_rec(r);
	else
		bpf_seq_write(seq, r, sizeof(*r));
	return 0;
}

/* one socket's queues: receive queue, UDP reader queue, TCP out-of-order tree */
static __always_inline int walk_sock_body(struct seq_file *seq, struct sock *sk, __u32 flags)
{
	struct pp_walk *w = walk_begin((__u64)sk);
	__u16 proto;

	if (!w)
		return 0;
	/* a unix socket's skbs may carry sockets' files: they are walked next */
	w->scm = BPF_CORE_READ(sk, __sk_common.skc_family) == PPW_AF_UNIX;
	walk_queue(w, &w, (__u64)sk + bpf_core_field_offset(struct sock, sk_receive_queue));
	w->scm = 0;
	proto = BPF_CORE_READ(sk, sk_protocol);
	if (proto == IPPROTO_UDP && bpf_core_type_exists(struct udp_sock)) {
		w->where = PPW_IN_READER;
		walk_queue(w, &w, (__u64)sk + bpf_core_field_offset(struct udp_sock, reader_queue));
	}
	if (proto == IPPROTO_TCP && bpf_core_type_exists(struct tcp_sock)) {
		w->where = PPW_IN_OOO;
		walk_from(w, &w,
			  (__u64)rb_leftmost(
				  BPF_CORE_READ((struct tcp_sock *)sk, out_of_order_queue.rb_node)),
			  PPW_LINK_RB, 0);
	}
	return emit_sock(seq, sk, flags, w);
}

static __noinline int walk_sock(struct seq_file *seq, struct sock *sk, __u32 flags)
{
	return walk_sock_body(seq, sk, flags);
}

/* request and timewait minisocks (TCP's: those of an IP family) have no queues */
static __always_inline bool sock_skip(struct sock *sk, __u8 state)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	return (family == PPW_AF_INET || family == PPW_AF_INET6) &&
	       (state == PPW_TCP_TIME_WAIT || state == PPW_TCP_NEW_SYN_RECV);
}

/* the accept queue acceptq_cb walks: its next struct request_sock, 0 at the end */
__u64 acceptq_next;

/*
 * One child of a listener's accept queue: the connections no accept() took
 * yet. One still open is in the established table and iter/tcp walks it
 * under its own lock; one its peer reset first is CLOSE, in no table, and
 * only its listener leads to it (its pages wait there until accept() or
 * the listener's close). The iterator holds the listener's lock
 * (PPW_ITER_LOCKED), so no accept() takes a child meanwhile, and a child
 * in CLOSE gets no more packets; softirq only appends at the tail. The
 * walk is inlined here (walk_sock_body) and its records go through the
 * ring (no seq_file): the chain stays five frames, as deep as the fd
 * walk's.
 */
static long acceptq_cb(__u64 i, void *data)
{
	struct request_sock *req = (void *)acceptq_next;
	struct sock *child;

	if (!req)
		return 1;
	if (scan_ring_busy()) { /* the rest of the queue is not walked */
		cnt_inc(PPW_CNT_SCAN_TRUNC);
		return 1;
	}
	acceptq_next = (__u64)BPF_CORE_READ(req, dl_next);
	if (acceptq_next && i == PPW_MAX_ACCEPTQ - 1) /* a longer queue */
		cnt_inc(PPW_CNT_SCAN_TRUNC);
	child = BPF_CORE_READ(req, sk);
	/* the child's own lock is not held: not PPW_SF_LOCKED */
	if (child && BPF_CORE_READ(child, __sk_common.skc_state) == PPW_TCP_CLOSE &&
	    first_walk(child))
		walk_sock_body(NULL, child, PPW_SF_ACCEPTQ);
	return 0;
}

/*
 * The protocol iterators run first, in every namespace: each walks its
 * sockets under the socket's lock where the kernel's iterator takes it
 * (core_fixes_scan.bpf.h: PPW_ITER_LOCKED), the orphans still hashed too
 * (FIN-WAIT, CLOSE-WAIT, LAST-ACK). The fd walk after them names each
 * socket's processes and walks only what no protocol iterator lists.
 */
SEC("iter/tcp")
int scan_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock *sk = (struct sock *)ctx->sk_common;
	__u8 state;

	if (!sk)
		return 0;
	/* (read once: each read is a slot of this frame, on the walk's deepest chain) */
	state = BPF_CORE_READ(sk, __sk_common.skc_state);
	if (sock_skip(sk, state) || !first_walk(sk))
		return 0;
	walk_sock(ctx->meta->seq, sk, PPW_ITER_LOCKED(bpf_tcp_iter_state___ppw));
	if (state != PPW_TCP_LISTEN)
		return 0;
	/* into the global, not a slot of this frame, which the bpf_loop the
	 * verifier inlines already grows by 24 bytes (after its stack check) */
	BPF_CORE_READ_INTO(&acceptq_next, (struct inet_connection_sock *)sk,
			   icsk_accept_queue.rskq_accept_head);
	if (acceptq_next)
		bpf_loop(PPW_MAX_ACCEPTQ, acceptq_cb, NULL, 0);
	return 0;
}

SEC("iter/udp")
int scan_udp(struct bpf_iter__udp *ctx)
{
	struct sock *sk = (struct sock *)ctx->udp_sk;

	if (!sk || !first_walk(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, PPW_ITER_LOCKED(bpf_udp_iter_state___ppw));
}

SEC("iter/unix")
int scan_unix(struct bpf_iter__unix *ctx)
{
	struct sock *sk = (struct sock *)ctx->unix_sk;

	if (!sk || !first_walk(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, PPW_ITER_LOCKED(bpf_unix_iter_state___ppw));
}

SEC("iter/task_file")
int scan_fds(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct ppw_scan_rec *r;
	struct socket *sock;
	struct sock *sk;

	if (!task || !file)
		return 0;
	if ((BPF_CORE_READ(file, f_inode, i_mode) & PPW_S_IFMT) != PPW_S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(file, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return 0;
	r = scan_rec(PPW_REC_OWNER);
	if (!r)
		return 0;
	/* every process that holds it, whoever walks it */
	r->owner.sk = (__u64)sk;
	r->owner.ino = BPF_CORE_READ(file, f_inode, i_ino);
	r->owner.pid = BPF_CORE_READ(task, pid);
	r->owner.tgid = BPF_CORE_READ(task, tgid);
	r->owner.fd = ctx->fd;
	BPF_CORE_READ_STR_INTO(&r->owner.comm, task, comm);
	bpf_seq_write(ctx->meta->seq, r, sizeof(*r));

	/* what no protocol iterator listed (packet, raw, a reset TCP socket: CLOSE
	 * and in no table; a namespace not entered): the first fd walks it, unlocked */
	if (!first_walk(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, PPW_SF_VIA_FD);
}

/* ---- sockets in flight -------------------------------------------------------- */

/*
 * Is the socket an skb carried, noted in an earlier run, still that socket,
 * held by that file? Its file is freed with RCU and its struct socket with
 * its inode, so their words can be read after; releasing the socket
 * clears sock->file and sock->sk, and memory used again for another
 * socket gives another inode number. All four must match.
 */
static __always_inline bool inflight_same(const struct ppw_inflight_ref *ref)
{
	struct file *f = (void *)ref->file;
	struct socket *sock = BPF_CORE_READ(f, private_data);

	return sock && (__u64)BPF_CORE_READ(sock, file) == ref->file &&
	       (__u64)BPF_CORE_READ(sock, sk) == ref->sk &&
	       BPF_CORE_READ(f, f_inode, i_ino) == ref->ino;
}

/*
 * The sockets whose files skbs carry, found while the unix sockets were
 * walked (their only reference may be the skb), checked again and walked
 * if no protocol iterator and no fd led to them: one per element (each
 * task) of a run, until the page ring is half full; user space drains it
 * and reads a fresh iterator while inflight_next < inflight_n (walking one
 * may add more: nested SCM_RIGHTS). A loop over them in one element would
 * be one call frame more on the socket walk's chain. One that is not the
 * same any more (received, closed, collected) is neither walked nor said
 * to be in flight, only counted (PPW_CNT_SCAN_GONE): its pages, if any,
 * stay unattributed.
 */
SEC("iter/task")
int scan_inflight(struct bpf_iter__task *ctx)
{
	__u32 i = inflight_next;
	struct ppw_inflight_ref *ref;
	struct ppw_scan_rec *r;

	if (!ctx->task || i >= inflight_n || scan_ring_busy())
		return 0;
	inflight_next = i + 1;
	ref = bpf_map_lookup_elem(&inflight_socks, &i);
	if (!ref || !ref->sk)
		return 0;
	if (!inflight_same(ref)) {
		cnt_inc(PPW_CNT_SCAN_GONE);
		return 0;
	}
	r = scan_rec(PPW_REC_INFLIGHT);
	if (r) {
		r->inflight.carrier = ref->carrier;
		r->inflight.sk = ref->sk;
		r->inflight.files = ref->files;
		emit_rec(r);
	}
	if (first_walk((struct sock *)ref->sk))
		walk_sock(ctx->meta->seq, (struct sock *)ref->sk, PPW_SF_IN_FLIGHT);
	return 0;
}

/* ---- each pool's own pages -------------------------------------------------- */

static __always_inline void pool_own_pages(struct page_pool *pool, struct ppw_rec_pool *out)
{
	__u32 prod, cons, size;
	__u64 queue, slot;

	out->alloc_count = BPF_CORE_READ(pool, alloc.count);
	out->frag_netmem = pool_frag_netmem(pool);
	if (pool_ring_count(pool, &out->ring_count))
		return;
	/* ptr_ring: entries live in [consumer_head, producer); full when equal and set */
	prod = BPF_CORE_READ(pool, ring.producer);
	cons = BPF_CORE_READ(pool, ring.consumer_head);
	size = BPF_CORE_READ(pool, ring.size);
	queue = (__u64)BPF_CORE_READ(pool, ring.queue);
	out->ring_size = size;
	if (!size || prod >= size || cons >= size)
		return;
	out->ring_count = (prod + size - cons) % size;
	if (!out->ring_count) {
		slot = read_u64(queue + (__u64)cons * sizeof(void *));
		if (slot)
			out->ring_count = size;
	}
}

/* discover.bpf.c: record a pool found some other way than its events */
extern int discover_pool(__u64 addr);

static long unknown_pool_cb(struct bpf_map *map, __u64 *key, __u8 *v, void *data)
{
	discover_pool(*key);
	return 0;
}

static long pool_cb(struct bpf_map *map, __u64 *key, struct ppw_pool *rec, void *data)
{
	struct ppw_scan_rec *r;
	struct page_pool *pool;

	if (rec->state == PPW_POOL_FREED)
		return 0;
	r = scan_rec(PPW_REC_POOL);
	if (!r)
		return 1;
	pool = (void *)*key;
	r->pool.pool = *key;
	r->pool.gen = rec->gen;
	pool_own_pages(pool, &r->pool);
	r->pool.hold = BPF_CORE_READ(pool, pages_state_hold_cnt);
	r->pool.release = BPF_CORE_READ(pool, pages_state_release_cnt.counter);
	/* every pool in one element: through the ring, not the seq_file (it held ~300) */
	emit_rec(r);
	return 0;
}

/* ---- per-CPU skb defer lists (core_fixes_scan.bpf.h: defer_list_head()) ------------ */

static long defer_cpu_cb(__u64 cpu, void *data)
{
	struct pp_walk *w = *(struct pp_walk **)data;
	struct ppw_scan_rec *r;
	__u32 node;

	if (!w || cpu >= cfg_nr_cpus)
		return 1;
	w->holder = cpu;
	w->skbs = 0;
	w->readable = 0;
	for (node = 0; node < PPW_MAX_NODES && node < cfg_nr_nodes; node++) {
		w->truncated = 0;
		walk_from(w, data, (__u64)defer_list_head(cpu, node, &w->readable), PPW_LINK_LIST,
			  0);
		if (w->truncated) /* more skbs than cfg_max_skbs */
			cnt_inc(PPW_CNT_SCAN_TRUNC);
	}
	r = scan_rec(PPW_REC_DEFER);
	if (!r)
		return 1;
	r->defer.cpu = cpu;
	r->defer.readable = w->readable;
	r->defer.skbs = w->skbs;
	emit_rec(r);
	return 0;
}

/*
 * One pass over the pool table (as an iter/task program that works on its
 * first task: iter/bpf_map_elem is not available everywhere), then the
 * per-CPU defer lists.
 */
SEC("iter/task")
int scan_pools(struct bpf_iter__task *ctx)
{
	struct pp_walk *w;

	if (!ctx->task || ctx->meta->seq_num > 0)
		return 0;
	used_vmemmap = layout_vmemmap();
	bpf_for_each_map_elem(&unknown_pools, unknown_pool_cb, NULL, 0);
	bpf_for_each_map_elem(&pools, pool_cb, NULL, 0);
	w = walk_begin(0);
	if (!w)
		return 0;
	w->where = PPW_IN_DEFER;
	bpf_loop(PPW_MAX_CPUS, defer_cpu_cb, &w, 0);
	if (cfg_nr_cpus > PPW_MAX_CPUS) /* the CPUs past the bound are not walked */
		cnt_add(PPW_CNT_SCAN_TRUNC, cfg_nr_cpus - PPW_MAX_CPUS);
	return 0;
}
