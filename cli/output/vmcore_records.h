/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A crash dump's pools as the records a recorder writes (pure): a header
 * (the dump's host, release, unmap regime, page size, its boot-to-wall
 * clock), one snapshot of the rows and, when the dump's processes were
 * walked (model/vmcore_holders.c), one holders record attributed as a
 * recorder's scan is, all at the dump's wall time, so that postmortem
 * reads a dump the way it reads a recording (sources/vmcore.c).
 */
#ifndef __PPWATCH_OUTPUT_VMCORE_RECORDS_H
#define __PPWATCH_OUTPUT_VMCORE_RECORDS_H

#include <stdio.h>

#include "model/attrib.h"
#include "model/snapshot.h"
#include "model/vmcore_walk.h"

/* 0, or -ENOMEM / -EIO (writing f); scan NULL: no holders record */
int vmcore_records_write(FILE *f, const struct vmcore_walk *w, const struct snapshot *s,
			 const struct scan_result *scan, const char *release, double stall_after);

#endif /* __PPWATCH_OUTPUT_VMCORE_RECORDS_H */
