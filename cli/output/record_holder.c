// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "model/holder_desc.h"
#include "output/record_fmt.h"
#include "output/record_holder.h"

/* ---- holders --------------------------------------------------------------------------- */

COND(h_age_known, struct holder, isfinite(x->oldest_age_s))
COND(h_defer, struct holder, x->kind == HK_DEFER)
COND(h_socket, struct holder, x->kind == HK_SOCKET && x->sock)
COND(h_qdisc, struct holder, x->kind == HK_QDISC && x->qdisc)
COND(h_fragq, struct holder, x->kind == HK_FRAGQ && x->fragq)

static void h_kind(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, holder_kind_name(((const struct holder *)o)->kind));
}

static const struct rfield owner_fields[] = {
	F("pid", RF_U32, struct holder_owner, pid, W_ALWAYS),
	F("comm", RF_STR, struct holder_owner, comm, W_ALWAYS),
	F("fd", RF_U32, struct holder_owner, fd, W_ALWAYS),
};

/* a socket's facts, ss's names, and who holds it */
static void h_sock(struct json *j, const char *key, const void *o)
{
	const struct holder *h = o;
	const struct ppw_rec_sock *s = h->sock;
	char a[96];
	__u32 i;

	json_kv_str(j, "state", sock_state_name(s));
	json_kv_str(j, "proto", sock_proto_name(s));
	if (sock_addr_str(a, sizeof(a), s->family, s->laddr, s->lport)[0])
		json_kv_str(j, "local", a);
	if (s->rport)
		json_kv_str(j, "remote",
			    sock_addr_str(a, sizeof(a), s->family, s->raddr, s->rport));
	json_kv_u64(j, "inode", s->ino);
	json_kv_u64(j, "netns", s->netns_ino);
	json_key(j, "owners");
	json_arr_open(j);
	for (i = 0; i < h->nowners && i < HOLDER_MAX_OWNERS; i++)
		rfmt_object(j, NULL, owner_fields, ARRAY_SIZE(owner_fields), &h->owners[i]);
	json_arr_close(j);
	json_kv_u64(j, "owners_total", h->nowners);
	json_kv_bool(j, "orphan", !h->nowners && sock_is_orphan(s));
	json_kv_bool(j, "walk_locked", s->flags & PPW_SF_LOCKED);
	json_kv_str(j, "held_by", sock_held_by_name(h->held_by));
	if (h->held_by == SH_KERNEL && h->hook[0])
		json_kv_str(j, "kernel_reader", h->hook);
	if (h->held_by == SH_IO_URING) {
		json_key(j, "io_uring");
		json_obj_open(j);
		json_kv_u64(j, "pid", h->ring.pid);
		json_kv_str(j, "comm", h->ring.comm);
		json_kv_u64(j, "fd", h->ring.fd);
		json_kv_u64(j, "slot", h->ring_slot);
		json_obj_close(j);
	}
	if (h->listener) {
		json_key(j, "listener");
		json_obj_open(j);
		json_kv_u64(j, "inode", h->listener->ino);
		if (h->listener_owners)
			PUT_FIELDS(j, owner_fields, &h->listener_owner);
		json_kv_u64(j, "listeners", h->listeners);
		json_obj_close(j);
	}
	if (!h->carrier)
		return;
	json_key(j, "in_flight_on");
	json_obj_open(j);
	json_kv_u64(j, "inode", h->carrier->ino);
	if (h->carrier_owners) {
		json_kv_u64(j, "pid", h->carrier_owner.pid);
		json_kv_str(j, "comm", h->carrier_owner.comm);
	}
	json_obj_close(j);
}

/* a fixed-size kernel name, NUL-terminated */
static const char *kname(char *buf, size_t len, const char *src, size_t n)
{
	n = n < len - 1 ? n : len - 1;
	memcpy(buf, src, n);
	buf[n] = 0;
	return buf;
}

/* a qdisc's kernel names and handles, in the forms tc shows */
static void q_name(struct json *j, const char *key, const char *src, size_t n)
{
	char a[32];

	json_kv_str(j, key, kname(a, sizeof(a), src, n));
}

static void q_kind(struct json *j, const char *key, const void *o)
{
	const struct ppw_rec_qdisc *q = o;

	q_name(j, key, q->kind, sizeof(q->kind));
}

static void q_dev(struct json *j, const char *key, const void *o)
{
	const struct ppw_rec_qdisc *q = o;

	q_name(j, key, q->dev, sizeof(q->dev));
}

static void q_handle(struct json *j, const char *key, const void *o)
{
	const struct ppw_rec_qdisc *q = o;
	__u32 h = !strcmp(key, "handle") ? q->handle : q->parent;
	char a[24];

	snprintf(a, sizeof(a), "%x:%x", h >> 16, h & 0xffff);
	json_kv_str(j, key, a);
}

static void q_rate(struct json *j, const char *key, const void *o)
{
	json_kv_u64(j, key, ((const struct ppw_rec_qdisc *)o)->rate_bytes_ps * 8);
}

static const struct rfield qdisc_fields[] = {
	FN("kind", q_kind, NULL),
	FN("handle", q_handle, NULL),
	FN("parent", q_handle, NULL),
	FN("dev", q_dev, NULL),
	F("ifindex", RF_S32, struct ppw_rec_qdisc, ifindex, W_ALWAYS),
	F("qlen", RF_U32, struct ppw_rec_qdisc, qlen, W_ALWAYS),
	F("backlog_bytes", RF_U32, struct ppw_rec_qdisc, backlog, W_ALWAYS),
	F("skbs_walked", RF_U32, struct ppw_rec_qdisc, skbs, W_ALWAYS),
	{ "rate_bits_per_s", RF_FN, offsetof(struct ppw_rec_qdisc, rate_bytes_ps), W_ALWAYS, NULL,
	  q_rate },
};

static void h_qdisc_obj(struct json *j, const char *key, const void *o)
{
	const struct holder *h = o;
	const struct ppw_rec_qdisc *q = h->qdisc;
	char a[64];

	json_key(j, key);
	json_obj_open(j);
	rfmt_fields(j, qdisc_fields, ARRAY_SIZE(qdisc_fields) - !q->rate_bytes_ps, q);
	if (h->qdisc_parent)
		json_kv_str(j, "under", qdisc_name(a, sizeof(a), h->qdisc_parent));
	json_obj_close(j);
}

static void fq_family(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key, ((const struct ppw_rec_fragq *)o)->family == 10 ? "ipv6" : "ipv4");
}

static void fq_addr(struct json *j, const char *key, const void *o)
{
	const struct ppw_rec_fragq *q = o;
	char a[64];

	json_kv_str(j, key,
		    ip_addr_str(a, sizeof(a), q->family, key[0] == 's' ? q->saddr : q->daddr));
}

static const struct rfield fragq_fields[] = {
	FN("family", fq_family, NULL),
	FN("src", fq_addr, NULL),
	FN("dst", fq_addr, NULL),
	F("id", RF_U32, struct ppw_rec_fragq, id, W_ALWAYS),
	F("received_bytes", RF_U32, struct ppw_rec_fragq, meat, W_ALWAYS),
	F("len", RF_U32, struct ppw_rec_fragq, len, W_ALWAYS),
	F("fragments", RF_U32, struct ppw_rec_fragq, skbs, W_ALWAYS),
};

static void h_fragq_obj(struct json *j, const char *key, const void *o)
{
	rfmt_object(j, key, fragq_fields, ARRAY_SIZE(fragq_fields),
		    ((const struct holder *)o)->fragq);
}

static const struct rfield holder_fields[] = {
	F("pages", RF_S64, struct holder, pages, W_ALWAYS),
	F("bytes", RF_U64, struct holder, bytes, W_ALWAYS),
	FN("kind", h_kind, NULL),
	F("holder", RF_STR, struct holder, desc, W_ALWAYS),
	F("oldest_age_s", RF_F64, struct holder, oldest_age_s, W_FINITE),
	FC("oldest_age_is_lower_bound", RF_BOOL, struct holder, oldest_at_least, W_ALWAYS,
	   h_age_known),
	F("head_pages", RF_U64, struct holder, head_pages, W_NONZERO),
	F("frag_pages", RF_U64, struct holder, frag_pages, W_NONZERO),
	FC("cpu", RF_U32, struct holder, cpu, W_ALWAYS, h_defer),
	F("remedy", RF_STR, struct holder, remedy, W_NONEMPTY),
	FN("socket", h_sock, h_socket),
	FN("qdisc", h_qdisc_obj, h_qdisc),
	FN("frag_queue", h_fragq_obj, h_fragq),
};

void rfmt_holder(struct json *j, const struct holder *h)
{
	json_obj_open(j);
	PUT_FIELDS(j, holder_fields, h);
	json_obj_close(j);
}

static void ph_unattributed(struct json *j, const char *key, const void *o)
{
	const struct pool_holders *ph = o;

	json_kv_s64(j, key, ph->unattributed > 0 ? ph->unattributed : 0);
}

static const struct rfield holders_pool_fields[] = {
	F("inflight", RF_S64, struct pool_holders, inflight, W_ALWAYS),
	F("attributed", RF_S64, struct pool_holders, attributed, W_ALWAYS),
	FN("unattributed", ph_unattributed, NULL),
	F("moved", RF_S64, struct pool_holders, moved, W_ALWAYS),
};

void rfmt_holders_pool_members(struct json *j, const struct pool_holders *ph)
{
	rfmt_pool_ref_members(j, ph->row);
	if (ph->row->ifindex > 0)
		json_kv_s64(j, "ifindex", ph->row->ifindex);
	if (ph->row->netns_ino)
		json_kv_u64(j, "netns", ph->row->netns_ino);
	PUT_FIELDS(j, holders_pool_fields, ph);
}

static void scan_layout(struct json *j, const char *key, const void *o)
{
	const struct scan_result *s = o;

	json_kv_str(j, key,
		    s->layout_ok == 1 ? "checked" :
		    s->layout_ok == 0 ? "wrong" :
					"unchecked");
}

static void scan_layout_source(struct json *j, const char *key, const void *o)
{
	json_kv_str(j, key,
		    ((const struct scan_result *)o)->layout_from_kallsyms ? "kallsyms" : "default");
}

static const struct rfield scan_fields[] = {
	F("elapsed_s", RF_F64, struct scan_result, elapsed_s, W_FINITE),
	F("netns", RF_U32, struct scan_result, netns_scanned, W_ALWAYS),
	F("netns_failed", RF_U32, struct scan_result, netns_failed, W_ALWAYS),
	F("page_records_lost", RF_U64, struct scan_result, drops, W_ALWAYS),
	F("walks_truncated", RF_U64, struct scan_result, walks_cut, W_ALWAYS),
	F("gone_before_walk", RF_U64, struct scan_result, gone, W_ALWAYS),
	FN("virt_to_page", scan_layout, NULL),
	FN("layout_source", scan_layout_source, NULL),
	F("skb_defer_max", RF_U32, struct scan_result, skb_defer_max, W_ALWAYS),
};

static const struct rfield report_fields[] = {
	F("sockets", RF_U64, struct holders_report, sockets, W_ALWAYS),
	F("skbs", RF_U64, struct holders_report, skbs, W_ALWAYS),
	F("pool_pages_seen", RF_U64, struct holders_report, pages_seen, W_ALWAYS),
	F("other_pages_seen", RF_U64, struct holders_report, nonpp_pages, W_ALWAYS),
	F("truncated_sockets", RF_U64, struct holders_report, truncated_sockets, W_ALWAYS),
	F("defer_lists_readable", RF_BOOL, struct holders_report, defer_readable, W_ALWAYS),
	F("orphans", RF_U64, struct holders_report, orphans, W_ALWAYS),
	F("in_flight_sockets", RF_U64, struct holders_report, inflight_sockets, W_ALWAYS),
	F("qdisc_packets_walked", RF_U64, struct holders_report, qdisc_packets, W_ALWAYS),
	F("frag_queues", RF_U64, struct holders_report, frag_queues, W_ALWAYS),
	F("not_walked", RF_STR, struct holders_report, unwalked, W_NONEMPTY),
};

void rfmt_scan(struct json *j, const struct holders_report *rep)
{
	json_obj_open(j);
	PUT_FIELDS(j, scan_fields, rep->scan);
	PUT_FIELDS(j, report_fields, rep);
	json_obj_close(j);
}
