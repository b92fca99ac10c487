#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# 'make demo': ppwatch's main job on a host with no page pools of its own.
# Builds the veth lab, drives a repeating scenario through it and runs
# 'ppwatch top' on it; everything is torn down on exit.
#
# Two lines at the bottom of the terminal say what the lab is doing now and
# which keys work; at q, the next commands to try (DEMO_KEEP=1 leaves the
# lab up with a zombie for them). Not on a terminal (CI, a pipe): a bounded
# batch top, the lab's steps as lines of their own.
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

# what the lab is doing now, for the status line (and, not on a terminal, a line of its own)
say() {
	printf '%s\n' "$*" >"$LAB_DIR/status.new" && mv -f "$LAB_DIR/status.new" "$LAB_DIR/status"
	[ -t 1 ] || echo "demo: $*"
}

scenario() {
	local end=$((SECONDS + DEMO_SECONDS)) round=0
	say "starting: ppwatch top shows this lab's pools only (netns $LAB_B); the pool was made before top started, so the ages of pages it lent then are lower bounds (>)"
	sleep 2
	while [ $SECONDS -lt $end ]; do
		round=$((round + 1))
		say "holding: 3000 datagrams into a socket in $LAB_B that never reads: its pool's pages pile up there (INFLIGHT, OLDEST grow)"
		lab_hold 3000 1000 5001 >/dev/null || return
		sleep 8
		say "flooding: 6 s of bursts into a socket that reads them: HOLD/s and REL/s move, the held pages stay"
		"$PPGEN" flood --from "$LAB_A" --netns "$LAB_B" --to "$LAB_IP_B:5002" \
			--seconds 6 --count 2000 --size 1500 >/dev/null
		sleep 4
		lab_xdp_off
		say "destroyed: XDP detached, the pool is a zombie (STATE zombie, DETACH grows): the socket still holds its pages, the kernel retries once a second"
		sleep 12
		lab_release 5001
		say "released: the socket closed, its pages came back: the pool is freed (-a keeps it on screen a while)"
		sleep 5
		lab_xdp_on || return
		say "new pool: XDP attached again (round $round done; the next begins)"
		sleep 3
	done
	say "the scenario is over (DEMO_SECONDS=$DEMO_SECONDS): press q"
}

# The two bottom lines of the terminal, under top's rows: what the lab
# does, which keys work. top redraws its screen each interval; this
# redraws the lines right after, saving and restoring top's cursor.
status_line() {
	local cols rows text
	while :; do
		read -r rows cols < <(stty size </dev/tty 2>/dev/null) || { rows=24; cols=80; }
		text="lab: $(cat "$LAB_DIR/status" 2>/dev/null)"
		printf '\0337\033[%d;1H\033[2K\033[7m%s\033[0m\033[%d;1H\033[2K%s\0338' \
			$((rows - 1)) "${text:0:$((cols - 1))}" "$rows" "${KEYS:0:$((cols - 1))}" >/dev/tty
		sleep 0.2
	done
}

KEYS="keys: q quit (then the next commands to try)  < > sort column  r reverse  g group by device  w wide  space refresh"

# ppwatch as the reader would type it: on the PATH, or from here
ppw_name() {
	if [ "$(command -v ppwatch 2>/dev/null)" = "$PPWATCH" ]; then
		echo ppwatch
	elif [[ $PPWATCH == "$PWD"/* ]]; then
		echo "${PPWATCH#"$PWD"/}"
	else
		echo "$PPWATCH"
	fi
}

# after q: what to try next, on this lab or a host of one's own
next_steps() {
	local p
	p=$(ppw_name)
	printf '\033[H\033[2J'
	cat <<-EOT
	ppwatch demo: done. Next, on a host whose pool will not go away (or here:
	DEMO_KEEP=1 make demo leaves the lab and a zombie up after q):

	EOT
	printf '  %-40s %s\n' \
		"sudo $p holders" "who holds each pool's pages, and what to do about each" \
		"sudo $p postmortem" "every stalled pool, the kernel log's lines linked to it, its verdict" \
		"sudo $p watch" "pools created, destroyed, stalled and freed, as it happens" \
		"$p postmortem --dmesg LOG" "a saved kernel log (dmesg, journalctl -k): no root" \
		"docs/stalled-pool-shutdown.md" "I see \"stalled pool shutdown\" in my kernel log"
}

# DEMO_KEEP=1: the lab stays, with a zombie held by a socket, for the next commands
keep_lab() {
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
	lab_release 5001
	lab_xdp_on >/dev/null 2>&1
	lab_hold 3000 1000 5001 >/dev/null && lab_xdp_off
}

# the lab left up (DEMO_KEEP=1): how to take it down
kept_lab() {
	cat <<-EOT

	The lab is up: $LAB_B's pool is a zombie, a socket holds its pages (for
	${LAB_HOLD_LIFETIME:-600} s at most). The kernel logs "stalled pool shutdown" a minute
	after the destroy; then 'sudo $(ppw_name) postmortem' links that line to the pool.
	When done: sudo LAB=$LAB $here/lab.sh down
	EOT
}

cleanup() {
	trap - EXIT INT TERM
	[ -n "${lpid:-}" ] && kill "$lpid" 2>/dev/null
	if [ -t 1 ]; then
		[ -n "${DEMO_KEEP:-}" ] && keep_lab
		next_steps
		[ -n "${DEMO_KEEP:-}" ] && kept_lab
	fi
	[ -n "${spid:-}" ] && kill "$spid" 2>/dev/null
	# the scenario and the status line; not a holder DEMO_KEEP leaves running
	wait ${spid:+"$spid"} ${lpid:+"$lpid"} 2>/dev/null
	if [ -z "${DEMO_KEEP:-}" ] || ! [ -t 1 ]; then
		lab_down
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

lab_down 2>/dev/null
lab_up || exit 1
cat <<EOF
ppwatch demo: namespaces $LAB_A and $LAB_B, veth va <-> vb, XDP on vb.
Each round (about 40 s): a socket holds ~1500 pages, bursts churn the pool,
XDP is detached (the pool becomes a zombie while the socket still holds its
pages), the socket closes (the pool is freed), XDP comes back (a new pool).
EOF
if [ -t 1 ]; then
	echo "The lines at the bottom say what the lab is doing and which keys work."
else
	echo "Each 'demo:' line says what the lab does next."
fi
scenario &
spid=$!
if [ -t 1 ]; then
	sleep 2
	status_line &
	lpid=$!
	"$PPWATCH" top netns "$LAB_B" -a "${DEMO_INTERVAL:-1}"
else
	# not a terminal (CI, a pipe): a bounded batch run instead
	"$PPWATCH" top netns "$LAB_B" -b -a "${DEMO_INTERVAL:-1}" "${DEMO_COUNT:-30}"
fi
