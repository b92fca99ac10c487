// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * 'make static' only: sources/dump.c without libkdumpfile, which Debian
 * ships as a shared library only (libkdumpfile-dev has no libkdumpfile.a
 * nor libaddrxlat.a). 'postmortem --vmcore' refuses in one line that
 * says so and what to run instead; everything else of the static binary
 * works.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sources/dump.h"

int dump_open(const char *path, struct dump **out, struct dump_info *info, char *why, size_t whylen)
{
	*out = NULL;
	memset(info, 0, sizeof(*info));
	snprintf(why, whylen,
		 "this static ppwatch reads no crash dumps: Debian ships libkdumpfile as a shared "
		 "library only; run the packaged or the dynamically linked ppwatch (make; apt "
		 "install libkdumpfile10)");
	return -ENOTSUP;
}

const char *dump_vmcoreinfo(struct dump *d, size_t *len)
{
	*len = 0;
	return NULL;
}

int dump_read(void *d, uint64_t addr, void *buf, size_t n)
{
	return -ENOTSUP;
}

void dump_close(struct dump *d)
{
}
