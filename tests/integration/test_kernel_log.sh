#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# From the kernel's log line to the pool, its holder and what to do.
#
# The real line: the lab's pool destroyed while a socket holds its pages,
# kept a zombie past the kernel's first warning (60 s: the one case here
# that waits), then 'postmortem' live (/dev/kmsg) links the line to the
# pool by its id and names the holder and its remedy, in text, JSON and
# YAML; the same log saved by dmesg and dmesg -T (and journalctl -k where
# there is a journal), alone and with a recording of the same minute.
# check --run gives a stuck pool the same verdict. Saved logs of every
# form (tests/unit/klog/) give their verdicts through the command, and a
# log that cannot be opened is an error that says so.

ALL_TESTS="
	kernel_line_linked_to_pool_and_holder
	check_run_verdict
	saved_logs_verdicts
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KLOG=$TOP/tests/unit/klog

# the report's pool of id $2 in JSON $1
pm_pool() {
	jq -ec --argjson id "$2" '[.pools[] | select(.id == $id)] | first' <<<"$1"
}

kernel_line_linked_to_pool_and_holder() {
	require_kernel
	[ -r /dev/kmsg ] || skip "no /dev/kmsg to read"
	lab_begin
	local rec=/tmp/ppwt$BASHPID.d/rec dm=/tmp/ppwt$BASHPID.dmesg id pid doc p rc n=0 text infl
	# a directory only root writes: record refuses /tmp itself
	mkdir -m 0700 "${rec%/*}"
	at_exit "rm -rf ${rec%/*} $dm $dm.T $dm.j"
	id=$("$PPWATCH" -j pools | jq -er --arg ns "$(lab_netns_ino)" \
		'[.pools[] | select(.device == "vb" and (.netns|tostring) == $ns)][0].id') ||
		fail "the lab's pool has no id"
	[ "$id" -gt 0 ] || skip "this kernel's pools have no id (before 6.8: the VM test covers that form)"
	"$PPWATCH" -v record -o "$rec" --snapshot-every 5s --scan-every 10s --stacks 2>"$rec.err" &
	local rpid=$!
	BG_PIDS+=("$rpid")
	wait_attached "$rec.err" $rpid
	read -r pid _ _ < <(lab_hold 250 1000) || fail "holder"
	lab_xdp_off
	log "pool $id destroyed at $(date +%T), its pages held by pid $pid; the kernel warns at 60 s"
	# the kernel's own line, once a minute from 60 s after the destroy (at
	# a retry: a loaded machine's are late; 180 s only catches a kernel
	# that never says it)
	_warned() { dmesg 2>/dev/null | grep -q "stalled pool shutdown: id $id, "; }
	wait_until 180 "the kernel's line for pool $id" _warned
	log "kernel: $(dmesg | grep "stalled pool shutdown: id $id, " | tail -n1)"

	# live: /dev/kmsg read, the line linked to the pool by its id, the holder named
	doc=$("$PPWATCH" -j postmortem)
	rc=$?
	check "live postmortem of a stalled pool: exit 1 ($rc)" [ $rc -eq 1 ]
	check "the kernel log read from /dev/kmsg" jget "$doc" \
		'.kernel_log.source == "/dev/kmsg" and .kernel_log.stall_lines >= 1' >/dev/null
	p=$(pm_pool "$doc" "$id") || fail "no pool $id in: $(head -c 600 <<<"$doc")"
	log "$(jq -c '{id, state, kl: .kernel_log | {lines, last: .last.text, match},
		v: .verdict | {verdict, basis, holders: [.holders[] | {holder, pages}]}}' <<<"$p")"
	infl=$(jq -er .inflight <<<"$p")
	check "the pool is the live zombie, its line in .kernel_log" jget "$p" \
		".state == \"zombie\" and .kernel_log.lines >= 1 and (.kernel_log.last.text | test(\"stalled pool shutdown: id $id, $infl inflight\"))" >/dev/null
	check "linked by id, certain" jget "$p" \
		'.kernel_log.match.confidence == "certain" and (.kernel_log.match.by | index("id"))' >/dev/null
	check "linked by destroy time too (the printk clock is the host's)" jget "$p" \
		'.kernel_log.match.by | index("destroy_time")' >/dev/null
	check "verdict: held, on the live host, the log and the holder scan" jget "$p" \
		'.verdict.verdict == "held" and (.verdict.basis | index("live") and index("kernel_log") and index("holder_scan"))' >/dev/null
	check "the holder: the lab's process, all $infl pages, with its remedy" jget "$p" \
		".verdict.holders[0].pages == $infl and (.verdict.holders[0].holder | test(\"pid $pid ppgen\")) and (.verdict.holders[0].remedy | length > 0)" >/dev/null
	check "the memory held and what to do next" jget "$p" \
		".verdict.bytes > 0 and (.verdict.next | length >= 1) and (.verdict.summary | test(\"^held: $infl pages\"))" >/dev/null
	# the same in words, and in YAML
	text=$("$PPWATCH" postmortem)
	check "text: linked by its id" grep -q "linked by its id, destroy time" <<<"$text"
	check "text: verdict held" grep -q "^  verdict: held: $infl pages" <<<"$text"
	check "text: the kernel's line" grep -q "last: page_pool_release_retry() stalled pool shutdown: id $id, $infl inflight" <<<"$text"
	check "text: what to do about the holder" grep -q "^      what to do: pid $pid (ppgen)" <<<"$text"
	if python3 -c 'import yaml' 2>/dev/null; then
		check "YAML: the same verdict" python3 -c "
import sys, yaml
d = yaml.safe_load(sys.stdin)
p = [p for p in d['pools'] if p.get('id') == $id][0]
assert p['verdict']['verdict'] == 'held' and p['kernel_log']['match']['confidence'] == 'certain', p['verdict']
" < <("$PPWATCH" postmortem --yaml)
	else
		skip_note "python3-yaml missing: --yaml not parsed back"
	fi

	# the log saved, and the recording of the same minute
	dmesg >"$dm"
	dmesg -T >"$dm.T"
	kill -INT "$rpid"
	wait "$rpid" || fail "record failed: $(cat "$rec.err")"
	doc=$("$PPWATCH" -j postmortem --dmesg "$dm")
	rc=$?
	check "--dmesg alone: exit 1 ($rc)" [ $rc -eq 1 ]
	p=$(pm_pool "$doc" "$id") || fail "--dmesg alone: no pool $id"
	check "--dmesg alone: the pool from the log, what to run on the host" jget "$p" \
		".from == \"kernel_log\" and .inflight == $infl and (.verdict.next | any(test(\"ppwatch holders $id\")))" >/dev/null
	doc=$("$PPWATCH" -j postmortem --dmesg "$dm" "$rec")
	p=$(pm_pool "$doc" "$id") || fail "--dmesg with the recording: no pool $id"
	log "dmesg + recording: $(jq -c '{m: .kernel_log.match, v: .verdict.verdict}' <<<"$p")"
	check "--dmesg FILE RECORDING: linked by id and time, certain" jget "$p" \
		'.kernel_log.match.confidence == "certain" and (.kernel_log.match.by | index("destroy_time"))' >/dev/null
	check "--dmesg FILE RECORDING: held, the holder from the recording's scan" jget "$p" \
		".verdict.verdict == \"held\" and (.verdict.holders[0].holder | test(\"pid $pid ppgen\"))" >/dev/null
	doc=$("$PPWATCH" -j postmortem --dmesg "$dm.T" "$rec")
	p=$(pm_pool "$doc" "$id") || fail "dmesg -T with the recording: no pool $id"
	check "dmesg -T + recording: linked, by the wall clock too" jget "$p" \
		'.kernel_log.match.confidence == "certain" and .kernel_log.first.format == "dmesg -T"' >/dev/null
	if journalctl -k -b -q -n 2000 >"$dm.j" 2>/dev/null && grep -q "stalled pool shutdown: id $id," "$dm.j"; then
		doc=$("$PPWATCH" -j postmortem --dmesg "$dm.j" "$rec")
		check "journalctl -k + recording: linked" jget "$(pm_pool "$doc" "$id")" \
			'.kernel_log.match != null and .verdict.verdict == "held"' >/dev/null
	else
		skip_note "no journal with the kernel's line here: journalctl -k not tried"
	fi
	lab_release
}

# check --run: a pool its command destroys and a socket holds is stuck, held
check_run_verdict() {
	require_kernel
	lab_begin
	local doc p pid rc
	read -r pid _ _ < <(lab_hold 120 1000) || fail "holder"
	doc=$("$PPWATCH" -j check --run "ip -n $LAB_B link set dev vb xdpdrv off" --deadline 1s)
	rc=$?
	check "check --run with a stuck pool: exit 1 ($rc)" [ $rc -eq 1 ]
	p=$(jq -ec '[.run.pools[] | select(.stuck)] | first' <<<"$doc") || fail "no stuck pool: $doc"
	log "$(jq -c '{id, verdict}' <<<"$p")"
	check "its verdict: held, by the lab's socket" jget "$p" \
		".verdict.verdict == \"held\" and (.verdict.summary | test(\"held by 1 holder\")) and (.holders[0].what | test(\"pid $pid\"))" >/dev/null
	doc=$("$PPWATCH" -j check --run "true" --deadline 1s)
	check "a command that destroys nothing: no verdict" jget "$doc" '.run.pools | all(.verdict == null)' >/dev/null
	lab_release
}

# the saved logs of every form, through the command: their verdicts
saved_logs_verdicts() {
	require_root
	local doc rc f err=/tmp/ppwt$BASHPID.err
	at_exit "rm -f $err"
	for f in "$KLOG"/*.log; do
		doc=$("$PPWATCH" -j postmortem --dmesg "$f")
		rc=$?
		check "$(basename "$f"): exit 1, the log's pools stalled ($rc)" [ $rc -eq 1 ]
		log "$(basename "$f"): $(jq -c '[.pools[] | [.id, .verdict.verdict, .inflight]]' <<<"$doc")"
	done
	doc=$("$PPWATCH" -j postmortem --dmesg "$KLOG/dmesg.log")
	check "dmesg: pool 17 draining, with an ETA" jget "$(pm_pool "$doc" 17)" \
		'.verdict.verdict == "draining" and .verdict.eta_s > 0' >/dev/null
	check "dmesg: pool 18 stuck (a log alone cannot tell held from leaked)" jget "$(pm_pool "$doc" 18)" \
		'.verdict.verdict == "stuck"' >/dev/null
	doc=$("$PPWATCH" -j postmortem --dmesg "$KLOG/iso.log")
	check "ISO 8601 (rsyslog): negative inflight, an accounting bug" jget "$doc" \
		'.pools[0].verdict.verdict == "accounting_bug" and .kernel_log.negative_warnings == 1' >/dev/null
	doc=$("$PPWATCH" -j postmortem --dmesg - <"$KLOG/dmesg-T.log")
	check "dmesg -T from stdin: two pools destroyed together, told apart, and a third" jget "$doc" \
		'[.pools[] | .kernel_log.destroyed_together] == [true, true, false]' >/dev/null
	doc=$("$PPWATCH" -j postmortem --dmesg "$KLOG/journalctl-k.log")
	check "journalctl -k across two boots: pool 51 of each" jget "$doc" \
		'[.pools[] | select(.id == 51) | .kernel_log.boot] == [0, 1] and .kernel_log.boots == 2' >/dev/null
	doc=$("$PPWATCH" -j postmortem --dmesg "$KLOG/kmsg.log")
	rc=$?
	check "/dev/kmsg records: the log went on without the pool: freed, most likely" jget "$doc" \
		'.pools[0].verdict.verdict == "freed" and .pools[0].verdict.freed_by == "log"' >/dev/null
	"$PPWATCH" postmortem --dmesg /nonexistent/k.log >/dev/null 2>"$err"
	rc=$?
	check "a log that cannot be opened: exit 2 ($rc)" [ $rc -eq 2 ]
	check "says which and what to give" grep -q "opening /nonexistent/k.log: No such file or directory: give a saved kernel log" "$err"
}

run_tests
