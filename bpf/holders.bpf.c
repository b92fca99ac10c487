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
 *                                  and the per-CPU skb defer lists (scan_pools);
 *                                  the sockets in flight (scan_inflight); every
 *                                  namespace's qdiscs and fragment queues
 *                                  (scan_queues, queues.bpf.h)
 *
 * For every skb on a socket's receive queues (and its frag_list), the head
 * page (when the head is a page fragment) and every frag is checked for the
 * page_pool signature; page_pool pages are written out with the pool they
 * belong to and, when the ledger has them, their hold time. User space
 * dedupes and attributes (cli/model/attrib.c). Walks are bpf_loop-bounded and a
 * queue longer than the bound is reported as truncated, never dropped
 * silently.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>

#include "maps.bpf.h"
#include "core_fixes.bpf.h"
#include "holders.bpf.h"
#include "queues.bpf.h"

#define PPW_TCP_TIME_WAIT    6
#define PPW_TCP_NEW_SYN_RECV 12

static __noinline int walk_sock(struct seq_file *seq, struct sock *sk, __u32 flags);

static __always_inline bool sock_skip(struct sock *sk)
{
	__u8 state = BPF_CORE_READ(sk, __sk_common.skc_state);
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	/* request and timewait minisocks have no queues */
	return (family == PPW_AF_INET || family == PPW_AF_INET6) &&
	       (state == PPW_TCP_TIME_WAIT || state == PPW_TCP_NEW_SYN_RECV);
}

/*
 * The protocol iterators run after the fd walk: they add the sockets no
 * process holds (orphans still hashed: FIN-WAIT, CLOSE-WAIT, LAST-ACK), and
 * skip the ones an fd led to already.
 */
SEC("iter/tcp")
int scan_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock *sk = (struct sock *)ctx->sk_common;

	if (!sk || sock_skip(sk) || !first_walk(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, 0);
}

SEC("iter/udp")
int scan_udp(struct bpf_iter__udp *ctx)
{
	struct sock *sk = (struct sock *)ctx->udp_sk;

	if (!sk || !first_walk(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, 0);
}

SEC("iter/unix")
int scan_unix(struct bpf_iter__unix *ctx)
{
	struct sock *sk = (struct sock *)ctx->unix_sk;

	if (!sk || !first_walk(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, 0);
}

SEC("iter/task_file")
int scan_fds(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct ppw_scan_rec *r;
	struct socket *sock;
	struct sock *sk;
	__u32 zero = 0;

	if (!task || !file)
		return 0;
	if ((BPF_CORE_READ(file, f_inode, i_mode) & PPW_S_IFMT) != PPW_S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(file, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return 0;
	r = bpf_map_lookup_elem(&scan_scratch, &zero);
	if (!r)
		return 0;
	__builtin_memset(r, 0, sizeof(*r));
	r->type = PPW_REC_OWNER; /* every process that holds it, whoever walks it */
	r->owner.sk = (__u64)sk;
	r->owner.ino = BPF_CORE_READ(file, f_inode, i_ino);
	r->owner.pid = BPF_CORE_READ(task, pid);
	r->owner.tgid = BPF_CORE_READ(task, tgid);
	r->owner.fd = ctx->fd;
	BPF_CORE_READ_STR_INTO(&r->owner.comm, task, comm);
	bpf_seq_write(ctx->meta->seq, r, sizeof(*r));

	/* any socket, in any state, hashed or not (a reset TCP socket is CLOSE and
	 * in no table): the first fd that leads to it walks it */
	if (!first_walk(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, PPW_SF_VIA_FD);
}

/* ---- walking one socket's queues -------------------------------------------- */

static __always_inline void sock_identity(struct ppw_rec_sock *s, struct sock *sk)
{
	struct net *net = BPF_CORE_READ(sk, __sk_common.skc_net.net);

	s->sk = (__u64)sk;
	s->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	s->type = BPF_CORE_READ(sk, sk_type);
	s->protocol = BPF_CORE_READ(sk, sk_protocol);
	s->state = BPF_CORE_READ(sk, __sk_common.skc_state);
	s->ino = BPF_CORE_READ(sk, sk_socket, file, f_inode, i_ino);
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

static __noinline int walk_sock(struct seq_file *seq, struct sock *sk, __u32 flags)
{
	struct ppw_scan_rec *r;
	struct pp_walk w = {};
	__u32 zero = 0;
	__u16 proto;

	w.seq = seq;
	w.holder = (__u64)sk;
	/* a unix socket's skbs may carry sockets' files: they are walked next */
	w.scm = BPF_CORE_READ(sk, __sk_common.skc_family) == PPW_AF_UNIX;

	pp_self_check(seq, sk);
	walk_queue(&w, (void *)sk + bpf_core_field_offset(struct sock, sk_receive_queue), 0);
	w.scm = 0;
	proto = BPF_CORE_READ(sk, sk_protocol);
	if (proto == IPPROTO_UDP && bpf_core_type_exists(struct udp_sock)) {
		struct udp_sock *up = (void *)sk;

		walk_queue(&w, (void *)up + bpf_core_field_offset(struct udp_sock, reader_queue),
			   PPW_IN_READER);
	}
	if (proto == IPPROTO_TCP && bpf_core_type_exists(struct tcp_sock))
		walk_ooo(&w, (struct tcp_sock *)sk);

	r = bpf_map_lookup_elem(&scan_scratch, &zero);
	if (!r)
		return 0;
	__builtin_memset(r, 0, sizeof(*r));
	r->type = PPW_REC_SOCK;
	sock_identity(&r->sock, sk);
	r->sock.flags = flags | (w.truncated ? PPW_SF_TRUNCATED : 0);
	if (BPF_CORE_READ(sk, __sk_common.skc_flags) &
	    (1UL << bpf_core_enum_value(enum sock_flags, SOCK_DEAD)))
		r->sock.flags |= PPW_SF_DEAD;
	r->sock.skbs = w.skbs;
	r->sock.nonpp_pages = w.nonpp;
	r->sock.unread = w.bytes;
	if (flags & PPW_SF_IN_FLIGHT) /* scan_inflight walks them all in one element */
		emit_rec(r);
	else
		bpf_seq_write(seq, r, sizeof(*r));
	return 0;
}

/* ---- each pool's own pages -------------------------------------------------- */

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
	__u32 zero = 0;

	if (rec->state == PPW_POOL_FREED)
		return 0;
	r = bpf_map_lookup_elem(&scan_scratch, &zero);
	if (!r)
		return 1;
	__builtin_memset(r, 0, sizeof(*r));
	pool = (void *)*key;
	r->type = PPW_REC_POOL;
	r->pool.pool = *key;
	r->pool.gen = rec->gen;
	pool_own_pages(pool, &r->pool);
	r->pool.hold = BPF_CORE_READ(pool, pages_state_hold_cnt);
	r->pool.release = BPF_CORE_READ(pool, pages_state_release_cnt.counter);
	/* every pool in one element: through the ring, not the seq_file (it held ~300) */
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
	if (!ctx->task || ctx->meta->seq_num > 0)
		return 0;
	used_vmemmap = layout_vmemmap();
	bpf_for_each_map_elem(&unknown_pools, unknown_pool_cb, NULL, 0);
	bpf_for_each_map_elem(&pools, pool_cb, NULL, 0);
	scan_defer_lists(ctx->meta->seq);
	return 0;
}

/* ---- sockets in flight -------------------------------------------------------- */

struct inflight_walk {
	struct seq_file *seq;
};

static long inflight_cb(__u64 i, void *data)
{
	struct inflight_walk *iw = data;
	struct seq_file *seq = iw->seq;
	__u32 k = i;
	__u64 *sk;

	if (i >= inflight_n) /* walking one may add more: nested SCM_RIGHTS */
		return 1;
	sk = bpf_map_lookup_elem(&inflight_socks, &k);
	if (sk && *sk && first_walk((struct sock *)*sk))
		walk_sock(seq, (struct sock *)*sk, PPW_SF_IN_FLIGHT);
	return 0;
}

/*
 * The sockets whose files skbs carry, found while the unix sockets were
 * walked, that no fd and no protocol iterator led to: their only reference
 * is the skb. The skb holds the file, so the socket outlives this walk.
 */
SEC("iter/task")
int scan_inflight(struct bpf_iter__task *ctx)
{
	struct inflight_walk iw;

	if (!ctx->task || ctx->meta->seq_num > 0)
		return 0;
	iw.seq = ctx->meta->seq;
	bpf_loop(PPW_MAX_INFLIGHT, inflight_cb, &iw, 0);
	return 0;
}

/*
 * Queues outside sockets (queues.bpf.h): every namespace's qdiscs and
 * fragment reassembly queues, listed in one element...
 */
SEC("iter/task")
int scan_queues(struct bpf_iter__task *ctx)
{
	if (!ctx->task || ctx->meta->seq_num > 0)
		return 0;
	queue_n = 0;
	list_all_queues();
	return 0;
}

/*
 * ...then walked, the next entry of the list in each element (each task) of
 * a run, until the page ring is half full: user space drains it and reads
 * a fresh iterator while qobj_next < queue_n. In a loop in one element, the
 * queue walks would be one call frame too deep for the verifier, and
 * iter/bpf_map_elem is refused on some kernels (EPERM on this build host).
 */
__u32 qobj_next;

SEC("iter/task")
int scan_qobj(struct bpf_iter__task *ctx)
{
	__u32 i = qobj_next;
	struct ppw_qobj *o;
	__u64 used;

	if (!ctx->task || i >= queue_n)
		return 0;
	used = bpf_ringbuf_query(&scan_events, BPF_RB_AVAIL_DATA);
	if (used && used > bpf_ringbuf_query(&scan_events, BPF_RB_RING_SIZE) / 2)
		return 0; /* the next run goes on, after user space drained the ring */
	o = bpf_map_lookup_elem(&queue_objs, &i);
	if (o)
		scan_qobj_one(o);
	qobj_next = i + 1;
	return 0;
}
