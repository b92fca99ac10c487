#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# 'make demo': ppwatch's main job on a host with no page pools of its own.
# Builds the veth lab, drives a repeating scenario through it and runs
# 'ppwatch top' on it; everything is torn down on exit.
#
# The scenario, about 40 s per round, bounded to DEMO_SECONDS (default 600):
#   1. traffic into a socket that never reads: the pool's pages pile up there
#   2. bursts that fill and drain another socket: hold/s and release/s move
#   3. XDP detached: the pool is destroyed with pages still out -> zombie,
#      the detach age grows, the kernel retries once a second
#   4. the holder closes: the pages come back and the pool is freed
#   5. XDP attached again: a new pool
set -u
here=$(dirname "$(readlink -f "$0")")
export OUTPUT=${OUTPUT:-$here/../../.output}
export LAB=${LAB:-ppwdemo}
export LAB_QUIET=1
DEMO_SECONDS=${DEMO_SECONDS:-600}
PPWATCH=${PPWATCH:-$OUTPUT/ppwatch}
# shellcheck source=lab.sh
. "$here/lab.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: run as root (BPF and network namespaces): sudo make demo" >&2
	exit 2
fi

scenario() {
	local end=$((SECONDS + DEMO_SECONDS))
	sleep 2	# let top attach first: the ledger then has every page's age
	while [ $SECONDS -lt $end ]; do
		lab_hold 3000 1000 5001 >/dev/null || return
		sleep 8
		"$PPGEN" flood --from "$LAB_A" --netns "$LAB_B" --to "$LAB_IP_B:5002" \
			--seconds 6 --count 2000 --size 1500 >/dev/null
		sleep 4
		lab_xdp_off
		sleep 12
		lab_release 5001
		sleep 5
		lab_xdp_on || return
		sleep 3
	done
}

cleanup() {
	trap - EXIT INT TERM
	[ -n "${spid:-}" ] && kill "$spid" 2>/dev/null
	wait 2>/dev/null
	lab_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

lab_down 2>/dev/null
lab_up || exit 1
cat <<EOF
ppwatch demo: namespaces $LAB_A and $LAB_B, veth va <-> vb, XDP on vb.
Each round: a socket holds ~1500 pages, bursts churn the pool, XDP is
detached (the pool becomes a zombie while the socket still holds pages),
the socket closes (the pool is freed), XDP comes back (a new pool).
Keys in top: q quit, < > sort column, r reverse, g group by device, w wide.
EOF
scenario &
spid=$!
if [ -t 1 ]; then
	"$PPWATCH" top -a "${DEMO_INTERVAL:-1}"
else
	# not a terminal (CI, a pipe): a bounded batch run instead
	"$PPWATCH" top -b -a "${DEMO_INTERVAL:-1}" "${DEMO_COUNT:-30}"
fi
