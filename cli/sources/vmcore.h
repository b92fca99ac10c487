/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A crash dump as a recording: postmortem --vmcore reads the dump
 * (sources/dump.c) with its own VMCOREINFO, symbols
 * (model/vmcore_syms.h) and BTF (sources/vmcore_btf.h), walks its page
 * pools (model/vmcore_walk.h: the page_pools xarray, or the struct pages
 * before 6.8) and their item blocks (model/vmcore_blocks.h) into the rows
 * every report has (model/snapshot.h), the sockets its processes have an
 * fd for into a holder scan's records (model/vmcore_holders.h), and
 * writes them as the records a recorder writes (a header and one
 * snapshot, output/record_build.h) into a memory stream, which the
 * post-mortem reads back as it reads a recording: one report, one
 * verdict machinery, one schema, with "source": "vmcore".
 *
 * Not read from a dump yet: pages in queues and in sockets no process has
 * an fd for, page ages and stacks (there is no ledger in a dump).
 * "vmcore.not_read" in the report lists them.
 */
#ifndef __PPWATCH_SOURCES_VMCORE_H
#define __PPWATCH_SOURCES_VMCORE_H

#include <stdio.h>

#include <jansson.h>

struct vmcore_opts {
	const char *path;
	const char *system_map; /* NULL: the dump's own kallsyms */
	double stall_after;
};

/*
 * The dump's records in a stream to read (*f) and what was read of the
 * dump (*about, the report's "vmcore"): 0, or -errno, reported (the
 * message names the file, the errno and what to do).
 */
int vmcore_records(const struct vmcore_opts *o, FILE **f, json_t **about);

#endif /* __PPWATCH_SOURCES_VMCORE_H */
