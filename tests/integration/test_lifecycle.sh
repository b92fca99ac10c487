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

watch_destroy_retries_freed() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.watch t_close ev
	lab_hold 300 3000 >/dev/null || fail "holder"
	"$PPWATCH" -v -j watch vb 8 >"$out" 2>"$out.err" &
	local wpid=$!
	wait_attached "$out.err" $wpid
	lab_xdp_off
	sleep 3.5
	t_close=$(date +%s.%N)
	lab_release
	wait $wpid || fail "watch failed: $(cat "$out.err")"
	ev=$(jq -sc --arg ns "$(lab_netns_ino)" \
		'[.[] | select((.netns|tostring) == $ns and .event != "new")]' "$out")
	log "$(jq -c '[.[] | [.event, .id, .inflight, (.retry // null)]]' <<<"$ev")"
	check "destroy with 300 pages out" jget "$ev" \
		'any(.[]; .event == "destroy" and .inflight == 300)' >/dev/null
	check "retries with the right inflight" jget "$ev" \
		'[.[] | select(.event == "retry" and .inflight == 300)] | length >= 3' >/dev/null
	check "a retry per second" jget "$ev" '
		[.[] | select(.event == "retry" and .inflight == 300) | .time] as $t
		| all(range(1; $t | length); ($t[.] - $t[. - 1]) > 0.8 and ($t[.] - $t[. - 1]) < 1.3)' \
		>/dev/null
	check "in order: destroy, retries, freed" jget "$ev" '
		(map(.event) | index("destroy")) < (map(.event) | index("retry")) and
		(map(.event) | index("retry")) < (map(.event) | index("freed"))' >/dev/null
	check "freed within 2 s of the holder closing" num \
		"$(jq '[.[] | select(.event == "freed")][0].time' <<<"$ev") - $t_close <= 2.0"
	check "DMA state said" jget "$ev" 'all(.[]; .dma == "not_mapped")' >/dev/null
	rm -f "$out" "$out.err"
}

watch_stalled() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.watch s
	lab_hold 200 3000 >/dev/null || fail "holder"
	"$PPWATCH" -v -j watch -e destroy,stalled --stall-after 2s vb 5 >"$out" 2>"$out.err" &
	local wpid=$!
	wait_attached "$out.err" $wpid
	lab_xdp_off
	wait $wpid || fail "watch failed: $(cat "$out.err")"
	s=$(jq -sc --arg ns "$(lab_netns_ino)" \
		'[.[] | select(.event == "stalled" and (.netns|tostring) == $ns)]' "$out")
	log "$(jq -c '[.[] | {event, inflight, detach_age_s}]' <<<"$s")"
	check "stalled once, after 2 s, with the inflight" jget "$s" \
		'length == 1 and .[0].inflight == 200 and .[0].detach_age_s >= 2 and .[0].detach_age_s < 3.5' \
		>/dev/null
	check "only the events asked for" jq -se 'all(.[]; .event == "destroy" or .event == "stalled")' \
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
	local rec=/tmp/ppwt$BASHPID.d/rec a b ra rb rc dt
	# a directory only root writes: record refuses /tmp itself
	mkdir -m 0700 "${rec%/*}"
	at_exit "rm -rf ${rec%/*}"
	"$PPWATCH" -v record -o "$rec" --stall-after 2s --snapshot-every 1s --stacks=16 2>"$rec.err" &
	local rpid=$!
	wait_attached "$rec.err" $rpid
	lab_hold 300 3000 >/dev/null || fail "holder"
	lab_xdp_off
	sleep 3
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
	check "same destroy time, to the kernel's second" num "($(jq --arg ns "$(lab_netns_ino)" "$dt" <<<"$a") - $(jq --arg ns "$(lab_netns_ino)" "$dt" <<<"$b")) | fabs < 1.5"
	check "the recording has the retries" jq -e '[.pools[] | .retries] | max >= 2' <<<"$b" >/dev/null
	# and after the holder closes, the recording shows the pool freed, and who
	# freed it; the first recording is rec.1 now, and the report reads both
	"$PPWATCH" -v record -o "$rec" --stacks=16 4 2>"$rec.err" &
	rpid=$!
	wait_attached "$rec.err" $rpid
	lab_release
	wait $rpid || fail "record failed: $(cat "$rec.err")"
	check "the first recording kept as rec.1" [ -s "$rec.1" ]
	b=$("$PPWATCH" -j postmortem "$rec")
	rc=$?
	check "postmortem of both: the pool stalled in the first, exit 1 ($rc)" [ $rc -eq 1 ]
	check "both files read" jq -e '.input.files | length == 2' <<<"$b" >/dev/null
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
