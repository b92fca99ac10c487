#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A big host in a lab (issue 22): 2,048 idle page pools (32 veth pairs of
# 64 queues with XDP, tests/lab/scale.sh) and 20,000 UDP sockets (ppgen
# crowd) beside the veth lab's one holder. Every command must succeed on
# it with nothing lost: the pool count, zero losses, every pool's 'new'
# event, the holder found among the crowd, series a Prometheus server
# takes. About 25 s here (set-up 0.1 s, the crowd 0.2 s, each command a
# BPF load, the holder scans of 2,048 pools and 20,000 sockets).

ALL_TESTS="
	every_command_at_scale
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../lab/scale.sh
. "$TOP/tests/lab/scale.sh"

SCALE_POOLS=2048
CROWD=20000

# Commands that stand on the holder scan (holders, pages, record,
# postmortem; issue 17's): a failure of one is kept in scan_bad and told
# at the end, after every other command ran.
scan_bad=
on_scan() {	# what command...
	local what=$1 err
	shift
	err=$("$@" 2>&1 >/dev/null) && return 0
	scan_bad="$scan_bad
      $what: $(head -c 300 <<<"$err")"
	return 1
}

# every loss counter of a pools/top JSON document is 0
no_losses() {
	jq -e '.losses | to_entries | all(.value == 0)' <<<"$1" >/dev/null
}

# A refresh of top reads again only the pools events named (and the whole
# table when pools came or went): 64 of the idle pools destroyed must leave
# its live rows at the next refreshes, 64 new ones appear.
top_follows_changes() {	# netns inode
	local out=/tmp/ppwt$BASHPID.top live
	scale_paths
	ppwatch_bg "$out" -j top -b 0.3 >/dev/null
	_two_lines() { [ "$(wc -l <"$out")" -ge 2 ]; }
	wait_until 120 "top's first two lines" _two_lines
	live_p0() {
		tail -1 "$out" | jq --argjson ns "$1" \
			'[.pools[] | select(.netns == $ns and .device == "p0" and .state == "live")] | length'
	}
	live=$(live_p0 "$1")
	check "top: p0's 64 pools live ($live)" [ "$live" -eq 64 ]
	ip -n "$SCALE_NS" link set dev p0 xdpdrv off || fail "XDP off on p0"
	# each change waited for at top's refreshes (120 s: a top that never
	# shows it)
	_none_live() { [ "$(live_p0 "$1")" = 0 ]; }
	wait_until 120 "top: p0's pools no longer live after their destroy" _none_live "$1"
	ip -n "$SCALE_NS" link set dev p0 xdpdrv pinned "$SCALE_PIN" || fail "XDP on p0 again"
	_all_live() { [ "$(live_p0 "$1")" = 64 ]; }
	wait_until 120 "top: p0's 64 new pools live" _all_live "$1"
	kill "${BG_PIDS[-1]}"
}

every_command_at_scale() {
	require_kernel
	lab_begin
	export SCALE_NS=$LAB-s SCALE_DEVS=32 SCALE_QUEUES=64
	at_exit scale_down
	scale_up 2>&1 | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || fail "scale lab set-up failed"
	check "XDP on $SCALE_DEVS devices" [ "$(scale_count)" -eq "$SCALE_DEVS" ]
	local sns dir=$LAB_DIR doc n pid ino port crowd_pid t0 id rec
	sns=$(stat -L -c %i "/run/netns/$SCALE_NS")

	# the crowd: 20,000 sockets in the holder's namespace, then the holder
	t0=$(date +%s%3N)
	"$PPGEN" crowd --netns "$LAB_B" --count "$CROWD" --ready "$dir/crowd" --lifetime 600 \
		</dev/null >/dev/null 2>"$dir/crowd.err" &
	crowd_pid=$!
	at_exit "kill $crowd_pid 2>/dev/null; wait $crowd_pid 2>/dev/null"
	_crowd_ready() {
		kill -0 "$crowd_pid" 2>/dev/null || fail "ppgen crowd: $(cat "$dir/crowd.err")"
		[ -s "$dir/crowd" ]
	}
	wait_until 120 "ppgen crowd to open $CROWD sockets" _crowd_ready
	log "$CROWD sockets in $(($(date +%s%3N) - t0)) ms"
	read -r pid ino port < <(lab_hold 100 3000) || fail "holder"

	# pools: every one, nothing lost (discovery's finds do not go through the ring)
	doc=$("$PPWATCH" -j pools --window 0.2) || fail "pools failed"
	n=$(jq --argjson ns "$sns" '[.pools[] | select(.netns == $ns)] | length' <<<"$doc")
	log "pools: $n in the scale namespace, $(jq '.pools | length' <<<"$doc") in all; losses $(jq -c .losses <<<"$doc")"
	check "pools lists the $SCALE_POOLS pools" [ "$n" -eq "$SCALE_POOLS" ]
	check "pools: every loss counter 0" no_losses "$doc"
	id=$(vb_pool "$doc" | jq -r .id) || fail "no vb pool: $doc"

	# top, twice: the second refresh too
	doc=$("$PPWATCH" -j top 0.3 2 | tail -1) || fail "top failed"
	check "top: $SCALE_POOLS pools or more" \
		jq -e --argjson n "$SCALE_POOLS" '(.pools | length) > $n' <<<"$doc" >/dev/null
	check "top: every loss counter 0" no_losses "$doc"
	n=$("$PPWATCH" top -b 0.3 1 | grep -c ' live ') || fail "top -b failed"
	check "top -b prints every pool ($n rows)" [ "$n" -gt "$SCALE_POOLS" ]
	top_follows_changes "$sns"

	# watch: every pool's 'new', none dropped
	n=$(timeout -s INT 4 "$PPWATCH" -j watch -e new 2>/dev/null |
		jq -s --argjson ns "$sns" '[.[] | select(.netns == $ns)] | length')
	log "watch: $n new pools of the scale namespace"
	check "watch: a 'new' for each of the $SCALE_POOLS pools" [ "$n" -eq "$SCALE_POOLS" ]

	# holders: the one socket among 20,000
	if on_scan "holders pool $id" "$PPWATCH" -j holders pool "$id"; then
		doc=$("$PPWATCH" -j holders pool "$id")
		if jq -e --argjson ino "$ino" \
			'any(.pools[].holders[]; .kind == "socket" and .inode == $ino and .pages == 100)' \
			<<<"$doc" >/dev/null; then
			log "holders: inode $ino found among $CROWD sockets"
		else
			scan_bad="$scan_bad
      holders did not name the holder's inode $ino among $CROWD sockets"
		fi
	fi

	# check: the rules see every pool and no loss
	cat >"$dir/rules.yaml" <<-EOF
	rules:
	  - name: scale-pools
	    match: { netns: $sns }
	    min_pools: $SCALE_POOLS
	  - name: complete
	    max_losses: 0
	EOF
	doc=$("$PPWATCH" check -f "$dir/rules.yaml" --format json) || fail "check failed: $doc"
	log "check: $(jq -c '[.checks[] | {rule, result, message}]' <<<"$doc")"
	check "check passes both rules" jq -e '.result == "pass" and .summary.passed == 2' <<<"$doc" >/dev/null

	# export: per-device series above 256 pools, the scale devices each summed
	"$PPWATCH" export --once --interval 0.2 >"$dir/scrape" || fail "export --once failed"
	n=$(grep -c "^ppwatch_device_inflight_pages{.*netns=\"$sns\"" "$dir/scrape")
	log "export: $(grep -vc '^#' "$dir/scrape") series, $(wc -c <"$dir/scrape") bytes; $n scale devices; $(grep '^ppwatch_pools_exported' "$dir/scrape")"
	check "export: one device series each for the $SCALE_DEVS devices" [ "$n" -eq "$SCALE_DEVS" ]
	check "export: pools of their own only where they say something" \
		awk '/^ppwatch_pools_exported / { exit !($2 <= 40) }' "$dir/scrape"
	check "export: under 2,000 series" [ "$(grep -vc '^#' "$dir/scrape")" -lt 2000 ]
	check "export: no loss" [ -z "$(grep '^ppwatch_losses_total' "$dir/scrape" | awk '$NF != 0')" ]

	# pages, stacks, blocks on the holder's pool; record and postmortem
	on_scan "pages $id" "$PPWATCH" -j pages "$id" --window 0.2
	"$PPWATCH" -j stacks 0.5 >/dev/null || fail "stacks failed"
	# blocks: the walk where the kernel has item blocks, else its one refusal
	"$PPWATCH" -j blocks >/dev/null 2>"$dir/blocks.err" ||
		grep -q "item blocks: not available: this kernel has no" "$dir/blocks.err" ||
		fail "blocks failed: $(cat "$dir/blocks.err")"
	if on_scan "record" "$PPWATCH" record -o "$dir/rec.jsonl" 2; then
		rec=$(jq -s --argjson ns "$sns" \
			'[.[] | select(.type == "event" and .event.event == "new" and .event.netns == $ns)] | length' \
			"$dir/rec.jsonl")
		log "record: $(wc -l <"$dir/rec.jsonl") lines, $rec new pools of the scale namespace"
		check "record: a 'new' for each of the $SCALE_POOLS pools" [ "$rec" -eq "$SCALE_POOLS" ]
		"$PPWATCH" postmortem "$dir/rec.jsonl" >/dev/null || fail "postmortem of the recording failed"
	fi
	on_scan "live postmortem" "$PPWATCH" postmortem
	[ -z "$scan_bad" ] || fail "the commands on the holder scan:$scan_bad"
}

run_tests
