// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vmcore_syms.h"

#define CHUNK 65536
#define PAGE  4096

/* kallsyms_names, read a chunk at a time: the stream is as long as the table's names */
struct names {
	struct kmem *m;
	uint64_t base;
	uint8_t *buf;
	uint64_t at; /* offset of buf[0] */
	size_t have;
};

/* the byte at offset off: 0, or -errno */
static int names_byte(struct names *s, uint64_t off, uint8_t *b)
{
	uint64_t start;

	if (off < s->at || off >= s->at + s->have) {
		start = off & ~(uint64_t)(PAGE - 1);
		/* a chunk, or near the end of what is mapped, a page */
		if (!kmem_read(s->m, s->base + start, s->buf, CHUNK)) {
			s->have = CHUNK;
		} else if (!kmem_read(s->m, s->base + start, s->buf, PAGE)) {
			s->have = PAGE;
		} else {
			s->have = 0;
			return -EFAULT;
		}
		s->at = start;
	}
	*b = s->buf[off - s->at];
	return 0;
}

bool vs_have_kallsyms(const struct vmcoreinfo *vi)
{
	static const char *const need[] = { "kallsyms_names", "kallsyms_num_syms",
					    "kallsyms_token_table", "kallsyms_token_index",
					    "kallsyms_offsets" };
	uint64_t a;
	size_t i;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (vmcoreinfo_symbol(vi, need[i], &a) || !a)
			return false;
	return true;
}

/* the tokens: token_index[256] into token_table, each a NUL-terminated string */
struct tokens {
	uint16_t index[256];
	char *table;
	size_t len;
};

static int read_tokens(struct kmem *m, uint64_t table, uint64_t index, struct tokens *t,
		       struct vs_result *r)
{
	size_t max = 0, i;

	if (kmem_read(m, index, t->index, sizeof(t->index))) {
		snprintf(r->why, sizeof(r->why), "kallsyms_token_index is not in the dump");
		return -EFAULT;
	}
	for (i = 0; i < 256; i++)
		if (t->index[i] > max)
			max = t->index[i];
	/* the last token is short: what follows its start is read too, as far as it reads */
	t->len = max + 256;
	t->table = calloc(1, t->len + 1);
	if (!t->table)
		return -ENOMEM;
	while (t->len > max && kmem_read(m, table, t->table, t->len))
		t->len = t->len > max + 1 ? t->len - 64 : max;
	if (t->len <= max) {
		snprintf(r->why, sizeof(r->why), "kallsyms_token_table is not in the dump");
		return -EFAULT;
	}
	t->table[t->len] = 0;
	return 0;
}

/* how addresses are kept: relative to a base (and which way), or to their own place */
struct addr_scheme {
	bool relative_base;
	uint64_t base;
	bool absolute_percpu; /* with a base: some offsets are negative */
	uint64_t offsets;
};

static int scheme_of(struct kmem *m, const struct vmcoreinfo *vi, uint64_t nsyms,
		     struct addr_scheme *s, struct vs_result *r)
{
	uint64_t at, i, n;
	int32_t *v;
	int err = 0;

	if (vmcoreinfo_symbol(vi, "kallsyms_relative_base", &at))
		return 0; /* place-relative: &offsets[i] + offsets[i] */
	s->relative_base = true;
	if (kmem_u64(m, at, &s->base)) {
		snprintf(r->why, sizeof(r->why), "kallsyms_relative_base is not in the dump");
		return -EFAULT;
	}
	v = malloc(CHUNK);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < nsyms && !s->absolute_percpu; i += n) {
		n = nsyms - i < CHUNK / 4 ? nsyms - i : CHUNK / 4;
		err = kmem_read(m, s->offsets + i * 4, v, n * 4);
		if (err) {
			snprintf(r->why, sizeof(r->why), "kallsyms_offsets is not in the dump");
			break;
		}
		for (at = 0; at < n; at++)
			if (v[at] < 0)
				s->absolute_percpu = true;
	}
	free(v);
	return err;
}

static int sym_addr(struct kmem *m, const struct addr_scheme *s, uint64_t i, uint64_t *addr)
{
	int32_t off;
	int err = kmem_read(m, s->offsets + i * 4, &off, sizeof(off));

	if (err)
		return err;
	if (!s->relative_base)
		*addr = s->offsets + i * 4 + (uint64_t)(int64_t)off;
	else if (!s->absolute_percpu)
		*addr = s->base + (uint32_t)off;
	else if (off >= 0)
		*addr = (uint64_t)off;
	else
		*addr = s->base - 1 - (uint64_t)(int64_t)off;
	return 0;
}

/* is the name of every want found (once at least)? */
static bool all_found(const struct vs_want *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!w[i].seen)
			return false;
	return true;
}

int vs_kallsyms(struct kmem *m, const struct vmcoreinfo *vi, struct vs_want *want, size_t n,
		struct vs_result *r)
{
	struct names s = { .m = m };
	struct tokens t = { 0 };
	struct addr_scheme sc = { 0 };
	uint64_t nsyms_at, table, index, off = 0, i, a;
	uint32_t nsyms;
	char name[VS_NAME_LEN];
	size_t k, len, nl;
	uint8_t b, tok;
	int err;

	memset(r, 0, sizeof(*r));
	r->how = "kallsyms";
	for (k = 0; k < n; k++)
		want[k].addr = want[k].seen = 0;
	if (!vs_have_kallsyms(vi)) {
		snprintf(r->why, sizeof(r->why), "VMCOREINFO has no kallsyms_* symbols");
		return -ENOENT;
	}
	vmcoreinfo_symbol(vi, "kallsyms_names", &s.base);
	vmcoreinfo_symbol(vi, "kallsyms_num_syms", &nsyms_at);
	vmcoreinfo_symbol(vi, "kallsyms_token_table", &table);
	vmcoreinfo_symbol(vi, "kallsyms_token_index", &index);
	vmcoreinfo_symbol(vi, "kallsyms_offsets", &sc.offsets);
	if (kmem_u32(m, nsyms_at, &nsyms)) {
		snprintf(r->why, sizeof(r->why), "kallsyms_num_syms is not in the dump");
		return -EFAULT;
	}
	r->syms = nsyms;
	if (!nsyms || nsyms > VS_MAX_SYMS) {
		snprintf(r->why, sizeof(r->why), "kallsyms_num_syms is %u (at most %u read)", nsyms,
			 VS_MAX_SYMS);
		return -EINVAL;
	}
	s.buf = malloc(CHUNK);
	err = s.buf ? read_tokens(m, table, index, &t, r) : -ENOMEM;
	if (!err)
		err = scheme_of(m, vi, nsyms, &sc, r);
	for (i = 0; !err && i < nsyms && !all_found(want, n); i++) {
		err = names_byte(&s, off++, &b);
		len = b;
		if (!err && (len & 0x80)) {
			err = names_byte(&s, off++, &b);
			len = (len & 0x7f) | (size_t)b << 7;
		}
		/* the tokens, expanded; the first character is the symbol's type */
		nl = 0;
		for (k = 0; !err && k < len; k++) {
			const char *p;

			err = names_byte(&s, off++, &tok);
			if (err)
				break;
			p = t.index[tok] < t.len ? t.table + t.index[tok] : "";
			for (; *p && nl < sizeof(name) - 1; p++)
				name[nl++] = *p;
		}
		if (err) {
			snprintf(r->why, sizeof(r->why),
				 "kallsyms_names is cut at symbol %llu of %u (not in the dump)",
				 (unsigned long long)i, nsyms);
			break;
		}
		name[nl] = 0;
		r->decoded = i + 1;
		for (k = 0; nl > 1 && k < n; k++) {
			if (strcmp(name + 1, want[k].name))
				continue;
			err = sym_addr(m, &sc, i, &a);
			if (err) {
				snprintf(r->why, sizeof(r->why),
					 "kallsyms_offsets is not in the dump");
				break;
			}
			if (!want[k].seen++)
				want[k].addr = a;
		}
	}
	free(s.buf);
	free(t.table);
	return err;
}

/* one System.map line: "ADDRESS TYPE NAME": 0, or -EINVAL */
static int map_line(const char *p, size_t len, uint64_t *addr, const char **name, size_t *nlen)
{
	uint64_t a = 0;
	size_t i = 0, d = 0;

	for (; i < len && d <= 16; i++, d++) {
		char c = p[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (v < 0)
			break;
		a = a << 4 | (uint64_t)v;
	}
	if (!d || d > 16 || i + 3 > len || p[i] != ' ' || p[i + 2] != ' ')
		return -EINVAL;
	*addr = a;
	*name = p + i + 3;
	*nlen = len - i - 3;
	return *nlen ? 0 : -EINVAL;
}

int vs_system_map(const char *text, size_t len, const struct vmcoreinfo *vi, struct vs_want *want,
		  size_t n, struct vs_result *r)
{
	static const char *const check[] = { "init_uts_ns", "swapper_pg_dir", "_stext",
					     "init_top_pgt", "node_online_map" };
	uint64_t koff = 0, addr, want_at, checked = 0;
	const char *p = text, *end = text + (len > VS_MAP_MAX ? VS_MAP_MAX : len), *nl, *name;
	size_t k, nlen;

	memset(r, 0, sizeof(*r));
	r->how = "System.map";
	for (k = 0; k < n; k++)
		want[k].addr = want[k].seen = 0;
	if (vmcoreinfo_hex(vi, "KERNELOFFSET", &koff) == -EINVAL) {
		snprintf(r->why, sizeof(r->why), "VMCOREINFO's KERNELOFFSET is no number");
		return -EINVAL;
	}
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (map_line(p, (size_t)(nl - p), &addr, &name, &nlen))
			continue;
		r->syms++;
		/* a symbol VMCOREINFO has too: the same address, or another kernel's map */
		for (k = 0; k < sizeof(check) / sizeof(check[0]); k++) {
			if (strlen(check[k]) != nlen || memcmp(name, check[k], nlen) ||
			    vmcoreinfo_symbol(vi, check[k], &want_at))
				continue;
			if (addr + koff != want_at) {
				snprintf(r->why, sizeof(r->why),
					 "its %s is at %#llx (+ KERNELOFFSET %#llx), the dump's at "
					 "%#llx: a map of another kernel",
					 check[k], (unsigned long long)addr,
					 (unsigned long long)koff, (unsigned long long)want_at);
				return -ESTALE;
			}
			checked++;
		}
		for (k = 0; k < n; k++) {
			if (strlen(want[k].name) != nlen || memcmp(name, want[k].name, nlen))
				continue;
			if (!want[k].seen++)
				want[k].addr = addr + koff;
		}
	}
	r->decoded = r->syms;
	/* Debian's /boot/System.map-RELEASE is one line that says where the map is */
	if (r->syms <= 1 && memmem(text, (size_t)(end - text), "The real System.map is in", 25)) {
		snprintf(
			r->why, sizeof(r->why),
			"a placeholder, not a map: the real one is in the kernel's debug package "
			"(Debian: linux-image-RELEASE-dbg's /usr/lib/debug/boot/System.map-RELEASE)");
		return -EINVAL;
	}
	if (!r->syms) {
		snprintf(r->why, sizeof(r->why),
			 "no line is a System.map line (ADDRESS TYPE NAME)");
		return -EINVAL;
	}
	if (!checked) {
		snprintf(r->why, sizeof(r->why),
			 "none of its symbols is one VMCOREINFO has (init_uts_ns, _stext, ...): "
			 "cannot tell it is this kernel's");
		return -ESTALE;
	}
	return 0;
}
