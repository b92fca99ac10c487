#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Who holds the pages, on the running kernel in the veth lab: a UDP receiver
# that never reads, frags, a packet socket, the pool's own pages, exact sums
# against the kernel's inflight, the ledger after the receiver closes,
# 'pages --older-than', sampled stacks, and a scan of more than 10k skbs.

ALL_TESTS="
	udp_holder_exact
	holders_after_destroy_match_kernel
	frags_are_attributed
	packet_socket_holder
	pages_leave_ledger_when_holder_closes
	pages_older_than
	stacks_name_the_last_releases
	scan_10k_skbs
	stale_netns_file_is_not_a_namespace
	namespace_only_a_process_is_in
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# the socket holder of the lab's pool bound to a port, from a holders -j document
sock_holder() {	# doc port
	jq -ec --arg ns "$(lab_netns_ino)" --argjson port "$2" '
		[.pools[] | select(.device == "vb" and (.netns|tostring) == $ns) | .holders[]
		 | select(.kind == "socket" and .local == ("192.0.2.2:" + ($port|tostring)))]
		| first' <<<"$1"
}

# the fd PID has for socket inode INO, from /proc (not 3 always: a parent
# may leave fds open, as GNU time's -o file is to its child)
proc_sock_fd() {	# pid ino
	local f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f")" = "socket:[$2]" ] && { echo "${f##*/}"; return 0; }
	done
	return 1
}

vb_holders() {	# doc: the lab's pool(s) with holders
	jq -ec --arg ns "$(lab_netns_ino)" \
		'[.pools[] | select(.device == "vb" and (.netns|tostring) == $ns)]' <<<"$1"
}

# "pid inode port" the holder wrote; 3000-byte datagrams fill a page each
udp_holder_exact() {
	require_kernel
	lab_begin
	local n=200 doc h pid ino port pools fd
	read -r pid ino port < <(lab_hold $n 3000) || fail "holder"
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	h=$(sock_holder "$doc" "$port") || fail "no holder on port $port: $doc"
	log "holder: $(jq -c '{pages, holder, inode, owners}' <<<"$h")"
	check "exactly $n pages" jget "$h" ".pages == $n" >/dev/null
	check "names the inode" jget "$h" ".inode == $ino" >/dev/null
	fd=$(proc_sock_fd "$pid" "$ino") || fail "/proc: pid $pid has no fd for socket $ino"
	check "names the process and its fd (/proc's: $fd)" jget "$h" \
		".owners[0].pid == $pid and .owners[0].comm == \"ppgen\" and .owners[0].fd == $fd" \
		>/dev/null
	check "protocol and port" jget "$h" '.proto == "udp"' >/dev/null
	pools=$(vb_holders "$doc") || fail "no vb pool"
	log "pools: $(jq -c '[.[] | {id, inflight, attributed, unattributed, h: [.holders[] | [.kind, .pages]]}]' <<<"$pools")"
	check "holders sum to inflight" jget "$pools" \
		'all(.[]; ([.holders[].pages] | add) == .inflight)' >/dev/null
	check "the rest is the pool's own" jget "$pools" \
		'all(.[]; .unattributed == 0) and ([.[].holders[] | select(.kind | startswith("pool_"))] | length > 0)' \
		>/dev/null
	check "scan ran in every namespace" jget "$doc" \
		'.scan.netns >= 3 and .scan.netns_failed == 0 and .scan.virt_to_page == "checked"' \
		>/dev/null
}

holders_after_destroy_match_kernel() {
	require_kernel
	lab_begin
	local doc pools n=300
	lab_hold $n 3000 >/dev/null || fail "holder"
	lab_xdp_off
	# the destroyed pool is found through its pages: no retry needs to
	# happen (ip returns once the pool is destroyed: nothing to wait for)
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	pools=$(vb_holders "$doc") || fail "zombie not found"
	log "$(jq -c '[.[] | {id, state, inflight, h: [.holders[] | [.kind, .pages]]}]' <<<"$pools")"
	check "zombie" jget "$pools" 'any(.[]; .state == "zombie")' >/dev/null
	check "the socket holds all of the zombie's pages" jget "$pools" \
		"any(.[]; .state == \"zombie\" and .inflight == $n and .holders[0].kind == \"socket\" and .holders[0].pages == $n)" \
		>/dev/null
}

frags_are_attributed() {
	require_kernel
	lab_begin
	local doc h pools port
	read -r _ _ port < <(lab_hold 100 8000) || fail "holder"
	lab_xdp_off
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	h=$(sock_holder "$doc" "$port") || fail "no holder"
	pools=$(vb_holders "$doc")
	log "holder $(jq -c '{pages, head_pages, frag_pages}' <<<"$h"); pools $(jq -c '[.[] | {state, inflight}]' <<<"$pools")"
	check "frags found" jget "$h" '.frag_pages > 0 and .head_pages > 0' >/dev/null
	check "every page of the zombie is the socket's" jget "$pools" \
		"any(.[]; .state == \"zombie\" and .inflight == $(jq .pages <<<"$h"))" >/dev/null
}

packet_socket_holder() {
	require_kernel
	lab_begin
	local doc h pid ino pools
	read -r pid ino _ < <(lab_hold_packet 100 1000) || fail "packet holder"
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	h=$(jq -ec '[.pools[].holders[] | select(.proto == "packet")] | first' <<<"$doc") ||
		fail "no packet holder: $doc"
	log "$(jq -c '{pages, holder, owners}' <<<"$h")"
	check "a packet socket holds clones' pages" jget "$h" ".pages > 0 and .inode == $ino" >/dev/null
	check "owned by the capture" jget "$h" ".owners[0].pid == $pid" >/dev/null
	pools=$(vb_holders "$doc")
	check "holders sum to inflight" jget "$pools" \
		'all(.[]; ([.holders[].pages] | add) == .inflight)' >/dev/null
}

# the ledger pages of the lab's pools in a top -j line on stdin
lab_ledger_pages() {
	jq --arg ns "$(lab_netns_ino)" \
		'[.pools[] | select((.netns|tostring) == $ns) | .ledger_pages // 0] | add // 0'
}

pages_leave_ledger_when_holder_closes() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.top before after t line id
	"$PPWATCH" -v -j --level all top -b -a 0.5 >"$out" 2>"$out.err" &
	local tpid=$!
	at_exit "kill $tpid 2>/dev/null"
	wait_attached "$out.err" $tpid
	lab_xdp_off	# the pool from set-up was made before ppwatch started
	lab_xdp_on
	lab_hold 400 3000 >/dev/null || fail "holder"
	# the lab's pools only: a bench or lab elsewhere on the host has pages
	# too; top's first snapshot once they are held, then once released
	t=$(date +%s.%N)
	line=$(json_after "$out" "$t") || fail "no snapshot after the holds"
	before=$(lab_ledger_pages <<<"$line")
	id=$(jq -r --arg ns "$(lab_netns_ino)" \
		'[.pools[] | select((.netns|tostring) == $ns)] | max_by(.ledger_pages // 0) | .id' <<<"$line")
	lab_xdp_off
	lab_release
	# the socket's queue goes back after an RCU grace period, not at its
	# close: the kernel frees the destroyed pool once every page is back,
	# and top's line that shows it freed is the one to read
	_freed() {
		line=$(jq -c --argjson id "$id" 'select(any(.pools[]; .id == $id and .state == "freed"))' "$out" 2>/dev/null | head -n 1)
		[ -n "$line" ]
	}
	wait_until 120 "the kernel to free pool $id" _freed
	after=$(lab_ledger_pages <<<"$line")
	kill $tpid
	wait $tpid 2>/dev/null
	log "ledger pages: $before while held, $after after the holder closed"
	check "the held pages were in the ledger" num "$before >= 400"
	check "they left it" num "$after == 0"
	rm -f "$out" "$out.err"
}

pages_older_than() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.pages n=120 a b t
	"$PPWATCH" -v -j pages vb --older-than 1s 1 >"$out" 2>"$out.err" &
	local ppid=$!
	at_exit "kill $ppid 2>/dev/null"
	wait_attached "$out.err" $ppid
	lab_xdp_off
	lab_xdp_on	# a pool made while ppwatch watches: every page has an age
	lab_hold $n 3000 >/dev/null || fail "holder"
	lab_xdp_off	# its cache and ring go back: only the held pages stay out
	# the scenario: the held pages age past --older-than (every page was
	# held before t); the first two listings of a time 1.05 s after t or
	# later are the ones to check, however late a loaded machine lists
	t=$(date +%s.%N)
	_two_listings() {
		[ "$(jq -c --argjson t "$t" 'select(.time > $t + 1.05) | .time' "$out" 2>/dev/null | wc -l)" -ge 2 ]
	}
	wait_until 120 "two listings 1.05 s or more after the holds" _two_listings
	kill $ppid
	wait $ppid 2>/dev/null
	jq -c --argjson t "$t" 'select(.time > $t + 1.05)' "$out" 2>/dev/null | head -n 2 >"$out.two"
	a=$(sed -n 1p "$out.two" | jq -c --arg ns "$(lab_netns_ino)" '.time as $t | [.pools[] | select(.state == "zombie" and (.netns|tostring) == $ns) | .pages[]] | {t: $t, n: length, netmems: [.[].netmem] | sort, min: ([.[].age_s] | min), holders: ([.[].holder] | unique | length)}')
	b=$(sed -n 2p "$out.two" | jq -c --arg ns "$(lab_netns_ino)" '.time as $t | [.pools[] | select(.state == "zombie" and (.netns|tostring) == $ns) | .pages[]] | {t: $t, n: length, netmems: [.[].netmem] | sort, min: ([.[].age_s] | min)}')
	log "first: $(jq -c 'del(.netmems)' <<<"$a"), second: $(jq -c 'del(.netmems)' <<<"$b")"
	check "exactly the held pages" jget "$a" ".n == $n and .holders == 1" >/dev/null
	check "the same pages both times" [ "$(jq -c .netmems <<<"$a")" = "$(jq -c .netmems <<<"$b")" ]
	check "older than 1s" num "$(jq .min <<<"$a") >= 1"
	# by the time between the two listings, to two of the ledger's ticks
	check "ages grow with the clock between listings" \
		num "(($(jq .min <<<"$b") - $(jq .min <<<"$a")) - ($(jq .t <<<"$b") - $(jq .t <<<"$a"))) | fabs < 0.02"
	rm -f "$out.two"
	rm -f "$out" "$out.err"
}

stacks_name_the_last_releases() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.stacks
	# until stopped (SIGTERM: it prints its document), not for 4 s that
	# the steps below had to fit in; watch says when the kernel frees the
	# pools (the last release of the held pages comes after an RCU grace
	# period, not when the holder's process is gone)
	"$PPWATCH" -v -j stacks -e 8 >"$out" 2>"$out.err" &
	local spid=$!
	at_exit "kill $spid 2>/dev/null"
	"$PPWATCH" -v -j watch -e destroy,freed vb >"$out.w" 2>"$out.w.err" &
	local wpid=$!
	at_exit "kill $wpid 2>/dev/null; rm -f $out.w $out.w.err"
	wait_attached "$out.err" $spid
	wait_attached "$out.w.err" $wpid
	lab_xdp_off
	lab_xdp_on
	lab_hold 500 3000 >/dev/null || fail "holder"
	lab_xdp_off
	# the scenario: the destroyed pool holds the pages a moment (nothing is
	# asserted of the time); the holder closes, and every release is made
	# before lab_release returns
	sleep 0.3
	lab_release
	# both the lab's pools freed: the one of the set-up, and the one of the
	# held pages, by id: the two this run saw destroyed in the lab's
	# namespace (a namespace inode is reused: an earlier case's namespace,
	# deleted, may have had it, and its pools' frees come late)
	_both_freed() {
		jq -es --arg ns "$(lab_netns_ino)" '[.[] | select((.netns|tostring) == $ns)] as $e |
			([$e[] | select(.event == "destroy") | .pool] | unique) as $d |
			($d | length) >= 2 and ([$e[] | select(.event == "freed") | .pool] | unique | contains($d))' \
			"$out.w" >/dev/null 2>&1
	}
	wait_until 120 "the kernel to free the lab's two pools" _both_freed
	kill -TERM $spid
	wait $spid || fail "stacks failed: $(cat "$out.err")"
	log "$(jq -c '.sampling, [.pools[] | {id, state, kinds: [.stacks[] | .kind] | unique}]' "$out" | tr '\n' ' ')"
	check "hold stacks go through the page allocator path" jq -e \
		'[.pools[].stacks[] | select(.kind == "hold") | .frames[]] | any(test("page_pool_alloc|__page_pool_alloc"))' \
		"$out" >/dev/null
	check "every release of the destroyed pool is there" jq -e \
		'[.pools[].stacks[] | select(.kind == "zombie_release") | .count] | add >= 500' \
		"$out" >/dev/null
	check "and they name the socket's destruction" jq -e \
		'[.pools[].stacks[] | select(.kind == "zombie_release") | .frames[]] | any(test("udp_destruct|sk_destruct|skb_release"))' \
		"$out" >/dev/null
	rm -f "$out" "$out.err"
}

scan_10k_skbs() {
	require_kernel
	lab_begin
	local doc n=12000
	lab_hold $n 100 >/dev/null || fail "holder"
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	log "scan: $(jq -c .scan <<<"$doc")"
	check "more than 10k skbs walked" jget "$doc" ".scan.skbs >= 10000" >/dev/null
	check "no queue truncated, no record lost" jget "$doc" \
		'.scan.truncated_sockets == 0 and .scan.page_records_lost == 0' >/dev/null
	check "holders still sum to inflight" jget "$(vb_holders "$doc")" \
		'all(.[]; ([.holders[].pages] | add) == .inflight)' >/dev/null
}

# /run/netns keeps the empty file of a namespace whose bind mount went away
# (an 'ip netns' command that failed midway): it is not a namespace to enter
stale_netns_file_is_not_a_namespace() {
	require_kernel
	lab_begin
	local f=/run/netns/ppwt$BASHPID-stale doc
	: >"$f" || skip "cannot create $f"
	at_exit "rm -f $f"
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	log "scan: $(jq -c '.scan | {netns, netns_failed}' <<<"$doc")"
	check "no namespace failed" jget "$doc" '.scan.netns_failed == 0 and .scan.netns >= 3' >/dev/null
	"$PPWATCH" -j pools >/dev/null || fail "ppwatch pools failed"
}

# B's name gone (ip netns del): the namespace lives on only through the
# holder, the one process in it, and its pages are still found and named
# (the namespace list comes from the BPF task walk where it loads, else
# from /proc; either way by process, as here)
namespace_only_a_process_is_in() {
	require_kernel
	lab_begin
	local n=150 doc h pid ino port ns fd err=/tmp/ppwt$BASHPID.err
	at_exit "rm -f $err"
	read -r pid ino port < <(lab_hold $n 3000) || fail "holder"
	ns=$(lab_netns_ino) || fail "no namespace $LAB_B"
	ip netns del "$LAB_B" || fail "ip netns del $LAB_B"
	[ "$(stat -L -c %i "/proc/$pid/ns/net")" = "$ns" ] || fail "holder $pid left namespace $ns"
	doc=$("$PPWATCH" -j holders 2>"$err") || fail "ppwatch holders failed: $(cat "$err")"
	! grep -q "namespace walk" "$err" || fail "$(cat "$err")"
	h=$(jq -ec --arg ns "$ns" --argjson port "$port" '
		[.pools[] | select(.device == "vb" and (.netns|tostring) == $ns) | .holders[]
		 | select(.kind == "socket" and .local == ("192.0.2.2:" + ($port|tostring)))]
		| first' <<<"$doc") || fail "no holder on port $port in namespace $ns: $doc"
	log "holder: $(jq -c '{pages, inode, owners}' <<<"$h")"
	check "exactly $n pages" jget "$h" ".pages == $n" >/dev/null
	fd=$(proc_sock_fd "$pid" "$ino") || fail "/proc: pid $pid has no fd for socket $ino"
	check "the holder's inode, process and fd (/proc's: $fd)" jget "$h" \
		".inode == $ino and .owners[0].pid == $pid and .owners[0].fd == $fd" >/dev/null
	check "no namespace failed" jget "$doc" '.scan.netns_failed == 0' >/dev/null
}

run_tests
