#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Allocation and recycling statistics (CONFIG_PAGE_POOL_STATS) on this
# host's kernel, against what the kernel says through interfaces ppwatch
# does not use:
#   - whether the kernel keeps them: its build configuration
#     (/boot/config-$(uname -r) or /proc/config.gz), and veth's ethtool -S,
#     which lists rx_pp_* counters only with CONFIG_PAGE_POOL_STATS;
#   - their values: ethtool -S of the lab's vb, veth's sum of its rx queues'
#     pools (page_pool_get_stats()), around each ppwatch read: ppwatch's
#     sum over vb's pools lies between the two reads (equal when nothing
#     moved), from netlink where it lists the pools and read from the pool
#     itself with --no-netlink.
# Without the statistics: 'not available' said once on stderr, the JSON's
# kernel.unavailable and null stats, no metric family, a recording without
# them. The VM tests (tests/vm/t/70-pp-stats.sh) compare the values with
# page-pool-stats-get on kernels that have them.

ALL_TESTS="
	stats_not_available
	stats_match_ethtool
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KEYS="alloc_fast alloc_slow alloc_slow_high_order alloc_empty alloc_refill alloc_waive recycle_cached recycle_cache_full recycle_ring recycle_ring_full recycle_released_refcnt"

# the kernel's build configuration: y, n, or empty (no configuration to read)
kconfig_pp_stats() {
	local cfg line
	cfg=/boot/config-$(uname -r)
	if [ -r "$cfg" ]; then
		line=$(grep -E '^(# )?CONFIG_PAGE_POOL_STATS[= ]' "$cfg")
	elif [ -r /proc/config.gz ]; then
		line=$(zgrep -E '^(# )?CONFIG_PAGE_POOL_STATS[= ]' /proc/config.gz)
	else
		return 0
	fi
	case $line in CONFIG_PAGE_POOL_STATS=y) echo y ;; *) echo n ;; esac
}

# ethtool -S of the lab's vb into FILE
vb_ethtool() { ip netns exec "$LAB_B" ethtool -S vb >"$1"; }
# ethtool's name of a .stats key (page_pool_ethtool_stats_get_strings())
eth_key() {
	case $1 in
	alloc_slow_high_order) echo rx_pp_alloc_slow_ho ;;
	recycle_released_refcnt) echo rx_pp_recycle_released_ref ;;
	*) echo "rx_pp_$1" ;;
	esac
}
eth() { awk -v k="$(eth_key "$1"):" '$1 == k { print $2 }' "$2"; }

# the lab with a held pool, and traffic that comes back to it: datagrams to
# a port nobody listens on (their pages return at once)
lab_with_traffic() {
	lab_begin
	lab_hold 200 1000 >/dev/null || fail "holder"
	"$PPGEN" send --netns "$LAB_A" --to "$LAB_IP_B:9" --count 300 --size 1000 >/dev/null ||
		fail "send to a closed port"
}

stats_not_available() {
	require_kernel
	local d=/tmp/ppwt$BASHPID.rc cfg doc ns n
	cfg=$(kconfig_pp_stats)
	[ "$cfg" = y ] && skip "this kernel has CONFIG_PAGE_POOL_STATS (stats_match_ethtool compares them)"
	mkdir -p "$d"
	at_exit "rm -rf $d"
	lab_with_traffic
	vb_ethtool "$d/eth" || fail "ethtool -S vb"
	if [ -z "$cfg" ]; then
		skip_note "no kernel configuration to read (/boot/config-$(uname -r), /proc/config.gz): ethtool alone says the kernel keeps no statistics"
	fi
	check "the kernel keeps no page-pool statistics: ethtool -S vb has no rx_pp_ counter" \
		[ "$(grep -c 'rx_pp_' "$d/eth")" -eq 0 ]
	ns=$(lab_netns_ino)

	"$PPWATCH" -j pools >"$d/pools.json" 2>"$d/pools.err" || fail "pools -j: $(cat "$d/pools.err")"
	doc=$(cat "$d/pools.json")
	check "kernel.pp_stats is false" jget "$doc" '.kernel.pp_stats == false' >/dev/null
	check "kernel.unavailable names pp_stats" jget "$doc" '.kernel.unavailable | index("pp_stats") != null' >/dev/null
	n=$(jq --argjson ns "$ns" '[.pools[] | select(.device == "vb" and .netns == $ns)] | length' <<<"$doc")
	log "vb's pools: $n; $(head -c 300 "$d/pools.err")"
	check "the lab's vb pools are listed" [ "$n" -ge 1 ]
	check "every pool's stats is null (not available, not 0)" \
		jget "$doc" '[.pools[] | select(.stats != null)] | length == 0' >/dev/null

	"$PPWATCH" pools --recycling >"$d/pools.txt" 2>"$d/pools.txt.err" || fail "pools --recycling"
	check "text: 'cannot report allocation and recycling statistics' said once on stderr" \
		[ "$(grep -c 'cannot report.*allocation and recycling statistics' "$d/pools.txt.err")" -eq 1 ]
	check "text: the recycling view's header" grep -q '^POOL DEVICE .* ALLOC/s RECYC/s RECYC%' "$d/pools.txt"
	check "text: vb's counters unknown ('-')" grep -Eq '^ *[0-9]+ vb +live +- +- +- +- ' "$d/pools.txt"

	"$PPWATCH" export --textfile "$d/m.prom" --once 2>"$d/export.err" || fail "export --once: $(cat "$d/export.err")"
	check "export: no allocation or recycling family" \
		[ "$(grep -c '^ppwatch_pool_\(alloc\|recycle\|recycling\)_' "$d/m.prom")" -eq 0 ]
	check "export: the pools are there" grep -q '^ppwatch_pool_inflight_pages{' "$d/m.prom"

	"$PPWATCH" record -o "$d/rec.jsonl" --snapshot-every 0.3 1 2>"$d/record.err" ||
		fail "record: $(cat "$d/record.err")"
	check "recording: the header's kernel.pp_stats is false" \
		jq -se 'map(select(.type == "header"))[0].kernel.pp_stats == false' "$d/rec.jsonl" >/dev/null
	check "recording: a snapshot with pools, none with stats" jq -se \
		'[.[] | select(.type == "snapshot") | .pools[]?] | length > 0 and all(has("stats") | not)' \
		"$d/rec.jsonl" >/dev/null
}

# ppwatch's sum over vb's pools of KEY in FILE (pools -j)
ppw_sum() {
	jq --argjson ns "$(lab_netns_ino)" \
		"[.pools[] | select(.device == \"vb\" and .netns == \$ns and .state == \"live\") | .stats.$1] | add" "$2"
}

stats_match_ethtool() {
	require_kernel
	local d=/tmp/ppwt$BASHPID.rc cfg mode k got lo hi src
	cfg=$(kconfig_pp_stats)
	[ "$cfg" = n ] && skip "this kernel is built without CONFIG_PAGE_POOL_STATS ($(uname -r)): nothing to compare here; the VM tests compare on kernels that have it (tests/vm/t/70-pp-stats.sh)"
	mkdir -p "$d"
	at_exit "rm -rf $d"
	lab_with_traffic
	vb_ethtool "$d/eth1" || fail "ethtool -S vb"
	grep -q 'rx_pp_alloc_fast' "$d/eth1" ||
		skip "ethtool -S vb has no rx_pp_ counters: this kernel keeps no page-pool statistics"
	for mode in default no-netlink; do
		vb_ethtool "$d/eth1"
		if [ $mode = no-netlink ]; then
			"$PPWATCH" -j --no-netlink pools >"$d/p.json" 2>"$d/p.err" || fail "pools -j --no-netlink"
		else
			"$PPWATCH" -j pools >"$d/p.json" 2>"$d/p.err" || fail "pools -j"
		fi
		vb_ethtool "$d/eth2"
		check "$mode: kernel.pp_stats" jq -e '.kernel.pp_stats' "$d/p.json" >/dev/null
		src=$(jq -r --argjson ns "$(lab_netns_ino)" \
			'[.pools[] | select(.device == "vb" and .netns == $ns and .state == "live") | .stats.source] | unique | join(",")' "$d/p.json")
		log "$mode: vb's pools read from: $src"
		[ $mode = no-netlink ] && check "--no-netlink: read from the pools themselves" [ "$src" = bpf ]
		for k in $KEYS; do
			got=$(ppw_sum "$k" "$d/p.json")
			lo=$(eth "$k" "$d/eth1")
			hi=$(eth "$k" "$d/eth2")
			check "$mode: vb's pools' $k ($got) within ethtool's $(eth_key "$k") ($lo..$hi)" \
				num "$got >= $lo and $got <= $hi"
		done
	done
	check "the traffic moved pages through the pools (ethtool: allocations)" \
		num "$(eth alloc_fast "$d/eth2") + $(eth alloc_slow "$d/eth2") > 0"
}

run_tests
