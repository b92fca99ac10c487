// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "model/holder_desc.h"
#include "output/holder_table.h"
#include "output/pool_table.h"
#include "output/table.h"

const char *where_name(__u32 where)
{
	switch (where) {
	case PPW_IN_HEAD:
		return "head";
	case PPW_IN_FRAG:
		return "frag";
	case PPW_IN_FRAGLIST:
		return "frag_list";
	case PPW_IN_OOO:
		return "tcp_ooo";
	case PPW_IN_READER:
		return "udp_reader";
	case PPW_IN_DEFER:
		return "defer";
	}
	return NULL;
}

/* ---- holders ------------------------------------------------------------------ */

enum holder_col {
	HC_PAGES,
	HC_BYTES,
	HC_OLDEST,
	HC_KIND,
	HC_STATE,
	HC_HOLDER,
	HC_PROTO,
	HC_LOCAL,
	HC_REMOTE,
	HC_INODE,
	HC_NETNS,
	HC_HEAD,
	HC_FRAG,
	HC_CPU,
	HC_OLDEST_LB,
	HC_REMEDY,
	HC_MAX
};

static const struct ocol holder_cols[HC_MAX] = {
	[HC_PAGES] = { "pages", "PAGES", 7, OF_PLAIN, 0 },
	[HC_BYTES] = { "bytes", "BYTES", 7, OF_BYTES, 0 },
	[HC_OLDEST] = { "oldest_age_s", "OLDEST", 7, OF_AGE, 0 },
	[HC_KIND] = { "kind", "KIND", 12, OF_PLAIN, OC_JSON },
	/* a socket's state, ss's names (model/holder_desc.h) */
	[HC_STATE] = { "state", "STATE", 10, OF_PLAIN, OC_LEFT },
	[HC_HOLDER] = { "holder", "HOLDER", 60, OF_PLAIN, OC_LEFT },
	[HC_PROTO] = { "proto", "PROTO", 6, OF_PLAIN, OC_JSON },
	[HC_LOCAL] = { "local", "LOCAL", 24, OF_PLAIN, OC_JSON },
	[HC_REMOTE] = { "remote", "REMOTE", 24, OF_PLAIN, OC_JSON },
	[HC_INODE] = { "inode", "INODE", 8, OF_PLAIN, OC_JSON },
	[HC_NETNS] = { "netns", "NETNS", 10, OF_PLAIN, OC_JSON },
	[HC_HEAD] = { "head_pages", "HEAD", 6, OF_PLAIN, OC_JSON },
	[HC_FRAG] = { "frag_pages", "FRAG", 6, OF_PLAIN, OC_JSON },
	[HC_CPU] = { "cpu", "CPU", 4, OF_PLAIN, OC_JSON },
	[HC_OLDEST_LB] = { "oldest_age_is_lower_bound", "LB", 2, OF_PLAIN, OC_JSON },
	/* text prints it under the table (render_holders_text) */
	[HC_REMEDY] = { "remedy", "WHAT TO DO", 40, OF_PLAIN, OC_JSON },
};

static void holder_cell(const void *p, int col, struct oval *v, void *arg)
{
	const struct holder *h = p;
	const struct ppw_rec_sock *s = h->kind == HK_SOCKET ? h->sock : NULL;

	switch (col) {
	case HC_PAGES:
		OV_S64(v, h->pages);
		break;
	case HC_BYTES:
		OV_U64(v, h->bytes);
		break;
	case HC_OLDEST:
		OV_F64(v, h->oldest_age_s);
		v->null = isnan(h->oldest_age_s);
		v->at_least = h->oldest_at_least;
		break;
	case HC_KIND:
		OV_STR(v, holder_kind_name(h->kind));
		break;
	case HC_STATE:
		OV_STR(v, s ? sock_state_name(s) : "");
		v->null = !s;
		break;
	case HC_REMEDY:
		OV_STR(v, h->remedy);
		v->null = !h->remedy[0];
		break;
	case HC_HOLDER:
		OV_STR(v, h->desc);
		break;
	case HC_PROTO:
		OV_STR(v, s ? sock_proto_name(s) : "");
		v->null = !s;
		break;
	case HC_LOCAL:
		OV_STR(v, s ? sock_addr_str(v->buf, sizeof(v->buf), s->family, s->laddr, s->lport) :
			      "");
		v->null = !s || !v->s[0];
		break;
	case HC_REMOTE:
		OV_STR(v, s ? sock_addr_str(v->buf, sizeof(v->buf), s->family, s->raddr, s->rport) :
			      "");
		v->null = !s || !s->rport;
		break;
	case HC_INODE:
		OV_U64(v, s ? s->ino : 0);
		v->null = !s;
		break;
	case HC_NETNS:
		OV_U64(v, s ? s->netns_ino : 0);
		v->null = !s;
		break;
	case HC_HEAD:
		OV_U64(v, h->head_pages);
		break;
	case HC_FRAG:
		OV_U64(v, h->frag_pages);
		break;
	case HC_CPU:
		OV_U64(v, h->cpu);
		v->null = h->kind != HK_DEFER;
		break;
	case HC_OLDEST_LB:
		OV_BOOL(v, h->oldest_at_least);
		v->null = isnan(h->oldest_age_s);
		break;
	}
}

/* members a column cannot carry: the processes, the carrier, the queue */
static void holder_extra(struct json *j, const void *p, void *ctx)
{
	const struct holder *h = p;
	char a[64];
	__u32 i;

	if (h->kind == HK_SOCKET) {
		json_key(j, "owners");
		json_arr_open(j);
		for (i = 0; i < h->nowners && i < HOLDER_MAX_OWNERS; i++) {
			json_obj_open(j);
			json_kv_u64(j, "pid", h->owners[i].pid);
			json_kv_str(j, "comm", h->owners[i].comm);
			json_kv_u64(j, "fd", h->owners[i].fd);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_kv_u64(j, "owners_total", h->nowners);
		json_kv_bool(j, "orphan", h->sock && !h->nowners && sock_is_orphan(h->sock));
		json_kv_bool(j, "walk_locked", h->sock && (h->sock->flags & PPW_SF_LOCKED));
		json_kv_str(j, "held_by", sock_held_by_name(h->held_by));
		json_key(j, "kernel_reader");
		h->held_by == SH_KERNEL && h->hook[0] ? json_str(j, h->hook) : json_put_null(j);
		json_key(j, "io_uring");
		if (h->held_by != SH_IO_URING) {
			json_put_null(j);
		} else {
			json_obj_open(j);
			json_kv_u64(j, "pid", h->ring.pid);
			json_kv_str(j, "comm", h->ring.comm);
			json_kv_u64(j, "fd", h->ring.fd);
			json_kv_u64(j, "slot", h->ring_slot);
			json_obj_close(j);
		}
		json_key(j, "listener");
		if (!h->listener) {
			json_put_null(j);
		} else {
			json_obj_open(j);
			json_kv_u64(j, "inode", h->listener->ino);
			json_key(j, "pid");
			h->listener_owners ? json_u64(j, h->listener_owner.pid) : json_put_null(j);
			json_kv_str(j, "comm", h->listener_owners ? h->listener_owner.comm : "");
			json_key(j, "fd");
			h->listener_owners ? json_u64(j, h->listener_owner.fd) : json_put_null(j);
			json_kv_u64(j, "listeners", h->listeners);
			json_obj_close(j);
		}
		json_key(j, "in_flight_on");
		if (!h->carrier) {
			json_put_null(j);
		} else {
			json_obj_open(j);
			json_kv_u64(j, "inode", h->carrier->ino);
			json_key(j, "pid");
			h->carrier_owners ? json_u64(j, h->carrier_owner.pid) : json_put_null(j);
			json_kv_str(j, "comm", h->carrier_owners ? h->carrier_owner.comm : "");
			json_obj_close(j);
		}
	}
	if (h->kind == HK_QDISC && h->qdisc) {
		const struct ppw_rec_qdisc *q = h->qdisc;
		char kind[sizeof(q->kind) + 1], dev[sizeof(q->dev) + 1];

		memcpy(kind, q->kind, sizeof(q->kind));
		kind[sizeof(q->kind)] = 0;
		memcpy(dev, q->dev, sizeof(q->dev));
		dev[sizeof(q->dev)] = 0;
		json_key(j, "qdisc");
		json_obj_open(j);
		json_kv_str(j, "kind", kind);
		snprintf(a, sizeof(a), "%x:%x", q->handle >> 16, q->handle & 0xffff);
		json_kv_str(j, "handle", a);
		snprintf(a, sizeof(a), "%x:%x", q->parent >> 16, q->parent & 0xffff);
		json_kv_str(j, "parent", a);
		json_kv_str(j, "dev", dev);
		json_kv_s64(j, "ifindex", q->ifindex);
		json_kv_u64(j, "qlen", q->qlen);
		json_kv_u64(j, "backlog_bytes", q->backlog);
		json_kv_u64(j, "skbs_walked", q->skbs);
		json_key(j, "rate_bits_per_s");
		q->rate_bytes_ps ? json_u64(j, q->rate_bytes_ps * 8) : json_put_null(j);
		json_key(j, "under");
		if (h->qdisc_parent)
			json_str(j, qdisc_name(a, sizeof(a), h->qdisc_parent));
		else
			json_put_null(j);
		json_obj_close(j);
	}
	if (h->kind == HK_FRAGQ && h->fragq) {
		const struct ppw_rec_fragq *q = h->fragq;

		json_key(j, "frag_queue");
		json_obj_open(j);
		json_kv_str(j, "family", q->family == 10 ? "ipv6" : "ipv4");
		json_kv_str(j, "src", ip_addr_str(a, sizeof(a), q->family, q->saddr));
		json_kv_str(j, "dst", ip_addr_str(a, sizeof(a), q->family, q->daddr));
		json_kv_u64(j, "id", q->id);
		json_kv_u64(j, "received_bytes", q->meat);
		json_kv_u64(j, "len", q->len);
		json_kv_u64(j, "fragments", q->skbs);
		json_obj_close(j);
	}
}

struct oview holder_oview(void)
{
	return (struct oview){ holder_cols, HC_MAX, holder_cell, NULL, holder_extra };
}

/*
 * What to do about each holder, biggest first, under the pool's table. Holders
 * that share a remedy (the pool's ring, cache and frag page) share one line
 * with their pages summed.
 */
static void remedies_text(FILE *f, const struct pool_holders *ph)
{
	char buf[4 * sizeof(ph->v->remedy)];
	size_t k, j;
	long long pages;

	if (!ph->n)
		return;
	fprintf(f, "  what to do:\n");
	for (k = 0; k < ph->n; k++) {
		if (!ph->v[k].remedy[0])
			continue;
		for (j = 0; j < k; j++)
			if (!strcmp(ph->v[j].remedy, ph->v[k].remedy))
				break;
		if (j < k)
			continue; /* printed with the first holder that has it */
		pages = 0;
		for (j = k; j < ph->n; j++)
			if (!strcmp(ph->v[j].remedy, ph->v[k].remedy))
				pages += ph->v[j].pages;
		fprintf(f, "  %7lld page%s: %s\n", pages, pages == 1 ? "" : "s",
			esc_str(ph->v[k].remedy, buf, sizeof(buf)));
	}
}

static void pool_title(FILE *f, const struct pool_holders *ph)
{
	const struct pool_row *r = ph->row;
	char b[16], dev[4 * sizeof(r->device)];

	fprintf(f, "pool %s %s (%s", r->ident,
		r->device[0] ? esc_str(r->device, dev, sizeof(dev)) : "-",
		row_state_name(r->state));
	if (r->netns_ino)
		fprintf(f, ", netns %u", r->netns_ino);
	fprintf(f, "): %lld pages inflight, %s", (long long)ph->inflight,
		fmt_bytes(b, sizeof(b),
			  (double)(ph->inflight > 0 ? ph->inflight : 0) * ph->page_bytes));
	if (ph->moved)
		fprintf(f,
			"; %lld of the pages below seen twice (the pool lent them again "
			"while the walk ran)",
			(long long)ph->moved);
	fputc('\n', f);
}

void render_holders_text(FILE *f, const struct holders_report *rep, bool wide)
{
	struct oview ov = holder_oview();
	size_t i;

	for (i = 0; i < rep->n; i++) {
		const struct pool_holders *ph = &rep->pools[i];

		if (i)
			fputc('\n', f);
		pool_title(f, ph);
		out_text(f, &ov, ph->v, ph->n, sizeof(*ph->v), wide, true);
		remedies_text(f, ph);
	}
}

void render_scan_summary_text(FILE *f, const struct holders_report *rep)
{
	const struct scan_result *s = rep->scan;

	fprintf(f, "scan: %u netns, %llu sockets, %llu skbs, %llu pool pages seen, %.1f ms",
		s->netns_scanned, (unsigned long long)rep->sockets, (unsigned long long)rep->skbs,
		(unsigned long long)rep->pages_seen, s->elapsed_s * 1e3);
	fprintf(f, "; virt_to_page %s",
		s->layout_ok == 1 ? "checked" :
		s->layout_ok == 0 ? "WRONG (head pages unattributed)" :
				    "unchecked");
	fprintf(f,
		"; %llu orphans, %llu sockets in flight, %zu qdiscs (%llu packets), %llu "
		"fragment queues",
		(unsigned long long)rep->orphans, (unsigned long long)rep->inflight_sockets,
		s->nqdiscs, (unsigned long long)rep->qdisc_packets,
		(unsigned long long)rep->frag_queues);
	if (rep->defer_readable)
		fprintf(f, "; defer lists walked");
	else
		fprintf(f, "; defer lists not readable: this kernel does not export softnet_data "
			   "or net_hotdata (CONFIG_KALLSYMS_ALL off; Debian's kernels have it)");
	if (rep->truncated_sockets)
		fprintf(f, "; %llu sockets truncated", (unsigned long long)rep->truncated_sockets);
	if (s->drops)
		fprintf(f, "; %llu page records lost", (unsigned long long)s->drops);
	if (s->walks_cut)
		fprintf(f, "; %llu walks stopped at their bound (pages unattributed)",
			(unsigned long long)s->walks_cut);
	if (s->gone)
		fprintf(f,
			"; %llu queues or sockets in flight gone before their walk (pages unattributed)",
			(unsigned long long)s->gone);
	if (s->netns_failed)
		fprintf(f, "; %u netns not entered", s->netns_failed);
	fputc('\n', f);
	if (rep->unwalked[0]) {
		char buf[4 * sizeof(rep->unwalked)];

		fprintf(f, "not walked: %s\n", esc_str(rep->unwalked, buf, sizeof(buf)));
	}
}

void render_holders_json(struct json *j, const struct holders_report *rep)
{
	const struct scan_result *s = rep->scan;
	struct oview ov = holder_oview();
	size_t i;

	json_key(j, "pools");
	json_arr_open(j);
	for (i = 0; i < rep->n; i++) {
		const struct pool_holders *ph = &rep->pools[i];

		json_obj_open(j);
		render_pool_ref_json(j, ph->row);
		json_kv_s64(j, "ifindex", ph->row->ifindex);
		json_kv_u64(j, "netns", ph->row->netns_ino);
		json_kv_s64(j, "inflight", ph->inflight);
		json_kv_s64(j, "attributed", ph->attributed);
		json_kv_s64(j, "unattributed", ph->unattributed > 0 ? ph->unattributed : 0);
		json_kv_s64(j, "moved", ph->moved);
		json_key(j, "holders");
		out_json_rows(j, &ov, ph->v, ph->n, sizeof(*ph->v));
		json_obj_close(j);
	}
	json_arr_close(j);
	json_key(j, "scan");
	json_obj_open(j);
	json_kv_f64(j, "elapsed_s", s->elapsed_s);
	json_kv_u64(j, "netns", s->netns_scanned);
	json_kv_u64(j, "netns_failed", s->netns_failed);
	json_kv_u64(j, "sockets", rep->sockets);
	json_kv_u64(j, "skbs", rep->skbs);
	json_kv_u64(j, "pool_pages_seen", rep->pages_seen);
	json_kv_u64(j, "other_pages_seen", rep->nonpp_pages);
	json_kv_u64(j, "truncated_sockets", rep->truncated_sockets);
	json_kv_u64(j, "page_records_lost", s->drops);
	json_kv_u64(j, "walks_truncated", s->walks_cut);
	json_kv_u64(j, "gone_before_walk", s->gone);
	json_kv_str(j, "virt_to_page",
		    s->layout_ok == 1 ? "checked" :
		    s->layout_ok == 0 ? "wrong" :
					"unchecked");
	json_kv_str(j, "layout_source", s->layout_from_kallsyms ? "kallsyms" : "default");
	json_kv_bool(j, "defer_lists_readable", rep->defer_readable);
	json_kv_u64(j, "skb_defer_max", s->skb_defer_max);
	json_kv_u64(j, "orphans", rep->orphans);
	json_kv_u64(j, "in_flight_sockets", rep->inflight_sockets);
	json_kv_u64(j, "qdiscs", s->nqdiscs);
	json_kv_u64(j, "qdisc_packets_walked", rep->qdisc_packets);
	json_kv_u64(j, "frag_queues", rep->frag_queues);
	json_key(j, "not_walked");
	json_arr_open(j);
	for (i = 0; i < s->nqdiscs; i++) {
		const struct ppw_rec_qdisc *q = &s->qdiscs[i];
		__u32 left = qdisc_unwalked(q);
		char name[40], dev[sizeof(q->dev) + 1];

		if (!left)
			continue;
		memcpy(dev, q->dev, sizeof(q->dev));
		dev[sizeof(q->dev)] = 0;
		json_obj_open(j);
		json_kv_str(j, "what", "qdisc");
		json_kv_str(j, "qdisc", qdisc_name(name, sizeof(name), q));
		json_kv_str(j, "dev", dev);
		json_kv_u64(j, "netns", q->netns_ino);
		json_kv_u64(j, "packets", q->qlen);
		json_kv_u64(j, "bytes", q->backlog);
		json_kv_u64(j, "packets_not_walked", left);
		json_obj_close(j);
	}
	for (i = 0; i < s->nunwalked; i++) {
		if (!s->unwalked[i].nfqueue_packets)
			continue;
		json_obj_open(j);
		json_kv_str(j, "what", "nfqueue");
		json_kv_u64(j, "netns", s->unwalked[i].netns_ino);
		json_kv_u64(j, "queues", s->unwalked[i].nfqueue_queues);
		json_kv_u64(j, "packets", s->unwalked[i].nfqueue_packets);
		json_obj_close(j);
	}
	if (!rep->defer_readable && s->skb_defer_max) {
		json_obj_open(j);
		json_kv_str(j, "what", "defer_lists");
		json_kv_u64(j, "cpus", s->ncpus);
		json_kv_u64(j, "packets_at_most", (__u64)s->ncpus * s->skb_defer_max);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

/* ---- pages ------------------------------------------------------------------------- */

enum page_col {
	PG_NETMEM,
	PG_PFN,
	PG_AGE,
	PG_CPU,
	PG_WHERE,
	PG_HOLDER,
	PG_LEDGER,
	PG_STACK_ID,
	PG_STACK,
	PG_AGE_LB,
	PG_MAX
};

static const struct ocol page_cols[PG_MAX] = {
	[PG_NETMEM] = { "netmem", "NETMEM", 18, OF_PLAIN, OC_LEFT },
	[PG_PFN] = { "pfn", "PFN", 9, OF_HEX, 0 },
	[PG_AGE] = { "age_s", "AGE", 7, OF_AGE, 0 },
	[PG_CPU] = { "cpu", "CPU", 3, OF_PLAIN, 0 },
	[PG_WHERE] = { "where", "WHERE", 9, OF_PLAIN, OC_LEFT | OC_WIDE },
	[PG_HOLDER] = { "holder", "HOLDER", 40, OF_PLAIN, OC_LEFT },
	[PG_LEDGER] = { "in_ledger", "LEDGER", 6, OF_PLAIN, OC_JSON },
	[PG_STACK_ID] = { "stack_id", "STACK_ID", 8, OF_PLAIN, OC_JSON },
	[PG_STACK] = { "stack", "STACK", 40, OF_PLAIN, OC_LEFT | OC_WIDE },
	[PG_AGE_LB] = { "age_is_lower_bound", "LB", 2, OF_PLAIN, OC_JSON },
};

static void page_cell(const void *p, int col, struct oval *v, void *arg)
{
	const struct page_row *r = p;

	switch (col) {
	case PG_NETMEM:
		OV_FMT(v, "0x%llx", (unsigned long long)r->netmem);
		break;
	case PG_PFN:
		OV_U64(v, r->pfn);
		v->null = !r->pfn;
		break;
	case PG_AGE:
		OV_F64(v, r->age_s);
		v->null = isnan(r->age_s);
		v->at_least = r->age_at_least;
		break;
	case PG_CPU:
		OV_S64(v, r->cpu);
		v->null = r->cpu < 0;
		break;
	case PG_WHERE:
		OV_STR(v, r->where ? r->where : "");
		v->null = !r->where;
		break;
	case PG_HOLDER:
		OV_STR(v, r->holder);
		v->null = !r->holder[0];
		break;
	case PG_LEDGER:
		OV_BOOL(v, r->in_ledger);
		break;
	case PG_STACK_ID:
		OV_S64(v, r->stack_id);
		v->null = r->stack_id < 0;
		break;
	case PG_STACK:
		OV_STR(v, r->stack);
		v->null = !r->stack[0];
		break;
	case PG_AGE_LB:
		OV_BOOL(v, r->age_at_least);
		v->null = isnan(r->age_s);
		break;
	}
}

struct oview page_oview(void)
{
	return (struct oview){ page_cols, PG_MAX, page_cell, NULL, NULL };
}

void render_pages_text(FILE *f, const struct page_row *rows, size_t n, bool wide)
{
	struct oview ov = page_oview();

	out_text(f, &ov, rows, n, sizeof(*rows), wide, true);
}

void render_pages_json(struct json *j, const struct page_row *rows, size_t n)
{
	struct oview ov = page_oview();

	json_key(j, "pages");
	out_json_rows(j, &ov, rows, n, sizeof(*rows));
}
