#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The JSON contract (docs/schema/README.md): what every command writes with
# -j, and every record type of a recording, from real runs on a lab, valid
# against its schema in docs/schema/ (tests/contract/validate.py, Debian's
# python3-jsonschema); every document says its format; postmortem refuses a
# recording of a format it does not read, saying what to do. About 40 s.

ALL_TESTS="
	every_command_json_matches_its_schema
	every_record_type_matches_its_schema
	postmortem_checks_the_format
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=/tmp/ppwt$$.contract
VALIDATE=$TOP/tests/contract/validate.py

workdir() {
	mkdir -m 0700 "$WORK"
	at_exit "rm -rf $WORK"
}

need_jsonschema() {
	python3 -c 'import jsonschema' 2>/dev/null ||
		skip "no python3-jsonschema (deps/debian.txt) to validate with"
}

# validate SCHEMA FILE...: valid, or fail naming what is not
validate() {
	local s=$1 out
	shift
	out=$(python3 "$VALIDATE" --or-error "$s" "$@" 2>"$WORK/v.err") ||
		fail "$s: not valid against docs/schema/$s.json: $(head -c 1500 "$WORK/v.err")"
	log "$s: $out"
	check "$s: documents read ($out)" [ "$out" != "{}" ]
}

every_command_json_matches_its_schema() {
	require_kernel
	need_jsonschema
	workdir
	local id w s pid
	lab_begin
	read -r pid _ < <(lab_hold 200 1000) || fail "holder"
	"$PPWATCH" -j pools >"$WORK/pools.json" || fail "pools -j"
	"$PPWATCH" -j pools -a group-by device >"$WORK/pools-devices.json" || fail "pools group-by device"
	"$PPWATCH" -p pools >"$WORK/pools-pretty.json" || fail "pools -p"
	validate pools "$WORK/pools.json" "$WORK/pools-devices.json" "$WORK/pools-pretty.json"
	check "every document says its format" jq -e '.format == 1 and (.version | type == "string")' "$WORK/pools.json" >/dev/null
	"$PPWATCH" -j top 0.3 2 >"$WORK/top.jsonl" || fail "top -j"
	check "top: one document per interval" [ "$(wc -l <"$WORK/top.jsonl")" -eq 2 ]
	validate top "$WORK/top.jsonl"
	"$PPWATCH" -j holders >"$WORK/holders.json" || fail "holders -j"
	validate holders "$WORK/holders.json"
	check "holders: the lab's socket" jq -e --arg p "pid $pid ppgen" 'any(.pools[].holders[]; .holder | contains($p))' "$WORK/holders.json" >/dev/null
	id=$(vb_pool "$(cat "$WORK/pools.json")" | jq -r .pool)
	"$PPWATCH" -j pages "$id" >"$WORK/pages.json" || fail "pages -j"
	validate pages "$WORK/pages.json"
	# item blocks: the document, or (this kernel has none) the error object, exit 2
	"$PPWATCH" -j blocks >"$WORK/blocks.json" 2>/dev/null
	validate blocks "$WORK/blocks.json"
	"$PPWATCH" -j check -f "$TOP/examples/veth-lab.yaml" >"$WORK/check.json" 2>/dev/null
	"$PPWATCH" -j check --validate -f "$TOP/examples/veth-lab.yaml" >"$WORK/check-validate.json"
	"$PPWATCH" -j check --run true --deadline 1 >"$WORK/check-run.json" 2>/dev/null
	validate check "$WORK/check.json" "$WORK/check-validate.json" "$WORK/check-run.json"
	# the streams, and a destroy for them to see
	"$PPWATCH" -v -j watch 5 >"$WORK/watch.jsonl" 2>"$WORK/watch.err" &
	w=$!
	"$PPWATCH" -v -j stacks 5 >"$WORK/stacks.json" 2>"$WORK/stacks.err" &
	s=$!
	wait_attached "$WORK/watch.err" $w
	wait_attached "$WORK/stacks.err" $s
	lab_xdp_off
	wait_until 60 "watch to see the destroy" grep -q '"event":"destroy"' "$WORK/watch.jsonl"
	"$PPWATCH" -j postmortem >"$WORK/postmortem.json" 2>/dev/null
	lab_release
	wait $w $s
	validate watch "$WORK/watch.jsonl"
	check "watch: the destroy" jq -e -s 'any(.[]; .event == "destroy")' "$WORK/watch.jsonl" >/dev/null
	validate stacks "$WORK/stacks.json"
	validate postmortem "$WORK/postmortem.json"
	check "postmortem: the destroyed pool" jq -e '.pools | length > 0' "$WORK/postmortem.json" >/dev/null
	# what a script meets when a command cannot do its job
	"$PPWATCH" -j pages >"$WORK/error.json" 2>/dev/null
	check "an error: exit 2" [ $? -eq 2 ]
	validate error "$WORK/error.json"
}

every_record_type_matches_its_schema() {
	require_kernel
	need_jsonschema
	workdir
	local out pid hpid
	lab_begin
	read -r hpid _ < <(lab_hold 300 1000) || fail "holder"
	# small files: records split in parts; stacks for the stacks record; the
	# incident's pages kept in FILE.incidents however fast the host's other
	# pools' snapshots rotate the set; no periodic scan within the case (the
	# destroy and the stall start theirs), so the last one before the free
	# names the holder, however the release falls between scans and retries
	"$PPWATCH" -v record -o "$WORK/rec" --max-size 16k --max-files 50 --snapshot-every 0.3 \
		--scan-every 1m --stall-after 1s --oldest-pages 200 --stacks=4 --incident-size 1m \
		2>"$WORK/err" &
	pid=$!
	wait_attached "$WORK/err" $pid
	wait_until 120 "a snapshot recorded" bash -c "cat '$WORK'/rec* 2>/dev/null | grep -q '\"type\":\"snapshot\"'"
	lab_xdp_off
	# the lab's pool's stall (--stall-after 1s) and a scan naming its
	# holder, kept in the incident (other labs on the host have theirs)
	_stalled_scanned() {
		jq -e -s --arg ns "$(lab_netns_ino)" --arg p "pid $hpid ppgen" '
			(map(.type == "event" and .event.event == "stalled" and (.event.netns|tostring) == $ns) | index(true)) as $s
			| $s != null and (map(.type == "holders" and (tostring | contains($p))) | rindex(true)) > $s' \
			"$WORK/rec.incidents" >/dev/null 2>&1
	}
	wait_until 120 "the lab pool's stall and a scan naming its holder in rec.incidents" _stalled_scanned
	lab_release
	# ended once the pool is freed (its free is the retry after the release)
	_freed() {
		jq -e -s --arg ns "$(lab_netns_ino)" \
			'any(.[]; .type == "event" and .event.event == "freed" and (.event.netns|tostring) == $ns)' \
			"$WORK/rec.incidents" >/dev/null 2>&1
	}
	wait_until 120 "the lab pool's free in rec.incidents" _freed
	kill -INT $pid
	wait $pid || fail "record: $(cat "$WORK/err")"
	# and gaps: holder scans that fail (injected from outside) until the gap is recorded
	record_with_gap "$WORK/gap" "$WORK/gap.err" --scan-every 0.3 || fail "record: $(cat "$WORK/gap.err")"
	out=$(python3 "$VALIDATE" --recording "$WORK"/rec* "$WORK/gap" 2>"$WORK/v.err") ||
		fail "records not valid against docs/schema/recording/: $(head -c 1500 "$WORK/v.err")"
	log "records by type: $out"
	check "FILE.incidents: its header says so" jq -e -s '.[0].file == "incidents"' "$WORK/rec.incidents" >/dev/null
	for t in header event snapshot holders pages stacks gap end; do
		check "a $t record validated" jq -e --arg t "$t" '.[$t] > 0' <<<"$out" >/dev/null
	done
	check "records in parts (--max-size 16k, 200 oldest pages)" \
		bash -c "cat '$WORK'/rec* | jq -e -s 'any(.[]; .parts > 1)' >/dev/null"
	check "no line past the header's record bound" \
		bash -c "cat '$WORK'/rec* | awk -v m=\"\$(head -1 '$WORK/rec' | jq .max_record_bytes)\" 'length(\$0) + 1 > m { bad++ } END { exit bad > 0 }'"
	"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pm.json" 2>/dev/null
	validate postmortem "$WORK/pm.json"
	log "postmortem of it: $(jq -c "[.pools[] | {id, state, netns, h: [.holders.holders[]?.holder]}]" "$WORK/pm.json")"
	check "postmortem of it: the pool, its holder" jq -e --arg p "pid $hpid ppgen" \
		'any(.pools[]; .state == "freed" and any(.holders.holders[]?; .holder | contains($p)))' "$WORK/pm.json" >/dev/null
}

postmortem_checks_the_format() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	workdir
	local lab=$TOP/tests/fuzz/corpus/postmortem/lab-recording.jsonl
	# a recording a later ppwatch wrote: format 3
	sed '1s/"format":[0-9]*,"version":"[^"]*"/"format":3,"version":"9.0"/' "$lab" >"$WORK/new.jsonl"
	"$PPWATCH" postmortem "$WORK/new.jsonl" >/dev/null 2>"$WORK/err"
	check "a newer format: exit 2" [ $? -eq 2 ]
	log "$(cat "$WORK/err")"
	check "says which format and what to read it with" \
		grep -q "in recording format 3 (written by ppwatch 9.0), newer than this ppwatch .* reads (formats 1 to 2): read it with ppwatch 9.0 or a newer one" "$WORK/err"
	sed '1s/"format":[0-9]*/"format":"2"/' "$lab" >"$WORK/odd.jsonl"
	"$PPWATCH" postmortem "$WORK/odd.jsonl" >/dev/null 2>"$WORK/err"
	check "a format that is no number: exit 2" [ $? -eq 2 ]
	check "says so" grep -q 'whose "format" is not a recording format ppwatch knows' "$WORK/err"
	# format 1 (the display columns of ppwatch 0.1) is read still
	"$PPWATCH" -j postmortem "$lab" >"$WORK/pm.json"
	check "format 1: read, exit 0" [ $? -eq 0 ]
	check "format 1: its pools" jq -e '.pools | length == 2' "$WORK/pm.json" >/dev/null
	check "the report says its own format" jq -e '.format == 1' "$WORK/pm.json" >/dev/null
}

run_tests
