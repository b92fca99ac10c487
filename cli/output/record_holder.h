/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recording's holders record (output/record_fmt.h's tables): a pool's
 * entry, each holder (a socket, a qdisc, a fragment queue, a pool's own
 * pages) and the scan's own numbers. Members as in -j ('holders -j'); an
 * unknown one is left out.
 */
#ifndef __PPWATCH_OUTPUT_RECORD_HOLDER_H
#define __PPWATCH_OUTPUT_RECORD_HOLDER_H

#include "lib/json.h"
#include "model/attrib.h"

/* a holders record's pool entry, but its "holders" array: members */
void rfmt_holders_pool_members(struct json *j, const struct pool_holders *ph);
/* one holder: one object */
void rfmt_holder(struct json *j, const struct holder *h);
/* a holder scan's own numbers: one object */
void rfmt_scan(struct json *j, const struct holders_report *rep);

#endif /* __PPWATCH_OUTPUT_RECORD_HOLDER_H */
