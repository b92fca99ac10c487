// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/bpf_diag.h"

/* copy up to the end of the line (or of src), at most len - 1 bytes */
static void copy_line(char *dst, size_t len, const char *src)
{
	size_t n = strcspn(src, "\n");

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == '\r'))
		dst[--n] = 0;
}

/* the text after the first occurrence of key, or NULL */
static const char *after(const char *log, const char *key)
{
	const char *p = strstr(log, key);

	return p ? p + strlen(key) : NULL;
}

/*
 * "<byte_off> [6] struct page_pool___x.p.napi (0:0 @ offset 0)" -> "struct
 * page_pool.p.napi": the access string, without ppwatch's flavour suffix
 * (page_pool___x is how BPF code names a variant of struct page_pool).
 */
static void core_access(char *dst, size_t len, const char *src)
{
	const char *p = strchr(src, ']'), *end;
	char tmp[256];
	size_t n, i, o = 0;

	p = p ? p + 1 : src;
	while (*p == ' ')
		p++;
	end = strstr(p, " (");
	n = end ? (size_t)(end - p) : strcspn(p, "\n");
	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	for (i = 0; tmp[i] && o + 1 < len; i++) {
		if (!strncmp(tmp + i, "___", 3)) {
			while (tmp[i + 1] && tmp[i + 1] != '.' && tmp[i + 1] != ' ')
				i++;
			continue;
		}
		dst[o++] = tmp[i];
	}
	dst[o] = 0;
}

/* the verifier's own complaint: the last line before "processed N insns" */
static bool verifier_line(const char *log, char *dst, size_t len)
{
	const char *end = strstr(log, "\nprocessed "), *p;

	if (!end)
		end = strstr(log, "\n-- END PROG LOAD LOG --");
	if (!end)
		return false;
	for (p = end; p > log && p[-1] != '\n'; p--)
		;
	if (p == end)
		return false;
	copy_line(dst, len, p);
	return dst[0] != 0;
}

size_t bpf_diag_append(char *buf, size_t len, size_t used, const char *msg, size_t n)
{
	static const char cut[] = "\n[...]\n";
	size_t room, head, tail;

	if (!len || used >= len)
		return used;
	room = len - 1 - used;
	if (n <= room) {
		memcpy(buf + used, msg, n);
		used += n;
	} else if (room >= 4 * sizeof(cut)) {
		head = (room - (sizeof(cut) - 1)) / 8;
		tail = room - head - (sizeof(cut) - 1);
		memcpy(buf + used, msg, head);
		memcpy(buf + used + head, cut, sizeof(cut) - 1);
		memcpy(buf + used + head + sizeof(cut) - 1, msg + n - tail, tail);
		used += room;
	}
	buf[used] = 0;
	return used;
}

void bpf_diag_parse(const char *log, int err, struct bpf_diag *d)
{
	const char *p;

	memset(d, 0, sizeof(*d));
	d->err = err;
	if (!log)
		log = "";
	p = strstr(log, "prog '");
	if (p) {
		p += 6;
		snprintf(d->prog, sizeof(d->prog), "%.*s", (int)strcspn(p, "'"), p);
	}
	if ((p = after(log, "failed to resolve CO-RE relocation "))) {
		d->kind = BPF_DIAG_CORE_RELO;
		core_access(d->what, sizeof(d->what), p);
	} else if ((p = after(log, "program of this type cannot use helper ")) ||
		   (p = after(log, "unknown func ")) || (p = after(log, "invalid func "))) {
		d->kind = BPF_DIAG_HELPER;
		copy_line(d->what, sizeof(d->what), p);
	} else if ((p = after(log, "extern (func ksym) '")) ||
		   (p = after(log, "extern (var ksym) '")) ||
		   (p = after(log, "calling kernel function "))) {
		d->kind = BPF_DIAG_KFUNC;
		snprintf(d->what, sizeof(d->what), "%.*s", (int)strcspn(p, "' "), p);
	} else if (strstr(log, "-- BEGIN PROG LOAD LOG --") &&
		   verifier_line(log, d->what, sizeof(d->what))) {
		d->kind = BPF_DIAG_VERIFIER;
	} else if (err == -EPERM || err == -EACCES) {
		d->kind = BPF_DIAG_PRIVILEGE;
	} else if (err == -ENOMEM || err == -E2BIG) {
		d->kind = BPF_DIAG_MEMORY;
	}
	if (d->kind == BPF_DIAG_UNKNOWN && (p = strstr(log, "libbpf: ")))
		copy_line(d->what, sizeof(d->what), p + 8);
}

bool bpf_diag_same(const struct bpf_diag *a, const struct bpf_diag *b)
{
	return a->kind == b->kind && a->err == b->err && !strcmp(a->prog, b->prog) &&
	       !strcmp(a->what, b->what);
}

const char *bpf_diag_str(const struct bpf_diag *d, char *buf, size_t len)
{
	char prog[80] = "";

	if (d->prog[0])
		snprintf(prog, sizeof(prog), "prog '%s': ", d->prog);
	switch (d->kind) {
	case BPF_DIAG_CORE_RELO:
		snprintf(buf, len,
			 "%sthis kernel has no %s (a CO-RE relocation ppwatch does not "
			 "guard)",
			 prog, d->what);
		break;
	case BPF_DIAG_HELPER:
		snprintf(buf, len, "%sthis kernel lacks or does not allow the helper %s", prog,
			 d->what);
		break;
	case BPF_DIAG_KFUNC:
		snprintf(buf, len, "%sthis kernel lacks the kernel symbol or function '%s'", prog,
			 d->what);
		break;
	case BPF_DIAG_VERIFIER:
		snprintf(buf, len, "%sthe verifier rejected it: %s", prog, d->what);
		break;
	case BPF_DIAG_PRIVILEGE:
		snprintf(buf, len, "%snot allowed to load BPF programs (%s)", prog,
			 strerror(-d->err));
		break;
	case BPF_DIAG_MEMORY:
		snprintf(buf, len, "%sa map does not fit the memory limits (%s)", prog,
			 strerror(-d->err));
		break;
	case BPF_DIAG_ATTACH:
		snprintf(buf, len, "%scould not attach (%s)%s%s", prog, strerror(-d->err),
			 d->what[0] ? ": " : "", d->what);
		break;
	default:
		snprintf(buf, len, "%s%s%s%s", prog, strerror(-d->err), d->what[0] ? ": " : "",
			 d->what);
	}
	return buf;
}
