#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch export under abuse, on loopback and bounded in count and time
# (tests/integration/http_abuse.py makes the clients): 200 scrapes at
# once, 50 slow clients while scrapes must still be answered (before the
# slow clients' --timeout could make room), garbage, oversized heads,
# HTTP/1.0 and keep-alive, running out of descriptors; memory and
# descriptors the same before and after. Then what the exporter says and
# keeps: a warning when it listens beyond loopback, the capabilities it
# holds once loaded, and no namespace once it is gone. No latency is
# asserted: how long a scrape takes among slow clients, against one alone,
# is bench/'s (BENCH_ARGS=inputs).

ALL_TESTS="
	two_hundred_scrapes_at_once
	slow_clients_do_not_keep_scrapes_out
	malformed_oversized_old_and_kept_alive
	descriptors_run_out
	nothing_leaks
	warns_beyond_loopback
	privileges_after_load
	namespaces_let_go
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

ABUSE="python3 $TOP/tests/integration/http_abuse.py"

# The exporter for these cases: no netlink (its per-namespace sockets
# would make the descriptor count follow other namespaces on the host).
# LST: its listener, the process that holds the connections.
abuse_export() {
	require_kernel
	export_start --no-netlink --interval 0.5 "$@"
	_forked() {
		LST=$(cat "/proc/$EXP_PID/task/$EXP_PID/children" 2>/dev/null)
		LST=${LST%% *}
		[ -n "$LST" ]
	}
	wait_until 60 "a listener process under the exporter $EXP_PID" _forked
}

fds_of() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }
sockets_of() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 -lname 'socket:*' | wc -l; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# connections to the exporter's port still open
conns() {
	ss -Htn state established "( sport = :$EXP_PORT )" 2>/dev/null | wc -l
}

# wait until every client connection is gone (60 s: a hang)
drained() {
	_no_conns() { [ "$(conns)" -eq 0 ]; }
	wait_until 60 "every client connection to close" _no_conns
}

two_hundred_scrapes_at_once() {
	abuse_export
	local r
	r=$($ABUSE "$EXP_ADDR" concurrent 200) || fail "clients: $r"
	log "$r"
	check "every scrape answered in full" jget "$r" '.complete == 200' >/dev/null
	check "still running" kill -0 "$EXP_PID"
	check "the listener too" kill -0 "$LST"
}

# A slow client's --timeout is far longer than the case (10 min): only the
# room made for a new connection (the longest-waiting one without a whole
# request goes) lets the scrapes in, and each must be answered (the
# client waits 30 s for one: a hang), whatever a loaded machine's latency.
slow_clients_do_not_keep_scrapes_out() {
	abuse_export --max-clients 16 --timeout 10m
	local r
	# 50 clients sending a byte a second, reconnecting when dropped, with
	# room for only 16 connections; a scrape a half second meanwhile
	r=$($ABUSE "$EXP_ADDR" slow 50 8) || fail "clients: $r"
	log "--max-clients 16: $(jq -c '{scrapes, max_latency_s, slow_saw}' <<<"$r")"
	check "scrapes made" jget "$r" '.scrapes | add > 0' >/dev/null
	check "every scrape answered" jget "$r" '.scrapes | keys == ["200"]' >/dev/null
	check "slow clients told 408" jget "$r" '.slow_saw["408"] > 0' >/dev/null
	# the default limit
	kill "$EXP_PID"
	wait "$EXP_PID" 2>/dev/null
	abuse_export --timeout 10m
	r=$($ABUSE "$EXP_ADDR" slow 50 6) || fail "clients: $r"
	log "default --max-clients: $(jq -c '{scrapes, max_latency_s}' <<<"$r")"
	check "default: every scrape answered" \
		jget "$r" '(.scrapes | add > 0) and (.scrapes | keys == ["200"])' >/dev/null
}

malformed_oversized_old_and_kept_alive() {
	abuse_export
	local r
	r=$($ABUSE "$EXP_ADDR" malformed) || fail "clients: $r"
	log "$(jq -c 'with_entries(.value |= (.status // .statuses // .responses))' <<<"$r")"
	check "garbage: closed or 400" jq -e '.garbage.status == 0 or .garbage.status == 400' <<<"$r" >/dev/null
	check "random bytes: closed or an error" jq -e '.random_bytes.status == 0 or .random_bytes.status >= 400' <<<"$r" >/dev/null
	# 431, unless the reset for the unread rest of the head overtakes it
	check "a 20 KB head: 431 or reset" jq -e '.huge_head.status == 431 or .huge_head.status == 0' <<<"$r" >/dev/null
	check "5000 header lines: 431 or reset" jq -e '.many_headers.status == 431 or .many_headers.status == 0' <<<"$r" >/dev/null
	check "HTTP/1.1 without Host: 400" jq -e '.no_host_11.status == 400' <<<"$r" >/dev/null
	check "line folding: 400" jq -e '.folded.status == 400' <<<"$r" >/dev/null
	check "HTTP/2: 505" jq -e '.http2_preface.status == 505' <<<"$r" >/dev/null
	check "POST: 405" jq -e '.post.status == 405' <<<"$r" >/dev/null
	check "another path: 404" jq -e '.other_path.status == 404 and .nul_in_path.status == 404' <<<"$r" >/dev/null
	check "HEAD: 200 without a body" jq -e '.head.status == 200 and .head.body' <<<"$r" >/dev/null
	check "HTTP/1.0: 200" jq -e '.http10.status == 200 and .http10.bytes > 1000' <<<"$r" >/dev/null
	check "HTTP/1.0 keep-alive: 200" jq -e '.http10_keepalive.status == 200' <<<"$r" >/dev/null
	check "keep-alive: three answers on one connection, closed on request" \
		jq -e '.keepalive_three.statuses == [200, 200, 200] and .keepalive_three.closed_after_close' <<<"$r" >/dev/null
	check "pipelined: both answered" jq -e '.pipelined.responses == 2' <<<"$r" >/dev/null
	check "a normal scrape still works" scrape >/dev/null
}

descriptors_run_out() {
	abuse_export
	local n r c0 c1 lines soft
	n=$(fds_of "$LST")
	soft=$(prlimit --pid "$LST" --nofile --output SOFT --noheadings)
	# a few descriptors to spare, then far more clients than that
	prlimit --pid "$LST" --nofile=$((n + 4)): || skip "prlimit cannot lower the limit here"
	c0=$(cpu_ticks "$LST")
	lines=$(wc -l <"$EXP_ERR")
	r=$($ABUSE "$EXP_ADDR" hold 100 3) || fail "clients: $r"
	c1=$(cpu_ticks "$LST")
	lines=$(($(wc -l <"$EXP_ERR") - lines))
	log "limit $((n + 4)) descriptors, 100 clients for 3 s: $r; $((c1 - c0)) CPU ticks, $lines log lines"
	# before: the listener stayed readable, 100% CPU, 1.7M log lines in 6 s.
	# CPU the listener used, not wall time: a loaded machine gives a
	# spinning loop less of it, never a resting one more
	check "no spinning: under 0.5 s of CPU in 3 s" [ $((c1 - c0)) -lt 50 ]
	check "no flood of messages" [ "$lines" -lt 20 ]
	check "waiting clients are told 503" jq -e '.after["503"] > 0' <<<"$r" >/dev/null
	prlimit --pid "$LST" --nofile="$soft":
	drained || fail "connections did not close"
	check "served again with descriptors back" scrape >/dev/null
}

# one round of every kind of abuse
abuse_round() {
	$ABUSE "$EXP_ADDR" concurrent 200 >/dev/null &&
		$ABUSE "$EXP_ADDR" malformed >/dev/null &&
		$ABUSE "$EXP_ADDR" slow 50 4 >/dev/null &&
		$ABUSE "$EXP_ADDR" hold 50 1 >/dev/null
}

# Descriptors are back to their count after every round; memory stops
# growing once the heap has its working size: its peak follows how many
# connections a loaded machine leaves in flight at once, so the heap gets
# three rounds to reach it, and the last two rounds may add no more than
# 256 KiB (a leak adds with every round).
nothing_leaks() {
	abuse_export --max-clients 16 --timeout 1s
	local f0 r0 f1 r1 r2 s0 s1
	# a first round grows the heap to its working size
	abuse_round || fail "clients failed"
	drained || fail "connections did not close"
	f0=$(fds_of "$LST")
	r0=$(rss_kb "$LST")
	s0="$(fds_of "$EXP_PID") $(rss_kb "$EXP_PID")"
	abuse_round || fail "clients failed"
	abuse_round || fail "clients failed"
	drained || fail "connections did not close"
	# the listener has closed its side of each (a leak never does: 60 s)
	_closed() { [ "$(fds_of "$LST")" -le "$f0" ]; }
	wait_until 60 "the listener to close the connections' descriptors ($(fds_of "$LST") > $f0)" _closed
	f1=$(fds_of "$LST")
	r1=$(rss_kb "$LST")
	s1="$(fds_of "$EXP_PID") $(rss_kb "$EXP_PID")"
	abuse_round || fail "clients failed"
	abuse_round || fail "clients failed"
	drained || fail "connections did not close"
	wait_until 60 "the listener to close the connections' descriptors ($(fds_of "$LST") > $f0)" _closed
	r2=$(rss_kb "$LST")
	log "the listener: descriptors $f0 -> $f1 -> $(fds_of "$LST"), RSS $r0 -> $r1 -> $r2 KiB, two rounds apart; the sampler's (descriptors, RSS) $s0 -> $s1"
	check "the sampler's descriptors the same: it never sees a client" [ "${s0% *}" = "${s1% *}" ]
	check "descriptors the same" [ "$f1" -eq "$f0" ]
	check "descriptors the same two rounds later" [ "$(fds_of "$LST")" -eq "$f0" ]
	check "RSS the same over the last two rounds (within 256 KiB)" [ $((r2 - r1)) -le 256 ]
	check "still serving" scrape >/dev/null
}

warns_beyond_loopback() {
	require_kernel
	local err=/tmp/ppwt$BASHPID.any.err pid
	at_exit "rm -f $err"
	export_start --no-netlink
	check "no warning on loopback" [ -z "$(grep -i 'beyond loopback' "$EXP_ERR")" ]
	"$PPWATCH" export --no-netlink --listen 0.0.0.0:0 2>"$err" &
	pid=$!
	at_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
	_listening() { grep -q 'listening on http' "$err" || ! kill -0 "$pid" 2>/dev/null; }
	wait_until 120 "the exporter on 0.0.0.0 to listen" _listening
	log "$(grep -i 'beyond loopback' "$err" | cut -c1-120)"
	check "warns beyond loopback" grep -q 'Warning: export: listening on 0.0.0.0:[0-9]*, beyond loopback' "$err"
}

# files of network namespace INO a process and its children hold open (by
# inode on nsfs: a file opened through /run/netns/NAME links to that path)
net_fds_of() {	# pid ino
	local p f n=0
	for p in "$1" $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
		for f in /proc/"$p"/fd/*; do
			[ "$(stat -L -c %i "$f" 2>/dev/null)" = "$2" ] &&
				[ "$(stat -f -L -c %T "$f" 2>/dev/null)" = nsfs ] && n=$((n + 1))
		done
	done
	echo "$n"
}

# A namespace whose processes are gone and whose name is deleted is let go:
# no file of it stays open in the exporter and its netlink sockets there
# are closed (either would keep the namespace alive, and its devices and
# their pools with it), by the next namespace walk. The kernel's view of
# what the processes hold: /proc/PID/fd.
namespaces_let_go() {
	require_kernel
	local ino_a ino_b sockets0 sockets1
	export_start --interval 0.3
	sockets0=$(sockets_of "$EXP_PID")
	lab_begin
	ino_a=$(stat -L -c %i "/run/netns/$LAB_A")
	ino_b=$(lab_netns_ino)
	lab_hold 100 >/dev/null || fail "holder"
	_opened() { [ "$(net_fds_of "$EXP_PID" "$ino_a")" -ge 1 ] && [ "$(net_fds_of "$EXP_PID" "$ino_b")" -ge 1 ]; }
	wait_until 60 "the exporter to open the lab's namespaces" _opened
	sockets1=$(sockets_of "$EXP_PID")
	log "namespaces $ino_a $ino_b open; sockets $sockets0 -> $sockets1"
	check "netlink sockets in the lab's namespaces" [ "$sockets1" -gt "$sockets0" ]
	lab_down
	_let_go() {
		[ "$(net_fds_of "$EXP_PID" "$ino_a")" -eq 0 ] &&
			[ "$(net_fds_of "$EXP_PID" "$ino_b")" -eq 0 ] &&
			[ "$(sockets_of "$EXP_PID")" -le "$sockets0" ]
	}
	wait_until 60 "the exporter to let the deleted namespaces go" _let_go
	log "after the lab: sockets $(sockets_of "$EXP_PID"), files of its namespaces $(net_fds_of "$EXP_PID" "$ino_a") $(net_fds_of "$EXP_PID" "$ino_b")"
	check "no file of the deleted namespaces open" [ "$(net_fds_of "$EXP_PID" "$ino_a")" -eq 0 -a "$(net_fds_of "$EXP_PID" "$ino_b")" -eq 0 ]
	check "their netlink sockets closed" [ "$(sockets_of "$EXP_PID")" -le "$sockets0" ]
	check "no collection failed" grep -q '^ppwatch_collect_errors_total 0$' <<<"$(scrape)"
}

# the capability sets of a process, as hex masks, in /proc order: "CapInh CapPrm CapEff CapBnd CapAmb"
caps_of() {
	awk '/^Cap(Prm|Eff|Bnd|Inh|Amb):/ { printf "%s ", $2 }' "/proc/$1/status"
}

# bit N of a hex mask
has_cap() { (( (0x$1 >> $2) & 1 )); }

privileges_after_load() {
	require_kernel
	local prm eff bnd inh amb bit sockets0 sockets1 id
	# what may be kept: CAP_BPF 39, CAP_SYS_ADMIN 21, CAP_SYS_PTRACE 19
	export_start --interval 0.3 -v -v
	read -r inh prm eff bnd amb <<<"$(caps_of "$EXP_PID")"
	log "uid $(awk '/^Uid:/ { print $2 }' "/proc/$EXP_PID/status"): CapPrm $prm CapEff $eff CapBnd $bnd; $(grep -o 'privileges dropped.*' "$EXP_ERR")"
	check "permitted = effective = bounding" [ "$prm" = "$eff" -a "$eff" = "$bnd" ]
	check "nothing inheritable or ambient" [ "$inh" = 0000000000000000 -a "$amb" = 0000000000000000 ]
	for bit in $(seq 0 40); do
		case $bit in 19 | 21 | 39) continue ;; esac
		has_cap "$eff" "$bit" && fail "capability $bit kept"
	done
	check "no_new_privs" grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$EXP_PID/status"
	# it still follows namespaces that appear after the drop: a new lab's
	# namespaces get netlink sockets (setns), and its pool is scraped
	sockets0=$(sockets_of "$EXP_PID")
	lab_begin
	lab_hold 100 >/dev/null || fail "holder"
	# the exporter follows the new namespaces: netlink sockets in them
	_followed() { [ "$(sockets_of "$EXP_PID")" -gt "$sockets0" ]; }
	wait_until 60 "the exporter to open sockets in the new namespaces" _followed
	# and a sample of the lab's pool
	_scraped() { scrape | grep '^ppwatch_pool_inflight_pages{' | grep -F "netns=\"$(lab_netns_ino)\"" | grep -q 'device="vb"'; }
	wait_until 60 "the new lab's pool in a scrape" _scraped
	sockets1=$(sockets_of "$EXP_PID")
	log "sockets $sockets0 -> $sockets1 after a new lab"
	check "netlink sockets opened in the new namespaces" [ "$sockets1" -gt "$sockets0" ]
	check "no namespace refused" [ -z "$(grep 'netlink: namespace.*not permitted' "$EXP_ERR")" ]
	id=$(scrape | grep '^ppwatch_pool_inflight_pages{' | grep -F "netns=\"$(lab_netns_ino)\"" | grep -c 'device="vb"')
	check "the new lab's pool is scraped" [ "$id" -ge 1 ]
	check "no collection failed" grep -q '^ppwatch_collect_errors_total 0$' <<<"$(scrape)"
	kill "$EXP_PID"
	wait "$EXP_PID" 2>/dev/null

	# --no-netlink: BPF only; --user: out of uid 0 as well
	export_start --no-netlink --user nobody
	read -r inh prm eff bnd amb <<<"$(caps_of "$EXP_PID")"
	log "--no-netlink --user nobody: $(grep -E '^(Uid|Gid|Groups):' "/proc/$EXP_PID/status" | tr -s '\t\n' '  ')CapEff $eff"
	check "uid nobody" grep -qE '^Uid:[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534' "/proc/$EXP_PID/status"
	check "gid nobody's" grep -qE '^Gid:[[:space:]]+65534[[:space:]]+65534' "/proc/$EXP_PID/status"
	check "no supplementary groups" grep -qE '^Groups:[[:space:]]*$' "/proc/$EXP_PID/status"
	for bit in $(seq 0 40); do
		[ "$bit" -eq 39 ] && continue
		has_cap "$eff" "$bit" && fail "capability $bit kept with --no-netlink"
	done
	# samples taken as nobody, after the drop (the first was taken at start)
	_sampled() { [ "$(scrape | awk '$1 == "ppwatch_collects_total" { print $2 }')" -ge 3 ] 2>/dev/null; }
	wait_until 60 "samples taken with --user nobody" _sampled
	check "still scraping the maps" grep -q '^ppwatch_collect_errors_total 0$' <<<"$(scrape)"
	"$PPWATCH" export --user no-such-user-here >/dev/null 2>"$EXP_ERR.2"
	check "--user: an unknown user is an error" grep -q "no such user" "$EXP_ERR.2"
	rm -f "$EXP_ERR.2"
}

run_tests
