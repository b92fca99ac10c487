// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/feed.h"
#include "lib/http.h"
#include "lib/httpd.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/util.h"
#include "output/prom.h"
#include "serve/listener.h"
#include "serve/sandbox.h"
#include "serve/web.h"

static volatile sig_atomic_t stop, reread;

static struct {
	const struct listener_opts *o;
	struct feed_in feed;
	struct prom_serve sv;
	struct web_state *web; /* in force; NULL: plain HTTP, nobody to authenticate */
	struct httpd *httpd;
	char where[96];
	bool loopback;
} L;

static void on_stop(int sig)
{
	stop = 1;
}

static void on_hangup(int sig)
{
	reread = 1;
}

/* ---- answers ------------------------------------------------------------------------ */

static void count_response(void *arg, int code)
{
	prom_serve_count(&L.sv, code);
}

static void process_stats(void)
{
	unsigned long size, rss;
	struct rusage ru;
	FILE *f;

	L.sv.cpu_seconds = L.feed.cur.cpu_seconds;
	L.sv.rss_bytes = L.feed.cur.rss_bytes;
	L.sv.start_time = L.feed.cur.start_time;
	if (!getrusage(RUSAGE_SELF, &ru))
		L.sv.cpu_seconds += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
				    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu %lu", &size, &rss) == 2)
			L.sv.rss_bytes += (uint64_t)rss * sysconf(_SC_PAGESIZE);
		fclose(f);
	}
}

/* the sampler's latest exposition and the listener's own families; body is malloc'd */
static int render(enum prom_format fmt, char **body, size_t *len)
{
	double t0 = now_mono_s();
	FILE *f;

	process_stats();
	f = open_memstream(body, len);
	if (!f)
		return -ENOMEM;
	fputs(fmt == PROM_OPENMETRICS ? feed_om(&L.feed) : feed_text(&L.feed), f);
	prom_render_serve(f, fmt, &L.sv);
	if (fclose(f))
		return -ENOMEM;
	L.sv.scrape_duration_s = now_mono_s() - t0;
	return 0;
}

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

/* ---- the web config ----------------------------------------------------------------- */

static void release(void *arg)
{
	web_state_put(arg);
}

/* the options for w; the daemon that runs with them holds a reference */
static struct httpd_opts server_opts(struct web_state *w)
{
	if (w)
		w->refs++;
	return (struct httpd_opts){
		.max_clients = L.o->max_clients,
		.timeout = L.o->timeout,
		.handle = handle,
		.count = count_response,
		.tls = w && w->c.tls ? &w->tls : NULL,
		.auth = w && w->auth ? web_authorize : NULL,
		.arg = w,
		.realm = "ppwatch",
		.release = w ? release : NULL,
	};
}

static const char *scheme(const struct web_state *w)
{
	return w && w->c.tls ? "https" : "http";
}

/* SIGHUP: the web config again, at once; what is wrong with it keeps the one in force */
static void reload(void)
{
	struct httpd_opts o;
	struct web_state *w;

	reread = 0;
	if (!L.o->web_config) {
		p_notice("ppwatch export: SIGHUP: no --web-config to re-read: nothing changes");
		return;
	}
	w = web_state_load(L.o->web_config, L.web);
	if (!w) {
		p_warn("export: SIGHUP: %s not taken; serving as before", L.o->web_config);
		return;
	}
	o = server_opts(w);
	if (httpd_restart(L.httpd, &o)) {
		web_state_put(w); /* the daemon's */
		web_state_put(w);
		p_warn("export: SIGHUP: %s not taken; serving as before", L.o->web_config);
		return;
	}
	web_state_warn(w, L.web ? L.web : &(struct web_state){ 0 }, L.o->web_config, L.where,
		       L.loopback);
	p_notice("ppwatch export: SIGHUP: %s taken: %s, %zu basic auth user%s%s", L.o->web_config,
		 w->c.tls ? "HTTPS" : "HTTP", w->c.nusers, plural(w->c.nusers),
		 w->auth && basic_auth_remembered(w->auth) ? " (passwords of unchanged hashes "
							     "still remembered)" :
							     "");
	web_state_put(L.web);
	L.web = w;
}

/* ---- the loop ------------------------------------------------------------------------ */

/* the feed's news: 0, or 1 when the sampler is gone (or sent what is no frame) */
static int take_feed(void)
{
	int r = feed_read(&L.feed, L.o->feed);

	if (r >= 0)
		return 0;
	if (r != -EPIPE)
		p_err("export: the listener's feed from the sampler: %s",
		      r == -EPROTO ? "not a frame" : strerror(-r));
	return 1;
}

/* wait for the first exposition: 0, or 1 (the sampler is gone, or a signal to stop) */
static int first_frame(const sigset_t *mask)
{
	struct pollfd pfd = { L.o->feed, POLLIN };

	while (!L.feed.have) {
		if (stop)
			return 1;
		if (ppoll(&pfd, 1, NULL, mask) < 0 && errno != EINTR) {
			p_err("export: waiting for the sampler: %s", strerror(errno));
			return 1;
		}
		if ((pfd.revents & (POLLIN | POLLHUP)) && take_feed())
			return 1;
	}
	return 0;
}

static int serve(const sigset_t *mask)
{
	struct pollfd pfd[HTTPD_POLLFDS + 1];
	struct timespec ts;
	double until, now;
	size_t n;
	int r;

	while (!stop) {
		pfd[0] = (struct pollfd){ L.o->feed, POLLIN };
		n = 1 + httpd_pollfds(L.httpd, pfd + 1);
		until = httpd_deadline(L.httpd);
		now = now_mono_s();
		if (until > now + 3600)
			until = now + 3600;
		/* a microsecond late rather than early: the deadline has come when it returns */
		until = until > now ? until - now + 1e-6 : 0;
		ts.tv_sec = (time_t)until;
		ts.tv_nsec = (long)((until - ts.tv_sec) * 1e9);
		if (ts.tv_nsec >= 1000000000L)
			ts.tv_nsec = 999999999L;
		r = ppoll(pfd, n, &ts, mask);
		if (r < 0 && errno != EINTR) {
			p_err("export: waiting for clients: %s", strerror(errno));
			return LISTENER_ERROR;
		}
		if (r < 0)
			for (size_t i = 0; i < n; i++)
				pfd[i].revents = 0;
		if ((pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) && take_feed())
			break;
		httpd_run(L.httpd, pfd + 1, n - 1);
		if (reread)
			reload();
	}
	return LISTENER_OK;
}

int listener_run(const struct listener_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct httpd_opts ho;
	sigset_t block, mask;
	int ret = LISTENER_ERROR;

	L.o = o;
	L.sv.scrape_duration_s = NAN;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	signal(SIGHUP, on_hangup);
	/* the signals wake ppoll() only: no check-then-wait race */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &mask);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGHUP);
	if (fcntl(o->feed, F_SETFL, fcntl(o->feed, F_GETFL) | O_NONBLOCK)) {
		p_err("export: the listener's feed: %s", strerror(errno));
		return LISTENER_ERROR;
	}
	web_state_note_reader();
	if (sandbox_enter())
		return LISTENER_ERROR;
	if (getsockname(o->lfd, (struct sockaddr *)&ss, &sl)) {
		p_err("export: the listening socket: %s", strerror(errno));
		return LISTENER_ERROR;
	}
	httpd_sockaddr_name(&ss, L.where, sizeof(L.where));
	L.loopback = httpd_sockaddr_loopback(&ss);
	if (o->web_config && !(L.web = web_state_load(o->web_config, NULL)))
		return LISTENER_ERROR;
	web_state_warn(L.web, NULL, o->web_config, L.where, L.loopback);
	/* ready: the sampler may load its programs now */
	shutdown(o->feed, SHUT_WR);
	if (first_frame(&mask)) {
		ret = LISTENER_OK;
		goto out;
	}
	ho = server_opts(L.web);
	if (httpd_start(&L.httpd, o->lfd, &ho)) {
		web_state_put(L.web); /* the daemon's */
		goto out;
	}
	p_info("export: serving %s://%s/metrics, sampling every %.3gs%s", scheme(L.web), L.where,
	       o->interval, L.web && L.web->auth ? ", basic auth" : "");
	/* the address for scripts, whatever the log level (port 0 picks one) */
	fprintf(stderr, "ppwatch export: listening on %s://%s/metrics\n", scheme(L.web), L.where);
	ret = serve(&mask);
	httpd_stop(L.httpd);
out:
	web_state_put(L.web);
	feed_in_free(&L.feed);
	return ret;
}
