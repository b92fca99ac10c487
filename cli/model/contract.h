/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What ppwatch writes for programs is an API, versioned and described by
 * JSON Schemas in docs/schema/ (the stability rule: docs/schema/README.md,
 * ppwatch(8) JSON):
 *
 * - every -j document carries "format": JSON_FORMAT;
 * - every recording file's header carries "format": RECORDING_FORMAT
 *   (format 1 was the -j display columns of ppwatch 0.1; still read).
 *
 * A format number changes only when a member is removed, renamed or
 * changes its meaning or type; members and enumeration values are added
 * within a format. Whoever changes an output changes its schema in the
 * same commit (tests/contract/validate.py checks real output against it).
 */
#ifndef __PPWATCH_MODEL_CONTRACT_H
#define __PPWATCH_MODEL_CONTRACT_H

/* the -j documents' "format" */
#define JSON_FORMAT 1

/* the recording's header "format": what this ppwatch writes, the oldest it reads */
#define RECORDING_FORMAT     2
#define RECORDING_FORMAT_MIN 1

/*
 * The record bound, shared by the writer and the reader: no line of a
 * recording is longer, newline included (the writer splits what would
 * be, into parts; the reader skips a longer line as damaged). With
 * --max-size, the writer's bound is also --max-size less the header.
 */
#define RECORDING_MAX_RECORD (1u << 20)

#endif /* __PPWATCH_MODEL_CONTRACT_H */
