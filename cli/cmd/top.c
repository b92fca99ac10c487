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
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
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

static const struct option top_lopts[] = { { "batch", no_argument, NULL, 'b' },
					   { "sort", required_argument, NULL, 's' },
					   { "reverse", no_argument, NULL, 'r' },
					   { "all", no_argument, NULL, 'a' },
					   { 0 } };

static int top_opt(int o, const char *arg)
{
	switch (o) {
	case 'b':
		opts.batch = true;
		return 0;
	case 's':
		opts.view.sort = arg;
		return 0;
	case 'r':
		opts.view.reverse = true;
		return 0;
	case 'a':
		opts.view.show_freed = true;
		return 0;
	}
	return -ENOENT;
}

static void top_help(void)
{
	printf("ARGS:\n"
	       "  INTERVAL [COUNT]   refresh every INTERVAL (default 1s), COUNT times\n"
	       "  pool ID, dev NAME, ifindex N   only these pools\n"
	       "  group-by device    one row per device (ynltool's view)\n"
	       "\n"
	       "  -b, --batch        print one snapshot per interval (implied by -j and by\n"
	       "                     a stdout that is not a terminal)\n"
	       "  -s, --sort KEY     sort by a column, by its JSON key (default inflight)\n"
	       "  -r, --reverse      reverse the sort\n"
	       "  -a, --all          keep freed pools listed for a while\n"
	       "\n"
	       "KEYS: q quit, < > sort column, r reverse, g group by device, w wide\n\n");
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

/* the sortable keys, in text column order: < and > walk this list */
static const char *const sort_keys[] = {
	"id",	      "device",	       "state",	       "inflight",     "inflight_bytes",
	"hold_per_s", "release_per_s", "oldest_age_s", "detach_age_s",
};

static void sort_step(int dir)
{
	int n = ARRAY_SIZE(sort_keys), i;

	for (i = 0; i < n; i++)
		if (!strcmp(sort_keys[i], opts.view.sort))
			break;
	i = i == n ? 0 : (i + dir + n) % n;
	opts.view.sort = sort_keys[i];
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
	__s64 inflight = 0, zombies = 0, pools = 0;
	__u64 bytes = 0;
	char tb[16], bb[16];
	time_t t = time(NULL);
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->rows[i].state == ROW_FREED)
			continue;
		pools++;
		zombies += s->rows[i].state == ROW_ZOMBIE;
		inflight += s->rows[i].inflight;
		bytes += s->rows[i].inflight_bytes;
	}
	strftime(tb, sizeof(tb), "%H:%M:%S", localtime(&t));
	printf("ppwatch top - %s  pools %lld (zombies %lld)  inflight %lld pages %s  [%s, "
	       "sort %s%s]\n",
	       tb, (long long)pools, (long long)zombies, (long long)inflight,
	       fmt_bytes(bb, sizeof(bb), bytes), attach_mode_name(m->s.mode), opts.view.sort,
	       opts.view.reverse ? " rev" : "");
	render_losses_text(stdout, s);
	if (!m->nl.available && !env.no_netlink)
		printf("netlink: %s\n", m->nl.why);
}

static int show(struct monitor *m, bool interactive)
{
	struct group_row *groups = NULL;
	struct snapshot view = m->cur;
	size_t ngroups = 0;
	int err;

	/* the view filters and sorts a copy: the snapshot stays whole for rates */
	view.rows = malloc((m->cur.n ? m->cur.n : 1) * sizeof(*view.rows));
	if (!view.rows)
		return -ENOMEM;
	memcpy(view.rows, m->cur.rows, m->cur.n * sizeof(*view.rows));
	err = view_apply(&opts.view, &view, &groups, &ngroups);
	if (err)
		goto out;
	if (env.json) {
		json_obj_open(&stdout_json);
		json_kv_f64(&stdout_json, "time", now_real_s());
		json_kv_f64(&stdout_json, "interval_s", view.interval_s);
		view_print_json(&stdout_json, &opts.view, &view, groups, ngroups);
		json_obj_close(&stdout_json);
		json_end(&stdout_json);
		goto out;
	}
	if (interactive)
		fputs("\033[H\033[2J", stdout);
	print_header(m, &view);
	view_print_text(stdout, &opts.view, &view, groups, ngroups, env.wide, true);
	if (!interactive)
		putchar('\n');
	fflush(stdout);
out:
	free(groups);
	free(view.rows);
	return err;
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
	if (interactive)
		term_raw();

	err = monitor_sample(&m);
	next = now_mono_s() + opts.interval;
	while (!err && !exiting && (!opts.count || shown < opts.count)) {
		r = monitor_wait(&m, next, &in, interactive);
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
	monitor_close(&m);
	if (err) {
		p_err("top: %s", strerror(-err));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

const struct command cmd_top = {
	.name = "top",
	.level = PPW_LEVEL_SAMPLED,
	.synopsis = "[group-by device] [pool ID|dev NAME]... [-b] [-s KEY] [-r] [-a] "
		    "[INTERVAL [COUNT]]",
	.summary = "live per-pool inflight pages, bytes, rates, ages and zombies",
	.lopts = top_lopts,
	.sopts = "bs:ra",
	.opt = top_opt,
	.run = top_run,
	.help = top_help,
};
