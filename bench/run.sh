#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What ppwatch costs, measured (make bench; root):
#
#   bench/run.sh [PARTS...]      PARTS: cost pps contention memory (default: all four)
#
#   cost        per-event run time of ppwatch's hot-path programs at each
#               --level, from the kernel's bpf_stats, as a ratio to a
#               counting-only program on the same tracepoints in the same run
#   pps         the lab's page-churning flood in datagrams/s with no ppwatch
#               and with ppwatch top at each level, in interleaved rounds
#               (none, counters, sampled, all, none, ...) so drift cancels
#   contention  per-pool bookkeeping on one shared cache line (atomics) and
#               in per-CPU slots, with one CPU and with both CPUs flooding
#   memory      the ledger's map memory at each level for the default
#               --max-pages (1M pages), from the kernel's fdinfo
#
# Knobs: SECONDS_PER_ROUND (default 3), ROUNDS (default 3).
# Results: bench/results/<time>.jsonl (one JSON line per measurement),
# then bench/report.sh turns them into <time>.md, a chart <time>.svg and
# the table in bench/README.md.
set -eu
here=$(dirname "$(readlink -f "$0")")
export OUTPUT=${OUTPUT:-$here/../.output}
SECONDS_PER_ROUND=${SECONDS_PER_ROUND:-3}
ROUNDS=${ROUNDS:-3}
PARTS=${*:-cost pps contention memory}
LEVELS="counters sampled all"
export LAB=ppwbench LAB_QUIET=1
# shellcheck source=../tests/lab/lab.sh
. "$here/../tests/lab/lab.sh"
results=$here/results
mkdir -p "$results"
stamp=$(date +%Y%m%d-%H%M%S)
out=$results/$stamp.jsonl
PPW=$OUTPUT/ppwatch
BENCH=$OUTPUT/bench/ppbench

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root" >&2; exit 2; }
if [ ! -x "$PPW" ] || [ ! -x "$BENCH" ]; then
	echo "bench: run 'make bench' (builds ppwatch and ppbench)" >&2
	exit 2
fi
ppw=
cleanup() {
	if [ -n "$ppw" ]; then kill "$ppw" 2>/dev/null || true; wait "$ppw" 2>/dev/null || true; fi
	lab2 lab_down 2>/dev/null || true
	lab_down
}

# the second lab of the contention part
lab2() { LAB=ppwbench2 LAB_A=ppwbench2-a LAB_B=ppwbench2-b LAB_DIR=/run/ppwatch-lab/ppwbench2 "$@"; }
trap cleanup EXIT

# a JSON line into the results
put() { printf '%s\n' "$1" >>"$out"; }

flood() {	# [taskset CPU] : the lab's fill-and-close flood for SECONDS_PER_ROUND
	"$PPGEN" flood --from "$LAB_A" --netns "$LAB_B" --to "$LAB_IP_B:5400" \
		--seconds "$SECONDS_PER_ROUND" --count 2000 --size 1500
}

ppwatch_start() {	# LEVEL: top -b holds the programs attached; wait until they are
	local err=/tmp/ppwbench.$$.err
	"$PPW" -v --level "$1" top -b 1 >/dev/null 2>"$err" &
	ppw=$!
	for _ in $(seq 100); do
		grep -q "loaded and attached" "$err" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "loaded and attached" "$err" || { cat "$err" >&2; exit 1; }
	rm -f "$err"
}

ppwatch_stop() {
	[ -n "$ppw" ] || return 0
	kill "$ppw"
	wait "$ppw" 2>/dev/null || true
	ppw=
}

fresh_lab() {
	lab_down
	lab_up >/dev/null
}

cost() {
	local r level
	for r in $(seq "$ROUNDS"); do
		for level in $LEVELS; do
			fresh_lab
			ppwatch_start "$level"
			echo "-- cost: round $r, --level $level"
			"$BENCH" --label "cost $level" --pid "$ppw" -- "$PPGEN" flood --from "$LAB_A" \
				--netns "$LAB_B" --to "$LAB_IP_B:5400" --seconds "$SECONDS_PER_ROUND" \
				--count 2000 --size 1500 3>>"$out"
			ppwatch_stop
		done
	done
}

pps() {
	local r cfg line n
	for r in $(seq "$ROUNDS"); do
		for cfg in none $LEVELS; do
			fresh_lab
			[ "$cfg" = none ] || ppwatch_start "$cfg"
			line=$(flood)
			n=$(awk '{ print $3 }' <<<"$line")
			echo "-- pps: round $r, $cfg: $line"
			put "{\"label\":\"pps $cfg\",\"round\":$r,\"datagrams\":$n,\"seconds\":$SECONDS_PER_ROUND,\"pps\":$(awk -v n="$n" -v s="$SECONDS_PER_ROUND" 'BEGIN { printf "%.1f", n / s }')}"
			ppwatch_stop
		done
	done
}

contention() {
	local r cpus
	for r in $(seq "$ROUNDS"); do
		for cpus in 1 2; do
			fresh_lab
			echo "-- contention: round $r, $cpus CPU(s) flooding"
			if [ "$cpus" = 1 ]; then
				"$BENCH" --contention --label "contention 1cpu" -- \
					taskset -c 0 "$PPGEN" flood --from "$LAB_A" --netns "$LAB_B" \
					--to "$LAB_IP_B:5400" --seconds "$SECONDS_PER_ROUND" --count 2000 \
					--size 1500 3>>"$out"
			else
				lab2 lab_down 2>/dev/null || true
				lab2 lab_up >/dev/null
				"$BENCH" --contention --label "contention 2cpu" -- sh -c "
					taskset -c 0 '$PPGEN' flood --from '$LAB_A' --netns '$LAB_B' \
						--to '$LAB_IP_B:5400' --seconds $SECONDS_PER_ROUND --count 2000 --size 1500 &
					taskset -c 1 '$PPGEN' flood --from ppwbench2-a --netns ppwbench2-b \
						--to '$LAB_IP_B:5400' --seconds $SECONDS_PER_ROUND --count 2000 --size 1500
					wait" 3>>"$out"
				lab2 lab_down
			fi
		done
	done
}

memory() {
	local level doc
	for level in $LEVELS; do
		doc=$("$PPW" -j --level "$level" pools --window 0.1)
		echo "-- memory: --level $level: $(jq -c .ledger <<<"$doc")"
		put "$(jq -c --arg l "memory $level" '{label: $l, max_pages: .ledger.max_pages, sample_rate: .ledger.sample_rate, memory_bytes: .ledger.memory_bytes}' <<<"$doc")"
	done
}

echo "kernel $(uname -r), $(nproc) CPUs, ${SECONDS_PER_ROUND}s x $ROUNDS rounds: $PARTS"
put "{\"label\":\"machine\",\"kernel\":\"$(uname -r)\",\"cpus\":$(nproc),\"seconds\":$SECONDS_PER_ROUND,\"rounds\":$ROUNDS,\"time\":\"$(date -u +%FT%TZ)\"}"
for part in $PARTS; do
	case $part in
	cost|pps|contention|memory) $part ;;
	*) echo "bench: unknown part '$part' (cost pps contention memory)" >&2; exit 2 ;;
	esac
done
echo "results: $out"
"$here/report.sh" "$out"
