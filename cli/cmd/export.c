// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch export: a Prometheus / OpenMetrics endpoint.
 *
 * Two processes, as OpenSSH separates its privileges: this one, the
 * sampler, loads the BPF programs, keeps only the capabilities reading
 * the kernel needs, samples the monitor every --interval and renders the
 * exposition (output/prom.c); the listener (serve/listener.c), forked
 * before anything is loaded, holds no capability, runs under no_new_privs
 * and a seccomp filter, and is the only one that reads what a client
 * sends: HTTP (libmicrohttpd, lib/httpd.c), TLS, basic auth and the
 * --web-config file (exporter-toolkit's format, re-read on SIGHUP, which
 * the sampler passes on). The sampler feeds it each exposition over a
 * socketpair (lib/feed.h) and reads nothing back; a scrape never waits
 * for the kernel and the kernel side never waits for a client.
 *
 * --textfile PATH writes the exposition for node_exporter's textfile
 * collector instead of serving it: a temporary file renamed over PATH,
 * every --interval, or once with --once; no listener then.
 */
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
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
#include "lib/feed.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/prom.h"
#include "sources/monitor.h"
#include "serve/child.h"
#include "serve/listener.h"
#include "sources/privs.h"

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
	bool systemd_socket;
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

static struct prom_devsel devsel; /* --device-include, --device-exclude */

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
	OPT_SYSTEMD_SOCKET,
	OPT_DEVICE_INCLUDE,
	OPT_DEVICE_EXCLUDE,
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
	{ "systemd-socket", no_argument, NULL, OPT_SYSTEMD_SOCKET },
	{ "device-include", required_argument, NULL, OPT_DEVICE_INCLUDE },
	{ "device-exclude", required_argument, NULL, OPT_DEVICE_EXCLUDE },
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
	case OPT_SYSTEMD_SOCKET:
		opts.systemd_socket = true;
		return 0;
	case OPT_DEVICE_INCLUDE:
	case OPT_DEVICE_EXCLUDE: {
		const char *which = o == OPT_DEVICE_INCLUDE ? "include" : "exclude";
		char why[128];

		if (prom_devsel_set(&devsel, o == OPT_DEVICE_INCLUDE, arg, why, sizeof(why))) {
			usage_error("--device-%s '%s': %s; expected a POSIX extended regular "
				    "expression (as node_exporter's netdev collector's device-%s)",
				    which, arg, why, which);
			return -EINVAL;
		}
		return 0;
	}
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
	       "  --systemd-socket    serve on the socket systemd passes (socket activation,\n"
	       "                      ppwatch-export.socket's ListenStream=) instead\n"
	       "  --interval DUR      sample the kernel side every DUR (default 1s)\n"
	       "  --timeout DUR       a client has DUR to send its request, and DUR again to\n"
	       "                      take the answer; idle connections close after DUR\n"
	       "                      (default 5s)\n"
	       "  --max-clients N     connections at once (default 32); more wait, and the\n"
	       "                      one waiting longest for a request makes room\n"
	       "  --user USER         run as USER (name or number): the listener with no\n"
	       "                      capabilities, the sampler, once loaded, with only\n"
	       "                      those it still needs (PRIVILEGES in ppwatch-export(8))\n"
	       "  --web-config FILE   TLS and basic auth, in the Prometheus exporter-toolkit's\n"
	       "                      web config format (tls_server_config, basic_auth_users);\n"
	       "                      re-read on SIGHUP, at once, no connection dropped\n"
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
	       "                      device above %d pools, pool again at %d or fewer.\n"
	       "                      Every device gets its ppwatch_device_* sums\n"
	       "                      either way\n"
	       "  --top-pools N       with --series device: the N pools with most pages out\n"
	       "                      keep their series (default %d)\n"
	       "  --device-include RE only pools of devices RE matches (a POSIX extended\n"
	       "                      regular expression, anywhere in the name: '^eth')\n"
	       "  --device-exclude RE no pools of devices RE matches ('^veth'); as\n"
	       "                      node_exporter's netdev device-include/exclude\n"
	       "\n"
	       "Endpoints: /metrics (OpenMetrics 1.0.0 when the Accept header asks for\n"
	       "application/openmetrics-text, else text 0.0.4), / (a pointer to /metrics).\n\n"
	       "METRICS (pool = %s; device = %s):\n",
	       DEFAULT_LISTEN, PROM_AUTO_POOLS, PROM_AUTO_POOLS_BACK, PROM_TOP_POOLS,
	       prom_pool_labels, prom_device_labels);
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
static double start_time;
static struct snapshot view; /* with them: the pools of the devices selected */

/* this process's CPU (user + system) and resident memory */
static void process_stats(double *cpu, __u64 *rss_bytes)
{
	unsigned long size, rss;
	struct rusage ru;
	FILE *f;

	*cpu = 0;
	*rss_bytes = 0;
	if (!getrusage(RUSAGE_SELF, &ru))
		*cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		       ru.ru_stime.tv_usec / 1e6;
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu %lu", &size, &rss) == 2)
			*rss_bytes = (__u64)rss * sysconf(_SC_PAGESIZE);
		fclose(f);
	}
}

/* the snapshot exported: the monitor's, or its pools of the selected devices */
static const struct snapshot *shown(void)
{
	return prom_devsel_any(&devsel) ? &view : &mon.cur;
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
	if (!err && prom_devsel_any(&devsel)) {
		/* the devices --device-include and --device-exclude select */
		snapshot_free(&view);
		err = snapshot_copy(&view, &mon.cur);
		if (err)
			p_err("export: the pools of %zu: %s", mon.cur.n, strerror(-err));
		else
			prom_devsel_filter(&devsel, &view);
	}
	if (!err) {
		struct snapshot_totals tot;
		bool was = self.per_device;

		snapshot_totals(shown(), &tot);
		self.per_device = !strcmp(opts.series, "device") ||
				  (!strcmp(opts.series, "auto") &&
				   prom_auto_per_device(was, tot.live + tot.zombies));
		if (!strcmp(opts.series, "auto") && self.per_device != was)
			p_info("export: --series auto: %s (%llu pools)",
			       self.per_device ? "per device from now on, with the informative and "
						 "top pools" :
						 "every pool its series again",
			       (unsigned long long)(tot.live + tot.zombies));
		self.top_pools = opts.top_pools;
		err = prom_totals_update(&totals, shown());
		if (err)
			p_err("export: the totals of %zu pools: %s", shown()->n, strerror(-err));
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

/* the sampler's part of the exposition of the latest snapshot; body is malloc'd */
static int render_part(enum prom_format fmt, char **body, size_t *len)
{
	FILE *f = open_memstream(body, len);

	if (!f)
		return -ENOMEM;
	prom_render(f, fmt, shown(), &totals, &self);
	return fclose(f) ? -ENOMEM : 0;
}

/* a whole exposition, for --once and --textfile (no scrapes: no HTTP families); malloc'd */
static int render(enum prom_format fmt, char **body, size_t *len)
{
	struct prom_serve sv = { .scrape_duration_s = NAN, .start_time = start_time };
	FILE *f;

	/* node_exporter's textfile collector has process_* of its own */
	sv.no_process = opts.textfile != NULL;
	process_stats(&sv.cpu_seconds, &sv.rss_bytes);
	f = open_memstream(body, len);
	if (!f)
		return -ENOMEM;
	prom_render(f, fmt, shown(), &totals, &self);
	prom_render_serve(f, fmt, &sv);
	return fclose(f) ? -ENOMEM : 0;
}

/* --user's */
static uid_t user_uid;
static gid_t user_gid;

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
	if (err && opts.user && (err == -EACCES || err == -EPERM))
		p_err("export: --textfile: %s (as --user %s, uid %u: let that user create files in "
		      "the directory, or write the textfile elsewhere)",
		      what, opts.user, (unsigned)user_uid);
	else if (err)
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
		if (hangup) {
			hangup = 0;
			p_info("export: SIGHUP: --textfile has no web config to re-read");
		}
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
static int open_listener(const char *spec)
{
	struct httpd_addr a;

	if (httpd_listen_parse(spec, &a)) {
		usage_error("--listen '%s': expected ADDR:PORT, [IPV6]:PORT or PORT", spec);
		return -EINVAL;
	}
	return httpd_listen(&a);
}

/* --systemd-socket: the one listening stream socket systemd passed (sd_listen_fds(3)) */
static int systemd_listener(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int fd = 3, type = 0, acc = 0;
	socklen_t l = sizeof(int);
	uint64_t p, n;

	if (!pid || !fds || parse_u64(pid, 1, INT32_MAX, &p) || (pid_t)p != getpid() ||
	    parse_u64(fds, 0, 1024, &n)) {
		p_err("export: --systemd-socket: systemd passed no socket (no LISTEN_PID and "
		      "LISTEN_FDS for this process): start it by ppwatch-export.socket, or give "
		      "--listen");
		return -EINVAL;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (n != 1 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) || type != SOCK_STREAM ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) || !acc) {
		p_err("export: --systemd-socket: expected one listening stream socket, got %llu "
		      "descriptor%s%s: give ppwatch-export.socket one ListenStream=",
		      (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? " that is not one" : "");
		return -EINVAL;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) || fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		p_err("export: --systemd-socket: %s", strerror(errno));
		return -errno;
	}
	return fd;
}

/* ---- the listener ------------------------------------------------------------------- */

static struct listener_proc lp = { .pid = -1, .feed = -1 };

/* in the forked listener, before it serves: every capability and (with --user) uid 0 gone */
static int listener_privileges(void *arg)
{
	char kept[8];

	return privs_drop(NULL, 0, opts.user ? &user_uid : NULL, opts.user ? &user_gid : NULL, kept,
			  sizeof(kept));
}

static int start_listener(int lfd)
{
	const struct listener_opts o = {
		.web_config = opts.web_config,
		.max_clients = opts.max_clients,
		.timeout = opts.timeout,
		.interval = opts.interval,
	};

	return listener_start(&lp, lfd, &o, listener_privileges, NULL);
}

/* the latest snapshot to the listener, in both formats: 0, or -errno (it is gone) */
static int feed_listener(void)
{
	char *text = NULL, *om = NULL;
	size_t tl = 0, ol = 0;
	struct feed_head h = { .start_time = start_time };
	__u64 rss;
	int err;

	process_stats(&h.cpu_seconds, &rss);
	h.rss_bytes = rss;
	err = render_part(PROM_TEXT, &text, &tl) ?: render_part(PROM_OPENMETRICS, &om, &ol);
	err = err ?: feed_queue(&lp.out, &h, text, om);
	free(text);
	free(om);
	if (err) {
		p_err("export: rendering the exposition: %s", strerror(-err));
		return 0; /* the previous one is served */
	}
	return feed_flush(&lp.out, lp.feed);
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

/* sample every --interval and feed the listener; SIGHUP goes on to it, at once */
static int serve(void)
{
	struct pollfd pfd;
	double next, now;
	int r, err = 0;

	err = feed_listener();
	next = now_mono_s() + opts.interval;
	while (!exiting && !err) {
		now = now_mono_s();
		if (now >= next) {
			sample();
			err = feed_listener();
			/* on schedule; skip the intervals a slow collection overran */
			next += opts.interval * ceil((now - next + 1e-9) / opts.interval);
		}
		pfd = (struct pollfd){ lp.feed, feed_pending(&lp.out) ? POLLOUT : 0 };
		r = monitor_wait(&mon, next, &pfd, 1);
		if (r < 0) /* reported */
			return listener_stop(&lp), r;
		if (pfd.revents & (POLLHUP | POLLERR))
			break;
		if (pfd.revents & POLLOUT)
			err = feed_flush(&lp.out, lp.feed);
		if (hangup) {
			hangup = 0;
			p_dbg("export: SIGHUP: passed on to the listener");
			kill(lp.pid, SIGHUP);
		}
	}
	if (exiting)
		return listener_stop(&lp) ? -EIO : 0;
	listener_lost(&lp);
	return -EIO;
}

/* the options that do not go together */
static int check_opts(void)
{
	if (opts.once_format == PROM_OPENMETRICS && (!opts.once || opts.textfile)) {
		usage_error("--openmetrics goes with --once to stdout (a scrape asks for its "
			    "format; the textfile collector reads text 0.0.4)");
		return -EINVAL;
	}
	if (opts.systemd_socket && opts.listen_set) {
		usage_error("--listen and --systemd-socket: one or the other (with the service, "
			    "the address is ppwatch-export.socket's ListenStream=: systemctl edit "
			    "ppwatch-export.socket)");
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
	bool serving;

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
	serving = !opts.once && !opts.textfile;
	start_time = now_real_s();
	self.version = PPWATCH_VERSION;
	self.interval_s = opts.interval;
	if (opts.user && privs_user(opts.user, &user_uid, &user_gid))
		return EXIT_ERROR;
	signal(SIGPIPE, SIG_IGN);
	/* a daemon re-reads its configuration on SIGHUP; --once ends, as it would by default */
	if (!opts.once)
		stop_on_hangup();
	if (!serving && opts.systemd_socket && getenv("LISTEN_FDS")) {
		/* the service writing a textfile: its socket is not served */
		p_info("export: --textfile or --once: the socket systemd passed is not served "
		       "(systemctl disable --now ppwatch-export.socket)");
		lfd = systemd_listener();
		if (lfd >= 0)
			close(lfd);
		lfd = -1;
	}
	if (serving) {
		/* listen first: a port in use is reported before BPF is loaded */
		lfd = opts.systemd_socket ? systemd_listener() : open_listener(opts.listen);
		if (lfd < 0)
			return EXIT_ERROR;
		/* and the listener reads the web config: what is wrong with it, before too */
		ret = start_listener(lfd);
		if (ret)
			return ret;
		ret = EXIT_ERROR;
	}
	/* notifications: a namespace's netlink dump is taken again only when one says so */
	if (monitor_open(&mon, &(struct monitor_opts){ ENV_MONITOR_OPTS, .blocks = true,
						       .subscribe = !opts.once }))
		goto out;
	self.attach = mon.kernel.attach;
	self.netlink = mon.kernel.netlink;
	/* --once too when --user says who (the textfile is then that user's) */
	if ((!opts.once || opts.user) && drop_privileges())
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
		/* the ready line scripts wait for (the init.d script), as 'listening on' is */
		p_notice("ppwatch export: writing %s every %.3gs", opts.textfile, opts.interval);
		ret = textfile_loop() ? EXIT_ERROR : EXIT_OK;
		goto out_monitor;
	}
	ret = serve() ? EXIT_ERROR : EXIT_OK;
out_monitor:
	monitor_close(&mon);
out:
	if (lp.pid > 0)
		ret = listener_stop(&lp) ?: ret;
	prom_totals_free(&totals);
	snapshot_free(&view);
	prom_devsel_free(&devsel);
	return ret;
}

const struct command cmd_export = {
	.name = "export",
	.level = PPW_LEVEL_SAMPLED,
	.synopsis =
		"[--listen ADDR:PORT | --systemd-socket] [--web-config FILE] [--textfile PATH] [--interval DUR] "
		"[--timeout DUR] [--max-clients N] [--user USER] [--group GROUP] "
		"[--series auto|pool|device] "
		"[--top-pools N] [--device-include RE] [--device-exclude RE] "
		"[--once [--openmetrics]]",
	.summary = "serve per-pool metrics to Prometheus (OpenMetrics or text 0.0.4)",
	.lopts = export_lopts,
	.sopts = NULL,
	.opt = export_opt,
	.run = export_run,
	.help = export_help,
};
