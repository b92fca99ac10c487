#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Helpers for ppwatch's integration tests (kselftest conventions): each test
# file lists its cases in ALL_TESTS, each case is a function run in its own
# subshell; a case passes, fails (with the reason) or skips (exit 4, with the
# reason). Every case gets a fresh lab (tests/lab/lab.sh) and cleans it up.
#
# Skips are counted, never only logged:
#   skip "why"        the case (or, outside a case, the file) cannot run: it
#                     ends here and counts as skipped
#   skip_note "why"   a part of the case cannot run here and the case goes on
#                     (e.g. the Prometheus half of a case that checked the
#                     format already): the case still passes or fails, and
#                     the note counts as one skip in the file's and the run's
#                     summary
# run_tests prints "# FILE: N passed, N failed, N skipped" (skipped: cases
# that skipped, and skip_notes) and exits 0 when no case failed and one
# passed, 1 when a case failed, 4 (skip) when every case skipped or none was
# selected. TESTS="case ..." runs only those cases of ALL_TESTS. Under
# tests/run.sh (PPWATCH_TALLY set) it also writes its counts and every
# skip's reason there for the run's summary:
#   T NAME PASSED FAILED SKIPPED
#   S NAME/CASE: why

KSFT_SKIP=4
_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
TOP=$(readlink -f "$_here/../..")
OUTPUT=${OUTPUT:-$TOP/.output}
PPWATCH=${PPWATCH:-$OUTPUT/ppwatch}
PPGEN=$OUTPUT/lab/ppgen
export OUTPUT

# shellcheck source=../lab/lab.sh
. "$TOP/tests/lab/lab.sh"

# a case's log lines and its failure also go to $_CASE_LOG: the run's
# summary quotes a failed case's last ones (a CI log cut to its head and
# tail still says why it failed)
log() {
	echo "    $*"
	[ -z "${_CASE_LOG:-}" ] || echo "$*" >>"$_CASE_LOG"
}
fail() {
	echo "    FAIL: $*" >&2	# to stderr: a check's output may go to /dev/null
	[ -z "${_CASE_LOG:-}" ] || echo "FAIL: $*" >>"$_CASE_LOG"
	exit 1
}
skip() {
	echo "    SKIP: $*"
	_skip_record "$*"
	exit $KSFT_SKIP
}
skip_note() {
	echo "    SKIP: $* (the case goes on)"
	_skip_record "$*"
}
# a skip's reason, one line: to the running case's list, or (outside a case) the run's tally
_skip_record() {
	local why=${*//$'\n'/ }
	if [ -n "${_CASE_SKIPS:-}" ]; then
		echo "$why" >>"$_CASE_SKIPS"
	elif [ -n "${PPWATCH_TALLY:-}" ]; then
		echo "S integration/$(basename "$0" .sh): $why" >>"$PPWATCH_TALLY"
	fi
}

# check "description" command...: fail with the description unless it succeeds
check() {
	local what=$1
	shift
	"$@" || fail "$what"
}

# jq on a JSON document in a variable: jget "$doc" FILTER; an empty
# document fails (jq -e alone passes no input at all: exit 0)
jget() { [[ $1 == *[![:space:]]* ]] && jq -er "$2" <<<"$1"; }

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

# no_skb_defer: net.core.skb_defer_max 0 for this case (restored at its
# exit): an skb freed on another CPU than the one that made it waits in
# that CPU's defer list until its next NET_RX softirq, which an idle CPU
# may not run for long, and the holder scan cannot read the lists on
# every kernel (scan.defer_lists_readable): a page there would count as
# unattributed. A global sysctl: cases run one at a time (the lab lock).
no_skb_defer() {
	local f=/proc/sys/net/core/skb_defer_max old
	[ -w "$f" ] || return 0
	old=$(cat "$f")
	at_exit "echo $old >$f"
	echo 0 >"$f"
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
# while it watches. Fails the test if ppwatch exits first, or hangs (120 s:
# loading and verifying the programs on a loaded machine takes its time).
# The pid in the line tells this ppwatch's line from one an earlier run left in
# the same file: the child truncates the file only once it runs.
wait_attached() {	# err pid
	_attached() {
		grep -q "loaded and attached .*(pid $2)" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null ||
			fail "ppwatch exited before attaching: $(head -c 400 "$1" | tr '\n' ' ')"
		return 1
	}
	wait_until 120 "ppwatch (pid $2) to attach (its stderr: $1)" _attached "$@"
}

# wait_until SECONDS WHAT CMD...: wait for an event, CMD succeeding; SECONDS
# only catches a hang (set it generously: a loaded machine is slow, never
# wrong), and the case then fails naming WHAT.
wait_until() {
	local limit=$1 what=$2 end
	shift 2
	end=$((SECONDS + limit))
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || fail "waited ${limit} s for $what"
		sleep 0.05
	done
}

# json_after OUT T: wait until a ppwatch writing one JSON document a line
# to OUT (top -j, watch -j) has printed one whose "time" (the instant its
# numbers are of) is after T (Unix time, date +%s.%N), and print that line:
# what ppwatch saw once what the test did before T had happened. Waits
# only for that event (120 s: a hang).
json_after() {
	local out=$1 t=$2 line
	_after() {
		line=$(tail -n 1 "$out" 2>/dev/null)
		[ -n "$line" ] && jq -e --argjson t "$t" '.time > $t' <<<"$line" >/dev/null 2>&1
	}
	wait_until 120 "a line in $out of a time after $t" _after
	echo "$line"
}

# record_with_gap FILE ERR [ARGS...]: 'ppwatch -v record -o FILE ARGS...'
# (stderr in ERR) whose holder scans fail (every BPF iterator read: EIO,
# tests/lab/faultinj.c) from once a scan is recorded until the gap they make
# is, then succeed again; ended (SIGINT) once a scan after the gap's end is
# recorded. Each step waits for its event, none for a time.
record_with_gap() {
	local rec=$1 err=$2 rpid flag=$1.failing
	shift 2
	rm -f "$flag"
	LD_PRELOAD=$OUTPUT/lab/faultinj.so PPW_FAULT_ITER_EIO_WHILE=$flag \
		"$PPWATCH" -v record -o "$rec" "$@" 2>"$err" &
	rpid=$!
	at_exit "kill $rpid 2>/dev/null; rm -f $flag"
	wait_attached "$err" $rpid
	wait_until 120 "a holder scan in $rec" grep -q '"type":"holders"' "$rec"
	: >"$flag"
	wait_until 120 "the failing scans' gap in $rec" grep -q '"type":"gap".*"what":"holder scan"' "$rec"
	rm -f "$flag"
	_scan_after_gap() {
		jq -e -s '(map(.type == "gap" and has("until")) | index(true)) as $g
			| $g != null and (map(.type) | rindex("holders")) > $g' "$rec" >/dev/null 2>&1
	}
	wait_until 120 "a holder scan after the gap's end in $rec" _scan_after_gap
	kill -INT $rpid
	wait $rpid
}

# Start the exporter on a free port (extra args passed on); sets EXP_PID,
# EXP_ADDR (host:port), EXP_HOST, EXP_PORT, EXP_ERR (its stderr). Stopped
# when the case ends.
export_start() {
	local err=/tmp/ppwt$BASHPID.export.err
	: >"$err"
	"$PPWATCH" export --listen 127.0.0.1:0 "$@" 2>"$err" &
	EXP_PID=$!
	at_exit "kill $EXP_PID 2>/dev/null; wait $EXP_PID 2>/dev/null; rm -f $err"
	EXP_ADDR=
	_listening() {
		EXP_ADDR=$(sed -n 's|^ppwatch export: listening on https\{0,1\}://\(.*\)/metrics$|\1|p' "$err")
		[ -n "$EXP_ADDR" ] && return 0
		kill -0 "$EXP_PID" 2>/dev/null || fail "export exited: $(cat "$err")"
		return 1
	}
	wait_until 120 "export to listen" _listening
	# for the test files that source this: unused here
	# shellcheck disable=SC2034
	EXP_HOST=${EXP_ADDR%:*} EXP_PORT=${EXP_ADDR##*:} EXP_ERR=$err
}

# kill -HUP the exporter export_start started and wait until its listener
# has taken the web config again or refused it (it says which): what a
# reload changes is in force then, however long a loaded machine took
# (60 s: a hang)
hup_reread() {
	local n
	n=$(grep -c 'export: SIGHUP: .* taken' "$EXP_ERR")
	kill -HUP "$EXP_PID"
	_reread() { [ "$(grep -c 'export: SIGHUP: .* taken' "$EXP_ERR")" -gt "$n" ]; }
	wait_until 60 "the listener to re-read the web config at SIGHUP" _reread
}

# One scrape of the exporter export_start started (curl args passed on;
# 30 s: a hang).
# shellcheck disable=SC2120 # the test files pass curl options, scrape_after none
scrape() {
	curl -sf -m 30 "$@" "http://$EXP_ADDR/metrics"
}

# scrape_after T: wait until a scrape shows a sample the exporter took
# after T (Unix time: its ppwatch_last_collect_timestamp_seconds), and
# print it: the exporter's view once what the test did before T happened.
scrape_after() {
	local t=$1 m
	_sampled_after() {
		m=$(scrape) &&
			awk -v t="$t" '$1 == "ppwatch_last_collect_timestamp_seconds" { found = 1; ok = $2 > t } END { exit !(found && ok) }' <<<"$m"
	}
	wait_until 120 "a sample of the exporter's after $t" _sampled_after
	echo "$m"
}

# The id of the lab's vb pool(s) according to ppwatch, from a pools -j document.
vb_pool() {
	jq -er --arg ns "$(lab_netns_ino)" \
		'[.pools[] | select(.device == "vb" and (.netns|tostring) == $ns)] | first' <<<"$1"
}

lab_netns_ino() {
	stat -L -c %i "/run/netns/$LAB_B"
}

# Run the test cases named in ALL_TESTS (or those of $TESTS that are in
# ALL_TESTS), one subshell each; counts every skip (see the top).
run_tests() {
	local t rc n why pass=0 failed=0 skipped=0 cases=() name sel
	name=$(basename "$0" .sh)
	sel=" ${TESTS:-} "
	sel=${sel//[$'\t\n']/ }
	for t in $ALL_TESTS; do
		if ! declare -F "$t" >/dev/null; then
			echo "  FAIL $t: in ALL_TESTS, but no function defines it"
			failed=$((failed + 1))
		elif [ -z "${TESTS:-}" ] || [[ $sel == *" $t "* ]]; then
			cases+=("$t")
		fi
	done
	# a function written as a case (it begins with require_...) that is not in
	# ALL_TESTS and that nothing calls never runs: a case left out by mistake
	while read -r t; do
		[[ " ${ALL_TESTS//[$'\t\n']/ } " == *" $t "* ]] || [ "$(grep -cw -- "$t" "$0")" -gt 1 ] || {
			echo "  FAIL $t: written as a case, but not in ALL_TESTS (it never runs)"
			failed=$((failed + 1))
		}
	done < <(awk '/^[a-z_0-9]+\(\) \{$/ { f = $1; sub(/\(\)/, "", f); getline; if ($1 ~ /^require_/) print f }' "$0")
	_CASE_SKIPS=$(mktemp /tmp/ppwt-skips.XXXXXX) || { echo "  FAIL $name: mktemp failed"; return 1; }
	_CASE_LOG=$(mktemp /tmp/ppwt-log.XXXXXX) || { echo "  FAIL $name: mktemp failed"; return 1; }
	for t in "${cases[@]}"; do
		echo "  RUN  $t"
		: >"$_CASE_SKIPS"
		: >"$_CASE_LOG"
		( "$t" )
		rc=$?
		case $rc in
		0) echo "  PASS $t"; pass=$((pass + 1)) ;;
		"$KSFT_SKIP") echo "  SKIP $t"; skipped=$((skipped + 1)) ;;
		*)
			echo "  FAIL $t"; failed=$((failed + 1))
			if [ -n "${PPWATCH_TALLY:-}" ]; then
				echo "F integration/$name/$t" >>"$PPWATCH_TALLY"
				# its last log lines and its failure, each cut to 600 characters
				tail -n 8 "$_CASE_LOG" | cut -c 1-600 | sed 's/^/D /' >>"$PPWATCH_TALLY"
			fi
			;;
		esac
		# every skip of the case: its own (exit 4, counted above) and its skip_notes
		n=$(grep -c . "$_CASE_SKIPS")
		if [ "$rc" -eq "$KSFT_SKIP" ]; then
			if [ "$n" -eq 0 ]; then echo "(exit 4 without saying why)" >"$_CASE_SKIPS"; else n=$((n - 1)); fi
		fi
		skipped=$((skipped + n))
		if [ -n "${PPWATCH_TALLY:-}" ]; then
			while IFS= read -r why; do
				echo "S integration/$name/$t: $why" >>"$PPWATCH_TALLY"
			done <"$_CASE_SKIPS"
		fi
	done
	rm -f "$_CASE_SKIPS" "$_CASE_LOG"
	_CASE_SKIPS='' _CASE_LOG=''
	if [ ${#cases[@]} -eq 0 ] && [ $failed -eq 0 ]; then
		echo "  # $name.sh: no case of TESTS=\"${TESTS:-}\" here"
	else
		echo "  # $name.sh: $pass passed, $failed failed, $skipped skipped"
	fi
	[ -z "${PPWATCH_TALLY:-}" ] || echo "T integration/$name $pass $failed $skipped" >>"$PPWATCH_TALLY"
	[ $failed -eq 0 ] || return 1
	[ $pass -gt 0 ] || return $KSFT_SKIP
}
