// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/util.h"
#include "output/pool_table.h"
#include "output/pool_verdict_fmt.h"
#include "output/run_report_fmt.h"
#include "model/counter_names.h"

static const char *pools_word(size_t n)
{
	return n == 1 ? "pool" : "pools";
}

static __u64 run_losses(const struct run_report *rep)
{
	const char *name;
	__u64 sum = 0;
	size_t i;
	int idx;

	for (i = 0; (name = loss_counter(i, &idx)); i++)
		sum += rep->losses_during[idx];
	return sum;
}

static void put_age(FILE *f, double s)
{
	char b[32];

	fputs(fmt_age(b, sizeof(b), fabs(s)), f);
}

static void put_exit(FILE *f, const struct run_report *rep)
{
	if (!rep->started)
		fprintf(f, "did not start: %s", rep->start_error);
	else if (rep->exit_status < 0)
		fprintf(f, "killed by signal %d (%s) after ", rep->signal, strsignal(rep->signal));
	else
		fprintf(f, "exit status %d after ", rep->exit_status);
	if (rep->started)
		put_age(f, rep->duration_s);
}

/* a name, or '-' when there is none; names are untrusted (lib/escape.h) */
static void put_name(FILE *f, const char *s, const char *none)
{
	if (*s)
		esc_put(f, s, strlen(s), NULL);
	else
		fputs(none, f);
}

static void put_pool_title(FILE *f, const struct pool_row *r)
{
	fprintf(f, "pool %s (", r->ident);
	put_name(f, r->device, "-");
	fputc(')', f);
}

/* a stuck pool's verdict in words (output/pool_verdict_fmt.c) */
static const char *run_verdict(char *buf, size_t len, const struct run_pool *p)
{
	struct pv_facts f = {
		.code = p->verdict.code,
		.inflight = (double)p->row.inflight,
		.min_inflight = (double)p->row.inflight,
		.bytes = (double)p->row.inflight_bytes,
		.from_age = NAN,
		.from = NAN,
		.to_age = NAN,
		.to = NAN,
		.steady_s = NAN,
		.rate_per_s = p->verdict.rate_per_s,
		.eta_s = p->verdict.eta_s,
		.attributed = p->attributed,
		.unattributed = p->unattributed,
		.driver = p->row.driver,
		.freed_by = "run",
		.ended_after_s = NAN,
		.unknown_why = p->holders_note ? p->holders_note : "no holder scan",
	};
	size_t i;

	for (i = 0; i < p->nholders; i++)
		f.nholders += p->holders[i].walked && p->holders[i].pages > 0;
	return pool_verdict_say(buf, len, &f);
}

/*
 * One stuck pool: where it is, how long it has been a zombie, how much it
 * still has out, how old, and what the ledger knows of it; then its
 * holders.
 */
static void put_stuck_pool(FILE *f, const struct run_pool *p)
{
	const struct pool_row *r = &p->row;
	char b[32], vb[1024];
	size_t i;

	fputs("stuck: ", f);
	put_pool_title(f, r);
	if (r->state == ROW_FREED) {
		fputs(": freed ", f);
		put_age(f, p->freed_s);
		fputs(" after the command ended, later than the deadline\n", f);
		return;
	}
	fprintf(f, ": zombie, %lld %s (%s) inflight\n", (long long)r->inflight,
		r->inflight == 1 ? "page" : "pages", fmt_bytes(b, sizeof(b), r->inflight_bytes));
	fprintf(f, "  verdict: %s\n", run_verdict(vb, sizeof(vb), p));
	fputs("  device ", f);
	put_name(f, r->device, "-");
	fputs(", ifindex ", f);
	if (r->ifindex > 0)
		fprintf(f, "%d", r->ifindex);
	else
		fputc('-', f);
	fprintf(f, ", netns %u, napi ", r->netns_ino);
	if (r->napi_id)
		fprintf(f, "%u", r->napi_id);
	else
		fputc('-', f);
	fputs(", driver ", f);
	put_name(f, r->driver, "-");
	fputc('\n', f);
	fputs("  destroyed ", f);
	if (isfinite(p->destroyed_s)) {
		put_age(f, p->destroyed_s);
		fprintf(f, " %s the command started, ", p->destroyed_s < 0 ? "before" : "after");
		put_age(f, r->detach_age_s);
		fputs(" ago", f);
	} else {
		fputs("at a time not known", f);
	}
	if (r->has_record)
		fprintf(f, "; %u %s", r->retries, r->retries == 1 ? "retry" : "retries");
	fputc('\n', f);
	fputs("  oldest page ", f);
	if (isfinite(r->oldest_age_s)) {
		fputs(r->oldest_at_least ? ">" : r->sampled ? "~" : "", f);
		put_age(f, r->oldest_age_s);
	} else {
		fputs("not known", f);
	}
	if (r->has_record && r->ledger_pages < 0)
		fprintf(f, "; %lld or more held before ppwatch started (no page ledger)",
			(long long)r->before_start_min);
	else if (r->has_record && r->sampled)
		fprintf(f, "; %lld sampled pages in the ledger, ~%lld held before ppwatch started",
			(long long)r->ledger_pages, (long long)r->before_start);
	else if (r->has_record)
		fprintf(f,
			"; %lld in the ledger (ages known), %lld held before ppwatch started, "
			"%lld untracked",
			(long long)r->ledger_pages, (long long)r->before_start,
			(long long)r->untracked);
	fputc('\n', f);
	/* holders: filled by run_find_holders() (cmd/check.c) */
	if (!p->nholders)
		fprintf(f, "  holders: not known%s%s%s\n", p->holders_note ? " (" : "",
			p->holders_note ? p->holders_note : "", p->holders_note ? ")" : "");
	for (i = 0; i < p->nholders; i++) {
		const struct run_holder *h = &p->holders[i];
		char pid[24];

		fputs("  holder: ", f);
		put_name(f, h->what, "?");
		snprintf(pid, sizeof(pid), "pid %d ", h->pid);
		if (h->pid && !strstr(h->what, pid)) { /* unless the holder names it */
			fprintf(f, ", pid %d (", h->pid);
			put_name(f, h->comm, "?");
			fputc(')', f);
		}
		if (h->pages >= 0)
			fprintf(f, ", %lld %s", (long long)h->pages,
				h->pages == 1 ? "page" : "pages");
		fputc('\n', f);
		if (h->remedy[0]) {
			fputs("    what to do: ", f);
			put_name(f, h->remedy, "");
			fputc('\n', f);
		}
	}
}

void run_report_text(FILE *f, const struct run_report *rep)
{
	const char *name;
	size_t i, first = 1;
	int idx;

	fputs("command: ", f);
	put_name(f, rep->command ? rep->command : "", "");
	fputs("\n  ", f);
	put_exit(f, rep);
	if (rep->started) {
		fputs("; watched ", f);
		put_age(f, rep->waited_s);
		fputs(" more (deadline ", f);
		put_age(f, rep->deadline_s);
		fputc(')', f);
	}
	fputc('\n', f);
	fprintf(f, "pools: %zu destroyed (%zu freed in time, %zu stuck), %zu created",
		rep->ndestroyed, rep->nfreed, rep->nstuck, rep->ncreated);
	if (rep->npreexisting)
		fprintf(f, "; %zu %s from before the command ignored", rep->npreexisting,
			rep->npreexisting == 1 ? "zombie" : "zombies");
	fputc('\n', f);
	for (i = 0; i < rep->n; i++) {
		const struct run_pool *p = &rep->pools[i];

		if (p->stuck) {
			put_stuck_pool(f, p);
		} else if (p->destroyed) {
			fputs("freed: ", f);
			put_pool_title(f, &p->row);
			fputs(": ", f);
			put_age(f, p->freed_s);
			fprintf(f, " %s the command ended\n", p->freed_s < 0 ? "before" : "after");
		} else {
			fputs("created: ", f);
			put_pool_title(f, &p->row);
			fprintf(f, ": %s, %lld pages inflight\n", row_state_name(p->row.state),
				(long long)p->row.inflight);
		}
	}
	if (run_losses(rep)) {
		fputs("losses during the run:", f);
		for (i = 0; (name = loss_counter(i, &idx)); i++) {
			if (!rep->losses_during[idx])
				continue;
			fprintf(f, "%s %s=%llu", first ? "" : ",", name,
				(unsigned long long)rep->losses_during[idx]);
			first = 0;
		}
		fputs(" (pools or pages may be missing from this report)\n", f);
	}
}

int run_report_result(const struct run_report *rep, struct check_result *res)
{
	size_t len = 0;
	char dl[32], b[32];
	FILE *f;

	snprintf(res->name, sizeof(res->name), "run");
	fmt_age(dl, sizeof(dl), rep->deadline_s);
	snprintf(res->what, sizeof(res->what), "destroyed pools freed within %s", dl);
	res->key = "run";
	res->limit = rep->deadline_s;
	res->npools = rep->ndestroyed;
	if (rep->nstuck) {
		const struct run_pool *p = &rep->pools[0]; /* stuck ones sort first */

		res->v = VERDICT_FAIL;
		snprintf(res->summary, sizeof(res->summary),
			 "%zu of %zu destroyed %s not freed "
			 "within %s of the command's end; first: pool %s (%s), %lld pages "
			 "inflight",
			 rep->nstuck, rep->ndestroyed, pools_word(rep->ndestroyed), dl,
			 p->row.ident, p->row.device[0] ? p->row.device : "-",
			 (long long)p->row.inflight);
	} else if (!rep->started) {
		res->v = VERDICT_ERROR;
		snprintf(res->summary, sizeof(res->summary), "could not run the command: %s",
			 rep->start_error);
	} else if (rep->exit_status) {
		res->v = VERDICT_ERROR;
		if (rep->exit_status < 0)
			snprintf(res->summary, sizeof(res->summary),
				 "the command was killed by "
				 "signal %d (%s)",
				 rep->signal, strsignal(rep->signal));
		else
			snprintf(res->summary, sizeof(res->summary),
				 "the command failed with exit "
				 "status %d%s",
				 rep->exit_status,
				 rep->exit_status == 127 ? " (command not found?)" : "");
	} else if (rep->losses_during[PPW_CNT_POOLS_FULL] ||
		   rep->losses_during[PPW_CNT_DISCOVERY_TRUNC]) {
		res->v = VERDICT_ERROR;
		snprintf(res->summary, sizeof(res->summary),
			 "pools may be missing: ppwatch lost "
			 "track of some (%s); raise --max-pools",
			 rep->losses_during[PPW_CNT_POOLS_FULL] ? "pools_full" :
								  "discovery_truncated");
	} else {
		double last = NAN;
		size_t i;

		res->v = VERDICT_PASS;
		for (i = 0; i < rep->n; i++)
			if (rep->pools[i].destroyed &&
			    (isnan(last) || rep->pools[i].freed_s > last))
				last = rep->pools[i].freed_s;
		if (!rep->ndestroyed)
			snprintf(res->summary, sizeof(res->summary),
				 "the command destroyed no pools "
				 "(%zu created)",
				 rep->ncreated);
		else
			snprintf(res->summary, sizeof(res->summary),
				 "%zu destroyed %s freed, the "
				 "last %s %s the command ended",
				 rep->ndestroyed, pools_word(rep->ndestroyed),
				 fmt_age(b, sizeof(b), fabs(last)), last < 0 ? "before" : "after");
	}
	f = open_memstream(&res->details, &len);
	if (!f)
		return -ENOMEM;
	run_report_text(f, rep);
	fclose(f);
	return 0;
}

void run_report_json(struct json *j, const struct run_report *rep)
{
	struct snapshot s = { 0 };
	struct oview ov;
	size_t i, h;

	json_key(j, "run");
	json_obj_open(j);
	json_kv_str(j, "command", rep->command ? rep->command : "");
	json_kv_bool(j, "started", rep->started);
	if (!rep->started)
		json_kv_str(j, "start_error", rep->start_error);
	json_key(j, "exit_status");
	if (rep->started && rep->exit_status >= 0)
		json_s64(j, rep->exit_status);
	else
		json_put_null(j);
	json_key(j, "signal");
	if (rep->started && rep->exit_status < 0)
		json_s64(j, rep->signal);
	else
		json_put_null(j);
	json_kv_f64(j, "duration_s", rep->duration_s);
	json_kv_f64(j, "deadline_s", rep->deadline_s);
	json_kv_f64(j, "waited_s", rep->waited_s);
	json_kv_u64(j, "created", rep->ncreated);
	json_kv_u64(j, "destroyed", rep->ndestroyed);
	json_kv_u64(j, "freed", rep->nfreed);
	json_kv_u64(j, "stuck", rep->nstuck);
	json_kv_u64(j, "preexisting_zombies", rep->npreexisting);
	json_key(j, "pools");
	json_arr_open(j);
	s.ts_ns = rep->ts_ns;
	ov = pool_oview(&s);
	for (i = 0; i < rep->n; i++) {
		const struct run_pool *p = &rep->pools[i];

		json_obj_open(j);
		json_key(j, "id");
		p->row.id ? json_u64(j, p->row.id) : json_put_null(j);
		/* the pool's name ("pool" in pools -j) is .pool.pool here */
		json_kv_str(j, "device", p->row.device);
		json_kv_bool(j, "created", p->created);
		json_kv_bool(j, "destroyed", p->destroyed);
		json_kv_bool(j, "stuck", p->stuck);
		json_kv_f64(j, "destroyed_after_start_s", p->destroyed_s);
		json_kv_f64(j, "freed_after_end_s", p->freed_s);
		json_key(j, "holders");
		if (p->nholders || !p->stuck) {
			json_arr_open(j);
			for (h = 0; h < p->nholders; h++) {
				const struct run_holder *x = &p->holders[h];

				json_obj_open(j);
				json_kv_str(j, "what", x->what);
				json_key(j, "pid");
				if (x->pid)
					json_s64(j, x->pid);
				else
					json_put_null(j);
				json_key(j, "comm");
				if (x->comm[0])
					json_str(j, x->comm);
				else
					json_put_null(j);
				json_key(j, "pages");
				if (x->pages >= 0)
					json_s64(j, x->pages);
				else
					json_put_null(j);
				json_key(j, "remedy");
				if (x->remedy[0])
					json_str(j, x->remedy);
				else
					json_put_null(j);
				json_obj_close(j);
			}
			json_arr_close(j);
		} else {
			json_put_null(j); /* not known */
		}
		if (p->holders_note)
			json_kv_str(j, "holders_note", p->holders_note);
		json_key(j, "verdict");
		if (p->stuck) {
			char vb[1024];

			json_obj_open(j);
			json_kv_str(j, "verdict", pool_verdict_name(p->verdict.code));
			json_kv_str(j, "summary", run_verdict(vb, sizeof(vb), p));
			json_kv_f64(j, "rate_pages_per_s", p->verdict.rate_per_s);
			json_kv_f64(j, "eta_s", p->verdict.eta_s);
			json_kv_f64(j, "attributed", p->attributed);
			json_kv_f64(j, "unattributed", p->unattributed);
			json_obj_close(j);
		} else {
			json_put_null(j);
		}
		json_key(j, "pool");
		out_json_row(j, &ov, &p->row);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_key(j, "losses_during");
	json_obj_open(j);
	{
		const char *name;
		int idx;

		for (i = 0; (name = loss_counter(i, &idx)); i++)
			json_kv_u64(j, name, rep->losses_during[idx]);
	}
	json_obj_close(j);
	json_obj_close(j);
}
