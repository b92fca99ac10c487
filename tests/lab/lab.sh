#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The ppwatch lab: two network namespaces joined by a veth pair, with an XDP
# program on the receiving end so veth allocates from real page pools.
#
#   <lab>-a: va 192.0.2.1/24  ==veth==  <lab>-b: vb 192.0.2.2/24 (+ XDP)
#
# Use it as a library (source it, call lab_* functions) or as a command:
#   lab.sh up | down | xdp-on | xdp-off | hold N [SIZE] | release | status
# with LAB=<name> (default "ppwlab") naming the namespaces and state dir.
#
# Nothing leaves the two namespaces: addresses are from 192.0.2.0/24
# (RFC 5737, documentation), and every traffic burst is bounded.

LAB=${LAB:-ppwlab}
LAB_A=${LAB}-a
LAB_B=${LAB}-b
LAB_IP_A=192.0.2.1
LAB_IP_B=192.0.2.2
LAB_PORT=${LAB_PORT:-5001}
LAB_DIR=${LAB_DIR:-/run/ppwatch-lab/$LAB}
LAB_QUEUES=${LAB_QUEUES:-1}
_lab_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
OUTPUT=${OUTPUT:-$_lab_here/../../.output}
PPGEN=${PPGEN:-$OUTPUT/lab/ppgen}
PPKINDS=${PPKINDS:-$OUTPUT/lab/ppkinds}
XDP_OBJ=${XDP_OBJ:-$OUTPUT/lab/xdp_pass.bpf.o}
# iproute2 keeps its BPF objects under the first bpffs it finds in
# /proc/mounts: the system's, not one another lab may have mounted
export TC_BPF_MNT=${TC_BPF_MNT:-/sys/fs/bpf}

lab_log() { [ -n "${LAB_QUIET:-}" ] || echo "lab: $*" >&2; }

lab_fail() {
	echo "lab: $*" >&2
	return 1
}

# Switch IPv6 off for the devices namespace NS will have.
lab_no_ipv6() {
	[ -e /proc/sys/net/ipv6 ] || return 0
	ip netns exec "$1" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null
}

# Create the namespaces and the veth pair; attach XDP (creates the pools).
lab_up() {
	[ -x "$PPGEN" ] || lab_fail "$PPGEN missing: run 'make' first" || return 1
	[ -f "$XDP_OBJ" ] || lab_fail "$XDP_OBJ missing: run 'make' first" || return 1
	mkdir -p "$LAB_DIR"
	ip netns add "$LAB_A" || return 1
	ip netns add "$LAB_B" || return 1
	# no IPv6: its neighbour and multicast-listener traffic at link-up would
	# take pool pages at moments no test chose (a kernel without IPv6 has
	# none to switch off)
	lab_no_ipv6 "$LAB_A"
	lab_no_ipv6 "$LAB_B"
	ip link add va netns "$LAB_A" numtxqueues "$LAB_QUEUES" numrxqueues "$LAB_QUEUES" \
		type veth peer name vb netns "$LAB_B" \
		numtxqueues "$LAB_QUEUES" numrxqueues "$LAB_QUEUES" || return 1
	ip -n "$LAB_A" addr add "$LAB_IP_A/24" dev va
	ip -n "$LAB_B" addr add "$LAB_IP_B/24" dev vb
	ip -n "$LAB_A" link set lo up
	ip -n "$LAB_B" link set lo up
	ip -n "$LAB_A" link set va up
	ip -n "$LAB_B" link set vb up
	lab_xdp_on || return 1
	lab_log "up: $LAB_A/va $LAB_IP_A <-> $LAB_B/vb $LAB_IP_B (XDP on vb)"
}

# Native XDP on vb: veth creates one page_pool per receive queue.
lab_xdp_on() {
	ip -n "$LAB_B" link set dev vb xdpdrv obj "$XDP_OBJ" sec xdp ||
		lab_fail "cannot attach XDP to vb (iproute2 without libbpf?)"
}

# Detach XDP: page_pool_destroy() on every vb pool.
lab_xdp_off() {
	ip -n "$LAB_B" link set dev vb xdpdrv off
}

# Wait until a holder wrote its ready file, or is gone, or 60 s passed (a
# hang: on a loaded machine a start is slow, never wrong).
lab_wait_ready() {	# ready pid
	local end=$((SECONDS + 60))
	until [ -s "$1" ]; do
		kill -0 "$2" 2>/dev/null || return 0
		[ "$SECONDS" -lt "$end" ] || return 0
		sleep 0.05
	done
}

# Start a ppgen holder in B (ppgen hold ARGS...), wait until it wrote READY,
# then send N datagrams of SIZE bytes from A to TO. Prints what it wrote.
lab_hold_with() {	# ready to n size args...
	local ready=$1 to=$2 n=$3 size=$4
	shift 4
	rm -f "$ready"
	"$PPGEN" hold --netns "$LAB_B" "$@" --ready "$ready" \
		--lifetime "${LAB_HOLD_LIFETIME:-600}" </dev/null >/dev/null 2>&1 &
	# until it says it is bound, or is gone (60 s: only a hang; a loaded
	# machine is slow to start it, never wrong)
	lab_wait_ready "$ready" $!
	[ -s "$ready" ] || lab_fail "holder ($*) did not start" || return 1
	"$PPGEN" send --netns "$LAB_A" --to "$to" --count "$n" --size "$size" \
		>/dev/null || lab_fail "send failed" || return 1
	cat "$ready"
}

# Start a holder: a UDP socket in B that never reads; send it N datagrams.
# Prints "pid inode port" of the holder.
lab_hold() {
	local n=${1:-100} size=${2:-1000} port=${3:-$LAB_PORT}
	lab_hold_with "$LAB_DIR/holder.$port" "$LAB_IP_B:$port" "$n" "$size" \
		--bind "$LAB_IP_B:$port"
}

# A packet socket on vb in B that never reads: it keeps a clone of every
# frame. Then N datagrams to a port nobody listens on. Prints "pid inode".
lab_hold_packet() {
	lab_hold_with "$LAB_DIR/holder.packet" "$LAB_IP_B:9" "${1:-100}" "${2:-1000}" \
		--packet vb
}

# Number of datagrams queued on the holder's socket in B.
lab_queued() {
	local port=${1:-$LAB_PORT}
	ip netns exec "$LAB_B" ss -u -a -n -m "sport = :$port" 2>/dev/null |
		awk '/^UNCONN|^ESTAB/ { print $2; exit }'
}

# Close the holder: its pages go back to the pool (or the allocator).
lab_release() {
	local port=${1:-$LAB_PORT} f pid
	for f in "$LAB_DIR"/holder.${port}; do
		[ -s "$f" ] || continue
		read -r pid _ <"$f"
		kill -TERM "$pid" 2>/dev/null
		while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
		rm -f "$f"
	done
}

# Start one of ppkinds' holders (tcp-reset, tcp-orphan, scm) in B, fed from
# A, bound to B's PORT, and wait until it is set up: ARGS go to ppkinds.
# Prints what it wrote ("pid inode port [carrier-inode]"); lab_release PORT
# and lab_down stop it.
lab_kind() {	# kind port args...
	local kind=$1 port=$2 ready=$LAB_DIR/holder.$2
	shift 2
	rm -f "$ready"
	"$PPKINDS" "$kind" --netns "$LAB_B" --from "$LAB_A" --bind "$LAB_IP_B:$port" \
		--ready "$ready" --lifetime "${LAB_HOLD_LIFETIME:-600}" "$@" \
		</dev/null >/dev/null 2>"$LAB_DIR/kind.$port.err" &
	lab_wait_ready "$ready" $!
	[ -s "$ready" ] ||
		lab_fail "ppkinds $kind did not set up: $(cat "$LAB_DIR/kind.$port.err")" ||
		return 1
	cat "$ready"
}

# A third namespace, C, behind B: B forwards A's packets to 198.51.100.0/24
# out of bq (its veth to C's cq), so a qdisc on bq holds packets whose
# pages came from vb's pool. Nothing listens in C: what arrives is dropped.
LAB_C=${LAB}-c
LAB_IP_BQ=198.51.100.1
LAB_IP_CQ=198.51.100.2
lab_forward_up() {
	ip netns add "$LAB_C" || return 1
	lab_no_ipv6 "$LAB_C"
	ip link add bq netns "$LAB_B" type veth peer name cq netns "$LAB_C" || return 1
	ip -n "$LAB_B" addr add "$LAB_IP_BQ/24" dev bq
	ip -n "$LAB_C" addr add "$LAB_IP_CQ/24" dev cq
	ip -n "$LAB_B" link set bq up
	ip -n "$LAB_C" link set cq up
	ip -n "$LAB_C" link set lo up
	ip netns exec "$LAB_B" sysctl -q -w net.ipv4.ip_forward=1 || return 1
	ip -n "$LAB_A" route add 198.51.100.0/24 via "$LAB_IP_B" || return 1
	ip -n "$LAB_C" route add 192.0.2.0/24 via "$LAB_IP_BQ" || return 1
	lab_log "forward: $LAB_A -> $LAB_B -> bq/$LAB_C $LAB_IP_CQ"
}

lab_down() {
	local f pid
	for f in "$LAB_DIR"/holder.*; do
		[ -s "$f" ] || continue
		read -r pid _ <"$f"
		kill -TERM "$pid" 2>/dev/null
	done
	ip netns del "$LAB_A" 2>/dev/null || true
	ip netns del "$LAB_B" 2>/dev/null || true
	ip netns del "$LAB_C" 2>/dev/null || true
	rm -rf "$LAB_DIR"
	return 0
}

lab_status() {
	ip -n "$LAB_B" -d link show vb 2>/dev/null | sed -n '1,3p'
	ls "$LAB_DIR" 2>/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	cmd=${1:-}
	shift || true
	case "$cmd" in
	up) lab_up ;;
	down) lab_down ;;
	xdp-on) lab_xdp_on ;;
	xdp-off) lab_xdp_off ;;
	hold) lab_hold "$@" ;;
	release) lab_release "$@" ;;
	queued) lab_queued "$@" ;;
	status) lab_status ;;
	*)
		echo "usage: LAB=name $0 up|down|xdp-on|xdp-off|hold N [SIZE [PORT]]|release [PORT]|queued [PORT]|status" >&2
		exit 2
		;;
	esac
fi
