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

vb_holders() {	# doc: the lab's pool(s) with holders
	jq -ec --arg ns "$(lab_netns_ino)" \
		'[.pools[] | select(.device == "vb" and (.netns|tostring) == $ns)]' <<<"$1"
}

# "pid inode port" the holder wrote; 3000-byte datagrams fill a page each
udp_holder_exact() {
	require_kernel
	lab_begin
	local n=200 doc h pid ino port pools
	read -r pid ino port < <(lab_hold $n 3000) || fail "holder"
	doc=$("$PPWATCH" -j holders) || fail "ppwatch holders failed"
	h=$(sock_holder "$doc" "$port") || fail "no holder on port $port: $doc"
	log "holder: $(jq -c '{pages, holder, inode, owners}' <<<"$h")"
	check "exactly $n pages" jget "$h" ".pages == $n" >/dev/null
	check "names the inode" jget "$h" ".inode == $ino" >/dev/null
	check "names the process" jget "$h" \
		".owners[0].pid == $pid and .owners[0].comm == \"ppgen\" and .owners[0].fd == 3" \
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
	sleep 0.2
	# the destroyed pool is found through its pages: no retry needs to happen
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
	sleep 0.2
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
	local out=/tmp/ppwt$BASHPID.top before after
	"$PPWATCH" -v -j --level all top -b -a 0.5 12 >"$out" 2>"$out.err" &
	local tpid=$!
	wait_attached "$out.err" $tpid
	lab_xdp_off	# the pool from set-up was made before ppwatch started
	lab_xdp_on
	lab_hold 400 3000 >/dev/null || fail "holder"
	sleep 1.2
	# the lab's pools only: a bench or lab elsewhere on the host has pages too
	before=$(tail -1 "$out" | lab_ledger_pages)
	lab_xdp_off
	lab_release
	wait $tpid || fail "top failed: $(cat "$out.err")"
	after=$(tail -1 "$out" | lab_ledger_pages)
	log "ledger pages: $before while held, $after after the holder closed"
	check "the held pages were in the ledger" num "$before >= 400"
	check "they left it" num "$after == 0"
	rm -f "$out" "$out.err"
}

pages_older_than() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.pages n=120 a b
	"$PPWATCH" -v -j pages vb --older-than 1s 2 2 >"$out" 2>"$out.err" &
	local ppid=$!
	wait_attached "$out.err" $ppid
	lab_xdp_off
	lab_xdp_on	# a pool made while ppwatch watches: every page has an age
	lab_hold $n 3000 >/dev/null || fail "holder"
	lab_xdp_off	# its cache and ring go back: only the held pages stay out
	wait $ppid || fail "pages failed: $(cat "$out.err")"
	a=$(sed -n 1p "$out" | jq -c --arg ns "$(lab_netns_ino)" '[.pools[] | select(.state == "zombie" and (.netns|tostring) == $ns) | .pages[]] | {n: length, netmems: [.[].netmem] | sort, min: ([.[].age_s] | min), holders: ([.[].holder] | unique | length)}')
	b=$(sed -n 2p "$out" | jq -c --arg ns "$(lab_netns_ino)" '[.pools[] | select(.state == "zombie" and (.netns|tostring) == $ns) | .pages[]] | {n: length, netmems: [.[].netmem] | sort, min: ([.[].age_s] | min)}')
	log "first: $(jq -c 'del(.netmems)' <<<"$a"), second: $(jq -c 'del(.netmems)' <<<"$b")"
	check "exactly the held pages" jget "$a" ".n == $n and .holders == 1" >/dev/null
	check "the same pages both times" [ "$(jq -c .netmems <<<"$a")" = "$(jq -c .netmems <<<"$b")" ]
	check "older than 1s" num "$(jq .min <<<"$a") >= 1"
	check "ages grow between listings" num "$(jq .min <<<"$b") >= $(jq .min <<<"$a") + 1.5"
	rm -f "$out" "$out.err"
}

stacks_name_the_last_releases() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.stacks
	"$PPWATCH" -v -j stacks -e 8 4 >"$out" 2>"$out.err" &
	local spid=$!
	wait_attached "$out.err" $spid
	lab_xdp_off
	lab_xdp_on
	lab_hold 500 3000 >/dev/null || fail "holder"
	lab_xdp_off
	sleep 0.3
	lab_release
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

run_tests
