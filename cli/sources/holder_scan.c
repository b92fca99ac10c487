// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "ppwatch.skel.h"
#include "sources/holder_scan.h"
#include "sources/loader.h"
#include "sources/monitor.h"
#include "sources/netns.h"
#include "sources/sock_owners.h"

static int push(void *slot, const void *rec, size_t size)
{
	if (!slot)
		return -ENOMEM;
	memcpy(slot, rec, size);
	return 0;
}

static int add_rec(struct scan_result *r, const struct ppw_scan_rec *rec)
{
	switch (rec->type) {
	case PPW_REC_SOCK:
		return push(VEC_PUSH(r->socks, r->nsocks, r->capsocks), &rec->sock,
			    sizeof(rec->sock));
	case PPW_REC_PAGE:
		return push(VEC_PUSH(r->pages, r->npages, r->cappages), &rec->page,
			    sizeof(rec->page));
	case PPW_REC_OWNER:
		return push(VEC_PUSH(r->owners, r->nowners, r->capowners), &rec->owner,
			    sizeof(rec->owner));
	case PPW_REC_POOL:
		return push(VEC_PUSH(r->pools, r->npools, r->cappools), &rec->pool,
			    sizeof(rec->pool));
	case PPW_REC_DEFER:
		return push(VEC_PUSH(r->defer, r->ndefer, r->capdefer), &rec->defer,
			    sizeof(rec->defer));
	case PPW_REC_INFLIGHT:
		return push(VEC_PUSH(r->inflight, r->ninflight, r->capinflight), &rec->inflight,
			    sizeof(rec->inflight));
	case PPW_REC_QDISC:
		return push(VEC_PUSH(r->qdiscs, r->nqdiscs, r->capqdiscs), &rec->qdisc,
			    sizeof(rec->qdisc));
	case PPW_REC_FRAGQ:
		return push(VEC_PUSH(r->fragqs, r->nfragqs, r->capfragqs), &rec->fragq,
			    sizeof(rec->fragq));
	case PPW_REC_CHECK:
		if (r->layout_ok != 0) /* one wrong check is enough */
			r->layout_ok = rec->check.ok ? 1 : 0;
		break;
	}
	return 0;
}

static int on_page(void *ctx, void *data, size_t size)
{
	if (size < sizeof(struct ppw_scan_rec))
		return 0;
	return add_rec(ctx, data);
}

struct iter_arg {
	struct bpf_link *link;
	struct ring_buffer *rb;
	struct scan_result *r;
	const char *what;
};

/* Read one iterator to the end, draining the page ring as it goes; its caller reports. */
static int read_iter(void *p)
{
	struct iter_arg *a = p;
	struct ppw_scan_rec rec;
	size_t have = 0;
	ssize_t n;
	int fd, err = 0;

	fd = bpf_iter_create(bpf_link__fd(a->link));
	if (fd < 0)
		return -errno;
	/* small reads: few sockets per read, so the page ring never fills */
	while ((n = read(fd, (char *)&rec + have, sizeof(rec) - have)) > 0) {
		have += n;
		if (have == sizeof(rec)) {
			err = add_rec(a->r, &rec);
			if (err)
				break;
			have = 0;
		}
		ring_buffer__consume(a->rb);
	}
	if (n < 0)
		err = -errno;
	ring_buffer__consume(a->rb);
	close(fd);
	return err;
}

/* empty the table of sockets walked (a scan walks each socket once): in batches */
static void clear_sock_walked(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.sock_walked), err;
	__u64 keys[1024], next, *at = NULL;
	__u8 vals[1024];
	__u32 n;

	for (;;) {
		n = ARRAY_SIZE(keys);
		err = bpf_map_lookup_batch(fd, at, &next, keys, vals, &n, NULL);
		if (err && errno != ENOENT) {
			/* no batch operations (before 5.6): one key at a time */
			while (!bpf_map_get_next_key(fd, NULL, &next))
				bpf_map_delete_elem(fd, &next);
			return;
		}
		if (n)
			bpf_map_delete_batch(fd, keys, &n, NULL);
		if (err)
			return;
		at = &next;
	}
}

/*
 * What the kernel counts but BPF cannot walk, in the namespace we are in:
 * packets waiting for an NFQUEUE listener (queue_total, the third field).
 */
static int read_unwalked(void *p)
{
	struct scan_unwalked *u = p;
	unsigned long long total;
	char line[256];
	FILE *f = fopen("/proc/net/netfilter/nfnetlink_queue", "r");

	if (!f)
		return 0; /* no nfnetlink_queue here */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %llu", &total) == 1) {
			u->nfqueue_packets += total;
			u->nfqueue_queues++;
		}
	fclose(f);
	return 0;
}

static __u32 read_u32_file(const char *path)
{
	unsigned int v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* one iterator of the scan's own (every pool, the sockets in flight, the queues) */
static int read_one(struct iter_arg *a, struct bpf_link *link, const char *what, const char *prog)
{
	int err;

	a->link = link;
	a->what = what;
	err = read_iter(a);
	if (err)
		p_err("holder scan: reading the %s iterator (prog '%s'): %s", what, prog,
		      strerror(-err));
	return err;
}

/*
 * An iterator that walks the next entry of a list in each element of a
 * run (scan_inflight, scan_qobj) and stops early when the page ring is
 * half full: runs of it until *next reaches *n, read again after each run
 * (walking a socket in flight may add more to the list). A run moves *next
 * or, for a list whose entries take several runs (a device's qdiscs),
 * *steps; one that moves neither has stalled.
 */
static int read_list(struct iter_arg *a, struct bpf_link *link, volatile __u32 *next,
		     volatile __u32 *n, volatile __u32 *steps, const char *what, const char *prog)
{
	__u32 last, last_steps;
	int err = 0;

	*next = 0;
	while (!err && *next < *n) {
		last = *next;
		last_steps = steps ? *steps : 0;
		err = read_one(a, link, what, prog);
		if (!err && *next == last && (!steps || *steps == last_steps)) {
			p_err("holder scan: the %s iterator (prog '%s') made no progress at entry "
			      "%u of %u",
			      what, prog, last, *n);
			err = -EIO;
		}
	}
	return err;
}

int scan_run(struct session *s, struct netns_list *nsl, struct scan_result *out)
{
	struct bpf_link *net_links[] = { s->skel->links.scan_tcp, s->skel->links.scan_udp,
					 s->skel->links.scan_unix };
	static const char *const net_what[] = { "tcp", "udp", "unix" };
	struct iter_arg a = { .r = out };
	__u64 before[PPW_CNT_MAX], after[PPW_CNT_MAX];
	uint64_t t0 = now_mono_ns();
	size_t i, k;
	int err;

	memset(out, 0, sizeof(*out));
	out->layout_ok = -1;
	out->layout_from_kallsyms = s->layout.from_kallsyms;
	if (!s->skel->links.scan_pools || !s->skel->links.scan_fds ||
	    !s->skel->links.scan_inflight || !s->skel->links.scan_queues ||
	    !s->skel->links.scan_qobj) {
		p_err("holder scan: the iterators are not loaded");
		return -ENOENT;
	}
	a.rb = ring_buffer__new(bpf_map__fd(s->skel->maps.scan_events), on_page, out, NULL);
	if (!a.rb) {
		err = -errno;
		p_err("holder scan: ring buffer for map 'scan_events': %s", strerror(-err));
		return err;
	}
	err = session_counters(s, before, PPW_CNT_MAX);
	if (err)
		goto out;
	s->skel->bss->check_done = 0;
	s->skel->bss->inflight_n = 0;
	clear_sock_walked(s);
	out->skb_defer_max = read_u32_file("/proc/sys/net/core/skb_defer_max");
	out->ncpus = s->ncpus;

	/*
	 * First the protocol iterators, in the namespace each is created in: they
	 * walk their sockets under each socket's lock where the kernel's takes it
	 * (records say so: PPW_SF_LOCKED); a TCP socket's out-of-order tree is
	 * rebalanced by softirq otherwise.
	 */
	err = session_netns_scan(s, nsl);
	if (err)
		goto out;
	for (i = 0; i < nsl->n; i++) {
		struct scan_unwalked *u;

		for (k = 0; k < 3; k++) {
			a.link = net_links[k];
			a.what = net_what[k];
			err = netns_run(nsl, &nsl->v[i], read_iter, &a);
			if (err)
				break;
		}
		u = err ? NULL : VEC_PUSH(out->unwalked, out->nunwalked, out->capunwalked);
		if (u) {
			u->netns_ino = nsl->v[i].ino;
			netns_run(nsl, &nsl->v[i], read_unwalked, u);
		}
		if (err) { /* counted and shown (netns_failed) */
			p_dbg("holder scan: netns %s, %s iterator: %s", nsl->v[i].name, a.what,
			      strerror(-err));
			out->netns_failed++;
			err = 0;
		} else {
			out->netns_scanned++;
		}
	}
	/* then the fds: every socket's processes, and the sockets no iterator listed */
	err = read_one(&a, s->skel->links.scan_fds, "process fd", "scan_fds");
	if (err)
		goto out;
	/* sockets whose only reference is an skb carrying their file, then the queues */
	err = read_list(&a, s->skel->links.scan_inflight, &s->skel->bss->inflight_next,
			&s->skel->bss->inflight_n, NULL, "in-flight socket", "scan_inflight");
	err = err   ?:
		      read_one(&a, s->skel->links.scan_queues, "qdisc and fragment queue list",
			       "scan_queues");
	err = err   ?:
		      read_list(&a, s->skel->links.scan_qobj, &s->skel->bss->qobj_next,
				&s->skel->bss->queue_n, &s->skel->bss->qobj_walked,
				"qdisc and fragment queue", "scan_qobj");
	/* last: pools found through their pages during the walk are in the table now */
	err = err ?: read_one(&a, s->skel->links.scan_pools, "pool", "scan_pools");
	/* what holds the sockets no process has an fd for: io_uring rings, kernel users */
	err = err ?: sock_owners_read(out);
out:
	if (session_counters(s, after, PPW_CNT_MAX))
		memcpy(after, before, sizeof(after));
	out->drops = after[PPW_CNT_SCAN_DROP] - before[PPW_CNT_SCAN_DROP];
	out->walks_cut = after[PPW_CNT_SCAN_TRUNC] - before[PPW_CNT_SCAN_TRUNC];
	out->gone = after[PPW_CNT_SCAN_GONE] - before[PPW_CNT_SCAN_GONE];
	out->elapsed_s = (now_mono_ns() - t0) / 1e9;
	ring_buffer__free(a.rb);
	return err;
}

int holders_take(struct monitor *m, struct scan_result *scan, struct holders_report *rep)
{
	int err;

	memset(rep, 0, sizeof(*rep));
	err = scan_run(&m->s, &m->nsl, scan);
	/* after the scan: the snapshot includes pools found through their pages */
	err = err ?: monitor_sample(m);
	if (!err) {
		/* the pages' ages: the ledger has their holds now (the logs were just read) */
		collector_mark_pages(&m->col, scan->pages, scan->npages);
		err = attrib_build(rep, scan, &m->cur,
				   &(struct attrib_params){ .now_ns = m->cur.ts_ns,
							    .page_size = m->kernel.page_size });
		if (err)
			p_err("attributing pages to holders: %s", strerror(-err));
	}
	if (err)
		scan_free(scan);
	return err;
}

void holders_release(struct scan_result *scan, struct holders_report *rep)
{
	attrib_free(rep);
	scan_free(scan);
}
