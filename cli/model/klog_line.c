// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "model/klog_line.h"

/* ---- a cursor over one line ---------------------------------------------------------- */

struct cur {
	const char *p, *e;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void skip_spaces(struct cur *c)
{
	while (c->p < c->e && is_space(*c->p))
		c->p++;
}

static bool eat(struct cur *c, char ch)
{
	if (c->p < c->e && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* n (or, with n == 0, up to 19) decimal digits: their value */
static bool digits(struct cur *c, int n, uint64_t *v)
{
	int max = n ? n : 19, i = 0;

	*v = 0;
	while (i < max && c->p < c->e && is_digit(*c->p)) {
		*v = *v * 10 + (uint64_t)(*c->p++ - '0');
		i++;
	}
	if (!i || (n && i != n))
		return false;
	/* 19 digits fit; a 20th is a number too long */
	return !(c->p < c->e && is_digit(*c->p));
}

/* a fraction after '.' or ',': its value and resolution */
static double fraction(struct cur *c, double *res)
{
	double v = 0, scale = 1;

	*res = 1;
	if (c->p + 1 >= c->e || (*c->p != '.' && *c->p != ',') || !is_digit(c->p[1]))
		return 0;
	c->p++;
	while (c->p < c->e && is_digit(*c->p)) {
		scale /= 10;
		if (scale > 1e-12)
			v += (*c->p - '0') * scale;
		c->p++;
	}
	*res = scale > 1e-12 ? scale : 1e-12;
	return v;
}

static const char *const months[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static const char *const wdays[7] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };

static int month(struct cur *c)
{
	int i;

	if (c->e - c->p < 3)
		return -1;
	for (i = 0; i < 12; i++)
		if (!strncmp(c->p, months[i], 3)) {
			c->p += 3;
			return i + 1;
		}
	return -1;
}

static bool wday(struct cur *c)
{
	int i;

	if (c->e - c->p < 3)
		return false;
	for (i = 0; i < 7; i++)
		if (!strncmp(c->p, wdays[i], 3)) {
			c->p += 3;
			return true;
		}
	return false;
}

double klog_civil_s(int y, int m, int d, int hh, int mm, double ss)
{
	/* days from 1970-01-01 (H. Hinnant's days_from_civil) */
	long long yy = y - (m <= 2), era = (yy >= 0 ? yy : yy - 399) / 400;
	long long yoe = yy - era * 400, doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	long long days = era * 146097 + doe - 719468;

	return days * 86400.0 + hh * 3600.0 + mm * 60.0 + ss;
}

/* hh:mm:ss[.frac] */
static bool clock_time(struct cur *c, int *h, int *m, double *s, double *res)
{
	uint64_t a, b, d;

	if (!digits(c, 2, &a) || !eat(c, ':') || !digits(c, 2, &b) || !eat(c, ':') ||
	    !digits(c, 2, &d) || a > 23 || b > 59 || d > 60)
		return false;
	*h = (int)a;
	*m = (int)b;
	*s = (double)d + fraction(c, res);
	return true;
}

/* a day of the month, maybe space-padded ("Jan  3") */
static bool mday(struct cur *c, int *d)
{
	uint64_t v;

	skip_spaces(c);
	if (!digits(c, 0, &v) || v < 1 || v > 31)
		return false;
	*d = (int)v;
	return true;
}

/* ---- the stamps ---------------------------------------------------------------------- */

/* "[  123.456789]": the printk clock */
static bool mono_stamp(struct cur *c, double *mono, double *res)
{
	struct cur s = *c;
	uint64_t v;

	if (!eat(&s, '['))
		return false;
	skip_spaces(&s);
	if (!digits(&s, 0, &v))
		return false;
	*mono = (double)v + fraction(&s, res);
	skip_spaces(&s);
	if (!eat(&s, ']'))
		return false;
	*c = s;
	return true;
}

/* "Www Mmm dd hh:mm:ss yyyy" (ctime, dmesg -T), inside brackets */
static bool ctime_stamp(struct cur *c, struct klog_time *t)
{
	struct cur s = *c;
	int mon, d, h, m;
	double sec, res;
	uint64_t y;

	if (!eat(&s, '[') || !wday(&s) || !eat(&s, ' ') || (mon = month(&s)) < 0 || !mday(&s, &d) ||
	    !eat(&s, ' ') || !clock_time(&s, &h, &m, &sec, &res) || !eat(&s, ' ') ||
	    !digits(&s, 4, &y) || !eat(&s, ']'))
		return false;
	t->wall = klog_civil_s((int)y, mon, d, h, m, sec);
	t->resolution = res;
	*c = s;
	return true;
}

/* yyyy-mm-dd[T ]hh:mm:ss[.frac][Z|+hh[:]mm] */
static bool iso_stamp(struct cur *c, struct klog_time *t)
{
	struct cur s = *c;
	uint64_t y, mo, d, zh, zm = 0;
	int h, m, sign;
	double sec, res;

	if (!digits(&s, 4, &y) || !eat(&s, '-') || !digits(&s, 2, &mo) || !eat(&s, '-') ||
	    !digits(&s, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
		return false;
	if (!eat(&s, 'T') && !eat(&s, ' '))
		return false;
	if (!clock_time(&s, &h, &m, &sec, &res))
		return false;
	t->wall = klog_civil_s((int)y, (int)mo, (int)d, h, m, sec);
	t->resolution = res;
	if (eat(&s, 'Z')) {
		t->zoned = true;
	} else if (s.p < s.e && (*s.p == '+' || *s.p == '-')) {
		sign = *s.p++ == '-' ? -1 : 1;
		if (digits(&s, 2, &zh) &&
		    (eat(&s, ':'), s.p >= s.e || !is_digit(*s.p) || digits(&s, 2, &zm)) &&
		    zh <= 14 && zm <= 59) {
			t->zoned = true;
			t->wall -= sign * (double)(zh * 3600 + zm * 60);
		} else {
			return false;
		}
	}
	*c = s;
	return true;
}

/* "Mmm dd hh:mm:ss[.frac]" (syslog, journalctl's short and short-precise) */
static bool syslog_stamp(struct cur *c, struct klog_time *t)
{
	struct cur s = *c;
	int mon, d, h, m;
	double sec, res;

	if ((mon = month(&s)) < 0 || !eat(&s, ' ') || !mday(&s, &d) || !eat(&s, ' ') ||
	    !clock_time(&s, &h, &m, &sec, &res))
		return false;
	t->wall = klog_civil_s(2000, mon, d, h, m, sec);
	t->noyear = true;
	t->resolution = res;
	*c = s;
	return true;
}

/* "Www yyyy-mm-dd hh:mm:ss ZONE" (journalctl -o short-full): local, the zone a name */
static bool full_stamp(struct cur *c, struct klog_time *t)
{
	struct cur s = *c;

	if (!wday(&s) || !eat(&s, ' ') || !iso_stamp(&s, t))
		return false;
	if (eat(&s, ' ')) {
		if (s.e - s.p >= 3 && (!strncmp(s.p, "UTC", 3) || !strncmp(s.p, "GMT", 3)))
			t->zoned = true;
		while (s.p < s.e && !is_space(*s.p))
			s.p++;
	}
	*c = s;
	return true;
}

/* a syslog line's host and tag ("host kernel: ", "host kernel[0]: ") */
static void host_and_tag(struct cur *c)
{
	struct cur s = *c;
	const char *w;

	skip_spaces(&s);
	while (s.p < s.e && !is_space(*s.p))
		s.p++; /* the host */
	skip_spaces(&s);
	w = s.p;
	while (s.p < s.e && !is_space(*s.p) && *s.p != ':' && *s.p != '[')
		s.p++;
	if (s.p == w)
		return;
	if (eat(&s, '[')) {
		while (s.p < s.e && *s.p != ']')
			s.p++;
		eat(&s, ']');
	}
	if (!eat(&s, ':'))
		return;
	skip_spaces(&s);
	*c = s;
}

/* RFC 5424 after the stamp: "host app procid msgid sd " ("-" for each left out) */
static void rfc5424_header(struct cur *c)
{
	struct cur s = *c;
	int i;

	for (i = 0; i < 4; i++) {
		skip_spaces(&s);
		if (s.p >= s.e)
			return;
		while (s.p < s.e && !is_space(*s.p))
			s.p++;
	}
	skip_spaces(&s);
	if (eat(&s, '[')) { /* structured data: [id k="v"]... */
		while (s.p < s.e && *s.p != ']')
			s.p += *s.p == '\\' && s.p + 1 < s.e ? 2 : 1;
		eat(&s, ']');
		while (s.p < s.e && *s.p == '[') {
			while (s.p < s.e && *s.p != ']')
				s.p++;
			eat(&s, ']');
		}
	} else if (!eat(&s, '-')) {
		return;
	}
	skip_spaces(&s);
	*c = s;
}

/* "/dev/kmsg: prio,seq,usec,flags[,...];message" */
static bool kmsg_record(struct cur *c, struct klog_time *t)
{
	struct cur s = *c;
	uint64_t prio, seq, usec;

	if (!digits(&s, 0, &prio) || !eat(&s, ',') || !digits(&s, 0, &seq) || !eat(&s, ',') ||
	    !digits(&s, 0, &usec) || !eat(&s, ','))
		return false;
	while (s.p < s.e && *s.p != ';' && *s.p != ' ')
		s.p++;
	if (!eat(&s, ';'))
		return false;
	t->mono = usec / 1e6;
	t->resolution = 1e-6;
	*c = s;
	return true;
}

/* a kmsg record's time as dmesg writes it */
static void kmsg_stamp(struct klog_line *l)
{
	uint64_t us = (uint64_t)(l->t.mono * 1e6 + 0.5);

	snprintf(l->stamp, sizeof(l->stamp), "[%5llu.%06llu]", (unsigned long long)(us / 1000000),
		 (unsigned long long)(us % 1000000));
}

/* dmesg -x: "kern  :warn  : " */
static void decoded_prefix(struct cur *c)
{
	struct cur s = *c;
	int i;

	for (i = 0; i < 2; i++) {
		if (s.p >= s.e || !is_alpha(*s.p))
			return;
		while (s.p < s.e && is_alpha(*s.p))
			s.p++;
		skip_spaces(&s);
		if (!eat(&s, ':'))
			return;
	}
	skip_spaces(&s);
	*c = s;
}

/* a caller id after the stamp: "[  T123]", "[T123]", "[C1]" */
static void caller_id(struct cur *c)
{
	struct cur s = *c;
	uint64_t v;

	skip_spaces(&s);
	if (!eat(&s, '['))
		return;
	skip_spaces(&s);
	if (!eat(&s, 'T') && !eat(&s, 'C'))
		return;
	if (!digits(&s, 0, &v) || !eat(&s, ']'))
		return;
	skip_spaces(&s);
	*c = s;
}

/* the stamp text as written, for the report */
static void keep_stamp(struct klog_line *l, const char *from, const char *to)
{
	size_t n = (size_t)(to - from);

	while (n && is_space(from[n - 1]))
		n--;
	if (n >= sizeof(l->stamp))
		n = sizeof(l->stamp) - 1;
	memcpy(l->stamp, from, n);
	l->stamp[n] = 0;
}

/*
 * Past every prefix a line may have, to its message: *t gets its times, *fmt
 * its form; the stamp as written into l->stamp.
 */
static void strip_prefixes(struct cur *c, struct klog_time *t, enum klog_fmt *fmt,
			   struct klog_line *l)
{
	bool rfc5424 = false;
	const char *from;
	uint64_t v;
	double res;

	*fmt = KF_NONE;
	if (kmsg_record(c, t)) {
		*fmt = KF_KMSG;
		kmsg_stamp(l);
		return;
	}
	skip_spaces(c);
	/* <prio> (dmesg -r, syslog on the wire), and RFC 5424's version */
	if (c->p < c->e && *c->p == '<') {
		struct cur s = *c;

		s.p++;
		if (digits(&s, 0, &v) && eat(&s, '>')) {
			*c = s;
			if (c->e - c->p > 2 && c->p[0] == '1' && c->p[1] == ' ') {
				c->p += 2;
				rfc5424 = true;
			}
		}
	}
	decoded_prefix(c);
	from = c->p;
	if (mono_stamp(c, &t->mono, &res)) {
		t->resolution = res;
		*fmt = KF_DMESG;
		keep_stamp(l, from, c->p);
		/* journalctl -o short-monotonic: "[  123.456] host kernel: " */
		if (c->e - c->p > 1 && c->p[0] == ' ' && is_alpha(c->p[1])) {
			struct cur s = *c;
			const char *before = s.p;

			host_and_tag(&s);
			if (s.p != before && s.p - before < 80 && memchr(before, ':', s.p - before))
				*c = s;
		}
	} else if (ctime_stamp(c, t)) {
		*fmt = KF_DMESG_T;
		keep_stamp(l, from, c->p);
	} else if (iso_stamp(c, t) || full_stamp(c, t)) {
		*fmt = KF_ISO;
		keep_stamp(l, from, c->p);
		if (rfc5424)
			rfc5424_header(c);
		else
			host_and_tag(c);
	} else if (syslog_stamp(c, t)) {
		*fmt = KF_SYSLOG;
		keep_stamp(l, from, c->p);
		host_and_tag(c);
	} else if (c->p < c->e && *c->p == '[') {
		/* dmesg's relative forms ("[  +0.000123]", "[Jan13 10:01]"): no time */
		const char *q = memchr(c->p, ']', (size_t)(c->e - c->p));

		if (q && q - c->p < 32)
			c->p = q + 1;
	}
	skip_spaces(c);
	/* the printk stamp again inside a syslog line (imklog keeps it) */
	from = c->p;
	if (*fmt != KF_DMESG && mono_stamp(c, &t->mono, &res)) {
		if (*fmt == KF_NONE) {
			*fmt = KF_DMESG;
			keep_stamp(l, from, c->p);
		}
		if (isnan(t->wall))
			t->resolution = res;
	}
	caller_id(c);
	skip_spaces(c);
}

/* ---- the message ----------------------------------------------------------------------- */

/* where needle starts in [p, e), case-insensitive; NULL if not */
static const char *find_ci(const char *p, const char *e, const char *needle)
{
	size_t n = strlen(needle);

	for (; e - p >= (ptrdiff_t)n; p++)
		if (!strncasecmp(p, needle, n))
			return p;
	return NULL;
}

static const char phrase[] = "stalled pool shutdown";

#define TOK_MAX 24

struct tok {
	const char *p;
	size_t n;
	bool paren; /* it was in parentheses */
};

/* the words after the phrase: split at blanks, ',', ';', '='; ':', brackets trimmed */
static size_t tokens(const char *p, const char *e, struct tok *v)
{
	size_t n = 0;
	const char *w;

	while (p < e && n < TOK_MAX) {
		while (p < e && (is_space(*p) || *p == ',' || *p == ';' || *p == '='))
			p++;
		if (p >= e)
			break;
		w = p;
		while (p < e && !is_space(*p) && *p != ',' && *p != ';' && *p != '=')
			p++;
		v[n].paren = *w == '(' || (p > w && p[-1] == ')');
		while (w < p && (*w == ':' || *w == '(' || *w == '['))
			w++;
		v[n].p = w;
		v[n].n = (size_t)(p - w);
		while (v[n].n && (w[v[n].n - 1] == ':' || w[v[n].n - 1] == ')' ||
				  w[v[n].n - 1] == ']' || w[v[n].n - 1] == '.'))
			v[n].n--;
		if (v[n].n)
			n++;
	}
	return n;
}

static bool tok_is(const struct tok *t, const char *w)
{
	return t->n == strlen(w) && !strncasecmp(t->p, w, t->n);
}

/* a whole token that is a (signed) decimal number of at most 18 digits */
static bool tok_int(const struct tok *t, int64_t *v)
{
	size_t i = 0;
	bool neg = false;
	int64_t x = 0;

	if (t->n && (t->p[0] == '-' || t->p[0] == '+')) {
		neg = t->p[0] == '-';
		i = 1;
	}
	if (i == t->n || t->n - i > 18)
		return false;
	for (; i < t->n; i++) {
		if (!is_digit(t->p[i]))
			return false;
		x = x * 10 + (t->p[i] - '0');
	}
	*v = neg ? -x : x;
	return true;
}

static void tok_copy(char *dst, size_t cap, const struct tok *t)
{
	size_t n = t->n < cap - 1 ? t->n : cap - 1;

	memcpy(dst, t->p, n);
	dst[n] = 0;
}

/* the words a stall line may have; anything else makes it a variant */
static bool known_word(const struct tok *t)
{
	static const char *const w[] = { "id", "inflight", "sec", "secs", "s", "pages" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(w); i++)
		if (tok_is(t, w[i]))
			return true;
	return false;
}

/* the numbers after the phrase: true when inflight and sec are there */
static bool stall_numbers(const char *p, const char *e, struct klog_line *l)
{
	struct tok v[TOK_MAX];
	size_t n = tokens(p, e, v), i;
	bool have_infl = false, have_sec = false;
	int64_t x;

	for (i = 0; i < n; i++) {
		const struct tok *t = &v[i], *nx = i + 1 < n ? &v[i + 1] : NULL;
		bool num = tok_int(t, &x);

		if (tok_is(t, "id") && nx && tok_int(nx, &x) && x >= 0 && x <= UINT32_MAX &&
		    !l->has_id) {
			l->has_id = true;
			l->id = (uint32_t)x;
			i++;
		} else if (num && nx && !have_infl &&
			   (tok_is(nx, "inflight") ||
			    (tok_is(nx, "pages") && i + 2 < n && tok_is(&v[i + 2], "inflight")))) {
			l->inflight = x;
			have_infl = true;
			i += tok_is(nx, "pages") ? 2 : 1;
		} else if (tok_is(t, "inflight") && nx && !have_infl && tok_int(nx, &x)) {
			l->inflight = x; /* "inflight 4032", "inflight=4032" */
			have_infl = true;
			l->variant = true;
			i++;
		} else if (num && nx && !have_sec &&
			   (tok_is(nx, "sec") || tok_is(nx, "secs") || tok_is(nx, "s") ||
			    tok_is(nx, "seconds") || tok_is(nx, "second"))) {
			l->sec = x;
			have_sec = true;
			l->variant |= !tok_is(nx, "sec");
			i++;
		} else if (tok_is(t, "sec") && nx && !have_sec && tok_int(nx, &x)) {
			l->sec = x; /* "sec=60" */
			have_sec = true;
			l->variant = true;
			i++;
		} else if ((tok_is(t, "dev") || tok_is(t, "device") || tok_is(t, "netdev") ||
			    tok_is(t, "ifname") || tok_is(t, "on")) &&
			   nx && !tok_int(nx, &x)) {
			tok_copy(l->dev, sizeof(l->dev), nx);
			l->variant = true;
			i++;
		} else if (t->paren && !num && !l->dev[0]) {
			tok_copy(l->dev, sizeof(l->dev), t);
			l->variant = true;
		} else if (!known_word(t)) {
			l->variant = true;
		}
	}
	if (have_sec && l->sec < 0)
		l->variant = true;
	return have_infl && have_sec;
}

/* before the phrase: the function's name, and a device prefix of a variant ("eth2: ") */
static void stall_prefix(const char *p, const char *at, struct klog_line *l)
{
	const char *fn = find_ci(p, at, "page_pool_release_retry()");
	const char *end = fn ? fn : at, *w;
	size_t n;

	if (!fn || fn != p)
		l->variant = true;
	/* the last "word:" before the function or the phrase */
	while (end > p && is_space(end[-1]))
		end--;
	if (end > p && end[-1] == ':' && !l->dev[0]) {
		w = end - 1;
		while (w > p && !is_space(w[-1]))
			w--;
		n = (size_t)(end - 1 - w);
		if (n && n < sizeof(l->dev)) {
			memcpy(l->dev, w, n);
			l->dev[n] = 0;
		}
	}
}

/* "Negative(-5) inflight packet-pages" */
static bool negative_warning(const char *p, const char *e, int64_t *v)
{
	const char *at = find_ci(p, e, "Negative(");
	struct tok t;

	if (!at || !find_ci(at, e, ") inflight packet-pages"))
		return false;
	t.p = at + 9;
	t.n = 0;
	while (t.p + t.n < e && t.p[t.n] != ')')
		t.n++;
	return tok_int(&t, v);
}

enum klog_kind klog_parse_line(const char *line, size_t len, struct klog_line *l, int64_t *negative,
			       char *kernel, size_t kernel_len)
{
	struct cur c = { line, line + len };
	const char *at, *msg;
	enum klog_fmt fmt;
	size_t n;

	memset(l, 0, sizeof(*l));
	l->t.mono = l->t.wall = NAN;
	while (c.e > c.p && (c.e[-1] == '\n' || c.e[-1] == '\r'))
		c.e--;
	/* journalctl between boots: "-- Boot 5f1e... --", "-- Reboot --" */
	if (c.e - c.p > 3 && !strncmp(c.p, "-- ", 3))
		return find_ci(c.p, c.e, "boot") ? KL_BOOT : KL_OTHER;
	strip_prefixes(&c, &l->t, &fmt, l);
	l->fmt = fmt;
	msg = c.p;
	n = (size_t)(c.e - msg) < sizeof(l->text) - 1 ? (size_t)(c.e - msg) : sizeof(l->text) - 1;
	memcpy(l->text, msg, n);
	l->text[n] = 0;
	if (c.e - msg > 14 && !strncmp(msg, "Linux version ", 14)) {
		struct cur s = { msg + 14, c.e };
		const char *w = s.p;

		while (s.p < s.e && !is_space(*s.p))
			s.p++;
		if (kernel && kernel_len) {
			n = (size_t)(s.p - w) < kernel_len - 1 ? (size_t)(s.p - w) : kernel_len - 1;
			memcpy(kernel, w, n);
			kernel[n] = 0;
		}
		return KL_BANNER;
	}
	at = find_ci(msg, c.e, phrase);
	if (!at)
		return negative && negative_warning(msg, c.e, negative) ? KL_NEGATIVE : KL_OTHER;
	stall_prefix(msg, at, l);
	return stall_numbers(at + sizeof(phrase) - 1, c.e, l) ? KL_STALL : KL_STALL_UNREAD;
}

const char *klog_fmt_name(enum klog_fmt f)
{
	switch (f) {
	case KF_NONE:
		return "no timestamp";
	case KF_KMSG:
		return "/dev/kmsg";
	case KF_DMESG:
		return "dmesg";
	case KF_DMESG_T:
		return "dmesg -T";
	case KF_ISO:
		return "ISO 8601";
	case KF_SYSLOG:
		return "syslog";
	case KF_MAX:
		break;
	}
	return "?";
}

double klog_wall_unix(const struct klog_time *t, double utc_offset_s, int year)
{
	double w = t->wall;

	if (isnan(w) || t->zoned)
		return w;
	if (t->noyear) {
		/* the same month, day and time in 'year' */
		double jan1 = klog_civil_s(2000, 1, 1, 0, 0, 0), into = w - jan1;
		bool leap = (year % 4 == 0 && year % 100) || year % 400 == 0;

		/* past Feb 28 of a year that is not leap: a day less into it */
		if (!leap && into >= (31 + 29) * 86400.0)
			into -= 86400;
		w = klog_civil_s(year, 1, 1, 0, 0, 0) + into;
	}
	return w - utc_offset_s;
}
