/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The lifecycle event view: 'watch' prints it, 'record' stores it. Pure. */
#ifndef __PPWATCH_OUTPUT_EVENT_TABLE_H
#define __PPWATCH_OUTPUT_EVENT_TABLE_H

#include <stdio.h>

#include "lib/json.h"
#include "model/life_feed.h"
#include "model/lifecycle.h"
#include "model/snapshot.h"
#include "output/table.h"

struct event_row {
	double time; /* wall clock, seconds */
	enum life_kind kind;
	__u32 retry;
	double stall_after_s;
	struct pool_row row; /* the pool as the event left it */
	char detail[200];
};

void event_row_of(struct event_row *er, const struct life_event *e, const struct event_ctx *c);
/* the event view's columns (text); JSON: render_event_json() */
struct oview event_oview(void);
void render_event_text(FILE *f, const struct event_row *er, bool header);
/* one JSON object (the caller ends the line) */
void render_event_json(struct json *j, const struct event_row *er);

#endif /* __PPWATCH_OUTPUT_EVENT_TABLE_H */
