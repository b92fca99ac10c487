// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch export: a Prometheus / OpenMetrics endpoint.
 *
 * One thread, one poll loop (the monitor's, monitor_wait()): the monitor
 * is sampled every --interval, and a scrape renders the latest snapshot
 * (output/prom.c), so a scrape never waits for the kernel and the kernel
 * side never waits for a client. HTTP is libmicrohttpd's, on that loop
 * (lib/httpd.c: connection limits, deadlines, keep-alive, HEAD); what a
 * request gets is lib/http.c's route and prom_negotiate().
 *
 * --web-config FILE secures it as exporter-toolkit's exporters are
 * (model/web_config.c: TLS by libmicrohttpd's GnuTLS, client
 * certificates, bcrypt basic auth by libcrypt, lib/basic_auth.c), re-read
 * on SIGHUP. --textfile PATH writes the exposition for node_exporter's
 * textfile collector instead of serving it: a temporary file renamed over
 * PATH, every --interval, or once with --once.
 */
#include <errno.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "args.h"
#include "lib/atomic_file.h"
#include "lib/http.h"
#include "lib/httpd.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/prom.h"
#include "sources/monitor.h"
#include "sources/privs.h"
#include "sources/web.h"

#define DEFAULT_LISTEN "127.0.0.1:9478"

static struct {
	const char *listen;
	const char *user;
	const char *web_config;
	const char *textfile;
	const char *group;	  /* --group: the textfile's readers */
	struct file_perm tf_perm; /* 0600, 0640 with --group */
	double interval;
	double timeout;
	uint64_t max_clients;
	bool once;
	bool listen_set;
	enum prom_format once_format;
	const char *series; /* auto, pool, device */
	uint64_t top_pools;
} opts = {
	.listen = DEFAULT_LISTEN,
	.interval = 1,
	.timeout = 5,
	.max_clients = 32,
	.series = "auto",
	.top_pools = PROM_TOP_POOLS,
};

enum {
	OPT_LISTEN = 0x400,
	OPT_INTERVAL,
	OPT_TIMEOUT,
	OPT_MAX_CLIENTS,
	OPT_ONCE,
	OPT_OM,
	OPT_USER,
	OPT_SERIES,
	OPT_TOP_POOLS,
	OPT_WEB_CONFIG,
	OPT_TEXTFILE,
	OPT_GROUP,
};

static const struct option export_lopts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-clients", required_argument, NULL, OPT_MAX_CLIENTS },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "openmetrics", no_argument, NULL, OPT_OM },
	{ "user", required_argument, NULL, OPT_USER },
	{ "series", required_argument, NULL, OPT_SERIES },
	{ "top-pools", required_argument, NULL, OPT_TOP_POOLS },
	{ "web-config", required_argument, NULL, OPT_WEB_CONFIG },
	{ "textfile", required_argument, NULL, OPT_TEXTFILE },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ 0 },
};

static int export_opt(int o, const char *arg)
{
	switch (o) {
	case OPT_LISTEN:
		opts.listen = arg;
		opts.listen_set = true;
		return 0;
	case OPT_INTERVAL:
		if (parse_duration(arg, &opts.interval) || opts.interval < 0.1 ||
		    opts.interval > 3600) {
			usage_error("--interval '%s': expected a duration from 100ms to 1h", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_TIMEOUT:
		if (parse_duration(arg, &opts.timeout) || opts.timeout < 0.05 ||
		    opts.timeout > 600) {
			usage_error("--timeout '%s': expected a duration from 50ms to 10m", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_MAX_CLIENTS:
		if (parse_u64(arg, 1, 4096, &opts.max_clients)) {
			usage_error("--max-clients '%s': expected 1..4096", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_ONCE:
		opts.once = true;
		return 0;
	case OPT_OM:
		opts.once_format = PROM_OPENMETRICS;
		return 0;
	case OPT_USER:
		opts.user = arg;
		return 0;
	case OPT_SERIES:
		if (strcmp(arg, "auto") && strcmp(arg, "pool") && strcmp(arg, "device")) {
			usage_error("--series '%s': expected auto, pool or device", arg);
			return -EINVAL;
		}
		opts.series = arg;
		return 0;
	case OPT_TOP_POOLS:
		if (parse_u64(arg, 0, 100000, &opts.top_pools)) {
			usage_error("--top-pools '%s': expected 0..100000", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_WEB_CONFIG:
		opts.web_config = arg;
		return 0;
	case OPT_TEXTFILE:
		opts.textfile = arg;
		return 0;
	case OPT_GROUP:
		opts.group = arg;
		return args_group(arg, &opts.tf_perm);
	}
	return -ENOENT;
}

static void export_help(void)
{
	const struct prom_family_help *h;
	size_t n, i;

	printf("  --listen ADDR:PORT  where to serve (default %s; [::1]:PORT for IPv6,\n"
	       "                      0.0.0.0:PORT for every address, PORT 0 for any free)\n"
	       "  --interval DUR      sample the kernel side every DUR (default 1s)\n"
	       "  --timeout DUR       a client has DUR to send its request, and DUR again to\n"
	       "                      take the answer; idle connections close after DUR\n"
	       "                      (default 5s)\n"
	       "  --max-clients N     connections at once (default 32); more wait, and the\n"
	       "                      one waiting longest for a request makes room\n"
	       "  --user USER         once loaded, serve as USER (name or number), keeping\n"
	       "                      only the capabilities still needed (see PRIVILEGES\n"
	       "                      in ppwatch-export(8))\n"
	       "  --web-config FILE   TLS and basic auth, in the Prometheus exporter-toolkit's\n"
	       "                      web config format (tls_server_config, basic_auth_users);\n"
	       "                      re-read on SIGHUP\n"
	       "  --textfile PATH     write the exposition to PATH every --interval for\n"
	       "                      node_exporter's textfile collector (PATH ends in .prom;\n"
	       "                      a temporary file renamed over it), instead of serving\n"
	       "  --group GROUP       with --textfile: the file readable by GROUP too (0640;\n"
	       "                      default 0600, the user ppwatch runs as)\n"
	       "  --once              print one exposition to stdout (or write --textfile once)\n"
	       "                      and exit, after observing for --interval, at least 1.2s\n"
	       "  --openmetrics       with --once: OpenMetrics instead of text 0.0.4\n"
	       "  --series WHICH      pool: every pool its ppwatch_pool_* series; device:\n"
	       "                      only pools that carry information (zombies, DMA\n"
	       "                      hazards, pages out for a minute, item failures, the\n"
	       "                      --top-pools with most pages out); auto (default):\n"
	       "                      device above %d pools. Every device gets its\n"
	       "                      ppwatch_device_* sums either way\n"
	       "  --top-pools N       with --series device: the N pools with most pages out\n"
	       "                      keep their series (default %d)\n"
	       "\n"
	       "Endpoints: /metrics (OpenMetrics 1.0.0 when the Accept header asks for\n"
	       "application/openmetrics-text, else text 0.0.4), / (a pointer to /metrics).\n\n"
	       "METRICS (pool = %s; device = %s):\n",
	       DEFAULT_LISTEN, PROM_AUTO_POOLS, PROM_TOP_POOLS, prom_pool_labels,
	       prom_device_labels);
	n = prom_families(&h);
	for (i = 0; i < n; i++) {
		printf("  %s %s {%s}\n      ", h[i].name, h[i].type, h[i].labels);
		print_wrapped(h[i].help, 6, 80);
	}
	putchar('\n');
}

/* ---- state ----------------------------------------------------------------------- */

static struct monitor mon;
static struct prom_totals totals;
static struct prom_self self;
static struct httpd *httpd;

static void count_response(void *arg, int code)
{
	int i;

	for (i = 0; i < PROM_HTTP_CODES; i++) {
		if (self.http_code[i] == code || !self.http_code[i]) {
			self.http_code[i] = code;
			self.http_count[i]++;
			return;
		}
	}
}

static void process_stats(void)
{
	struct rusage ru;
	unsigned long size, rss;
	FILE *f;

	if (!getrusage(RUSAGE_SELF, &ru))
		self.cpu_seconds = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
				   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu %lu", &size, &rss) == 2)
			self.rss_bytes = (__u64)rss * sysconf(_SC_PAGESIZE);
		fclose(f);
	}
}

static int sample(void)
{
	double t0 = now_mono_s(), dt;
	int err;

	err = monitor_sample(&mon); /* reports its failure */
	dt = now_mono_s() - t0;
	self.collect_duration_s = dt;
	self.collect_seconds_total += dt;
	self.collects_total++;
	if (!err) {
		struct snapshot_totals tot;

		snapshot_totals(&mon.cur, &tot);
		self.per_device =
			!strcmp(opts.series, "device") ||
			(!strcmp(opts.series, "auto") && tot.live + tot.zombies > PROM_AUTO_POOLS);
		self.top_pools = opts.top_pools;
		err = prom_totals_update(&totals, &mon.cur);
		if (err)
			p_err("export: the totals of %zu pools: %s", mon.cur.n, strerror(-err));
	}
	if (err) {
		/* what it does about it (ppwatch_collect_errors_total counts them) */
		self.collect_errors_total++;
		if (self.collect_errors_total <= 3 || !(self.collect_errors_total % 100))
			p_warn("export: serving the previous snapshot (%llu collection failures so "
			       "far)",
			       (unsigned long long)self.collect_errors_total);
		return err;
	}
	self.last_collect_time = now_real_s();
	return 0;
}

/* render the latest snapshot; body is malloc'd */
static int render(enum prom_format fmt, char **body, size_t *len)
{
	double t0 = now_mono_s();
	FILE *f;

	process_stats();
	f = open_memstream(body, len);
	if (!f)
		return -ENOMEM;
	prom_render(f, fmt, &mon.cur, &totals, &self);
	if (fclose(f))
		return -ENOMEM;
	self.scrape_duration_s = now_mono_s() - t0;
	return 0;
}

/* ---- requests ----------------------------------------------------------------------- */

static void answer_text(struct httpd_answer *ans, int code, const char *text)
{
	ans->code = code;
	ans->ctype = "text/plain; charset=utf-8";
	ans->len = 0;
	if (asprintf(&ans->body, "%s", text) >= 0)
		ans->len = strlen(ans->body);
	else
		ans->body = NULL;
}

static void handle(void *arg, const struct httpd_request *req, struct httpd_answer *ans)
{
	struct http_route r;
	enum prom_format fmt;
	char text[256];

	http_route(req->method, req->path, &r);
	if (r.page == HTTP_PAGE_ERROR) {
		snprintf(text, sizeof(text), "%d %s: %s\n", r.code, http_reason(r.code), r.why);
		answer_text(ans, r.code, text);
		ans->allow = r.allow;
		return;
	}
	if (r.page == HTTP_PAGE_HOME) {
		answer_text(ans, 200,
			    "ppwatch export " PPWATCH_VERSION ": page_pool metrics at /metrics\n");
		return;
	}
	fmt = prom_negotiate(req->accept[0] ? req->accept : NULL);
	if (render(fmt, &ans->body, &ans->len)) {
		free(ans->body);
		answer_text(ans, 500, "500 Internal Server Error: out of memory\n");
		return;
	}
	ans->code = 200;
	ans->ctype = prom_content_type(fmt);
	p_dbg("export: %s %s 200 %zu bytes (%s)", req->method, req->path, ans->len,
	      fmt == PROM_OPENMETRICS ? "openmetrics" : "text 0.0.4");
}

/* ---- the web config --------------------------------------------------------------- */

static struct web_state *web; /* in force; NULL: plain HTTP, nobody to authenticate */

static struct httpd_opts server_opts(const struct web_state *w)
{
	return (struct httpd_opts){
		.max_clients = opts.max_clients,
		.timeout = opts.timeout,
		.handle = handle,
		.count = count_response,
		.tls = w && w->c.tls ? &w->tls : NULL,
		.auth = w && w->auth ? web_authorize : NULL,
		.arg = (void *)w,
		.realm = "ppwatch",
	};
}

static const char *scheme(void)
{
	return web && web->c.tls ? "https" : "http";
}

/* SIGHUP: the web config again; what is wrong with it keeps the one in force */
static void reload(void)
{
	struct httpd_opts o;
	struct web_state *w;

	hangup = 0;
	if (!opts.web_config || opts.textfile) {
		p_info("export: SIGHUP: no --web-config to re-read");
		return;
	}
	w = web_state_load(opts.web_config);
	o = server_opts(w);
	if (!w || httpd_restart(httpd, &o)) {
		p_warn("export: SIGHUP: %s not taken; serving as before", opts.web_config);
		web_state_free(w);
		return;
	}
	web_state_free(web);
	web = w;
	p_info("export: SIGHUP: %s re-read: %s, %zu basic auth users", opts.web_config,
	       w->c.tls ? "HTTPS" : "HTTP", w->c.nusers);
}

/* ---- the textfile ---------------------------------------------------------------- */

/* the exposition over PATH, atomically: a temporary file beside it, renamed: 0 or -errno */
static int write_textfile(void)
{
	char *body = NULL, what[1200];
	size_t len = 0;
	int err;

	err = render(PROM_TEXT, &body, &len);
	if (err) {
		p_err("export: rendering the exposition: %s", strerror(-err));
		return err;
	}
	/* 0600 as every file ppwatch writes (node_exporter reads it as --user), 0640 with --group */
	err = atomic_file_write(opts.textfile, body, len, &opts.tf_perm, what, sizeof(what));
	if (err)
		p_err("export: --textfile: %s", what);
	free(body);
	return err;
}

/* sample and write every --interval; a failed write is said and tried again next time */
static int textfile_loop(void)
{
	double next = now_mono_s() + opts.interval, now;
	int err;

	while (!exiting) {
		err = monitor_wait(&mon, next, NULL, 0);
		if (err < 0) /* reported */
			return err;
		if (hangup)
			reload();
		now = now_mono_s();
		if (exiting || now < next)
			continue;
		if (!sample())
			write_textfile();
		next += opts.interval * ceil((now - next + 1e-9) / opts.interval);
	}
	return 0;
}

/* ---- listening --------------------------------------------------------------------- */

/* --listen's socket, before BPF is loaded (a port in use is said first): fd, or -errno */
static int open_listener(const char *spec, char *shown, size_t shown_len)
{
	struct httpd_addr a;
	int fd;

	if (httpd_listen_parse(spec, &a)) {
		usage_error("--listen '%s': expected ADDR:PORT, [IPV6]:PORT or PORT", spec);
		return -EINVAL;
	}
	fd = httpd_listen(&a);
	if (fd < 0)
		return fd;
	snprintf(shown, shown_len, "%s", a.shown);
	if (!a.loopback && !web)
		p_warn("export: listening on %s, beyond loopback: whoever reaches this host "
		       "reads every pool's state, the devices and namespaces, without "
		       "authentication or TLS; keep it to a trusted network, or give "
		       "--web-config (TLS, basic auth)",
		       shown);
	else if (!a.loopback && !web->c.tls)
		p_warn("export: listening on %s, beyond loopback, without TLS: basic auth "
		       "passwords cross the network in the clear; add tls_server_config to %s",
		       shown, opts.web_config);
	return fd;
}

/* ---- the command --------------------------------------------------------------------- */

/*
 * Once the BPF objects are loaded and the listener open, keep only what
 * serving still needs: bpf() on the maps and the discovery iterator
 * (CAP_BPF: older kernels check it for every command when unprivileged
 * BPF is off; before 5.8 it is CAP_SYS_ADMIN), and, when netlink is in
 * use, following network namespaces that appear later: CAP_SYS_PTRACE to
 * read /proc/PID/ns/net of other users' processes, CAP_SYS_ADMIN for
 * setns() into them. Everything else goes, from every set, and
 * no_new_privs is set; with --user, uid 0 goes too.
 */
static uid_t user_uid;
static gid_t user_gid;

static int drop_privileges(void)
{
	int keep[3], n = 0, err;
	char kept[96];

	keep[n++] = CAP_BPF;
	if (mon.kernel.netlink || !privs_have(CAP_BPF))
		keep[n++] = CAP_SYS_ADMIN;
	if (mon.kernel.netlink)
		keep[n++] = CAP_SYS_PTRACE;
	err = privs_drop(keep, n, opts.user ? &user_uid : NULL, opts.user ? &user_gid : NULL, kept,
			 sizeof(kept));
	if (!err)
		p_info("export: privileges dropped: keeping %s%s%s", kept[0] ? kept : "nothing",
		       opts.user ? ", as user " : "", opts.user ? opts.user : "");
	return err;
}

static int serve(int lfd)
{
	struct httpd_opts o = server_opts(web);
	struct pollfd pfd[HTTPD_POLLFDS];
	double next, now, until;
	size_t n;
	int r, err;

	err = httpd_start(&httpd, lfd, &o);
	if (err)
		return err;
	next = now_mono_s() + opts.interval;
	while (!exiting) {
		now = now_mono_s();
		if (now >= next) {
			sample();
			/* on schedule; skip the intervals a slow collection overran */
			next += opts.interval * ceil((now - next + 1e-9) / opts.interval);
		}
		n = httpd_pollfds(httpd, pfd);
		until = httpd_deadline(httpd);
		r = monitor_wait(&mon, until < next ? until : next, pfd, n);
		if (r < 0) { /* reported */
			err = r;
			break;
		}
		httpd_run(httpd, pfd, n);
		if (hangup)
			reload();
	}
	httpd_stop(httpd);
	httpd = NULL;
	return err;
}

/* the options that do not go together */
static int check_opts(void)
{
	if (opts.once_format == PROM_OPENMETRICS && (!opts.once || opts.textfile)) {
		usage_error("--openmetrics goes with --once to stdout (a scrape asks for its "
			    "format; the textfile collector reads text 0.0.4)");
		return -EINVAL;
	}
	if (opts.once && !opts.textfile && (opts.listen_set || opts.web_config)) {
		usage_error("--once prints one exposition and serves none: --listen and "
			    "--web-config do not apply");
		return -EINVAL;
	}
	if (opts.group && !opts.textfile) {
		usage_error("--group says who reads the --textfile; without one it does not "
			    "apply");
		return -EINVAL;
	}
	if (opts.textfile && (opts.listen_set || opts.web_config)) {
		usage_error("--textfile writes a file instead of serving: --listen and "
			    "--web-config do not apply");
		return -EINVAL;
	}
	if (opts.textfile && (!*opts.textfile || opts.textfile[strlen(opts.textfile) - 1] == '/')) {
		usage_error("--textfile '%s': expected a file (node_exporter reads *.prom)",
			    opts.textfile);
		return -EINVAL;
	}
	return 0;
}

/* --once: one exposition to stdout or the textfile, after watching a moment */
static int once(void)
{
	char *body = NULL;
	size_t len = 0;
	int err;

	/*
	 * At least 1.2 s: a destroyed pool no device lists any more shows
	 * up at its next once-a-second retry.
	 */
	err = monitor_wait(&mon, now_mono_s() + (opts.interval > 1.2 ? opts.interval : 1.2), NULL,
			   0);
	err = err ?: sample();
	if (err || exiting)
		return err ?: -EINTR;
	if (opts.textfile)
		return write_textfile();
	err = render(opts.once_format, &body, &len);
	if (err)
		p_err("export: rendering the exposition: %s", strerror(-err));
	else if (fwrite(body, 1, len, stdout) != len || fflush(stdout))
		p_err("export: writing the exposition to stdout: %s",
		      strerror(-(err = errno ? -errno : -EIO)));
	free(body);
	return err;
}

static int export_run(int argc, char **argv)
{
	int err, lfd = -1, ret = EXIT_ERROR;
	char shown[96] = "";

	if (argc > 0) {
		usage_error("unexpected argument '%s'", argv[0]);
		return EXIT_ERROR;
	}
	if (env.json) {
		usage_error("export speaks the Prometheus text formats; -j does not apply");
		return EXIT_ERROR;
	}
	if (check_opts())
		return EXIT_ERROR;
	self.start_time = now_real_s();
	self.version = PPWATCH_VERSION;
	self.interval_s = opts.interval;
	self.scrape_duration_s = NAN;
	self.no_process = opts.textfile != NULL;
	if (opts.user && privs_user(opts.user, &user_uid, &user_gid))
		return EXIT_ERROR;
	/* the web config first: what is wrong with it is said before BPF is loaded */
	if (opts.web_config && !opts.once && !(web = web_state_load(opts.web_config)))
		return EXIT_ERROR;
	signal(SIGPIPE, SIG_IGN);
	stop_on_hangup();
	if (!opts.once && !opts.textfile) {
		/* listen first: a port in use is reported before BPF is loaded */
		lfd = open_listener(opts.listen, shown, sizeof(shown));
		if (lfd < 0)
			goto out_web;
	}
	/* notifications: a namespace's netlink dump is taken again only when one says so */
	if (monitor_open(&mon, &(struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true,
						       .subscribe = !opts.once }))
		goto out_listen;
	self.attach = mon.kernel.attach;
	self.netlink = mon.kernel.netlink;
	if (!opts.once && drop_privileges())
		goto out_monitor;
	err = sample();
	if (opts.once) {
		ret = once() ? EXIT_ERROR : EXIT_OK;
		goto out_monitor;
	}
	if (opts.textfile) {
		/* a first file at once: a path that cannot be written is said now, exit 2 */
		err = err ?: write_textfile();
		if (err)
			goto out_monitor;
		p_info("export: writing %s every %.3gs", opts.textfile, opts.interval);
		ret = textfile_loop() ? EXIT_ERROR : EXIT_OK;
		goto out_monitor;
	}
	p_info("export: serving %s://%s/metrics, sampling every %.3gs%s", scheme(), shown,
	       opts.interval, web && web->auth ? ", basic auth" : "");
	/* the address for scripts, whatever the log level (port 0 picks one) */
	fprintf(stderr, "ppwatch export: listening on %s://%s/metrics\n", scheme(), shown);
	err = serve(lfd);
	lfd = -1; /* the server closed it */
	ret = err ? EXIT_ERROR : EXIT_OK;
out_monitor:
	monitor_close(&mon);
out_listen:
	if (lfd >= 0)
		close(lfd);
	prom_totals_free(&totals);
out_web:
	web_state_free(web);
	web = NULL;
	return ret;
}

const struct command cmd_export = {
	.name = "export",
	.level = PPW_LEVEL_SAMPLED,
	.synopsis = "[--listen ADDR:PORT] [--web-config FILE] [--textfile PATH] [--interval DUR] "
		    "[--timeout DUR] [--max-clients N] [--user USER] [--group GROUP] "
		    "[--series auto|pool|device] "
		    "[--top-pools N] [--once [--openmetrics]]",
	.summary = "serve per-pool metrics to Prometheus (OpenMetrics or text 0.0.4)",
	.lopts = export_lopts,
	.sopts = NULL,
	.opt = export_opt,
	.run = export_run,
	.help = export_help,
};
