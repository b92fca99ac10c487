// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vmcoreinfo.h"

/* a key the kernel writes: printable, no blank, no '=' */
static bool key_ok(const char *k, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (k[i] <= ' ' || k[i] > '~')
			return false;
	return true;
}

int vmcoreinfo_parse(struct vmcoreinfo *vi, const char *text, size_t len)
{
	char *p, *end, *nl, *eq;
	size_t cap = 0;

	memset(vi, 0, sizeof(*vi));
	if (len > VMCOREINFO_MAX_BYTES)
		len = VMCOREINFO_MAX_BYTES;
	vi->text = malloc(len + 1);
	if (!vi->text)
		return -ENOMEM;
	memcpy(vi->text, text, len);
	vi->text[len] = 0;
	/* the note may be padded with NULs: it ends at the first */
	end = vi->text + strlen(vi->text);
	for (p = vi->text; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		*nl = 0;
		eq = strchr(p, '=');
		if (!eq || (size_t)(nl - p) > VMCOREINFO_LINE_MAX || !key_ok(p, (size_t)(eq - p)) ||
		    vi->n >= VMCOREINFO_MAX_KEYS) {
			vi->skipped += nl > p;
			continue;
		}
		*eq = 0;
		if (vmcoreinfo_get(vi, p))
			continue;
		if (vi->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct vci_kv *v = realloc(vi->kv, ncap * sizeof(*v));

			if (!v) {
				vmcoreinfo_free(vi);
				return -ENOMEM;
			}
			vi->kv = v;
			cap = ncap;
		}
		vi->kv[vi->n].key = p;
		vi->kv[vi->n].value = eq + 1;
		vi->n++;
	}
	return vi->n ? 0 : -ENODATA;
}

void vmcoreinfo_free(struct vmcoreinfo *vi)
{
	free(vi->text);
	free(vi->kv);
	memset(vi, 0, sizeof(*vi));
}

const char *vmcoreinfo_get(const struct vmcoreinfo *vi, const char *key)
{
	size_t i;

	for (i = 0; i < vi->n; i++)
		if (!strcmp(vi->kv[i].key, key))
			return vi->kv[i].value;
	return NULL;
}

int vmcoreinfo_hex(const struct vmcoreinfo *vi, const char *key, uint64_t *out)
{
	const char *v = vmcoreinfo_get(vi, key);
	uint64_t x = 0;
	size_t i;

	if (!v)
		return -ENOENT;
	if (!strncmp(v, "0x", 2))
		v += 2;
	if (!*v || strlen(v) > 16)
		return -EINVAL;
	for (i = 0; v[i]; i++) {
		char c = v[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 :
					       -1;

		if (d < 0)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
	}
	*out = x;
	return 0;
}

int vmcoreinfo_dec(const struct vmcoreinfo *vi, const char *key, int64_t *out)
{
	const char *v = vmcoreinfo_get(vi, key);
	bool neg = false;
	uint64_t x = 0;

	if (!v)
		return -ENOENT;
	if (*v == '-') {
		neg = true;
		v++;
	}
	if (!*v || strlen(v) > 19)
		return -EINVAL;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(*v - '0');
	}
	if (x > INT64_MAX)
		return -EINVAL;
	*out = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

int vmcoreinfo_symbol(const struct vmcoreinfo *vi, const char *name, uint64_t *out)
{
	char key[160];

	if ((size_t)snprintf(key, sizeof(key), "SYMBOL(%s)", name) >= sizeof(key))
		return -EINVAL;
	return vmcoreinfo_hex(vi, key, out);
}
