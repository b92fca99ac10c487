#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The error rule (ppwatch(8) EXIT STATUS): a failure is reported once, by
# the code that failed, naming the object and the errno; with -j the run
# also ends standard output with {"error": ...}. Each case makes a real
# failure: a bad option, the classic tracepoints without tracefs, a
# recording onto a full file system (a flight recorder says it once and
# goes on: a service that exited would be restarted and rotate its
# history away).

ALL_TESTS="
	json_error_object_on_a_usage_error
	json_error_object_when_loading_fails
	record_onto_a_full_disk_says_so_once_and_goes_on
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=/tmp/ppwt$$.errors

work() {
	mkdir -p "$WORK"
	at_exit "rm -rf $WORK"
}

# lines of $1 that are ppwatch error lines
errors() { grep -c '^Error: ' "$1"; }

json_error_object_on_a_usage_error() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	work
	"$PPWATCH" -j pools --max-pages 0 >"$WORK/out" 2>"$WORK/err"
	local rc=$? why
	log "exit $rc, stdout $(cat "$WORK/out")"
	check "exit 2" [ "$rc" -eq 2 ]
	check "stdout is one JSON object" [ "$(jq -c . "$WORK/out" | wc -l)" -eq 1 ]
	why=$(jq -er .error "$WORK/out") || fail "no .error on stdout"
	check "the error names the option" grep -q -- "--max-pages '0'" <<<"$why"
	check "stderr says it too" grep -q -- "--max-pages '0'" "$WORK/err"
	# without -j stdout stays empty
	"$PPWATCH" pools --max-pages 0 >"$WORK/out2" 2>/dev/null
	check "no JSON without -j" [ ! -s "$WORK/out2" ]
}

# 'ip netns exec' mounts a fresh /sys without tracefs: the classic
# tracepoint programs cannot attach (lib/README: attach in the root netns)
json_error_object_when_loading_fails() {
	require_kernel
	work
	local ns=ppwt$BASHPID-e why rc
	ip netns add "$ns" || fail "ip netns add"
	at_exit "ip netns del $ns"
	ip netns exec "$ns" "$PPWATCH" -j pools --attach tracepoint --no-netlink \
		>"$WORK/out" 2>"$WORK/err"
	rc=$?
	log "exit $rc; stderr: $(head -c 300 "$WORK/err" | tr '\n' ' ')"
	check "exit 2" [ "$rc" -eq 2 ]
	why=$(jq -er .error "$WORK/out") || fail "no .error on stdout: $(cat "$WORK/out")"
	log "error object: $why"
	check "it says what failed: attaching the tracepoint programs" grep -qi "attach" <<<"$why"
	check "and what to do: mount tracefs" grep -q "tracefs" <<<"$why"
	check "stdout holds nothing else" [ "$(jq -c . "$WORK/out" | wc -l)" -eq 1 ]
}

# A recorder whose disk fills: one message, naming the file and the errno
# (it used to say only "record: No space left on device"); it goes on,
# keeps whole records only, and counts what it lost.
record_onto_a_full_disk_says_so_once_and_goes_on() {
	require_kernel
	work
	local mnt=$WORK/full rc
	mkdir -p "$mnt"
	mount -t tmpfs -o size=16k,mode=0700 ppwt-full "$mnt" || skip "cannot mount a tmpfs here"
	at_exit "umount $mnt"
	timeout -s KILL 60 "$PPWATCH" -v record -o "$mnt/rec.jsonl" --snapshot-every 0.05 \
		--scan-every 0.2 3 >/dev/null 2>"$WORK/err"
	rc=$?
	log "exit $rc after $(stat -c %s "$mnt/rec.jsonl") bytes; stderr: $(grep -v '^  ' "$WORK/err" | tr '\n' ' ' | head -c 400)"
	check "exit 0: it went on" [ "$rc" -eq 0 ]
	check "no error line" [ "$(errors "$WORK/err")" -eq 0 ]
	check "one warning, naming the file and the errno" [ "$(grep -c \
		"^Warning: record: writing $mnt/rec.jsonl: No space left on device: records are lost until there is room" \
		"$WORK/err")" -eq 1 ]
	check "the losses counted" grep -q 'record: [0-9]* records, [0-9]* rotations, [1-9][0-9]* records lost' "$WORK/err"
	check "whole records only" jq -e -s 'all(.[]; has("type"))' "$mnt/rec.jsonl" >/dev/null
}

run_tests
