// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "output/pool_verdict_fmt.h"

const char *pool_verdict_word(enum pv_code c)
{
	static const char *const word[] = {
		/* the names -j and the docs use (pool_verdict_name), with a space for text */
		[PV_UNKNOWN] = "unknown", [PV_ACCOUNTING_BUG] = "accounting bug",
		[PV_FREED] = "freed",	  [PV_DRAINING] = "draining",
		[PV_HELD] = "held",	  [PV_LEAKED] = "leaked",
		[PV_STUCK] = "stuck",
	};

	return (unsigned)c < ARRAY_SIZE(word) ? word[c] : "unknown";
}

struct sb {
	char *buf;
	size_t len, n;
};

static void add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (b->n >= b->len)
		return;
	va_start(ap, fmt);
	r = vsnprintf(b->buf + b->n, b->len - b->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n = b->n + (size_t)r < b->len ? b->n + (size_t)r : b->len - 1;
}

static const char *pages(double n)
{
	return n == 1 ? "page" : "pages";
}

/* "4032 pages (16MiB)", "~16MiB" when only the count is known */
static void amount(struct sb *b, const struct pv_facts *f)
{
	char a[32];

	if (isnan(f->inflight))
		return;
	add(b, "%.0f %s", f->inflight, pages(f->inflight));
	if (f->bytes > 0)
		add(b, " (%s%s)", f->bytes_estimated ? "at least " : "",
		    fmt_bytes(a, sizeof(a), f->bytes));
}

const char *pool_verdict_say(char *buf, size_t len, const struct pv_facts *f)
{
	struct sb b = { buf, len, 0 };
	char a[32], c[32], drv[96];

	if (!len)
		return buf;
	buf[0] = 0;
	drv[0] = 0;
	if (f->driver && *f->driver)
		esc_buf(drv, sizeof(drv), f->driver, strlen(f->driver));
	add(&b, "%s: ", pool_verdict_word(f->code));
	switch (f->code) {
	case PV_ACCOUNTING_BUG:
		add(&b,
		    "inflight went negative (%.0f): the %s%s released a page twice (a "
		    "double release), so the kernel cannot count this pool's pages and will "
		    "never free it; report it to the %s%s maintainers with this log",
		    f->min_inflight < 0 ? f->min_inflight : f->inflight,
		    drv[0] ? "driver " : "driver", drv, drv[0] ? drv : "driver's",
		    drv[0] ? " driver's" : "");
		break;
	case PV_FREED:
		if (f->freed_by && !strcmp(f->freed_by, "log"))
			add(&b,
			    "most likely: the log goes on %s past its last line without it, "
			    "and the kernel warns once a minute while a pool stalls",
			    fmt_age(a, sizeof(a), f->ended_after_s));
		else if (f->freed_by && !strcmp(f->freed_by, "host"))
			add(&b, "no pool on this host fits it now: its pages came back and the "
				"pool is gone");
		else
			add(&b, "its pages came back and the pool is gone");
		break;
	case PV_DRAINING:
		if (!isnan(f->from) && f->from > f->to)
			add(&b, "inflight fell from %.0f to %.0f in %s (%.3g pages/s)", f->from,
			    f->to, fmt_age(a, sizeof(a), f->to_age - f->from_age), f->rate_per_s);
		else
			add(&b, "pages are coming back (%.3g pages/s)", f->rate_per_s);
		add(&b, "; %.0f out, none in about %s at this rate", f->inflight,
		    fmt_age(c, sizeof(c), f->eta_s));
		break;
	case PV_HELD:
		amount(&b, f);
		add(&b, " out, %.0f of them held by %zu %s ppwatch walked", f->attributed,
		    f->nholders, f->nholders == 1 ? "holder" : "holders");
		if (f->unattributed > 0)
			add(&b, " (%.0f by nothing it walks: the driver or a ring)",
			    f->unattributed);
		add(&b, "; what to do about each is below");
		break;
	case PV_LEAKED:
		amount(&b, f);
		add(&b, " out");
		if (f->steady_s >= 1)
			add(&b, ", constant for %s,", fmt_age(a, sizeof(a), f->steady_s));
		add(&b,
		    " and held by nothing ppwatch can walk (no socket, queue or qdisc has "
		    "them): most likely the %s%s%s or a hardware ring (a TX ring never reaped, "
		    "pages it lost)",
		    drv[0] ? "driver (" : "driver", drv, drv[0] ? ")" : "");
		break;
	case PV_STUCK:
		amount(&b, f);
		add(&b,
		    " out, not moved in %s; a log alone cannot tell a holder (a socket "
		    "that never reads) from a leak (the driver or a ring)",
		    fmt_age(a, sizeof(a), f->steady_s));
		break;
	case PV_UNKNOWN:
		amount(&b, f);
		if (f->unknown_why)
			add(&b, " out; who holds them is not known: %s", f->unknown_why);
		else if (f->steady_s > 0)
			add(&b, " out, not moved in %s: too short to tell a trend",
			    fmt_age(a, sizeof(a), f->steady_s));
		else
			add(&b,
			    " out; one sighting, no trend yet (the kernel warns once a minute)");
		break;
	}
	if (f->rebooted)
		add(&b, "; the host rebooted after its last line");
	return buf;
}
