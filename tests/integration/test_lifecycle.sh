#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Pool lifecycle on the running kernel, in the veth lab: 'watch' sees the
# destroy, a retry per second with the right inflight, the stall and the
# free; 'postmortem' (live and from a 'record' file) names the holder; the
# DMA-unmap regime ppwatch reports is the one the kernel's BTF describes.

ALL_TESTS="
	watch_destroy_retries_freed
	watch_stalled
	unmap_regime_matches_btf
	postmortem_live_names_holder
	record_then_postmortem_same_report
	postmortem_yaml_and_bad_files
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# the lab's events in a watch -j output, as one JSON array
lab_events() {
	jq -sc --arg ns "$(lab_netns_ino)" '[.[] | select((.netns|tostring) == $ns and .event != "new")]' "$1" 2>/dev/null
}

# wait until a watch -j writing to OUT has written the lab's events that
# FILTER (on their array) finds
wait_events() {	# out what filter
	local out=$1 f=$3
	_seen() { jget "$(lab_events "$out")" "$f" >/dev/null 2>&1; }
	wait_until 120 "$2" _seen
}

# Destroy, retries and free as watch saw them: each once the kernel made it
# (waited for, not slept), each retry a second or more after the one
# before (the kernel's delayed work: later on a loaded machine, never
# sooner), the free at the retry that found nothing inflight, after the
# holder closed.
watch_destroy_retries_freed() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.watch t_close t_seen ev
	lab_hold 300 3000 >/dev/null || fail "holder"
	"$PPWATCH" -v -j watch vb >"$out" 2>"$out.err" &
	local wpid=$!
	at_exit "kill $wpid 2>/dev/null"
	wait_attached "$out.err" $wpid
	lab_xdp_off
	wait_events "$out" "three retries of the destroyed pool" \
		'[.[] | select(.event == "retry")] | length >= 3'
	t_close=$(date +%s.%N)
	lab_release
	wait_events "$out" "the pool freed" 'any(.[]; .event == "freed")'
	t_seen=$(date +%s.%N)
	kill $wpid
	wait $wpid 2>/dev/null
	ev=$(lab_events "$out")
	log "$(jq -c '[.[] | [.event, .id, .inflight, (.retry // null), .time]]' <<<"$ev")"
	check "destroy with 300 pages out" jget "$ev" \
		'any(.[]; .event == "destroy" and .inflight == 300)' >/dev/null
	check "retries with the right inflight" jget "$ev" \
		'[.[] | select(.event == "retry" and .inflight == 300)] | length >= 3' >/dev/null
	check "a retry a second or more after the one before" jget "$ev" '
		[.[] | select(.event == "retry") | .time] as $t
		| all(range(1; $t | length); ($t[.] - $t[. - 1]) > 0.8)' \
		>/dev/null
	check "freed at a retry, the last, with nothing inflight" jget "$ev" '
		([.[] | select(.event == "retry")] | last) as $r | ([.[] | select(.event == "freed")] | first) as $f
		| $r.inflight == 0 and ($f.time - $r.time | fabs) < 0.01' >/dev/null
	check "in order: destroy, retries, freed" jget "$ev" '
		(map(.event) | index("destroy")) < (map(.event) | index("retry")) and
		(map(.event) | index("retry")) < (map(.event) | index("freed"))' >/dev/null
	check "freed after the holder closed, before it was seen" num \
		"$(jq '[.[] | select(.event == "freed")][0].time' <<<"$ev") as \$f | \$f >= $t_close and \$f <= $t_seen"
	check "DMA state said" jget "$ev" 'all(.[]; .dma == "not_mapped")' >/dev/null
	rm -f "$out" "$out.err"
}

# The stall once, at --stall-after from the destroy (the destroy's instant
# bracketed by the test's clock), then nothing but the free.
watch_stalled() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.watch s t0 t1
	lab_hold 200 3000 >/dev/null || fail "holder"
	"$PPWATCH" -v -j watch -e destroy,stalled,freed --stall-after 2s vb >"$out" 2>"$out.err" &
	local wpid=$!
	at_exit "kill $wpid 2>/dev/null"
	wait_attached "$out.err" $wpid
	t0=$(date +%s.%N)
	lab_xdp_off
	t1=$(date +%s.%N)
	wait_events "$out" "the stall" 'any(.[]; .event == "stalled")'
	lab_release
	wait_events "$out" "the pool freed" 'any(.[]; .event == "freed")'
	kill $wpid
	wait $wpid 2>/dev/null
	s=$(jq -sc --arg ns "$(lab_netns_ino)" \
		'[.[] | select(.event == "stalled" and (.netns|tostring) == $ns)]' "$out")
	log "$(jq -c '[.[] | {event, inflight, detach_age_s, time}]' <<<"$s"); destroyed between $t0 and $t1"
	check "stalled once, with the inflight" jget "$s" 'length == 1 and .[0].inflight == 200' >/dev/null
	check "stalled after 2 s" jget "$s" '.[0].detach_age_s >= 2' >/dev/null
	check "its detach age is the time since the destroy" num \
		"$(jq '.[0].time - .[0].detach_age_s' <<<"$s") as \$d | \$d >= $t0 - 0.01 and \$d <= $t1 + 0.01"
	check "only the events asked for" jq -se 'all(.[]; .event == "destroy" or .event == "stalled" or .event == "freed")' \
		"$out" >/dev/null
	rm -f "$out" "$out.err"
}

unmap_regime_matches_btf() {
	require_kernel
	command -v bpftool >/dev/null || skip "bpftool not installed"
	local want got btf
	btf=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw)
	if grep -q "STRUCT 'page_pool_item'" <<<"$btf"; then
		want=item-blocks
	elif bpftool btf dump file /sys/kernel/btf/vmlinux format c |
		awk '/^struct page_pool \{/,/^\};/' | grep -q 'dma_mapped;'; then
		want=dma_mapped-xarray
	else
		want=on-return
	fi
	got=$("$PPWATCH" -j pools --window 0.1 | jq -r .kernel.unmap_regime)
	log "BTF says $want, ppwatch says $got"
	check "regime from BTF" [ "$want" = "$got" ]
	lab_begin
	lab_hold 50 >/dev/null
	check "veth pools never map" jget "$(vb_pool "$("$PPWATCH" -j pools)")" \
		'.dma == "not_mapped" and .dma_still_mapped == 0' >/dev/null
}

postmortem_live_names_holder() {
	require_kernel
	lab_begin
	local pid doc p rc
	read -r pid _ _ < <(lab_hold 250 3000) || fail "holder"
	lab_xdp_off
	# the scenario: a pool destroyed longer ago than --stall-after (a
	# loaded machine only makes it older; nothing is asserted of the time)
	sleep 1.5
	doc=$("$PPWATCH" -j postmortem --stall-after 1s)
	rc=$?
	check "a stalled pool: exit 1 ($rc)" [ $rc -eq 1 ]
	p=$(jq -ec --arg ns "$(lab_netns_ino)" '[.pools[] | select((.netns|tostring) == $ns)] | first' \
		<<<"$doc") || fail "no pool of the lab in: $doc"
	log "$(jq -c '{id, state, stalled, inflight, retries, h: [.holders.holders[] | .holder]}' <<<"$p")"
	check "stalled zombie" jget "$p" '.state == "zombie" and .stalled and .inflight == 250' >/dev/null
	check "names the holding process" jget "$p" \
		".holders.holders[0].holder | test(\"pid $pid ppgen\")" >/dev/null
	check "oldest pages listed" jget "$p" '.oldest_pages | length > 0' >/dev/null
	check "a timeline with the destroy" jget "$p" 'any(.timeline[]; .event == "destroy")' >/dev/null
}

# the parts of a pool's report that must not depend on how it was taken
pm_essence() {
	jq -c --arg ns "$(lab_netns_ino)" '[.pools[] | select((.netns|tostring) == $ns)
		| {id, device, state, stalled, inflight, dma: .dma.state,
		   holders: [.holders.holders[] | {kind, pages, holder}]}]'
}

record_then_postmortem_same_report() {
	require_kernel
	lab_begin
	local rec=/tmp/ppwt$BASHPID.d/rec a b ra rb rc dt da db
	# a directory only root writes: record refuses /tmp itself
	mkdir -m 0700 "${rec%/*}"
	at_exit "rm -rf ${rec%/*}"
	"$PPWATCH" -v record -o "$rec" --stall-after 2s --snapshot-every 1s --stacks=16 2>"$rec.err" &
	local rpid=$!
	wait_attached "$rec.err" $rpid
	lab_hold 300 3000 >/dev/null || fail "holder"
	lab_xdp_off
	# the recording has the stall (2 s after the destroy) and two retries
	_stall_recorded() {
		grep -q '"event":"stalled"' "$rec" && [ "$(grep -c '"event":"retry"' "$rec")" -ge 2 ]
	}
	wait_until 120 "the stall and two retries in the recording" _stall_recorded
	a=$("$PPWATCH" -j postmortem --stall-after 2s)
	[ $? -eq 1 ] || fail "live postmortem of a stalled pool: not exit 1"
	kill -INT $rpid
	wait $rpid || fail "record failed: $(cat "$rec.err")"
	b=$("$PPWATCH" -j postmortem "$rec")
	[ $? -eq 1 ] || fail "postmortem of the file, a stalled pool: not exit 1"
	ra=$(pm_essence <<<"$a")
	rb=$(pm_essence <<<"$b")
	log "live:     $ra"
	log "recorded: $rb"
	check "the lab's pool is in both" [ "$(jq length <<<"$ra")" -ge 1 ]
	check "same report, live or from the file" [ "$ra" = "$rb" ]
	# the lab's pool in each (another lab's zombie may be listed too, first); live, the
	# destroy came before the window: its time is the kernel's detach_time, whole seconds
	dt='[.pools[] | select((.netns|tostring) == $ns) | .destroyed_at][0]'
	da=$(jq --arg ns "$(lab_netns_ino)" "$dt" <<<"$a")
	db=$(jq --arg ns "$(lab_netns_ino)" "$dt" <<<"$b")
	log "destroyed at: live $da, recorded $db"
	check "same destroy time, to the kernel's second" num "($da - $db) | fabs < 1.5"
	check "the recording has the retries" jq -e '[.pools[] | .retries] | max >= 2' <<<"$b" >/dev/null
	# and after the holder closes, the recording shows the pool freed, and who
	# freed it; the first recording is rec.1 now, and the report reads both
	"$PPWATCH" -v record -o "$rec" --stacks=16 2>"$rec.err" &
	rpid=$!
	wait_attached "$rec.err" $rpid
	lab_release
	wait_until 120 "the free in the recording" grep -q '"event":"freed"' "$rec"
	kill -INT $rpid
	wait $rpid || fail "record failed: $(cat "$rec.err")"
	check "the first recording kept as rec.1" [ -s "$rec.1" ]
	b=$("$PPWATCH" -j postmortem "$rec")
	rc=$?
	check "postmortem of both: the pool stalled in the first, exit 1 ($rc)" [ $rc -eq 1 ]
	check "both files read" jq -e '[.input.files[] | select(.incidents | not)] | length == 2' <<<"$b" >/dev/null
	log "after release: $(jq -c '[.pools[] | {id, state, t: [.timeline[].event], stacks: (.release_stacks | length)}]' <<<"$b")"
	check "freed in the timeline" jq -e 'any(.pools[].timeline[]; .event == "freed")' <<<"$b" >/dev/null
	check "the stacks that released the last pages" jq -e \
		'any(.pools[]; (.release_stacks | length) > 0 and any(.release_stacks[].frames[]; test("destruct|skb_release|page_pool")))' \
		<<<"$b" >/dev/null
}

postmortem_yaml_and_bad_files() {
	require_kernel
	local rec=/tmp/ppwt$BASHPID.d/rec err rc out
	mkdir -m 0700 "${rec%/*}"
	at_exit "rm -rf ${rec%/*}"
	"$PPWATCH" record -o "$rec" 1 2>/dev/null || fail "record failed"
	if python3 -c 'import yaml' 2>/dev/null; then
		"$PPWATCH" postmortem --yaml "$rec" | python3 -c '
import sys, yaml
d = yaml.safe_load(sys.stdin)
assert "pools" in d and "kernel" in d, d' || fail "--yaml is not YAML with pools and kernel"
	else
		skip_note "python3-yaml missing: --yaml not parsed back"
	fi
	# a damaged line: skipped, counted, named in the report
	printf '{"type":"header"}\n{"type":"event", nope}\n' >"$rec"
	out=$("$PPWATCH" postmortem "$rec" 2>&1)
	rc=$?
	log "rc=$rc: $(grep damaged <<<"$out")"
	check "a damaged line: a report, exit 0" [ $rc -eq 0 ]
	check "names file and line" grep -q "^1 damaged line skipped: $rec:2 (column " <<<"$out"
	# nothing readable: exit 2, and why
	echo '{"a":1}' >"$rec"
	err=$("$PPWATCH" postmortem "$rec" 2>&1 >/dev/null)
	rc=$?
	log "rc=$rc: $err"
	check "not a record file exits 2" [ $rc -eq 2 ]
	check "says why" grep -q "nothing readable in $rec ($rec:1: not a ppwatch record" <<<"$err"
}

run_tests
