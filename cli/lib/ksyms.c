// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ksyms.h"
#include "lib/vec.h"

static int cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms_load(struct ksyms *k, const char *path)
{
	char line[512], name[256], type;
	unsigned long long addr;
	bool nonzero = false;
	struct ksym *s;
	FILE *f;

	memset(k, 0, sizeof(*k));
	f = fopen(path ? path : "/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		s = VEC_PUSH(k->v, k->n, k->cap);
		if (!s || !(s->name = strdup(name))) {
			fclose(f);
			ksyms_free(k);
			return -ENOMEM;
		}
		s->addr = addr;
		nonzero |= addr != 0;
	}
	fclose(f);
	if (!nonzero) {
		ksyms_free(k);
		return -EPERM;
	}
	qsort(k->v, k->n, sizeof(*k->v), cmp);
	return 0;
}

void ksyms_free(struct ksyms *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	memset(k, 0, sizeof(*k));
}

const char *ksyms_fmt(const struct ksyms *k, uint64_t addr, char *buf, size_t len)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return buf;
	}
	snprintf(buf, len, "%s+0x%llx", k->v[lo - 1].name,
		 (unsigned long long)(addr - k->v[lo - 1].addr));
	return buf;
}
