/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A -j document's envelope: every document a command writes on stdout
 * (one, or one per line for the streams of top and watch, or the error
 * object) begins with "format" (the contract's version, model/contract.h)
 * and "version" (ppwatch's), so a script can tell what it reads
 * (docs/schema/README.md).
 */
#ifndef __PPWATCH_OUTPUT_DOC_H
#define __PPWATCH_OUTPUT_DOC_H

#include "lib/json.h"

/* the document's object opened, "format" and "version" written */
void doc_open(struct json *j);
/* the members doc_open() writes, in an object already open */
void doc_members(struct json *j);

#endif /* __PPWATCH_OUTPUT_DOC_H */
