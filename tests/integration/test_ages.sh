#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Ages ppwatch did not measure are the kernel's lower bounds, in every
# command: a pool destroyed with pages out a measured interval before
# ppwatch starts has every page at least that old (the destroy's time:
# the kernel's detach time, or its jiffies), said as a bound, and a
# max_oldest_age under the interval fails. The truth is the test's own
# clock: the destroy is after T0 (taken before it) and before T1 (after
# it returned), so each page's true age at a document's time t lies in
# [t - T1, t - T0]; a bound must be in it. About 30 s.

ALL_TESTS="
	zombie_ages_before_start
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=/tmp/ppwt$$.ages
# the measured interval between the destroy and ppwatch's start
WAIT_S=12

now_s() { date +%s.%N; }

# bound_ok WHAT AGE T: AGE is a lower bound of a page destroyed in [T0, T1], at time T
bound_ok() {
	check "$1: $2 s >= $3 - T1 ($(jq -n "$3 - $T1")) and <= $3 - T0" \
		num "$2 >= $3 - $T1 and $2 <= $3 - $T0 + 0.01"
}

zombie_ages_before_start() {
	require_kernel
	lab_begin
	mkdir -p "$WORK" && at_exit "rm -rf '$WORK'"
	local doc p id n t t_start line rc f age
	read -r _ _ < <(lab_hold 200 1000) || fail "holder"
	T0=$(now_s)
	lab_xdp_off	# the pool is destroyed with the held pages out
	T1=$(now_s)
	log "destroyed between $T0 and $T1; waiting $WAIT_S s before any ppwatch starts"
	sleep $WAIT_S
	t_start=$(now_s)
	check "the interval: at least $WAIT_S s" num "$t_start - $T1 >= $WAIT_S"

	# pools: the oldest page is a bound over the interval, beside the detach age
	doc=$("$PPWATCH" -j pools) || fail "ppwatch pools failed"
	p=$(vb_pool "$doc") || fail "no vb pool: $(head -c 400 <<<"$doc")"
	t=$(jq .time <<<"$doc")
	log "pools: $(jq -c '{pool, state, inflight, oldest_age_s, oldest_age_is_lower_bound, detach_age_s, before_start}' <<<"$p")"
	check "pools: a zombie" jget "$p" '.state == "zombie"' >/dev/null
	check "pools: oldest age is a lower bound" jget "$p" '.oldest_age_is_lower_bound == true' >/dev/null
	bound_ok "pools: oldest age" "$(jq .oldest_age_s <<<"$p")" "$t"
	id=$(jq -r .pool <<<"$p")
	n=$(jq -r .inflight <<<"$p")
	check "pools: pages out" [ "$n" -gt 0 ]
	line=$("$PPWATCH" pools "$id" | awk -v id="$id" '$1 == id')
	log "pools (text): $line"
	check "pools (text): OLDEST marked as a bound" grep -q ' >[0-9]' <<<"$line"

	# top, as JSON: the first refresh that lists the zombie (a destroyed pool
	# no device lists is found at its once-a-second retry: a 0.3 s refresh
	# may come before it)
	doc=$("$PPWATCH" -j top -b 0.3 20 | while read -r d; do
		if vb_pool "$d" >/dev/null; then echo "$d"; break; fi
	done)
	p=$(vb_pool "$doc") || fail "top: no vb pool in 20 refreshes"
	bound_ok "top: oldest age" "$(jq .oldest_age_s <<<"$p")" "$(jq .time <<<"$doc")"
	check "top: a lower bound" jget "$p" '.oldest_age_is_lower_bound == true' >/dev/null

	# pages --older-than a limit under the interval: every page listed, each a bound over it
	doc=$("$PPWATCH" -j pages "$id" --older-than 10s) || fail "ppwatch pages failed"
	t=$(jq .time <<<"$doc")
	log "pages: $(jq -c '.pools[0] | {inflight, n: (.pages | length), unknown_age_pages, unseen_pages, min: ([.pages[].age_s] | min)}' <<<"$doc")"
	check "pages --older-than 10s: all $n pages listed" \
		jget "$doc" ".pools[0].pages | length == $n" >/dev/null
	check "pages: every age a lower bound" jget "$doc" 'all(.pools[0].pages[]; .age_is_lower_bound)' >/dev/null
	bound_ok "pages: the youngest page" "$(jq '[.pools[0].pages[].age_s] | min' <<<"$doc")" "$t"
	# --limit: the N oldest, and only N rows
	doc=$("$PPWATCH" -j pages "$id" --limit 5) || fail "ppwatch pages --limit failed"
	check "pages --limit 5: five rows" jget "$doc" '.pools[0].pages | length == 5' >/dev/null

	# holders: the socket holding them, its oldest page a bound over the interval
	doc=$("$PPWATCH" -j holders "$id") || fail "ppwatch holders failed"
	t=$(jq .time <<<"$doc")
	p=$(jq -c '.pools[0].holders[0]' <<<"$doc")
	log "holders: $(jq -c '{kind, pages, oldest_age_s, oldest_age_is_lower_bound}' <<<"$p")"
	check "holders: a lower bound" jget "$p" '.oldest_age_is_lower_bound == true' >/dev/null
	bound_ok "holders: oldest age" "$(jq .oldest_age_s <<<"$p")" "$t"

	# check: max_oldest_age under the interval fails on the bound, over it passes
	printf 'version: 1\nrules:\n  - name: old\n    max_oldest_age: 10s\n    match:\n      pool: "%s"\n' "$id" >"$WORK/old.yaml"
	"$PPWATCH" -j check -f "$WORK/old.yaml" >"$WORK/check.json" 2>"$WORK/check.err"
	rc=$?
	log "check: exit $rc: $(jq -c '[.checks[]? | {rule, result, message}]' "$WORK/check.json")"
	check "check max_oldest_age: 10s fails (exit 1)" [ $rc -eq 1 ]
	printf 'version: 1\nrules:\n  - name: young\n    max_oldest_age: 1h\n    match:\n      pool: "%s"\n' "$id" >"$WORK/young.yaml"
	"$PPWATCH" check -f "$WORK/young.yaml" >/dev/null 2>&1
	check "check max_oldest_age: 1h passes" [ $? -eq 0 ]

	# export: the gauge and its bound flag
	"$PPWATCH" export --once >"$WORK/metrics" 2>"$WORK/export.err" || fail "export --once: $(cat "$WORK/export.err")"
	t=$(now_s)
	age=$(sed -n "s/^ppwatch_pool_oldest_page_age_seconds{pool_id=\"$id\",.*} //p" "$WORK/metrics")
	log "export: oldest age $age s"
	check "export: the bound flag" grep -q "^ppwatch_pool_oldest_page_age_lower_bound{pool_id=\"$id\",.*} 1$" "$WORK/metrics"
	# (export's sample is before t: the age checked against t - T1 less the second it may take)
	check "export: oldest age $age >= interval" num "${age:-0} >= $t_start - $T1"

	# postmortem (live): the pool's oldest pages, bounds over the interval
	"$PPWATCH" -j postmortem >"$WORK/pm.json" 2>/dev/null
	p=$(jq -c --arg id "$id" '[.pools[] | select((.id | tostring) == $id)] | first' "$WORK/pm.json")
	log "postmortem: $(jq -c '{state, detach_age_s, pages: [.oldest_pages[]? | [.age_s, .age_is_lower_bound]] | .[:3]}' <<<"$p")"
	check "postmortem: oldest pages listed" jget "$p" '.oldest_pages | length > 0' >/dev/null
	check "postmortem: their ages bounds over the interval" \
		jget "$p" "all(.oldest_pages[]; .age_is_lower_bound and .age_s >= $t_start - $T1)" >/dev/null

	# a recording: its snapshot rows and pages records, each at its own time
	"$PPWATCH" record -o "$WORK/rec" --snapshot-every 0.3s --scan-every 0.5s 1.5s 2>"$WORK/rec.err" ||
		fail "record: $(cat "$WORK/rec.err")"
	f=$(jq -c --arg id "$id" 'select(.type == "snapshot") | .time as $t | .pools[] | select(.pool == $id) | {t: $t, a: .oldest_age_s, lb: .oldest_age_is_lower_bound}' "$WORK/rec" | head -1)
	log "recording: snapshot $f"
	check "recording: a snapshot row of the pool" [ -n "$f" ]
	check "recording: a lower bound" jget "$f" '.lb == true' >/dev/null
	bound_ok "recording: snapshot's oldest age" "$(jq .a <<<"$f")" "$(jq .t <<<"$f")"
	f=$(jq -c --arg id "$id" 'select(.type == "pages" and .pool == $id) | {t: .time, min: ([.pages[].age_s] | min), lb: all(.pages[]; .age_is_lower_bound)}' "$WORK/rec" | head -1)
	log "recording: pages $f"
	check "recording: a pages record of the pool" [ -n "$f" ]
	check "recording: its pages bounds" jget "$f" '.lb == true' >/dev/null
	bound_ok "recording: the youngest page" "$(jq .min <<<"$f")" "$(jq .t <<<"$f")"
	"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pmrec.json" 2>/dev/null
	check "postmortem of the recording: the pool's pages over the interval" \
		jq -e --arg id "$id" "[.pools[] | select((.id | tostring) == \$id)] | first | (.oldest_pages | length > 0) and all(.oldest_pages[]; .age_is_lower_bound and .age_s >= $t_start - $T1)" \
		"$WORK/pmrec.json" >/dev/null
}

run_tests
