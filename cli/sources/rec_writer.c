// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "model/attrib.h"
#include "lib/log.h"
#include "main.h"
#include "sources/page_list.h"
#include "sources/rec_writer.h"
#include "output/pool_table.h"
#include "output/holder_table.h"
#include "sources/holder_scan.h"
#include "sources/stacks.h"
#include "lib/util.h"

static double wall(void)
{
	return now_real_s();
}

static void begin(struct recorder *r, const char *type)
{
	json_obj_open(&r->j);
	json_kv_str(&r->j, "type", type);
	json_kv_f64(&r->j, "time", wall());
}

static void end(struct recorder *r)
{
	json_obj_close(&r->j);
	json_end(&r->j);
	r->records++;
}

static void write_header(struct recorder *r)
{
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	begin(r, "header");
	json_kv_u64(&r->j, "format", RECORD_FORMAT);
	json_kv_str(&r->j, "version", PPWATCH_VERSION);
	json_kv_str(&r->j, "hostname", host);
	json_kv_f64(&r->j, "boot_to_real_s", r->ec.boot_to_real);
	json_kv_f64(&r->j, "stall_after_s", r->o.stall_after);
	json_key(&r->j, "kernel");
	json_obj_open(&r->j);
	json_kv_str(&r->j, "release", u.release);
	json_kv_str(&r->j, "attach", attach_mode_name(r->m.s.mode));
	json_kv_str(&r->j, "unmap_regime", unmap_regime_name(r->m.s.feat.unmap));
	json_kv_u64(&r->j, "page_size", r->m.s.feat.page_size);
	json_kv_bool(&r->j, "netlink", r->m.nl.available);
	json_obj_close(&r->j);
	json_kv_u64(&r->j, "stack_every", r->o.stack_every);
	end(r);
}

static void write_event(struct recorder *r, const struct life_event *e)
{
	struct event_row er;

	event_row_of(&er, e, &r->ec);
	/* the event's own object, with "type" first */
	json_obj_open(&r->j);
	json_kv_str(&r->j, "type", "event");
	json_key(&r->j, "event");
	render_event_json(&r->j, &er);
	json_obj_close(&r->j);
	json_end(&r->j);
	r->records++;
	if (e->kind == LE_DESTROY || e->kind == LE_STALLED || e->kind == LE_FREED)
		r->scan_now = true;
}

static void on_event(void *arg, const struct ppw_event *e)
{
	struct recorder *r = arg;
	struct life_event le;
	double age = pool_detach_age(&e->rec, e->ts_ns, r->ec.detach_time_is_ns);

	if (life_on_bpf(&r->lc, e, age, &le) == 1)
		write_event(r, &le);
}

static void on_ntf(int cmd, const struct nl_pool *p, void *arg)
{
	struct recorder *r = arg;
	struct life_event le;

	if (life_on_netlink(&r->lc, cmd, p->id, now_boot_ns(), &le) == 1)
		write_event(r, &le);
}

static double life_detach_age(const struct pool_life *p, void *arg)
{
	struct recorder *r = arg;

	return pool_detach_age(&p->rec, now_boot_ns(), r->ec.detach_time_is_ns);
}

static int write_snapshot(struct recorder *r)
{
	int err = monitor_sample(&r->m);

	if (err)
		return err;
	begin(r, "snapshot");
	render_pools_json(&r->j, &r->m.cur);
	render_losses_json(&r->j, &r->m.cur);
	end(r);
	return 0;
}

/* holders of every pool, and the oldest pages of the destroyed ones */
static int write_scan(struct recorder *r)
{
	struct holders_report rep;
	struct scan_result scan;
	struct page_row *rows;
	size_t i, n, unknown;
	int err;

	err = scan_run(&r->m.s, &r->m.nsl, &scan);
	err = err ?: monitor_sample(&r->m);
	if (err)
		goto out;
	err = attrib_build(&rep, &scan, &r->m.cur,
			   &(struct attrib_params){ .now_ns = r->m.cur.ts_ns,
						    .page_size = r->m.s.feat.page_size });
	if (err)
		goto out;
	begin(r, "holders");
	render_holders_json(&r->j, &rep);
	end(r);
	for (i = 0; i < r->m.cur.n; i++) {
		const struct pool_row *row = &r->m.cur.rows[i];
		char a[24];

		if (row->state != ROW_ZOMBIE)
			continue;
		if (pages_listing(&r->m, row, &rep, r->have_ksyms ? &r->k : NULL, NAN,
				  r->o.oldest_pages, &rows, &n, &unknown))
			continue;
		begin(r, "pages");
		json_kv_u64(&r->j, "id", row->id);
		snprintf(a, sizeof(a), "0x%llx", (unsigned long long)row->addr);
		json_kv_str(&r->j, "addr", a);
		json_kv_u64(&r->j, "gen", row->gen);
		render_pages_json(&r->j, rows, n);
		end(r);
		free(rows);
	}
	attrib_free(&rep);
out:
	scan_free(&scan);
	return err;
}

static int write_stacks(struct recorder *r)
{
	struct stack_agg *v = NULL;
	size_t n = 0;
	int err;

	if (!r->o.stack_every)
		return 0;
	err = stacks_read(&r->m.s, &v, &n);
	if (err)
		return err;
	begin(r, "stacks");
	stacks_write_json(&r->j, &r->m.s, &r->k, &r->m.cur, v, n, r->o.stack_every);
	end(r);
	free(v);
	return 0;
}

int recorder_open(struct recorder *r, FILE *f, const struct recorder_opts *o)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->o = *o;
	json_init(&r->j, f, false);
	life_init(&r->lc, o->stall_after, 256);
	r->have_ksyms = !ksyms_load(&r->k, NULL);
	if (o->stack_every && !r->have_ksyms) {
		p_err("reading /proc/kallsyms for stacks: run as root");
		return -EPERM;
	}
	err = monitor_open(&r->m, &(struct monitor_opts){ .subscribe = true, .holders = true,
							  .stack_every = o->stack_every,
							  .on_event = on_event, .event_arg = r });
	if (err) {
		ksyms_free(&r->k);
		life_free(&r->lc);
		return err;
	}
	r->m.col.keep_freed_s = 3600;
	r->ec = (struct event_ctx){
		.boot_to_real = now_real_s() - now_boot_ns() / 1e9,
		.page_size = r->m.s.feat.page_size,
		.detach_time_is_ns = r->m.s.feat.detach_time_is_ns,
		.regime = r->m.s.feat.unmap,
		.stall_after_s = o->stall_after,
	};
	write_header(r);
	err = write_snapshot(r);	/* discovery: 'new' events for what exists */
	session_poll(&r->m.s, 0);
	err = err ?: write_scan(r);
	fflush(r->f);
	return err;
}

int recorder_run(struct recorder *r, double duration)
{
	double now = now_mono_ns() / 1e9, end_t = now + (duration ? duration : 1e12);
	struct life_event ev[16];
	struct pollfd pfd[17];
	int fds[16], nfd, i, n, err = 0;
	size_t k, nn;

	r->next_snapshot = now + r->o.snapshot_every;
	r->next_scan = now + r->o.scan_every;
	while (!err && !exiting && (now = now_mono_ns() / 1e9) < end_t) {
		nfd = 0;
		pfd[nfd++] = (struct pollfd){ ring_buffer__epoll_fd(r->m.s.rb), POLLIN };
		nn = nl_client_fds(&r->m.nl, fds, 16);
		for (k = 0; k < nn; k++)
			pfd[nfd++] = (struct pollfd){ fds[k], POLLIN };
		if (poll(pfd, nfd, 100) < 0 && errno != EINTR)
			return -errno;
		session_poll(&r->m.s, 0);
		nl_client_drain(&r->m.nl, on_ntf, r);
		n = life_tick(&r->lc, now_boot_ns(), life_detach_age, r, ev, 16);
		for (i = 0; i < n; i++)
			write_event(r, &ev[i]);
		if (now >= r->next_snapshot) {
			err = write_snapshot(r);
			r->next_snapshot = now + r->o.snapshot_every;
		}
		if (!err && (r->scan_now || now >= r->next_scan)) {
			err = write_scan(r);
			r->scan_now = false;
			r->next_scan = now + r->o.scan_every;
		}
		fflush(r->f);
	}
	return err;
}

int recorder_close(struct recorder *r)
{
	int err;

	session_poll(&r->m.s, 0);
	err = write_snapshot(r);
	err = err ?: write_scan(r);
	err = err ?: write_stacks(r);
	begin(r, "end");
	json_kv_u64(&r->j, "records", r->records);
	end(r);
	fflush(r->f);
	monitor_close(&r->m);
	life_free(&r->lc);
	ksyms_free(&r->k);
	return err;
}
