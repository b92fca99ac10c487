// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch pages POOL|DEVICE [--older-than DUR] [--limit N] [-S[N]]
 *               [--window DUR] [INTERVAL [COUNT]]
 *
 * Every inflight page of a pool: netmem, pfn, age, the CPU that took it,
 * who holds it now and, with --stacks, the sampled stack that took it from
 * the page allocator. Oldest first.
 *
 * Ages come from the ledger, so they are exact for pages that entered the
 * pool while ppwatch was watching. Pages already out when it started have
 * no known age: they are listed with a lower bound, and --older-than leaves
 * them out and says how many. Run with INTERVAL [COUNT] (or --window) to
 * keep watching: ages then grow from one listing to the next.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/attrib.h"
#include "sources/collector.h"
#include "lib/log.h"
#include "main.h"
#include "sources/page_list.h"
#include "sources/monitor.h"
#include "ppwatch.skel.h"
#include "output/holder_table.h"
#include "sources/holder_scan.h"
#include "sources/stacks.h"
#include "lib/util.h"

static struct {
	double older_than;	/* NAN: no filter */
	uint64_t limit;
	uint64_t stack_every;
	double window;
	double interval;
	uint64_t count;
	struct view_opts view;
} opts = {
	.older_than = NAN,
};

enum { OPT_OLDER = 0x300, OPT_LIMIT, OPT_WINDOW };

static const struct option pages_lopts[] = {
	{ "older-than", required_argument, NULL, OPT_OLDER },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "stacks", optional_argument, NULL, 'S' },
	{ 0 }
};

static int pages_opt(int o, const char *arg)
{
	switch (o) {
	case OPT_OLDER:
		if (parse_duration(arg, &opts.older_than)) {
			usage_error("--older-than '%s': expected a duration such as 30s", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_LIMIT:
		if (parse_u64(arg, 1, UINT64_MAX, &opts.limit)) {
			usage_error("--limit '%s': expected a positive number", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_WINDOW:
		if (parse_duration(arg, &opts.window)) {
			usage_error("--window '%s': expected a duration", arg);
			return -EINVAL;
		}
		return 0;
	case 'S':
		opts.stack_every = STACKS_DEFAULT_EVERY;
		if (arg && parse_u64(arg, 1, 1 << 20, &opts.stack_every)) {
			usage_error("--stacks=%s: expected 1..1048576 (1 in N events)", arg);
			return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

static void pages_help(void)
{
	printf("ARGS:\n"
	       "  POOL | DEVICE      the pool(s): a pool id, or a device/driver name\n"
	       "  INTERVAL [COUNT]   keep watching, list every INTERVAL, COUNT times\n"
	       "\n"
	       "  --older-than DUR   only pages at least this old (30s, 2m)\n"
	       "  --limit N          at most N pages per pool\n"
	       "  --window DUR       watch this long before the (single) listing\n"
	       "  -S, --stacks[=N]   sample the hold stack of 1 in N pages (default %d)\n\n",
	       STACKS_DEFAULT_EVERY);
}

static int age_cmp(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	bool xn = isnan(x->age_s), yn = isnan(y->age_s);

	if (xn || yn)
		return xn - yn;
	if (x->age_at_least != y->age_at_least)
		return x->age_at_least - y->age_at_least;	/* exact ages first */
	return x->age_s < y->age_s ? 1 : x->age_s > y->age_s ? -1 : 0;
}

struct listing {
	struct page_row *rows;
	size_t n, cap;
	size_t unknown_age;	/* left out by --older-than */
};

static int build_listing(struct monitor *m, const struct pool_row *row,
			 const struct holders_report *rep, const struct ksyms *k,
			 double older_than, size_t limit, struct listing *l);

static struct page_row *row_add(struct listing *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct page_row *v = realloc(l->rows, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->rows = v;
		l->cap = cap;
	}
	memset(&l->rows[l->n], 0, sizeof(l->rows[0]));
	return &l->rows[l->n++];
}

static void fill_common(struct page_row *pr, struct monitor *m, const struct holders_report *rep,
			const struct ksyms *k, __u64 netmem)
{
	const struct ppw_rec_page *hp = attrib_page_holder(rep, netmem);
	__u64 vm = m->s.skel->bss->used_vmemmap;
	long psz = m->s.feat.struct_page_size;
	__u64 ips[PPW_STACK_DEPTH];
	int nf;

	pr->netmem = netmem;
	if (vm && psz > 0 && !(netmem & 1) && netmem >= vm)
		pr->pfn = (netmem - vm) / psz;
	if (hp) {
		pr->where = where_name(hp->where);
		holder_desc_of(pr->holder, sizeof(pr->holder), rep, hp);
	}
	if (pr->stack_id >= 0 && k) {
		nf = stack_frames(&m->s, pr->stack_id, ips, PPW_STACK_DEPTH);
		if (nf > 0)
			nf = stack_trim(k, ips, nf);
		if (nf > 0)
			stack_fmt(k, ips, nf, 8, pr->stack, sizeof(pr->stack));
	}
}

int pages_listing(struct monitor *m, const struct pool_row *row,
		  const struct holders_report *rep, const struct ksyms *k, double older_than,
		  size_t limit, struct page_row **rows, size_t *nrows, size_t *unknown_age)
{
	struct listing ll, *l = &ll;
	int err = build_listing(m, row, rep, k, older_than, limit, l);

	*rows = l->rows;
	*nrows = l->n;
	*unknown_age = l->unknown_age;
	return err;
}

static int build(struct monitor *m, const struct pool_row *row, const struct holders_report *rep,
		 const struct ksyms *k, struct listing *l)
{
	return build_listing(m, row, rep, k, opts.older_than, opts.limit, l);
}

static int build_listing(struct monitor *m, const struct pool_row *row,
			 const struct holders_report *rep, const struct ksyms *k,
			 double older_than, size_t limit, struct listing *l)
{
	struct ledger_page *lp = NULL;
	struct page_row *pr;
	size_t n = 0, i;
	int err;

	memset(l, 0, sizeof(*l));
	err = collector_ledger_of(&m->col, row->addr, row->gen, &lp, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		double age = (m->cur.ts_ns - lp[i].v.hold_ns) / 1e9;

		if (!isnan(older_than) && age < older_than)
			continue;
		pr = row_add(l);
		if (!pr)
			goto nomem;
		pr->age_s = age;
		pr->in_ledger = true;
		pr->cpu = lp[i].v.cpu;
		pr->stack_id = lp[i].v.stack_id;
		fill_common(pr, m, rep, k, lp[i].netmem);
	}
	/* pages a holder has that the ledger does not: out before we looked */
	for (i = 0; i < rep->npage_idx; i++) {
		const struct ppw_rec_page *hp = rep->page_idx[i];

		if (hp->pool != row->addr || (i && rep->page_idx[i - 1]->netmem == hp->netmem))
			continue;
		if (hp->in_ledger && hp->gen == row->gen)
			continue;
		if (!isnan(older_than)) {
			l->unknown_age++;
			continue;
		}
		pr = row_add(l);
		if (!pr)
			goto nomem;
		pr->age_s = row->seen_age_s;
		pr->age_at_least = true;
		pr->cpu = -1;
		pr->stack_id = -1;
		fill_common(pr, m, rep, k, hp->netmem);
	}
	free(lp);
	qsort(l->rows, l->n, sizeof(*l->rows), age_cmp);
	if (limit && l->n > limit)
		l->n = limit;
	return 0;
nomem:
	free(lp);
	return -ENOMEM;
}

static int list_once(struct monitor *m, const struct ksyms *k)
{
	struct holders_report rep;
	struct scan_result scan;
	struct listing l;
	size_t r, shown = 0;
	int err;

	err = scan_run(&m->s, &m->nsl, &scan);
	err = err ?: monitor_sample(m);	/* after: includes pools found through pages */
	if (err) {
		scan_free(&scan);
		return err;
	}
	err = attrib_build(&rep, &scan, &m->cur,
			   &(struct attrib_params){ .now_ns = m->cur.ts_ns,
						    .page_size = m->s.feat.page_size });
	if (err)
		goto out;
	if (env.json) {
		json_obj_open(&jw);
		json_kv_f64(&jw, "time", now_real_s());
		if (!isnan(opts.older_than))
			json_kv_f64(&jw, "older_than_s", opts.older_than);
		json_key(&jw, "pools");
		json_arr_open(&jw);
	}
	for (r = 0; r < m->cur.n && !err; r++) {
		const struct pool_row *row = &m->cur.rows[r];
		int f;
		bool match = false;

		for (f = 0; f < opts.view.nfilters && !match; f++)
			match = row_matches(row, opts.view.filters[f]);
		if (!match || row->state == ROW_FREED)
			continue;
		err = build(m, row, &rep, k, &l);
		if (err)
			break;
		shown++;
		if (env.json) {
			json_obj_open(&jw);
			json_kv_u64(&jw, "id", row->id);
			json_kv_str(&jw, "device", row->device);
			json_kv_u64(&jw, "netns", row->netns_ino);
			json_kv_str(&jw, "state", row_state_name(row->state));
			json_kv_s64(&jw, "inflight", row->inflight);
			json_kv_u64(&jw, "unknown_age_pages", l.unknown_age);
			render_pages_json(&jw, l.rows, l.n);
			json_obj_close(&jw);
		} else {
			printf("pool %u %s (%s): %lld pages inflight, %zu listed", row->id,
			       row->device, row_state_name(row->state), (long long)row->inflight,
			       l.n);
			if (l.unknown_age)
				printf(", %zu out before ppwatch started (age unknown) not listed",
				       l.unknown_age);
			putchar('\n');
			render_pages_text(stdout, l.rows, l.n, env.wide);
		}
		free(l.rows);
	}
	if (env.json) {
		json_arr_close(&jw);
		json_obj_close(&jw);
		json_end(&jw);
	} else if (!shown) {
		printf("no pool matches\n");
	}
	attrib_free(&rep);
out:
	scan_free(&scan);
	return err;
}

static int pages_run(int argc, char **argv)
{
	struct ksyms k = { 0 };
	struct monitor m;
	uint64_t done = 0, v;
	int i = 0, r, npos = 0, err;
	double next;

	while (i < argc) {
		r = view_parse_arg(&opts.view, &i, argc, argv);
		if (r < 0)
			return EXIT_ERROR;
		if (r > 0)
			continue;
		if (!opts.view.nfilters) {
			if (view_add_filter(&opts.view, argv[i++]))
				return EXIT_ERROR;
		} else if (npos == 0 && !parse_duration(argv[i], &opts.interval) &&
			   opts.interval >= 0.05) {
			npos++;
			i++;
		} else if (npos == 1 && !parse_u64(argv[i], 1, UINT64_MAX, &v)) {
			opts.count = v;
			npos++;
			i++;
		} else {
			usage_error("'%s': expected POOL|DEVICE, then INTERVAL [COUNT]", argv[i]);
			return EXIT_ERROR;
		}
	}
	if (!opts.view.nfilters) {
		usage_error("which pool? give a pool id or a device name");
		return EXIT_ERROR;
	}
	if (opts.stack_every && (err = ksyms_load(&k, NULL))) {
		p_err("reading /proc/kallsyms for --stacks: %s", strerror(-err));
		return EXIT_ERROR;
	}
	if (monitor_open(&m, &(struct monitor_opts){ .holders = true,
						       .stack_every = opts.stack_every })) {
		ksyms_free(&k);
		return EXIT_ERROR;
	}
	err = monitor_sample(&m);
	next = now_mono_ns() / 1e9 + (opts.interval ? opts.interval : opts.window);
	do {
		while (!err && !exiting && now_mono_ns() / 1e9 < next)
			session_poll(&m.s, 50);
		if (err || exiting)
			break;
		err = list_once(&m, opts.stack_every ? &k : NULL);
		done++;
		next += opts.interval;
	} while (!err && opts.interval && (!opts.count || done < opts.count));
	monitor_close(&m);
	ksyms_free(&k);
	if (err) {
		p_err("listing pages: %s", strerror(-err));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

const struct command cmd_pages = {
	.name = "pages",
	.synopsis = "POOL|DEVICE [--older-than DUR] [--limit N] [-S[N]] [--window DUR] "
		    "[INTERVAL [COUNT]]",
	.summary = "every inflight page of a pool: age, CPU, holder, sampled stack",
	.lopts = pages_lopts,
	.sopts = "S::",
	.opt = pages_opt,
	.run = pages_run,
	.help = pages_help,
};
