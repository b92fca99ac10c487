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
 *                                  and the per-CPU skb defer lists
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

#define PPW_AF_UNIX	     1
#define PPW_AF_INET	     2
#define PPW_AF_INET6	     10
#define PPW_S_IFMT	     00170000
#define PPW_S_IFSOCK	     0140000
#define PPW_TCP_TIME_WAIT    6
#define PPW_TCP_NEW_SYN_RECV 12

/* sockets already walked through a process's fd (shared fds, dup, fork) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} fd_walked SEC(".maps");

static __noinline int walk_sock(struct seq_file *seq, struct sock *sk, __u32 flags);

static __always_inline bool sock_skip(struct sock *sk)
{
	__u8 state = BPF_CORE_READ(sk, __sk_common.skc_state);
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	/* request and timewait minisocks have no queues */
	return (family == PPW_AF_INET || family == PPW_AF_INET6) &&
	       (state == PPW_TCP_TIME_WAIT || state == PPW_TCP_NEW_SYN_RECV);
}

SEC("iter/tcp")
int scan_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock *sk = (struct sock *)ctx->sk_common;

	if (!sk || sock_skip(sk))
		return 0;
	return walk_sock(ctx->meta->seq, sk, 0);
}

SEC("iter/udp")
int scan_udp(struct bpf_iter__udp *ctx)
{
	struct udp_sock *up = ctx->udp_sk;

	if (!up)
		return 0;
	return walk_sock(ctx->meta->seq, (struct sock *)up, 0);
}

SEC("iter/unix")
int scan_unix(struct bpf_iter__unix *ctx)
{
	struct unix_sock *us = ctx->unix_sk;

	if (!us)
		return 0;
	return walk_sock(ctx->meta->seq, (struct sock *)us, 0);
}

/* Sockets the protocol iterators cover: TCP and UDP over IP, and AF_UNIX. */
static __always_inline bool has_iterator(struct sock *sk)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	__u16 proto = BPF_CORE_READ(sk, sk_protocol);
	__u16 type = BPF_CORE_READ(sk, sk_type);

	if (family == PPW_AF_UNIX)
		return true;
	if (family != PPW_AF_INET && family != PPW_AF_INET6)
		return false;
	return (proto == IPPROTO_TCP && type == SOCK_STREAM) ||
	       (proto == IPPROTO_UDP && type == SOCK_DGRAM);
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
	__u64 key;
	__u8 one = 1;

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
	r->type = PPW_REC_OWNER;
	r->owner.sk = (__u64)sk;
	r->owner.ino = BPF_CORE_READ(file, f_inode, i_ino);
	r->owner.pid = BPF_CORE_READ(task, pid);
	r->owner.tgid = BPF_CORE_READ(task, tgid);
	r->owner.fd = ctx->fd;
	BPF_CORE_READ_STR_INTO(&r->owner.comm, task, comm);
	bpf_seq_write(ctx->meta->seq, r, sizeof(*r));

	if (has_iterator(sk))
		return 0;
	key = (__u64)sk;
	if (bpf_map_update_elem(&fd_walked, &key, &one, BPF_NOEXIST))
		return 0; /* walked already, or the table is full */
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
		if (bpf_core_field_exists(net->net_cookie))
			s->netns_cookie = BPF_CORE_READ(net, net_cookie);
	}
	if (s->family != PPW_AF_INET && s->family != PPW_AF_INET6)
		return;
	s->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
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

	pp_self_check(seq, sk);
	walk_queue(&w, (void *)sk + bpf_core_field_offset(struct sock, sk_receive_queue), 0);
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
	r->sock.skbs = w.skbs;
	r->sock.nonpp_pages = w.nonpp;
	bpf_seq_write(seq, r, sizeof(*r));
	return 0;
}

/* ---- each pool's own pages -------------------------------------------------- */

struct pools_walk {
	struct seq_file *seq;
};

static long pool_cb(struct bpf_map *map, __u64 *key, struct ppw_pool *rec, void *data)
{
	struct pools_walk *pw = data;
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
	bpf_seq_write(pw->seq, r, sizeof(*r));
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
	struct pools_walk pw = { .seq = ctx->meta->seq };

	if (!ctx->task || ctx->meta->seq_num > 0)
		return 0;
	used_vmemmap = layout_vmemmap();
	bpf_for_each_map_elem(&pools, pool_cb, &pw, 0);
	scan_defer_lists(ctx->meta->seq);
	return 0;
}
