#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Per-event cost of ppwatch's hook programs, from bpf_stats, as a ratio to a
# counting-only program on the same tracepoints in the same run.
#
#   bench/run.sh [SECONDS] [ROUNDS] [-- ppwatch command and options]
#
# The ppwatch command defaults to 'top -b 1'; 'stacks -e 64 3600' measures
# the programs with stack sampling at its default rate.
#
# Each round: a fresh lab, 'ppwatch top -b' holding its programs attached,
# ppbench (baseline + BPF_STATS_RUN_TIME) around a fill-and-close UDP flood
# that makes page_pool hold and release pages as fast as this machine can.
set -eu
here=$(dirname "$(readlink -f "$0")")
export OUTPUT=${OUTPUT:-$here/../.output}
SECONDS_PER_ROUND=${1:-3}
ROUNDS=${2:-3}
shift $(($# > 2 ? 2 : $#))
[ "${1:-}" = "--" ] && shift
export LAB=ppwbench LAB_QUIET=1
. "$here/../tests/lab/lab.sh"
results=$here/results
mkdir -p "$results"
stamp=$(date +%Y%m%d-%H%M%S)

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root" >&2; exit 2; }
ppw=
trap 'if [ -n "$ppw" ]; then kill $ppw 2>/dev/null || true; fi; lab_down' EXIT
[ $# -gt 0 ] || set -- top -b 1
echo "kernel $(uname -r), $(nproc) CPUs, ${SECONDS_PER_ROUND}s x $ROUNDS rounds, ppwatch $*"
for r in $(seq "$ROUNDS"); do
	lab_down
	lab_up >/dev/null
	"$OUTPUT/ppwatch" "$@" >/dev/null &
	ppw=$!
	sleep 1
	echo "-- round $r"
	"$OUTPUT/bench/ppbench" -- "$PPGEN" flood --from "$LAB_A" --netns "$LAB_B" \
		--to "$LAB_IP_B:5400" --seconds "$SECONDS_PER_ROUND" --count 2000 --size 1500 \
		3>>"$results/$stamp.jsonl"
	kill $ppw
	wait $ppw 2>/dev/null || true
	ppw=
done
echo "results: $results/$stamp.jsonl"
