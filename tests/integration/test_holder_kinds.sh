#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# One lab case per kind of holder a non-reading UDP socket is not: a TCP
# socket reset by its peer with its fd still open (CLOSE), an orphan in
# FIN-WAIT-1 and one in FIN-WAIT-2 (its remedy, ss -K, applied), a connection no accept() took (open, and reset by its peer:
# CLOSE, in no hash table), a socket whose only reference is an SCM_RIGHTS message, one
# only an io_uring's registered files hold (its remedy applied), packets
# in a tbf, in a pfifo under tbf, in htb classes, and an IPv4 fragment queue.
# Each case asserts that the right holder has at least 99% of the pages the
# pool lent outside itself, that unattributed is at most 1% of inflight, and
# that the remedy says what to do.

ALL_TESTS="
	tcp_reset_socket
	tcp_orphan
	tcp_orphan_fin_wait2
	tcp_not_accepted
	tcp_not_accepted_reset
	scm_rights_in_flight
	io_uring_registered_file
	qdisc_tbf
	qdisc_pfifo_under_tbf
	qdisc_pfifo_fast_under_tbf
	qdisc_htb_classes
	qdisc_htb_thousands_of_classes
	fragment_queue
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# The live vb pool of the lab in a holders -j document.
# kinds_begin: every case's start: a kernel with the page_pool tracepoints,
# its own lab, and no skb waiting in another CPU's defer list (lib.sh
# no_skb_defer), where the holder scan may not see its pages
kinds_begin() {
	require_kernel
	lab_begin
	no_skb_defer
}

lab_pool() {	# doc
	jq -ec --arg ns "$(lab_netns_ino)" '[.pools[] | select(.device == "vb" and
		(.netns|tostring) == $ns and .state == "live")] | first' <<<"$1"
}

# holders -j until the pool's non-internal pages stop changing (packets in
# flight between A and B settle), at most 3 s; prints the last document.
settled_holders() {
	local doc prev=-1 cur
	for _ in $(seq 15); do
		doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
		cur=$(lab_pool "$doc" | jq '[.holders[] | select(.kind | startswith("pool_") | not) | .pages] | add // 0')
		[ "$cur" = "$prev" ] && break
		prev=$cur
		sleep 0.2
	done
	echo "$doc"
}

# right_holder DOC JQ-SELECT MIN: the holders of the lab's pool that SELECT
# picks have >= 99% of the pages outside the pool's own (and at least MIN),
# unattributed <= 1% of inflight; the first picked holder goes to RH.
right_holder() {	# doc select min
	local pool right other h
	pool=$(lab_pool "$1") || fail "no live vb pool: $1"
	right=$(jq "[.holders[] | select($2) | .pages] | add // 0" <<<"$pool")
	other=$(jq '[.holders[] | select(.kind | startswith("pool_") | not) | .pages] | add // 0' <<<"$pool")
	log "pool $(jq -c '{id, inflight, unattributed, h: [.holders[] | [.kind, .pages, .holder]]}' <<<"$pool")"
	log "right holder: $right of $other pages outside the pool"
	check "at least $3 pages held" num "$right >= $3"
	check "the right holder has >= 99% of them" num "$right * 100 >= $other * 99"
	check "unattributed <= 1% of inflight" jget "$pool" '.unattributed * 100 <= .inflight' >/dev/null
	RH=$(jq -ec "[.holders[] | select($2)] | first" <<<"$pool") || fail "no holder"
}

# sockets_released WHAT: a new scan finds no socket holding the lab's pool's pages
sockets_released() {
	local doc
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	check "$1" jget "$(lab_pool "$doc")" \
		'[.holders[] | select(.kind == "socket")] | length == 0' >/dev/null
}

tcp_reset_socket() {
	kinds_begin
	local pid ino port h doc
	read -r pid ino port < <(lab_kind tcp-reset 5101 --bytes 400000) || fail "tcp-reset"
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "socket" and .local == "192.0.2.2:5101"' 200
	h=$RH
	log "$(jq -c '{state, holder, remedy}' <<<"$h")"
	check "state CLOSE" jget "$h" '.state == "CLOSE" and .proto == "tcp"' >/dev/null
	check "the process and fd that keep it" jget "$h" \
		".inode == $ino and .owners[0].pid == $pid and .owners[0].comm == \"ppkinds\"" >/dev/null
	check "the remedy: read or close, ss -K cannot" jget "$h" \
		'(.remedy | test("has not read [0-9.]+KiB")) and (.remedy | test("ss -K cannot kill"))' \
		>/dev/null
	# in no hash table: only its fd leads to it, and that walk takes no lock
	check "walked from its fd, unlocked" jget "$h" '.walk_locked == false' >/dev/null
	lab_release 5101
	sockets_released "closing it returns them"
}

# ppkinds KIND on PORT: an orphan in STATE with its out-of-order queue,
# no owner, its remedy naming ss -K; the scan's document into DOC
orphan_holder() {	# kind port state
	kinds_begin
	lab_kind "$1" "$2" --segments 40 --dev vb >/dev/null || fail "$1"
	DOC=$(settled_holders)
	right_holder "$DOC" ".kind == \"socket\" and .local == \"192.0.2.2:$2\"" 1
	log "$(jq -c '{state, holder, orphan, remedy}' <<<"$RH")"
	check "an orphan in $3" jget "$RH" \
		".orphan and .state == \"$3\" and (.owners | length) == 0" >/dev/null
	check "the remedy names ss -K for it" jget "$RH" \
		".remedy | test(\"ss -K src 192.0.2.2:$2\")" >/dev/null
}

tcp_orphan() {
	local h doc
	orphan_holder tcp-orphan 5102 FIN-WAIT-1
	h=$RH doc=$DOC
	# iter/tcp takes each socket's lock on every kernel the scan runs on
	# (batching, 5.15; the scan needs bpf_loop, 5.17): its out-of-order
	# tree is walked while softirq cannot rebalance it
	check "walked by iter/tcp, under the socket's lock" jget "$h" '.walk_locked == true' \
		>/dev/null
	check "doc counts it" jget "$doc" '.scan.orphans >= 1' >/dev/null
	# the remedy, as printed: else the orphan (tcp_orphan_retries 15 in B)
	# would keep the lab's pool a zombie for minutes after the lab is gone,
	# a stalled pool for the tests after this one
	orphan_remedy 5102
}

# ss -K src 192.0.2.2:PORT, as the remedy prints it: the orphan leaves B's
# /proc/net/tcp and its pages come back
orphan_remedy() {	# port
	ip netns exec "$LAB_B" ss -K src "192.0.2.2:$1" >"$LAB_DIR/ss.out" 2>&1 ||
		fail "ss -K src 192.0.2.2:$1 (CONFIG_INET_DIAG_DESTROY): $(cat "$LAB_DIR/ss.out")"
	wait_until 30 "the orphan to leave B's /proc/net/tcp" tcp_gone "$1"
	sockets_released "ss -K returns them"
}

# An orphan whose FIN its peer acknowledged, its out-of-order queue kept:
# FIN-WAIT-2 while net.ipv4.tcp_fin_timeout (600 in B) lasts; what the
# remedy says (ss -K) applied
tcp_orphan_fin_wait2() {
	local h
	orphan_holder tcp-orphan-fw2 5107 FIN-WAIT-2
	h=$RH
	check "B's kernel has it in FIN-WAIT-2 (/proc/net/tcp st 05)" \
		num "$(ip netns exec "$LAB_B" awk 'NR > 1 && $4 == "05"' /proc/net/tcp | wc -l) == 1"
	check "the remedy: tcp_fin_timeout, or ss -K now" jget "$h" \
		'.remedy | test("tcp_fin_timeout; ss -K src 192.0.2.2:5107 ends it now")' >/dev/null
	# the remedy, as printed
	orphan_remedy 5107
}

# B's TCP sockets on PORT (local), as the kernel lists them (/proc/net/tcp:
# the hashed ones; a CLOSE socket is in no table)
tcp_sockets_on() {	# port
	ip netns exec "$LAB_B" awk -v p="$(printf ':%04X' "$1")" \
		'NR > 1 && substr($2, length($2) - 4) == p' /proc/net/tcp | wc -l
}

# A connection the listener in B never accepts: ppkinds tcp-pending or
# tcp-pending-reset (KIND) on PORT, STATE its child's; the listener's
# process, inode and fd named; the holder goes to NA (the caller applies
# the remedy: close the listener)
not_accepted() {	# kind port state
	kinds_begin
	local pid ino port h doc lfd
	read -r pid ino port < <(lab_kind "$1" "$2" --bytes 400000) || fail "$1"
	doc=$(settled_holders)
	right_holder "$doc" ".kind == \"socket\" and .local == \"192.0.2.2:$2\" and .state == \"$3\"" 100
	h=$RH
	log "$(jq -c '{state, holder, held_by, listener, walk_locked, remedy}' <<<"$h")"
	lfd=$(find "/proc/$pid/fd" -lname "socket:\[$ino\]" -printf '%f\n' | head -1)
	check "no fd, no struct socket: in the accept queue" jget "$h" \
		'.held_by == "accept_queue" and (.owners | length) == 0 and .inode == 0' >/dev/null
	check "its listener: ppkinds' fd $lfd (inode $ino)" jget "$h" \
		".listener.inode == $ino and .listener.pid == $pid and .listener.fd == $lfd and .listener.comm == \"ppkinds\" and .listener.listeners == 1" >/dev/null
	check "the remedy names the listener and its close" jget "$h" \
		".remedy | test(\"listener on port $2, ino $ino of pid $pid \\\\(ppkinds\\\\) fd $lfd.*closing the listener frees it\")" >/dev/null
	# the listener object as docs/schema has it (python3-jsonschema: deps/debian.txt)
	echo "$doc" >"$LAB_DIR/holders.json"
	check "holders -j with a listener matches its schema" \
		python3 "$TOP/tests/contract/validate.py" holders "$LAB_DIR/holders.json" >/dev/null
	NA=$h
}

tcp_not_accepted() {
	local h
	not_accepted tcp-pending 5105 ESTAB
	h=$NA
	# hashed: iter/tcp walks it under its own lock
	check "walked by iter/tcp, under its lock" jget "$h" '.walk_locked == true' >/dev/null
	check "B's kernel lists it and its listener" num "$(tcp_sockets_on 5105) == 2"
	kill -USR1 "$(cut -d' ' -f1 "$LAB_DIR/holder.5105")"
	wait_until 30 "the listener and its child to leave B's /proc/net/tcp" tcp_gone 5105
	sockets_released "closing the listener returns them"
}

tcp_gone() {	# port
	[ "$(tcp_sockets_on "$1")" -eq 0 ]
}

tcp_not_accepted_reset() {
	local h
	not_accepted tcp-pending-reset 5106 CLOSE
	h=$NA
	# in no table: reached through its listener's queue, without its own lock
	check "walked from the accept queue, unlocked" jget "$h" '.walk_locked == false' >/dev/null
	check "B's kernel lists only the listener (the child is CLOSE, unhashed)" \
		num "$(tcp_sockets_on 5106) == 1"
	kill -USR1 "$(cut -d' ' -f1 "$LAB_DIR/holder.5106")"
	wait_until 30 "the listener to leave B's /proc/net/tcp" tcp_gone 5106
	sockets_released "closing the listener returns them"
}

scm_rights_in_flight() {
	kinds_begin
	local pid ino port carrier h doc
	read -r pid ino port carrier < <(lab_kind scm 5103 --count 150 --size 3000) || fail "scm"
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "socket" and .local == "192.0.2.2:5103"' 140
	h=$RH
	log "$(jq -c '{holder, in_flight_on, remedy}' <<<"$h")"
	check "in flight on the carrier" jget "$h" \
		".inode == $ino and .in_flight_on.inode == $carrier and .in_flight_on.pid == $pid" >/dev/null
	check "the remedy names SCM_RIGHTS" jget "$h" '.remedy | test("SCM_RIGHTS")' >/dev/null
	check "doc counts it" jget "$doc" '.scan.in_flight_sockets >= 1' >/dev/null
}

# B's UDP sockets on PORT, as the kernel lists them (/proc/net/udp)
udp_sockets_on() {	# port
	ip netns exec "$LAB_B" awk -v p="$(printf ':%04X' "$1")" \
		'NR > 1 && substr($2, length($2) - 4) == p' /proc/net/udp | wc -l
}

udp_gone() {	# port
	[ "$(udp_sockets_on "$1")" -eq 0 ]
}

io_uring_registered_file() {
	kinds_begin
	local pid ino port ring h doc
	read -r pid ino port ring < <(lab_kind uring 5104 --count 150 --size 3000) || fail "uring"
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "socket" and .local == "192.0.2.2:5104"' 140
	h=$RH
	log "$(jq -c '{holder, held_by, io_uring, remedy}' <<<"$h")"
	check "no process has an fd for it" jget "$h" ".inode == $ino and (.owners | length) == 0" \
		>/dev/null
	# the ring's own fdinfo: newer kernels name the file, 6.12 only its protocol
	if grep -q "socket:\[$ino\]" "/proc/$pid/fdinfo/$ring"; then
		check "the ring that registered it, as its fdinfo lists it" jget "$h" \
			".held_by == \"io_uring\" and .io_uring.pid == $pid and .io_uring.fd == $ring and .io_uring.slot == 0" \
			>/dev/null
		check "the remedy names the ring and its slot" jget "$h" \
			".remedy | test(\"slot 0 of the io_uring of pid $pid \\\\(ppkinds\\\\) fd $ring\")" >/dev/null
	else
		log "this kernel's fdinfo does not name the ring's files: $(grep -A2 UserFiles "/proc/$pid/fdinfo/$ring" | tr '\n' ' ')"
		check "no fd; the ring named as a candidate" jget "$h" \
			".held_by == \"no_fd\" and (.remedy | test(\"pid $pid \\\\(ppkinds\\\\) ring fd $ring\"))" \
			>/dev/null
	fi
	# the remedy, applied: the process unregisters the ring's files
	check "B's kernel lists the socket" num "$(udp_sockets_on 5104) == 1"
	kill -USR1 "$pid"
	wait_until 30 "the socket to leave B's /proc/net/udp" udp_gone 5104
	sockets_released "unregistering it returns them"
	check "the ring is still open" num "$(ls "/proc/$pid/fdinfo/$ring" >/dev/null && echo 1 || echo 0) == 1"
}

# forward N packets of SIZE from A through B out of bq to C, where QDISC
# (set up by the caller) holds them
forward_through() {	# n size port
	"$PPGEN" send --netns "$LAB_A" --to "$LAB_IP_CQ:$3" --count "$1" --size "$2" \
		>/dev/null || fail "send"
}

qdisc_tbf() {
	kinds_begin
	lab_forward_up || fail "forward"
	local h doc
	tc -n "$LAB_B" qdisc add dev bq root handle 8004: tbf rate 8kbit burst 1600 limit 2mb ||
		skip "tc cannot add tbf (sch_tbf)"
	forward_through 500 1400 6000
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "qdisc"' 200
	h=$RH
	log "$(jq -c '{holder, qdisc, remedy}' <<<"$h")"
	check "tbf's child under tbf 8004:" jget "$h" \
		'.qdisc.under == "tbf 8004:" and .qdisc.dev == "bq" and .qdisc.skbs_walked >= 490' >/dev/null
	check "the remedy names the tbf and its rate" jget "$h" \
		'.remedy | test("qdisc tbf 8004: on bq holds [0-9]+ packets .* at 8 kbit/s")' >/dev/null
	tc -n "$LAB_B" qdisc del dev bq root
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	check "deleting the qdisc returns them" jget "$(lab_pool "$doc")" \
		'[.holders[] | select(.kind == "qdisc")] | length == 0' >/dev/null
}

qdisc_pfifo_under_tbf() {
	kinds_begin
	lab_forward_up || fail "forward"
	local h doc
	if ! tc -n "$LAB_B" qdisc add dev bq root handle 1: tbf rate 8kbit burst 1600 limit 2mb ||
		! tc -n "$LAB_B" qdisc add dev bq parent 1:1 handle 10: pfifo limit 1000; then
		skip "tc cannot add tbf with a pfifo child"
	fi
	forward_through 400 1400 6000
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "qdisc" and .qdisc.kind == "pfifo"' 150
	h=$RH
	log "$(jq -c '{holder, qdisc}' <<<"$h")"
	check "pfifo 10: under tbf 1:" jget "$h" \
		'.qdisc.handle == "10:0" and .qdisc.under == "tbf 1:" and .qdisc.parent == "1:1"' >/dev/null
}

# pfifo_fast keeps its packets in three ptr_rings of its own, not in q->q:
# the walk goes through each band's slots
qdisc_pfifo_fast_under_tbf() {
	kinds_begin
	lab_forward_up || fail "forward"
	local h doc
	if ! tc -n "$LAB_B" qdisc add dev bq root handle 1: tbf rate 8kbit burst 1600 limit 2mb ||
		! tc -n "$LAB_B" qdisc add dev bq parent 1:1 handle 10: pfifo_fast; then
		skip "tc cannot add tbf with a pfifo_fast child"
	fi
	forward_through 400 1400 6000
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "qdisc" and .qdisc.kind == "pfifo_fast"' 150
	h=$RH
	log "$(jq -c '{holder, qdisc}' <<<"$h")"
	check "pfifo_fast 10: under tbf 1:, every packet walked" jget "$h" \
		'.qdisc.handle == "10:0" and .qdisc.under == "tbf 1:" and .qdisc.skbs_walked == .qdisc.qlen' >/dev/null
}

qdisc_htb_classes() {
	kinds_begin
	lab_forward_up || fail "forward"
	local doc pool a b
	{
		tc -n "$LAB_B" qdisc add dev bq root handle 1: htb default 10 &&
			tc -n "$LAB_B" class add dev bq parent 1: classid 1:1 htb rate 16kbit &&
			tc -n "$LAB_B" class add dev bq parent 1:1 classid 1:10 htb rate 8kbit ceil 8kbit &&
			tc -n "$LAB_B" class add dev bq parent 1:1 classid 1:20 htb rate 8kbit ceil 8kbit &&
			tc -n "$LAB_B" qdisc add dev bq parent 1:10 handle 10: pfifo limit 1000 &&
			tc -n "$LAB_B" filter add dev bq parent 1: protocol ip u32 \
				match ip dport 6001 0xffff flowid 1:20
	} 2>/dev/null || skip "tc cannot build htb classes with a u32 filter"
	forward_through 300 1400 6000	# class 1:10, its pfifo 10:
	forward_through 200 1400 6001	# class 1:20, htb's own default leaf
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "qdisc"' 150
	pool=$(lab_pool "$doc")
	a=$(jq -c '[.holders[] | select(.kind == "qdisc" and .qdisc.handle == "10:0")] | first' <<<"$pool")
	b=$(jq -c '[.holders[] | select(.kind == "qdisc" and .qdisc.parent == "1:20")] | first' <<<"$pool")
	log "1:10 $(jq -c '{holder, pages}' <<<"$a"); 1:20 $(jq -c '{holder, pages}' <<<"$b")"
	check "each class's leaf holds its packets" jget "$a" \
		'.pages >= 100 and .qdisc.under == "htb 1:"' >/dev/null
	jget "$b" '.pages >= 60 and .qdisc.under == "htb 1:"' >/dev/null ||
		fail "the default leaf of class 1:20 holds no pages: $b"
}

# An ISP-style shaper: 1,500 htb classes, each with htb's default leaf. The
# leaves all have handle 0, so they share one bucket of the device's qdisc
# hash; the first class's leaf, which holds the packets, is the last of the
# chain. Every one is listed and walked, and no walk stops at a bound.
qdisc_htb_thousands_of_classes() {
	kinds_begin
	lab_forward_up || fail "forward"
	local doc h batch=$LAB_DIR/htb.batch i
	{
		echo "qdisc add dev bq root handle 1: htb default 10"
		echo "class add dev bq parent 1: classid 1:1 htb rate 100mbit"
		for i in $(seq 16 1515); do
			printf 'class add dev bq parent 1:1 classid 1:%x htb rate 8kbit ceil 8kbit\n' "$i"
		done
	} >"$batch"
	tc -n "$LAB_B" -batch "$batch" 2>/dev/null || skip "tc cannot build 1,500 htb classes"
	forward_through 300 1400 6000	# class 1:10, the first made
	doc=$(settled_holders)
	log "scan: $(jq -c '.scan | {qdiscs, qdisc_packets_walked, walks_truncated, elapsed_s}' <<<"$doc")"
	check "every leaf listed" jget "$doc" '.scan.qdiscs >= 1501' >/dev/null
	check "no walk cut short" jget "$doc" '.scan.walks_truncated == 0' >/dev/null
	right_holder "$doc" '.kind == "qdisc"' 100
	h=$RH
	check "the first class's leaf" jget "$h" '.qdisc.parent == "1:10" and .qdisc.under == "htb 1:"' \
		>/dev/null
}

fragment_queue() {
	kinds_begin
	local h doc
	"$PPKINDS" frags --from "$LAB_A" --to "$LAB_IP_B" --count 20 --size 1400 --id 4242 \
		>/dev/null || fail "frags"
	doc=$(settled_holders)
	right_holder "$doc" '.kind == "frag_queue"' 5
	h=$RH
	log "$(jq -c '{holder, frag_queue, remedy}' <<<"$h")"
	check "the datagram's queue" jget "$h" \
		'.holder | test("^ipv4 fragments 192.0.2.1 -> 192.0.2.2 id 4242 ")' >/dev/null
	check "the remedy names ipfrag_time" jget "$h" \
		'.remedy | test("20 fragments .*net.ipv4.ipfrag_time")' >/dev/null
}

run_tests
