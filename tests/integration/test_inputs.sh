#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Input other people control, given to the ppwatch binary as an attacker
# would: recordings from another host (bytes that are not UTF-8, numbers
# no clock shows, days of events), rules files (deep, aliased, huge),
# option values, a signal during a CPU-bound phase, and 'record -o' at a
# symlink. Every case is bounded in time; most need neither root nor BPF.

ALL_TESTS="
	recording_not_utf8
	recording_odd_numbers
	recording_every_pool_and_event
	rules_files_cost_little
	option_values_strict
	sigterm_ends_cpu_bound_phase
	record_output_is_a_plain_file
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=/tmp/ppwt$$.inputs

need_binary() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	mkdir -p "$WORK"
	at_exit "rm -rf $WORK"
}

# run CMD... with a deadline of $1 seconds, a bound that only catches a
# hang (then RC is 137: killed); sets RC, OUT, ERR, SECS (SECS is logged,
# never asserted: what a defect costs in time is measured in bench/, 'make
# bench BENCH_ARGS=inputs', as a ratio)
timed() {
	local t=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	timeout -s KILL "$t" "$@" >"$WORK/out" 2>"$WORK/err"
	RC=$?
	t1=$(date +%s.%N)
	SECS=$(jq -n "$t1 - $t0")
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
}

header='{"type":"header","time":1000,"format":1,"hostname":"h","stall_after_s":60}'

recording_not_utf8() {
	need_binary
	printf '%s\n{"type":"snapshot","time":1100,"pools":[{"id":9,"addr":"0x1","gen":3,"device":"e\377t","state":"zombie","inflight":4}]}\n' \
		"$header" >"$WORK/bad.jsonl"
	# before: a hang at 100% CPU, or truncated YAML with exit 2 and no
	# message; then exit 2 "unable to decode byte 0xff" and no report
	timed 120 "$PPWATCH" postmortem --yaml "$WORK/bad.jsonl"
	log "exit $RC in ${SECS}s: $ERR"
	check "ends (no hang)" [ "$RC" -ne 137 ]
	check "a report, exit 0 ($RC: $ERR)" [ "$RC" -eq 0 ]
	check "YAML: the name read and escaped" python3 -c '
import sys, yaml
d = yaml.safe_load(sys.stdin)
sys.exit(d["pools"][0]["device"] != "e\\xfft" or d["input"]["files"][0]["escaped_lines"] != 1)' <<<"$OUT"
	timed 120 "$PPWATCH" postmortem "$WORK/bad.jsonl"
	check "text: the name escaped" grep -qF 'pool 9 e\xfft (zombie' <<<"$OUT"
	check "text: says a line had such bytes" grep -qF '1 line had bytes that are not UTF-8: read, shown as \xHH' <<<"$OUT"
	check "text: no raw byte" [ -z "$(tr -d '\n' <<<"$OUT" | tr -d '[:print:]')" ]
}

recording_odd_numbers() {
	need_binary
	cat >"$WORK/odd.jsonl" <<-'EOF'
	{"type":"header","time":1e300,"stall_after_s":-1e300}
	{"type":"event","event":{"time":-5.5,"event":"retry","retry":1e300,"addr":"0x1","gen":-1e300,"inflight":1e300}}
	{"type":"event","event":{"time":1e300,"event":"stalled\u001b[2J","addr":"0x1","gen":-1e300,"detail":"a\u0001b"}}
	{"type":"snapshot","time":1e300,"pools":[{"id":1e300,"addr":"0x1","gen":-1e300,"device":"\u001b]0;pwn\u0007\ud83d\udc27","state":"zombie","inflight":-1e300,"detach_age_s":1e300,"inflight_bytes":1.7976931348623157e308}]}
	EOF
	timed 120 "$PPWATCH" postmortem "$WORK/odd.jsonl"
	# a stall threshold of -1e300: the pool is stalled, and the report says so by exit 1
	check "text: exit 1 ($RC: $ERR)" [ "$RC" -eq 1 ]
	log "$(head -3 <<<"$OUT" | tail -1)"
	# before: undefined casts printed 08:29:52.-2147483648
	check "text: no garbage times" [ -z "$(grep -e '-2147483648' <<<"$OUT")" ]
	check "text: no control characters" [ -z "$(tr -d '\n' <<<"$OUT" | tr -d '[:print:]' | tr -d '\200-\377')" ]
	check "text: the name escaped" grep -qF '\x1b]0;pwn\x07' <<<"$OUT"
	timed 120 "$PPWATCH" -j postmortem "$WORK/odd.jsonl"
	check "JSON: exit 1" [ "$RC" -eq 1 ]
	check "JSON: valid, the same escape" jq -e '.pools[0].device == "\\x1b]0;pwn\\x07🐧"' <<<"$OUT" >/dev/null
	timed 120 "$PPWATCH" postmortem --yaml "$WORK/odd.jsonl"
	check "YAML: exit 1 ($ERR)" [ "$RC" -eq 1 ]
	check "YAML: valid, the same escape" python3 -c '
import sys, yaml
d = yaml.safe_load(sys.stdin)
sys.exit(d["pools"][0]["device"] != "\\x1b]0;pwn\\x07\U0001F427")' <<<"$OUT"
}

recording_every_pool_and_event() {
	need_binary
	# 300 zombie pools; the first retries once a second for 700 s, then is freed
	{
		echo "$header"
		awk 'BEGIN {
			for (i = 0; i < 300; i++)
				printf "{\"type\":\"event\",\"event\":{\"time\":1001,\"event\":\"destroy\",\"addr\":\"0x%x\",\"gen\":1,\"id\":%d,\"inflight\":1}}\n", i, i + 1
			for (i = 1; i <= 700; i++)
				printf "{\"type\":\"event\",\"event\":{\"time\":%d,\"event\":\"retry\",\"retry\":%d,\"addr\":\"0x0\",\"gen\":1,\"id\":1,\"inflight\":1}}\n", 1001 + i, i
			print "{\"type\":\"event\",\"event\":{\"time\":1702,\"event\":\"freed\",\"addr\":\"0x0\",\"gen\":1,\"id\":1,\"inflight\":0}}"
			printf "{\"type\":\"snapshot\",\"time\":1703,\"pools\":["
			for (i = 0; i < 300; i++)
				printf "%s{\"id\":%d,\"addr\":\"0x%x\",\"gen\":1,\"state\":\"zombie\",\"inflight\":1,\"detach_age_s\":702}", i ? "," : "", i + 1, i
			print "]}"
		}'
	} >"$WORK/long.jsonl"
	timed 120 "$PPWATCH" -j postmortem "$WORK/long.jsonl"
	check "stalled pools: exit 1 ($ERR)" [ "$RC" -eq 1 ]
	log "$(jq -c '{pools: (.pools | length), retries: .pools[0].retries, last: .pools[0].timeline[-1].event}' <<<"$OUT")"
	# before: 256 pools at most, 512 events a pool (the freed event lost)
	check "every pool" jq -e '.pools | length == 300' <<<"$OUT" >/dev/null
	check "every retry" jq -e '.pools[0].retries == 700' <<<"$OUT" >/dev/null
	check "the freed event" jq -e '.pools[0].timeline[-1].event == "freed"' <<<"$OUT" >/dev/null
}

rules_files_cost_little() {
	need_binary
	python3 - "$WORK" <<-'EOF'
	import sys
	d = sys.argv[1]
	open(d + '/deep.yaml', 'w').write('rules: ' + '[' * 100000 + ']' * 100000 + '\n')
	open(d + '/alias.yaml', 'w').write('x: &a {' + ', '.join('k%d: 1' % i for i in range(2000))
	                                   + '}\nrules: [' + ', '.join(['*a'] * 50000) + ']\n')
	with open(d + '/many.yaml', 'w') as f:
	    f.write('rules:\n')
	    for i in range(40000):
	        f.write('  - name: r%d\n    min_pools: 0\n' % (7 if i >= 39998 else i))
	open(d + '/key.yaml', 'w').write('rules:\n  - name: a\n    "\\e[31m' + 'k' * 1000 + '": 1\n')
	EOF
	local f
	# before: 137 s for 200 KB of nesting, 10 GB for the aliases, 11.7 s for
	# 40000 rules; what each costs now against a plain file of its size is
	# bench/'s (BENCH_ARGS=inputs), as a ratio: here the answers, and no hang
	for f in deep alias many key; do
		timed 120 "$PPWATCH" check --validate -f "$WORK/$f.yaml"
		log "$f.yaml: exit $RC in ${SECS}s: $(head -c 160 <<<"$ERR" | head -1)"
		check "$f.yaml: an error, exit 2 ($RC)" [ "$RC" -eq 2 ]
		check "$f.yaml: short messages" [ "$(wc -c <<<"$ERR")" -lt 2000 ]
	done
	timed 120 "$PPWATCH" check --validate -f "$WORK/deep.yaml"
	check "deep: says why" grep -q 'nested deeper than 16 levels' <<<"$ERR"
	timed 120 "$PPWATCH" check --validate -f "$WORK/alias.yaml"
	check "alias: says why" grep -q 'alias.yaml:2:9: error: an alias (\*a)' <<<"$ERR"
	timed 120 "$PPWATCH" check --validate -f "$WORK/many.yaml"
	check "duplicates: both named" [ "$(grep -c "duplicate rule name 'r7' (first at line 16)" <<<"$ERR")" -eq 2 ]
	timed 120 "$PPWATCH" check --validate -f "$WORK/key.yaml"
	check "unknown key: escaped and cut" grep -qF "unknown key '\\x1b[31mkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...'" <<<"$ERR"
	check "unknown key: no control character" [ "$(tr -dc '\033' <<<"$ERR" | wc -c)" -eq 0 ]
}

option_values_strict() {
	need_binary
	local a
	# before: 1e300 went through to the JSON writer; " -1" was 2^64-1; 010 was 8
	for a in "postmortem --stall-after 1e300" "postmortem --stall-after 0x1p3" \
		 "postmortem --window inf" "pools --max-pools ' -1'" "pools --max-pages 0x10" \
		 "record -o /dev/null 1e300" "export --max-clients 1e3"; do
		eval "timed 120 \"\$PPWATCH\" $a"
		check "'$a': exit 2 ($RC)" [ "$RC" -eq 2 ]
		check "'$a': says what is expected" grep -q 'expected' <<<"$ERR"
	done
}

# One SIGTERM ends a postmortem busy reading: a recording that never ends
# (an endless stream on stdin), so that only a handler that the reading
# loop polls can end it; waited for (120 s: a hang) instead of timed.
sigterm_ends_cpu_bound_phase() {
	need_binary
	local pid rc
	"$PPWATCH" postmortem - >/dev/null 2>"$WORK/err" < <(
		echo "$header"
		exec awk 'BEGIN { for (i = 0; ; i++)
			printf "{\"type\":\"event\",\"event\":{\"time\":%d,\"event\":\"retry\",\"retry\":%d,\"addr\":\"0x%x\",\"gen\":1,\"id\":%d,\"inflight\":%d}}\n", i, i, i % 1000, i % 1000, i }' 2>/dev/null
	) &
	pid=$!
	at_exit "kill -KILL $pid 2>/dev/null"
	# in its reading loop: a megabyte read
	_reading() {
		kill -0 "$pid" 2>/dev/null || fail "postmortem ended on its own: $(cat "$WORK/err")"
		[ "$(awk '/^rchar:/ { print $2 }' "/proc/$pid/io" 2>/dev/null || echo 0)" -gt 1048576 ]
	}
	wait_until 120 "postmortem to read a megabyte" _reading
	kill -TERM "$pid"
	# before: the handler only set a flag that nothing polls while reading
	_gone() { ! kill -0 "$pid" 2>/dev/null; }
	wait_until 120 "postmortem to end at one SIGTERM" _gone
	wait "$pid"
	rc=$?
	log "exit $rc after one SIGTERM: $(head -c 200 "$WORK/err")"
	check "killed by SIGTERM (143)" [ "$rc" -eq 143 ]
}

record_output_is_a_plain_file() {
	need_binary
	local f
	# what another user could plant in /tmp for root's 'record -o'
	echo "keep me" >"$WORK/victim"
	ln -s "$WORK/victim" "$WORK/symlink"
	ln "$WORK/victim" "$WORK/hardlink"
	mkfifo "$WORK/fifo"
	for f in symlink hardlink fifo; do
		timed 120 "$PPWATCH" record -o "$WORK/$f" 1
		log "$f: exit $RC: $ERR"
		check "$f: refused, exit 2" [ "$RC" -eq 2 ]
		check "$f: says which file" grep -q "opening $WORK/$f for writing: " <<<"$ERR"
	done
	# before: fopen(path, "w") followed the symlink and truncated the target
	check "the target is untouched" [ "$(cat "$WORK/victim")" = "keep me" ]
}

run_tests
