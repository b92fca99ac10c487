/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A crash dump's pools as the records a recorder writes (pure): a header
 * (the dump's host, release, unmap regime, page size, its boot-to-wall
 * clock) and one snapshot of the rows, at the dump's wall time, so that
 * postmortem reads a dump the way it reads a recording (sources/vmcore.c).
 */
#ifndef __PPWATCH_OUTPUT_VMCORE_RECORDS_H
#define __PPWATCH_OUTPUT_VMCORE_RECORDS_H

#include <stdio.h>

#include "model/snapshot.h"
#include "model/vmcore_walk.h"

/* 0, or -ENOMEM / -EIO (writing f) */
int vmcore_records_write(FILE *f, const struct vmcore_walk *w, const struct snapshot *s,
			 const char *release, double stall_after);

#endif /* __PPWATCH_OUTPUT_VMCORE_RECORDS_H */
