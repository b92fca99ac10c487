/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pool's verdict (model/pool_verdict.h) in plain words, for postmortem
 * and check --run: one sentence that says what is the matter and, where
 * the numbers allow, when it ends; and what to run next.
 */
#ifndef __PPWATCH_OUTPUT_POOL_VERDICT_FMT_H
#define __PPWATCH_OUTPUT_POOL_VERDICT_FMT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/pool_verdict.h"

/* what the sentence needs; NAN / NULL where not known */
struct pv_facts {
	enum pv_code code;
	double inflight, min_inflight, bytes;
	bool bytes_estimated; /* from a page count alone, at the page size */
	double from_age, from, to_age, to, steady_s;
	double rate_per_s, eta_s;
	size_t nholders;
	double attributed, unattributed;
	const char *driver;   /* untrusted: escaped here */
	const char *freed_by; /* "recording", "host", "log", "run" */
	double ended_after_s; /* freed_by "log": the log went on this long */
	bool rebooted;
	const char *unknown_why; /* unknown: why (else: one sighting) */
};

/* the verdict's word: "draining", "accounting bug", ... */
const char *pool_verdict_word(enum pv_code c);
/* the sentence (escaped, UTF-8) into buf; returns buf */
const char *pool_verdict_say(char *buf, size_t len, const struct pv_facts *f);

#endif /* __PPWATCH_OUTPUT_POOL_VERDICT_FMT_H */
