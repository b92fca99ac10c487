// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch top: the live view. Refreshes in place on a terminal; -b (or a
 * pipe, or -j) prints one snapshot per interval instead, bcc-style
 * [INTERVAL [COUNT]]. Keys: q quit, < > sort column, r reverse,
 * g group by device, w wide.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/doc.h"
#include "output/pool_table.h"
#include "sources/monitor.h"

static struct {
	bool batch;
	double interval;
	uint64_t count; /* 0: until interrupted */
	struct view_opts view;
} opts = {
	.interval = 1,
	.view = { .sort = "inflight" },
};

static const struct option top_lopts[] = {
	{ "batch", no_argument, NULL, 'b' },
	ARGS_VIEW_LOPTS,
	{ 0 },
};

static int top_opt(int o, const char *arg)
{
	if (o == 'b') {
		opts.batch = true;
		return 0;
	}
	return args_view_opt(&opts.view, o, arg);
}

static void top_help(void)
{
	printf("ARGS:\n"
	       "  INTERVAL [COUNT]   refresh every INTERVAL (default 1s), COUNT times\n"
	       "  pool ID, dev NAME, ifindex N   only these pools\n"
	       "  netns NAME|INODE   only the pools of a network namespace\n"
	       "  group-by device    one row per device (ynltool's view)\n"
	       "\n"
	       "  -b, --batch        print one snapshot per interval (implied by -j and by\n"
	       "                     a stdout that is not a terminal)\n" ARGS_VIEW_HELP
	       "  -a, --all          keep freed pools listed for a while\n"
	       "\n"
	       "KEYS: q quit, < > sort column, r reverse, g group by device, w wide, c recycling\n\n",
	       "inflight");
}

/* ---- terminal -------------------------------------------------------------- */

static struct termios saved_tio;
static bool tio_saved;

static void term_restore(void)
{
	if (tio_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	tio_saved = false;
}

static void term_raw(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tio))
		return;
	tio_saved = true;
	t = saved_tio;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &t);
	atexit(term_restore);
}

/* < and >: the next column the text table shows, in its order */
static void sort_step(int dir)
{
	struct snapshot none = { 0 };
	struct oview ov = view_oview(&opts.view, &none);
	int cols[64], n = 0, i, at = -1;

	for (i = 0; i < ov.ncols && n < (int)ARRAY_SIZE(cols); i++)
		if (ocol_shown(&ov.cols[i], env.wide))
			cols[n++] = i;
	for (i = 0; i < n; i++)
		if (!strcmp(ov.cols[cols[i]].key, opts.view.sort))
			at = i;
	at = at < 0 ? 0 : (at + dir + n) % n;
	opts.view.sort = ov.cols[cols[at]].key;
}

/* returns true when the view must be redrawn */
static bool handle_keys(void)
{
	bool redraw = false;
	char c;

	while (read(STDIN_FILENO, &c, 1) == 1) {
		switch (c) {
		case 'q':
		case 'Q':
			exiting = 1;
			break;
		case '<':
			sort_step(-1);
			redraw = true;
			break;
		case '>':
			sort_step(1);
			redraw = true;
			break;
		case 'r':
			opts.view.reverse = !opts.view.reverse;
			redraw = true;
			break;
		case 'g':
			opts.view.group_by_device = !opts.view.group_by_device;
			opts.view.sort = opts.view.group_by_device ? "live.refs" : "inflight";
			redraw = true;
			break;
		case 'w':
			env.wide = !env.wide;
			redraw = true;
			break;
		case 'c': /* the recycling view and back */
			opts.view.recycling = !opts.view.recycling;
			redraw = true;
			break;
		case ' ':
			redraw = true;
			break;
		}
	}
	return redraw;
}

/* ---- output ------------------------------------------------------------------ */

static void print_header(const struct monitor *m, const struct snapshot *s)
{
	struct snapshot_totals tot;
	char tb[16], bb[16];
	time_t t = time(NULL);

	snapshot_totals(s, &tot);
	strftime(tb, sizeof(tb), "%H:%M:%S", localtime(&t));
	printf("ppwatch top - %s  pools %llu (zombies %llu)  inflight %lld pages %s  [%s, "
	       "sort %s%s]\n",
	       tb, (unsigned long long)(tot.live + tot.zombies), (unsigned long long)tot.zombies,
	       (long long)tot.inflight, fmt_bytes(bb, sizeof(bb), tot.inflight_bytes),
	       attach_mode_name(m->s.mode), opts.view.sort, opts.view.reverse ? " rev" : "");
	render_losses_text(stdout, s);
	if (!m->nl.available && !env.no_netlink)
		printf("netlink: %s\n", m->nl.why);
}

/*
 * On a terminal, the rows that fit under the header (like top(1)): a host
 * with thousands of pools would scroll the header away, and printing rows
 * nobody sees is most of a refresh's cost. The rest is counted on the last
 * line.
 */
static size_t screen_rows(const struct monitor *m)
{
	struct winsize ws;
	size_t head = 4 + (!m->nl.available && !env.no_netlink);

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_row <= head + 1)
		return SIZE_MAX;
	return ws.ws_row - head - 1;
}

/* the view of the last refresh: its rows' memory serves the next one */
static struct snapshot view;

static int show(struct monitor *m, bool interactive)
{
	size_t fit = interactive ? screen_rows(m) : SIZE_MAX, more = 0, shown_n;
	struct group_row *groups = NULL;
	size_t ngroups = 0;
	int err;

	err = view_apply(&opts.view, &m->cur, &view, &groups, &ngroups);
	if (err) {
		p_err("sorting %zu pools for the view: %s", m->cur.n, strerror(-err));
		return err;
	}
	if (env.json) {
		doc_open(&stdout_json);
		json_kv_f64(&stdout_json, "time", monitor_time_s(m));
		json_kv_f64(&stdout_json, "interval_s", view.interval_s);
		view_print_json(&stdout_json, &opts.view, &view, groups, ngroups);
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
		goto out;
	}
	if (interactive)
		fputs("\033[H\033[2J", stdout);
	print_header(m, &view);
	if (opts.view.group_by_device && ngroups > fit) {
		more = ngroups - fit;
		ngroups = fit;
	}
	shown_n = view.n;
	if (!opts.view.group_by_device && view.n > fit) {
		more = view.n - fit; /* the copy's rows, kept whole for the next refresh */
		view.n = fit;
	}
	view_print_text(stdout, &opts.view, &view, groups, ngroups, env.wide, true);
	view.n = shown_n;
	if (more)
		printf("... %zu more %s (sort %s)", more,
		       opts.view.group_by_device ? "devices" : "pools", opts.view.sort);
	if (!interactive)
		putchar('\n');
	fflush(stdout);
out:
	free(groups);
	return 0;
}

/* a pool came or went: an interactive view redraws at once */
static bool on_ntf(void *arg, int cmd, const struct nl_pool *p)
{
	bool *changed = arg;

	*changed = true;
	return true;
}

static int top_run(int argc, char **argv)
{
	struct pollfd in = { STDIN_FILENO, POLLIN };
	bool interactive, changed = false;
	uint64_t shown = 0;
	struct monitor m;
	double next, now;
	int r, err;

	if (args_view_interval(&opts.view, argc, argv, false, 0.05, &opts.interval, &opts.count))
		return EXIT_ERROR;
	if (opts.view.group_by_device && !strcmp(opts.view.sort, "inflight"))
		opts.view.sort = "live.refs";
	interactive = !opts.batch && !env.json && isatty(STDOUT_FILENO);

	err = monitor_open(&m, &(struct monitor_opts){
				       ENV_MONITOR_OPTS, .subscribe = true, .blocks = true,
				       .keep_freed_s = opts.view.show_freed ? 30 : 0,
				       .on_ntf = interactive ? on_ntf : NULL, .arg = &changed });
	if (err)
		return EXIT_ERROR;
	/* the views with recycling columns say once that this kernel keeps none */
	if (!env.json && (opts.view.recycling || env.wide))
		monitor_say_gap(&m, "pp_stats");
	if (interactive)
		term_raw();

	err = monitor_sample(&m);
	next = now_mono_s() + opts.interval;
	while (!err && !exiting && (!opts.count || shown < opts.count)) {
		r = monitor_wait(&m, next, &in, interactive ? 1 : 0);
		if (r < 0) {
			err = r;
			break;
		}
		if (r > 0 && handle_keys()) {
			err = show(&m, interactive);
			continue;
		}
		now = now_mono_s();
		if (now < next && !changed)
			continue;
		changed = false;
		err = monitor_sample(&m);
		if (!err)
			err = show(&m, interactive);
		shown++;
		if (now >= next)
			next += opts.interval * ceil((now - next + 1e-9) / opts.interval);
	}
	term_restore();
	snapshot_free(&view);
	monitor_close(&m);
	return err ? EXIT_ERROR : EXIT_OK; /* a failure is reported where it happened */
}

const struct command cmd_top = {
	.name = "top",
	.level = PPW_LEVEL_SAMPLED,
	.synopsis = "[group-by device] [pool ID|dev NAME]... [-b] [-s KEY] [-r] [-a] "
		    "[INTERVAL [COUNT]]",
	.summary = "live per-pool inflight pages, bytes, rates, ages and zombies",
	.lopts = top_lopts,
	.sopts = "b" ARGS_VIEW_SOPTS,
	.opt = top_opt,
	.run = top_run,
	.help = top_help,
};
