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

#include "lib/http.h"
#include "lib/httpd.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/prom.h"
#include "sources/monitor.h"
#include "sources/privs.h"

#define DEFAULT_LISTEN "127.0.0.1:9478"

static struct {
	const char *listen;
	const char *user;
	double interval;
	double timeout;
	uint64_t max_clients;
	bool once;
	enum prom_format once_format;
} opts = {
	.listen = DEFAULT_LISTEN,
	.interval = 1,
	.timeout = 5,
	.max_clients = 32,
};

enum {
	OPT_LISTEN = 0x400,
	OPT_INTERVAL,
	OPT_TIMEOUT,
	OPT_MAX_CLIENTS,
	OPT_ONCE,
	OPT_OM,
	OPT_USER,
};

static const struct option export_lopts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-clients", required_argument, NULL, OPT_MAX_CLIENTS },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "openmetrics", no_argument, NULL, OPT_OM },
	{ "user", required_argument, NULL, OPT_USER },
	{ 0 },
};

static int export_opt(int o, const char *arg)
{
	switch (o) {
	case OPT_LISTEN:
		opts.listen = arg;
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
	       "  --once              print one exposition to stdout and exit, after\n"
	       "                      observing for --interval, at least 1.2s (node_exporter's\n"
	       "                      textfile collector, promtool)\n"
	       "  --openmetrics       with --once: OpenMetrics instead of text 0.0.4\n"
	       "\n"
	       "Endpoints: /metrics (OpenMetrics 1.0.0 when the Accept header asks for\n"
	       "application/openmetrics-text, else text 0.0.4), / (a pointer to /metrics).\n\n"
	       "METRICS (pool = %s):\n",
	       DEFAULT_LISTEN, prom_pool_labels);
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
	if (!a.loopback)
		p_warn("export: listening on %s, beyond loopback: whoever reaches this host "
		       "reads every pool's state, the devices and namespaces, without "
		       "authentication or TLS; keep it to a trusted network, or listen on "
		       "127.0.0.1 behind a proxy",
		       shown);
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
	struct pollfd pfd[HTTPD_POLLFDS];
	double next, now, until;
	size_t n;
	int r, err;

	err = httpd_start(&httpd, lfd,
			  &(struct httpd_opts){
				  .max_clients = opts.max_clients,
				  .timeout = opts.timeout,
				  .handle = handle,
				  .count = count_response,
			  });
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
	}
	httpd_stop(httpd);
	httpd = NULL;
	return err;
}

static int export_run(int argc, char **argv)
{
	int err, lfd = -1, ret = EXIT_ERROR;
	char shown[96] = "";
	char *body = NULL;
	size_t len = 0;

	if (argc > 0) {
		usage_error("unexpected argument '%s'", argv[0]);
		return EXIT_ERROR;
	}
	if (env.json) {
		usage_error("export speaks the Prometheus text formats; -j does not apply");
		return EXIT_ERROR;
	}
	if (opts.once_format == PROM_OPENMETRICS && !opts.once) {
		usage_error("--openmetrics goes with --once (a scrape asks for its format)");
		return EXIT_ERROR;
	}
	self.start_time = now_real_s();
	self.version = PPWATCH_VERSION;
	self.interval_s = opts.interval;
	self.scrape_duration_s = NAN;
	if (opts.user && privs_user(opts.user, &user_uid, &user_gid))
		return EXIT_ERROR;
	signal(SIGPIPE, SIG_IGN);
	if (!opts.once) {
		/* listen first: a port in use is reported before BPF is loaded */
		lfd = open_listener(opts.listen, shown, sizeof(shown));
		if (lfd < 0)
			return EXIT_ERROR;
	}
	if (monitor_open(&mon, &(struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true }))
		goto out_listen;
	self.attach = mon.kernel.attach;
	self.netlink = mon.kernel.netlink;
	if (!opts.once && drop_privileges())
		goto out_monitor;
	err = sample();
	if (opts.once) {
		/*
		 * At least 1.2 s: a destroyed pool no device lists any more shows
		 * up at its next once-a-second retry.
		 */
		err = monitor_wait(&mon, now_mono_s() + (opts.interval > 1.2 ? opts.interval : 1.2),
				   NULL, 0);
		err = err ?: sample();
		if (!err && !exiting) {
			err = render(opts.once_format, &body, &len);
			if (err)
				p_err("export: rendering the exposition: %s", strerror(-err));
			else if (fwrite(body, 1, len, stdout) != len || fflush(stdout))
				p_err("export: writing the exposition to stdout: %s",
				      strerror(err = errno ? errno : EIO));
			free(body);
		}
		ret = err || exiting ? EXIT_ERROR : EXIT_OK;
		goto out_monitor;
	}
	p_info("export: serving http://%s/metrics, sampling every %.3gs", shown, opts.interval);
	/* the address for scripts, whatever the log level (port 0 picks one) */
	fprintf(stderr, "ppwatch export: listening on http://%s/metrics\n", shown);
	err = serve(lfd);
	lfd = -1; /* the server closed it */
	ret = err ? EXIT_ERROR : EXIT_OK;
out_monitor:
	monitor_close(&mon);
out_listen:
	if (lfd >= 0)
		close(lfd);
	prom_totals_free(&totals);
	return ret;
}

const struct command cmd_export = {
	.name = "export",
	.level = PPW_LEVEL_SAMPLED,
	.synopsis = "[--listen ADDR:PORT] [--interval DUR] [--timeout DUR] [--max-clients N] "
		    "[--user USER] [--once [--openmetrics]]",
	.summary = "serve per-pool metrics to Prometheus (OpenMetrics or text 0.0.4)",
	.lopts = export_lopts,
	.sopts = NULL,
	.opt = export_opt,
	.run = export_run,
	.help = export_help,
};
