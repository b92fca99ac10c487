#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# How much disk 'ppwatch record' writes at its defaults (a snapshot every
# 5 s, a holder scan every 30 s), per day: a lab with QUEUES receive
# queues on vb (one page pool each) and a socket holding pages, recorded
# for SECONDS; with ZOMBIE=1 the pools are then destroyed with the pages
# still held (every pool a stalled zombie: a retry event a second each,
# and their oldest pages at every scan). Root (BPF, network namespaces).
#
#   bench/record-disk.sh [QUEUES [SECONDS]]      (default 16 180)
#
# Prints one line of JSON: pools, seconds, bytes, bytes_per_day (all of
# it), steady_bytes_per_day (the records after the first 120 s: without
# the start's discovery and a new zombie's first minute of retries), and
# the bytes per record type.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-$PWD/.output}
PPWATCH=${PPWATCH:-$OUTPUT/ppwatch}
export LAB_QUEUES=${1:-16}
secs=${2:-180}
export LAB=ppwbench$$ LAB_QUIET=1
# shellcheck source=../tests/lab/lab.sh
. tests/lab/lab.sh
dir=$(mktemp -d /tmp/ppwatch-record-disk.XXXXXX)
trap 'lab_down; rm -rf "$dir"' EXIT
lab_up
lab_hold 2000 1000 >/dev/null
[ "${ZOMBIE:-0}" = 1 ] && lab_xdp_off
"$PPWATCH" record -o "$dir/rec" "$secs" 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
bytes=$(cat "$dir"/rec* | wc -c)
pools=$(jq -s '[.[] | select(.type == "snapshot")] | last | .pools | length' "$dir/rec")
jq -s -c --argjson bytes "$bytes" --argjson secs "$secs" --argjson pools "$pools" \
	--arg zombie "${ZOMBIE:-0}" '
	(.[0].time + 120) as $from | (map(select(.time > $from and .type != "end"))) as $steady |
	{pools: $pools, zombies: ($zombie == "1"), seconds: $secs, bytes: $bytes,
	 bytes_per_day: ($bytes / $secs * 86400 | floor),
	 steady_bytes_per_day: (if $secs > 180 then ($steady | map(tojson | length + 1) | add) /
	   ($secs - 120) * 86400 | floor else null end),
	 by_type: (group_by(.type) | map({(.[0].type): (map(tojson | length + 1) | add)}) | add)}' \
	"$dir"/rec
