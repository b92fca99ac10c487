// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdbool.h>
#include <stdio.h>

#include "lib/escape.h"
#include "output/pool_table.h"
#include "output/stacks_fmt.h"

const char *stack_kind_name(__u32 kind)
{
	switch (kind) {
	case PPW_STACK_HOLD:
		return "hold";
	case PPW_STACK_RELEASE:
		return "release";
	case PPW_STACK_ZOMBIE_RELEASE:
		return "zombie_release";
	}
	return "?";
}

const char *stack_fmt(const struct ksyms *k, const __u64 *ips, int n, int max_frames, char *buf,
		      size_t len)
{
	char sym[160];
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && i < max_frames && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " < " : "",
				ksyms_fmt(k, ips[i], sym, sizeof(sym)));
	return buf;
}

/* a destroyed pool's releases are all taken; the others 1 in 'every' */
static __u64 estimated(const struct stack_agg *a, uint64_t every)
{
	return a->key.kind == PPW_STACK_ZOMBIE_RELEASE ? a->count : a->count * every;
}

static bool of_row(const struct stack_agg *a, const struct pool_row *row)
{
	return a->key.pool == row->addr && a->key.gen == row->gen;
}

void stacks_print_text(FILE *f, const struct ksyms *k, const struct snapshot *snap,
		       const struct stack_agg *v, size_t n, uint64_t top, uint64_t every)
{
	char buf[4096], dev[4 * sizeof(snap->rows->device)], sym[4096];
	size_t i, r;
	int fr;

	for (r = 0; r < snap->n; r++) {
		const struct pool_row *row = &snap->rows[r];
		bool title = false;
		__u32 kind;

		for (kind = PPW_STACK_HOLD; kind <= PPW_STACK_ZOMBIE_RELEASE; kind++) {
			uint64_t shown = 0;

			for (i = 0; i < n && shown < top; i++) {
				if (!of_row(&v[i], row) || v[i].key.kind != kind)
					continue;
				if (!title) {
					fprintf(f, "pool %s %s (%s)\n", row->ident,
						esc_str(row->device, dev, sizeof(dev)),
						row_state_name(row->state));
					title = true;
				}
				fprintf(f, "  %s: %llu sampled (~%llu events)\n",
					stack_kind_name(kind), (unsigned long long)v[i].count,
					(unsigned long long)estimated(&v[i], every));
				for (fr = 0; fr < v[i].nframes; fr++)
					fprintf(f, "      %s\n",
						esc_str(ksyms_fmt(k, v[i].ips[fr], buf,
								  sizeof(buf)),
							sym, sizeof(sym)));
				shown++;
			}
		}
		if (title)
			fputc('\n', f);
	}
}

void stacks_write_json(struct json *j, const struct ksyms *k, const struct snapshot *snap,
		       const struct stack_agg *v, size_t n, uint64_t every)
{
	char buf[512];
	size_t i, r;
	int fr;

	json_key(j, "sampling");
	json_obj_open(j);
	json_kv_u64(j, "every", every);
	json_kv_u64(j, "stacks_taken", snap->counters[PPW_CNT_STACKS]);
	json_kv_u64(j, "stacks_lost", snap->counters[PPW_CNT_STACK_FAIL]);
	json_obj_close(j);
	json_key(j, "pools");
	json_arr_open(j);
	for (r = 0; r < snap->n; r++) {
		const struct pool_row *row = &snap->rows[r];

		json_obj_open(j);
		render_pool_ref_json(j, row);
		json_key(j, "stacks");
		json_arr_open(j);
		for (i = 0; i < n; i++) {
			if (!of_row(&v[i], row))
				continue;
			json_obj_open(j);
			json_kv_str(j, "kind", stack_kind_name(v[i].key.kind));
			json_kv_u64(j, "count", v[i].count);
			json_kv_u64(j, "estimated_events", estimated(&v[i], every));
			json_key(j, "frames");
			json_arr_open(j);
			for (fr = 0; fr < v[i].nframes; fr++)
				json_str(j, ksyms_fmt(k, v[i].ips[fr], buf, sizeof(buf)));
			json_arr_close(j);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}
