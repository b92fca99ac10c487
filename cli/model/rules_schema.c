// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules file's one table of keys: for each section (the file, a rule,
 * its match) every key with its type, where it goes and its help. The
 * parser (model/rules.c) walks the YAML against it; 'check --validate'
 * and the man page's key list come from it too.
 */
#include <stddef.h>
#include <stdio.h>

#include "lib/util.h"
#include "model/rules.h"
#include "model/rules_schema.h"

#define R(f) offsetof(struct rule, f)
#define M(f) offsetof(struct rule_match, f)

const struct keydef file_keys[] = {
	{ "version", VT_VERSION, -1, -1, -1, "format version of the file; 1 (optional)" },
	{ "rules", VT_RULES, -1, -1, -1, "the list of rules (required)" },
	{ NULL }
};

const struct keydef rule_keys[] = {
	{ "name", VT_STR, -1, R(name), -1,
	  "the rule's name, unique in the file; names the checks in every output format" },
	{ "description", VT_STR, -1, R(description), -1, "free text, for people" },
	{ "match", VT_MATCH, -1, -1, R(has_match),
	  "which pools the limits apply to (keys below; all must hold); none: every pool" },
	{ "max_inflight", VT_COUNT, LIM_MAX_INFLIGHT, -1, -1,
	  "most inflight pages any matching pool may have" },
	{ "max_inflight_bytes", VT_BYTES, LIM_MAX_INFLIGHT_BYTES, -1, -1,
	  "most inflight bytes any matching pool may have" },
	{ "max_oldest_age", VT_DURATION, LIM_MAX_OLDEST_AGE, -1, -1,
	  "oldest age any inflight page of a matching pool may reach; a lower bound "
	  "(pages held before ppwatch started) fails only when it is over the limit" },
	{ "max_zombie_age", VT_DURATION, LIM_MAX_ZOMBIE_AGE, -1, -1,
	  "longest a matching pool may stay a zombie (destroyed, pages still out); "
	  "0: no zombie at all" },
	{ "max_item_slow_failed", VT_COUNT, LIM_MAX_ITEM_SLOW_FAILED, -1, -1,
	  "most allocations of a matching pool that failed for want of a tracking item "
	  "(needs a kernel reporting page-pool item stats; could not check otherwise)" },
	{ "max_losses", VT_COUNT, LIM_MAX_LOSSES, -1, -1,
	  "most events ppwatch itself may lose (ledger_full + pools_full + ringbuf_drop + "
	  "discovery_truncated); host-wide, not combined with match" },
	{ "min_pools", VT_COUNT, LIM_MIN_POOLS, -1, -1,
	  "fewest pools that must match (so a rule cannot pass by matching nothing)" },
	{ NULL }
};

const struct keydef match_keys[] = {
	{ "device", VT_STR, -1, M(device), -1,
	  "interface or device name (ifname, dev_name); shell glob such as 'eth*'" },
	{ "driver", VT_STR, -1, M(driver), -1, "driver name; shell glob" },
	{ "pool", VT_POOL, -1, M(pool), -1,
	  "the pool as ppwatch names it: its id (as netlink and "
	  "the kernel's warnings call it), or on kernels without pool "
	  "ids x<XDP memory-model id> or @<address>" },
	{ "ifindex", VT_U32, -1, M(ifindex), M(has_ifindex), "interface index" },
	{ "netns", VT_NETNS, -1, M(netns), -1,
	  "network namespace: a name under /run/netns, a path, or an inode number" },
	{ "state", VT_STATE, -1, M(state), -1, "live, zombie or any (default any)" },
	{ NULL }
};

_Static_assert(sizeof(rule_keys) / sizeof(rule_keys[0]) <= RULES_MAX_KEYS, "RULES_MAX_KEYS");
_Static_assert(sizeof(match_keys) / sizeof(match_keys[0]) <= RULES_MAX_KEYS, "RULES_MAX_KEYS");
_Static_assert(sizeof(file_keys) / sizeof(file_keys[0]) <= RULES_MAX_KEYS, "RULES_MAX_KEYS");

const char *vtype_expect(enum vtype t)
{
	switch (t) {
	case VT_STR:
		return "a string";
	case VT_COUNT:
		return "a whole number such as 4096";
	case VT_BYTES:
		return "a size such as 65536, 64k or 16M";
	case VT_DURATION:
		return "a duration such as 30s, 500ms or 2m";
	case VT_STATE:
		return "live, zombie or any";
	case VT_NETNS:
		return "a namespace name, a path or an inode number";
	case VT_U32:
		return "a number from 0 to 4294967295";
	case VT_POOL:
		return "a pool id from 0 to 4294967295, x<XDP memory-model id> or @<hex address>";
	case VT_VERSION:
		return "1";
	case VT_RULES:
		return "a list of rules";
	case VT_MATCH:
		return "a mapping such as { device: eth0 }";
	}
	return "?";
}

const char *vtype_name(enum vtype t)
{
	switch (t) {
	case VT_STR:
		return "string";
	case VT_COUNT:
		return "count";
	case VT_BYTES:
		return "size";
	case VT_DURATION:
		return "duration";
	case VT_STATE:
		return "state";
	case VT_NETNS:
		return "netns";
	case VT_U32:
		return "u32";
	case VT_POOL:
		return "pool";
	case VT_VERSION:
		return "1";
	case VT_RULES:
		return "list";
	case VT_MATCH:
		return "mapping";
	}
	return "?";
}

const char *limit_key(enum limit_kind k)
{
	const struct keydef *d;

	for (d = rule_keys; d->key; d++)
		if (d->lim == (int)k)
			return d->key;
	return "?";
}

const struct keydef *rules_limit_def(enum limit_kind k)
{
	const struct keydef *d;

	for (d = rule_keys; d->key; d++)
		if (d->lim == (int)k)
			return d;
	return NULL;
}

size_t rules_schema(const struct rules_key_help **out)
{
	static struct rules_key_help h[32];
	static size_t n;
	static const struct {
		const char *name;
		const struct keydef *keys;
	} secs[] = { { "file", file_keys }, { "rule", rule_keys }, { "match", match_keys } };
	const struct keydef *d;
	size_t i;

	if (!n)
		for (i = 0; i < ARRAY_SIZE(secs); i++)
			for (d = secs[i].keys; d->key && n < ARRAY_SIZE(h); d++)
				h[n++] = (struct rules_key_help){ secs[i].name, d->key,
								  vtype_name(d->t), d->help };
	*out = h;
	return n;
}
