// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ppwatch export: a Prometheus / OpenMetrics endpoint.
 *
 * One thread, one poll loop: the monitor is sampled every --interval, and
 * a scrape renders the latest snapshot (output/prom.c), so a scrape never
 * waits for the kernel and the kernel side never waits for a client.
 * Sockets are non-blocking; each connection has a size cap on its request
 * head and one deadline (--timeout) for the head to arrive, then one for
 * the answer to be taken, and is closed after one response. Malformed
 * requests get 400 (431, 505), other methods 405, other paths 404, slow
 * ones 408, and clients over --max-clients 503.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "lib/http.h"
#include "lib/log.h"
#include "lib/util.h"
#include "main.h"
#include "output/prom.h"
#include "sources/monitor.h"

#define DEFAULT_LISTEN "127.0.0.1:9478"

static struct {
	const char *listen;
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
};

static const struct option export_lopts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-clients", required_argument, NULL, OPT_MAX_CLIENTS },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "openmetrics", no_argument, NULL, OPT_OM },
	{ 0 }
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
	       "                      take the answer (default 5s)\n"
	       "  --max-clients N     connections at once; more get 503 (default 32)\n"
	       "  --once              print one exposition to stdout and exit, after\n"
	       "                      observing for --interval, at least 1.2s (node_exporter's\n"
	       "                      textfile collector, promtool)\n"
	       "  --openmetrics       with --once: OpenMetrics instead of text 0.0.4\n"
	       "\n"
	       "Endpoints: /metrics (OpenMetrics 1.0.0 when the Accept header asks for\n"
	       "application/openmetrics-text, else text 0.0.4), / (a pointer to /metrics).\n\n"
	       "METRICS (pool = %s):\n", DEFAULT_LISTEN, prom_pool_labels);
	n = prom_families(&h);
	for (i = 0; i < n; i++)
	{
		printf("  %s %s {%s}\n      ", h[i].name, h[i].type, h[i].labels);
		print_wrapped(h[i].help, 6, 80);
	}
	putchar('\n');
}

/* ---- state ----------------------------------------------------------------------- */

enum conn_state { C_FREE, C_READ, C_WRITE, C_DRAIN };

struct conn {
	int fd;
	enum conn_state st;
	double deadline;	/* CLOCK_MONOTONIC s */
	char in[HTTP_MAX_HEAD];
	size_t inlen;
	char *out;
	size_t outlen, off;
	char peer[64];
};

static struct monitor mon;
static struct prom_totals totals;
static struct prom_self self;
static struct conn *conns;
static int lfd = -1;

static void count_response(int code)
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

	err = monitor_sample(&mon);
	dt = now_mono_s() - t0;
	self.collect_duration_s = dt;
	self.collect_seconds_total += dt;
	self.collects_total++;
	if (!err)
		err = prom_totals_update(&totals, &mon.cur);
	if (err) {
		self.collect_errors_total++;
		if (self.collect_errors_total <= 3 || !(self.collect_errors_total % 100))
			p_warn("export: collecting pool state failed (%s); serving the previous "
			       "snapshot (%llu failures so far)", strerror(-err),
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

/* ---- connections ---------------------------------------------------------------- */

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->st = C_FREE;
}

static void conn_respond(struct conn *c, int code, const char *ctype, const char *extra,
			 const char *body, size_t len, bool head)
{
	if (http_response(&c->out, &c->outlen, code, ctype, extra, body, len, head)) {
		conn_close(c);
		return;
	}
	c->off = 0;
	c->st = C_WRITE;
	c->deadline = now_mono_s() + opts.timeout;
	count_response(code);
}

static void conn_error(struct conn *c, int code, const char *why)
{
	char body[256];
	int n;

	n = snprintf(body, sizeof(body), "%d %s: %s\n", code, http_reason(code), why);
	p_dbg("export: %s: %d %s", c->peer, code, why);
	conn_respond(c, code, "text/plain; charset=utf-8",
		     code == 405 ? "Allow: GET, HEAD\r\n" : NULL, body, n, false);
}

static void conn_request(struct conn *c, const struct http_req *req)
{
	enum prom_format fmt;
	char *body = NULL;
	size_t len = 0;

	if (req->code) {
		conn_error(c, req->code, req->why);
		return;
	}
	if (!strcmp(req->path, "/metrics")) {
		fmt = prom_negotiate(req->accept[0] ? req->accept : NULL);
		if (render(fmt, &body, &len)) {
			conn_error(c, 500, "out of memory");
			return;
		}
		p_dbg("export: %s: %s %s 200 %zu bytes (%s)", c->peer, req->method, req->path,
		      len, fmt == PROM_OPENMETRICS ? "openmetrics" : "text 0.0.4");
		conn_respond(c, 200, prom_content_type(fmt), NULL, body, len, req->head);
		free(body);
		return;
	}
	if (!strcmp(req->path, "/")) {
		static const char home[] = "ppwatch export " PPWATCH_VERSION
					   ": page_pool metrics at /metrics\n";

		conn_respond(c, 200, "text/plain; charset=utf-8", NULL, home, sizeof(home) - 1,
			     req->head);
		return;
	}
	conn_error(c, 404, "no such path; the metrics are at /metrics");
}

static void conn_read(struct conn *c)
{
	struct http_req req;
	ssize_t n;

	n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);	/* gone before asking anything */
		return;
	}
	c->inlen += n;
	if (http_parse(c->in, c->inlen, &req) == HTTP_INCOMPLETE)
		return;
	conn_request(c, &req);
}

static void conn_write(struct conn *c)
{
	ssize_t n;

	while (c->off < c->outlen) {
		n = send(c->fd, c->out + c->off, c->outlen - c->off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			conn_close(c);
			return;
		}
		c->off += n;
	}
	/*
	 * All sent: half-close and read what the client still sends until it
	 * closes, so closing never resets a connection with unread data.
	 */
	shutdown(c->fd, SHUT_WR);
	free(c->out);
	c->out = NULL;
	c->st = C_DRAIN;
	c->deadline = now_mono_s() + 1;
}

static void conn_drain(struct conn *c)
{
	char buf[4096];
	ssize_t n;

	do {
		n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	} while (n > 0);
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		conn_close(c);
}

static void peer_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	int port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
		snprintf(buf, len, "%s:%d", host, port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
		snprintf(buf, len, "[%s]:%d", host, port);
	} else {
		snprintf(buf, len, "?");
	}
}

static void accept_all(void)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct conn *c;
	uint64_t i;
	int fd, k;

	for (k = 0; k < 64; k++) {
		sl = sizeof(ss);
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				p_warn("export: accept: %s", strerror(errno));
			return;
		}
		for (i = 0; i < opts.max_clients; i++)
			if (conns[i].st == C_FREE)
				break;
		if (i == opts.max_clients) {
			static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 21\r\n"
				"Retry-After: 1\r\nConnection: close\r\n\r\n503 too many clients\n";

			/* best effort: never wait for a client we turn away */
			if (send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
				p_dbg("export: 503: %s", strerror(errno));
			count_response(503);
			close(fd);
			continue;
		}
		c = &conns[i];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->st = C_READ;
		c->deadline = now_mono_s() + opts.timeout;
		peer_name(&ss, c->peer, sizeof(c->peer));
	}
}

static void expire(double now)
{
	uint64_t i;

	for (i = 0; i < opts.max_clients; i++) {
		struct conn *c = &conns[i];

		if (c->st == C_FREE || now < c->deadline)
			continue;
		if (c->st == C_READ)
			conn_error(c, 408, "the request did not arrive in time");
		else
			conn_close(c);	/* would not take its answer, or not hang up */
	}
}

/* ---- listening --------------------------------------------------------------------- */

static int open_listener(const char *spec, char *shown, size_t shown_len)
{
	char host[256], port[16];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	const char *colon;
	uint64_t p;
	int fd, one = 1, err;

	if (!parse_u64(spec, 0, 65535, &p)) {
		snprintf(host, sizeof(host), "127.0.0.1");
		snprintf(port, sizeof(port), "%s", spec);
	} else if (spec[0] == '[') {
		colon = strstr(spec, "]:");
		if (!colon || colon - spec - 1 >= (long)sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec - 1), spec + 1);
		snprintf(port, sizeof(port), "%.15s", colon + 2);
	} else {
		colon = strrchr(spec, ':');
		if (!colon || colon == spec || colon - spec >= (long)sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		snprintf(port, sizeof(port), "%.15s", colon + 1);
	}
	if (parse_u64(port, 0, 65535, &p))
		goto bad;
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		p_err("export: --listen '%s': %s", spec, gai_strerror(err));
		return -EINVAL;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		freeaddrinfo(res);
		p_err("export: socket: %s", strerror(-err));
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 64)) {
		err = -errno;
		p_err("export: cannot listen on %s: %s%s", spec, strerror(-err),
		      err == -EADDRINUSE ? " (another exporter? choose another --listen port)" :
		      err == -EADDRNOTAVAIL ? " (no such local address)" : "");
		close(fd);
		freeaddrinfo(res);
		return err;
	}
	freeaddrinfo(res);
	if (!getsockname(fd, (struct sockaddr *)&ss, &sl))
		peer_name(&ss, shown, shown_len);
	return fd;
bad:
	usage_error("--listen '%s': expected ADDR:PORT, [IPV6]:PORT or PORT", spec);
	return -EINVAL;
}

/* ---- the command --------------------------------------------------------------------- */

static int serve(void)
{
	struct pollfd *pfd;
	double next, now, until;
	uint64_t i, *slot;
	size_t nfd;
	int r, err = 0;

	pfd = calloc(opts.max_clients + 1, sizeof(*pfd));
	slot = calloc(opts.max_clients + 1, sizeof(*slot));
	if (!pfd || !slot) {
		free(pfd);
		free(slot);
		return -ENOMEM;
	}
	next = now_mono_s() + opts.interval;
	while (!exiting) {
		now = now_mono_s();
		if (now >= next) {
			sample();
			/* on schedule; skip the intervals a slow collection overran */
			next += opts.interval * ceil((now - next + 1e-9) / opts.interval);
		}
		nfd = 0;
		until = next;
		pfd[nfd++] = (struct pollfd){ lfd, POLLIN };
		for (i = 0; i < opts.max_clients; i++) {
			struct conn *c = &conns[i];

			if (c->st == C_FREE)
				continue;
			slot[nfd] = i;
			pfd[nfd++] = (struct pollfd){ c->fd, c->st == C_WRITE ? POLLOUT : POLLIN };
			if (c->deadline < until)
				until = c->deadline;
		}
		r = monitor_wait(&mon, until, pfd, nfd);
		if (r < 0) {
			err = r;
			p_err("export: waiting: %s", strerror(-r));
			break;
		}
		if (r > 0) {
			if (pfd[0].revents & POLLIN)
				accept_all();
			for (i = 1; i < nfd; i++) {
				struct conn *c = &conns[slot[i]];

				if (!pfd[i].revents || c->st == C_FREE)
					continue;
				if (c->st == C_READ)
					conn_read(c);
				else if (c->st == C_WRITE)
					conn_write(c);
				else
					conn_drain(c);
			}
		}
		expire(now_mono_s());
	}
	for (i = 0; i < opts.max_clients; i++)
		if (conns[i].st != C_FREE)
			conn_close(&conns[i]);
	free(pfd);
	free(slot);
	return err;
}

static int export_run(int argc, char **argv)
{
	char shown[96] = "";
	int err, ret = EXIT_ERROR;
	char *body = NULL;
	size_t len = 0;
	uint64_t i;

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
	signal(SIGPIPE, SIG_IGN);
	if (!opts.once) {
		conns = calloc(opts.max_clients, sizeof(*conns));
		if (!conns)
			return EXIT_ERROR;
		for (i = 0; i < opts.max_clients; i++)
			conns[i].fd = -1;
		/* listen first: a port in use is reported before BPF is loaded */
		lfd = open_listener(opts.listen, shown, sizeof(shown));
		if (lfd < 0)
			goto out_conns;
	}
	if (monitor_open(&mon, &(struct monitor_opts){ ENV_MONITOR_OPTS }))
		goto out_listen;
	self.attach = mon.kernel.attach;
	self.netlink = mon.kernel.netlink;
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
			if (!err && fwrite(body, 1, len, stdout) != len)
				err = -EIO;
			free(body);
		}
		if (err)
			p_err("export: %s", strerror(-err));
		ret = err || exiting ? EXIT_ERROR : EXIT_OK;
		goto out_monitor;
	}
	p_info("export: serving http://%s/metrics, sampling every %.3gs", shown, opts.interval);
	/* the address for scripts, whatever the log level (port 0 picks one) */
	fprintf(stderr, "ppwatch export: listening on http://%s/metrics\n", shown);
	err = serve();
	ret = err ? EXIT_ERROR : EXIT_OK;
out_monitor:
	monitor_close(&mon);
out_listen:
	if (lfd >= 0)
		close(lfd);
out_conns:
	free(conns);
	prom_totals_free(&totals);
	return ret;
}

const struct command cmd_export = {
	.name = "export",
	.level = PPW_LEVEL_SAMPLED,
	.synopsis = "[--listen ADDR:PORT] [--interval DUR] [--timeout DUR] [--max-clients N] "
		    "[--once [--openmetrics]]",
	.summary = "serve per-pool metrics to Prometheus (OpenMetrics or text 0.0.4)",
	.lopts = export_lopts,
	.sopts = NULL,
	.opt = export_opt,
	.run = export_run,
	.help = export_help,
};
