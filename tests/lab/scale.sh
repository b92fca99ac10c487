#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The scale lab: many idle page pools in one network namespace, as a big
# host has them (a multiqueue NIC with XDP on every queue, a node with
# hundreds of veth pods). SCALE_DEVS veth pairs, both ends in
# <SCALE_NS>, each end with SCALE_QUEUES rx queues, XDP (one pinned
# program, loaded once) on one end of each pair: veth creates one page
# pool per rx queue of that end, SCALE_DEVS * SCALE_QUEUES pools. No
# address, no traffic: the pools stay idle unless a test sends to them.
#
#   scale.sh up | down | count
# with SCALE_NS (default "ppwscale"), SCALE_DEVS (32), SCALE_QUEUES (64).
# Devices are added with ip -batch (one process for all of them); set-up
# and tear-down time is printed on stderr.

SCALE_NS=${SCALE_NS:-ppwscale}
SCALE_DEVS=${SCALE_DEVS:-32}
SCALE_QUEUES=${SCALE_QUEUES:-64}
_scale_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
OUTPUT=${OUTPUT:-$_scale_here/../../.output}
XDP_OBJ=${XDP_OBJ:-$OUTPUT/lab/xdp_pass.bpf.o}

scale_log() { [ -n "${LAB_QUIET:-}" ] || echo "scale: $*" >&2; }

scale_now_ms() { date +%s%3N; }

# a bpffs of its own for the pinned program: "ip -n" remounts /sys, so a
# pin under /sys/fs/bpf is not seen there (set when called: SCALE_NS may change)
scale_paths() {
	SCALE_BPFFS=/run/ppwatch-lab/bpffs-$SCALE_NS
	SCALE_PIN=$SCALE_BPFFS/xdp
}

# scale_up: the namespace, the pairs, XDP on the "p" end of each
scale_up() {
	local t0 i batch
	scale_paths
	[ -f "$XDP_OBJ" ] || {
		echo "scale: $XDP_OBJ missing: run 'make' first" >&2
		return 1
	}
	t0=$(scale_now_ms)
	ip netns add "$SCALE_NS" || return 1
	mkdir -p "$SCALE_BPFFS" || return 1
	mountpoint -q "$SCALE_BPFFS" || mount -t bpf bpf "$SCALE_BPFFS" || return 1
	rm -f "$SCALE_PIN"
	bpftool prog load "$XDP_OBJ" "$SCALE_PIN" type xdp || {
		echo "scale: cannot load $XDP_OBJ (bpftool prog load)" >&2
		return 1
	}
	batch=$(mktemp)
	for ((i = 0; i < SCALE_DEVS; i++)); do
		echo "link add s$i numtxqueues $SCALE_QUEUES numrxqueues $SCALE_QUEUES" \
			"type veth peer name p$i numtxqueues $SCALE_QUEUES numrxqueues $SCALE_QUEUES"
	done >"$batch"
	for ((i = 0; i < SCALE_DEVS; i++)); do
		echo "link set s$i up"
		echo "link set p$i up"
		echo "link set dev p$i xdpdrv pinned $SCALE_PIN"
	done >>"$batch"
	ip -n "$SCALE_NS" -batch "$batch" || {
		rm -f "$batch"
		echo "scale: ip -batch failed ($SCALE_DEVS pairs of $SCALE_QUEUES queues)" >&2
		return 1
	}
	rm -f "$batch"
	scale_log "up: $((SCALE_DEVS * SCALE_QUEUES)) pools on $SCALE_DEVS veth pairs in $SCALE_NS" \
		"in $(($(scale_now_ms) - t0)) ms"
}

scale_down() {
	local t0
	scale_paths
	t0=$(scale_now_ms)
	ip netns del "$SCALE_NS" 2>/dev/null || true
	rm -f "$SCALE_PIN"
	if mountpoint -q "$SCALE_BPFFS"; then umount "$SCALE_BPFFS" || true; fi
	rmdir "$SCALE_BPFFS" 2>/dev/null || true
	scale_log "down in $(($(scale_now_ms) - t0)) ms"
	return 0
}

# the devices with XDP attached: one pool per rx queue of each
scale_count() {
	ip -n "$SCALE_NS" -o link show 2>/dev/null | grep -c ' xdp'
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case "${1:-}" in
	up) scale_up ;;
	down) scale_down ;;
	count) scale_count ;;
	*)
		echo "usage: SCALE_NS=name SCALE_DEVS=N SCALE_QUEUES=Q $0 up|down|count" >&2
		exit 2
		;;
	esac
fi
