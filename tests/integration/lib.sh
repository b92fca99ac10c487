#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Helpers for ppwatch's integration tests (kselftest conventions): each test
# file lists its cases in ALL_TESTS, each case is a function run in its own
# subshell; a case passes, fails (with the reason) or skips (exit 4, with the
# reason). Every case gets a fresh lab (tests/lab/lab.sh) and cleans it up.

KSFT_SKIP=4
_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
TOP=$(readlink -f "$_here/../..")
OUTPUT=${OUTPUT:-$TOP/.output}
PPWATCH=${PPWATCH:-$OUTPUT/ppwatch}
PPGEN=$OUTPUT/lab/ppgen
export OUTPUT

# shellcheck source=../lab/lab.sh
. "$TOP/tests/lab/lab.sh"

log() { echo "    $*"; }
fail() {
	echo "    FAIL: $*" >&2	# to stderr: a check's output may go to /dev/null
	exit 1
}
skip() {
	echo "    SKIP: $*"
	exit $KSFT_SKIP
}

# check "description" command...: fail with the description unless it succeeds
check() {
	local what=$1
	shift
	"$@" || fail "$what"
}

# jq on a JSON document in a variable: jget "$doc" FILTER
jget() { jq -er "$2" <<<"$1"; }

# numeric test with jq: num EXPR — e.g. num "$a + 1.3 <= $b"; non-numbers fail
num() { jq -ne "$1" >/dev/null 2>&1; }

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF, network namespaces)"
}

require_kernel() {
	require_root
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"
	grep -q 'page_pool_state_hold' /proc/kallsyms ||
		skip "kernel has no page_pool tracepoints"
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
}

# a tracefs mount (the classic tracepoint variant and the checks read it)
tracefs() {
	local t
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$t/events" ] && { echo "$t"; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
		{ echo /sys/kernel/tracing; return 0; }
	return 1
}

# Clean-up actions of a case, run in reverse order when its subshell exits.
AT_EXIT=()
at_exit() {
	AT_EXIT=("$*" "${AT_EXIT[@]}")
	trap _at_exit_run EXIT
}
_at_exit_run() {
	local c
	for c in "${AT_EXIT[@]}"; do eval "$c"; done
}

# ppwatch processes ppwatch_bg started, killed by lab_end
BG_PIDS=()

# Per-case lab with a unique name; torn down on exit.
lab_begin() {
	export LAB=ppwt$BASHPID
	export LAB_A=$LAB-a LAB_B=$LAB-b LAB_C=$LAB-c
	export LAB_DIR=/run/ppwatch-lab/$LAB
	LAB_QUIET=1
	at_exit lab_end
	lab_up >/dev/null || fail "lab set-up failed"
}

lab_end() {
	if [ ${#BG_PIDS[@]} -gt 0 ]; then
		kill "${BG_PIDS[@]}" 2>/dev/null
		wait "${BG_PIDS[@]}" 2>/dev/null
	fi
	lab_down
}

# Run ppwatch in the background, stdout to a file; BG_PIDS tracks it.
ppwatch_bg() {
	local out=$1
	shift
	"$PPWATCH" "$@" >"$out" 2>"$out.err" &
	BG_PIDS+=("$!")
	echo $!
}

# Wait until a ppwatch started in the background with -v (stderr to ERR,
# pid PID) has attached its probes, so that what the test does next happens
# while it watches. Fails the test if ppwatch exits first or takes 30 s.
# The pid in the line tells this ppwatch's line from one an earlier run left in
# the same file: the child truncates the file only once it runs.
wait_attached() {	# err pid
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "loaded and attached .*(pid $2)" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null ||
			fail "ppwatch exited before attaching: $(head -c 400 "$1" | tr '\n' ' ')"
		sleep 0.1
	done
	fail "ppwatch did not attach within 30 s: $(head -c 400 "$1" | tr '\n' ' ')"
}

# Start the exporter on a free port (extra args passed on); sets EXP_PID,
# EXP_ADDR (host:port), EXP_HOST, EXP_PORT, EXP_ERR (its stderr). Stopped
# when the case ends.
export_start() {
	local err=/tmp/ppwt$BASHPID.export.err i
	: >"$err"
	"$PPWATCH" export --listen 127.0.0.1:0 "$@" 2>"$err" &
	EXP_PID=$!
	at_exit "kill $EXP_PID 2>/dev/null; wait $EXP_PID 2>/dev/null; rm -f $err"
	EXP_ADDR=
	for i in $(seq 150); do
		EXP_ADDR=$(sed -n 's|^ppwatch export: listening on https\{0,1\}://\(.*\)/metrics$|\1|p' "$err")
		[ -n "$EXP_ADDR" ] && break
		kill -0 "$EXP_PID" 2>/dev/null || fail "export exited: $(cat "$err")"
		sleep 0.1
	done
	[ -n "$EXP_ADDR" ] || fail "export did not start: $(cat "$err")"
	# for the test files that source this: unused here
	# shellcheck disable=SC2034
	EXP_HOST=${EXP_ADDR%:*} EXP_PORT=${EXP_ADDR##*:} EXP_ERR=$err
}

# One scrape of the exporter export_start started (curl args passed on).
scrape() {
	curl -sf -m 5 "$@" "http://$EXP_ADDR/metrics"
}

# The id of the lab's vb pool(s) according to ppwatch, from a pools -j document.
vb_pool() {
	jq -er --arg ns "$(lab_netns_ino)" \
		'[.pools[] | select(.device == "vb" and (.netns|tostring) == $ns)] | first' <<<"$1"
}

lab_netns_ino() {
	stat -L -c %i "/run/netns/$LAB_B"
}

# Run the test cases named in ALL_TESTS (or in $TESTS), one subshell each.
run_tests() {
	local t rc pass=0 failed=0 skipped=0
	for t in ${TESTS:-$ALL_TESTS}; do
		echo "  RUN  $t"
		( "$t" )
		rc=$?
		case $rc in
		0) echo "  PASS $t"; pass=$((pass + 1)) ;;
		"$KSFT_SKIP") echo "  SKIP $t"; skipped=$((skipped + 1)) ;;
		*) echo "  FAIL $t"; failed=$((failed + 1)) ;;
		esac
	done
	echo "  # $(basename "$0"): $pass passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ]
}
