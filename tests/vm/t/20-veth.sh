# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# veth + XDP: a busy pool. 2000 datagrams of 2000 bytes (one page each) held
# in a non-reading socket run the pool out of pre-allocated items (pool_size
# 256 asks for 1152 items and gets 5 blocks of 254: 1270), so it allocates
# dynamic item blocks. Netlink (dumps and the add/del notifications), the
# tracepoints, a tp_btf program (ppvm-bpf: the block the event hands over,
# the per-block occupancy of the pool's block list) and ppwatch must agree.
# Then the XDP program is detached while the socket still holds the pages:
# the pool becomes a zombie, and frees when the socket closes.
N=2000; SIZE=2000; PORT=5001
EVENTS="page_pool_item_block_alloc page_pool_item_block_free page_pool_item_fast_empty page_pool_item_slow_failed page_pool_release page_pool_destroy_unmap"
if lacks veth-pp; then
	# before "net: veth: add page_pool for page recycling" (v6.6) veth's XDP
	# path copies into pages of its own: no page_pool, no events
	trace_start page_pool_state_hold page_pool_release || return 0
	veth_pair vethA va vethB vb || { fail "cannot create the veth pair"; return 0; }
	ip netns exec vethB "$TOOL" xdp-attach vb || { fail "XDP attach on vb"; return 0; }
	sink_start vethB 192.0.2.2 $PORT || { fail "UDP sink did not start"; return 0; }
	U0=$(delivered vethB)
	ip netns exec vethA "$TOOL" send 192.0.2.2 $PORT 200 $SIZE
	# the traffic went through vb's XDP program into the sink: 200 delivered
	arrived() { [ "$(( $(delivered vethB) - U0 ))" -ge 200 ]; }
	wait_for 5 arrived
	check "the 200 datagrams passed vb's XDP program into the sink (Ip InDelivers of vethB)" \
		"$(( $(delivered vethB) - U0 ))" -eq 200 || { sink_stop; trace_stop; ip netns del vethA; ip netns del vethB; return 0; }
	trace_snap /tmp/veth.trace
	check "veth + XDP makes no page_pool pages here (kernel/matrix: lacks=veth-pp): page_pool_state_hold events" \
		"$(tcount /tmp/veth.trace page_pool_state_hold)" -eq 0
	sink_stop; trace_stop
	ip netns del vethA; ip netns del vethB
	return 0
fi
# shellcheck disable=SC2086 # one argument per event name
trace_start $EVENTS || return 0
[ "$FLAVOR" = patched ] && bpf_start /tmp/veth.bpf
veth_pair vethA va vethB vb || { fail "cannot create the veth pair"; return 0; }
VBX=$(ip -n vethB -o link show vb | cut -d: -f1)
NTF=
# the series link veth's pools to their netdev (page-pool-get lists them);
# other kernels do not (kernel/matrix lacks=veth-pp-netdev)
LISTED=
lacks veth-pp-netdev || { LISTED=1; NTF=/tmp/veth.ntf; nl_monitor_start $NTF vethB; }
ip netns exec vethB "$TOOL" xdp-attach vb || { fail "XDP attach on vb"; return 0; }
sink_start vethB 192.0.2.2 $PORT || { fail "UDP sink did not start"; return 0; }
U0=$(delivered vethB)
ip netns exec vethA "$TOOL" send 192.0.2.2 $PORT $N $SIZE
arrived() { [ "$(( $(delivered vethB) - U0 ))" -ge $N ]; }
wait_for 10 arrived
check "the $N datagrams passed vb's XDP program into the sink (Ip InDelivers of vethB)" \
	"$(( $(delivered vethB) - U0 ))" -eq $N
log "$(ip netns exec vethB cat /proc/net/udp | grep ":$(printf %04X $PORT) " | head -n1)"

case "$LISTED" in
1)
	IDS=$(nl_ids_of_ifindex "$VBX" vethB)
	check "page-pool-get lists the veth pool (series patch 'veth: link page pools to their netdev')" "$(echo "$IDS" | wc -w)" -ge 1 || return 0
	# the busiest pool of vb
	ID=; best=-1
	for i in $IDS; do
		v=$(nl_get pools "$i" inflight vethB)
		[ "${v:-0}" -gt "$best" ] && { best=$v; ID=$i; }
	done
	LINE=$(nl_line pools "$ID" vethB); SLINE=$(nl_line stats "$ID" vethB)
	log "$LINE"; log "$SLINE"
	INFL=$(field "$LINE" inflight)
	;;
esac
if [ "$FLAVOR" = patched ]; then
	# (.napi is the xarray series' patch 1 since the fourth round)
	absent "patched kernel: veth pool $ID has no napi-id (only .netdev is set)" "$(field "$LINE" napi-id)"
	MEMP=$(field "$LINE" item-mem-prealloc)
	MEMD=$(field "$LINE" item-mem-dyn)
	DALLOC=$(field "$SLINE" item-blocks-dyn-alloc)
	DFREE=$(field "$SLINE" item-blocks-dyn-free)
	FE=$(field "$SLINE" alloc-item-fast-empty)
	SF=$(field "$SLINE" alloc-item-slow-failed)
	PRE=$(( ${MEMP:-0} / ITEM_BLOCK_BYTES )); DYN=$(( ${MEMD:-0} / ITEM_BLOCK_BYTES ))
	check "veth pool $ID inflight above the 5 * $ITEMS_PER_BLOCK = 1270 pre-allocated items" "$INFL" -gt $((5 * ITEMS_PER_BLOCK))
	check "veth pool $ID item-mem-prealloc: 5 blocks (1152 items asked for, 1270 held)" "$MEMP" -eq $((5 * ITEM_BLOCK_BYTES))
	check "veth pool $ID item-mem-dyn: dynamic blocks held" "$MEMD" -ge "$ITEM_BLOCK_BYTES"
	check "veth pool $ID item-mem-dyn: whole blocks" "$(( ${MEMD:-1} % ITEM_BLOCK_BYTES ))" -eq 0
	check "veth pool $ID dynamic blocks held = item-blocks-dyn-alloc - item-blocks-dyn-free" "$DYN" -eq $((DALLOC - DFREE))
	check "veth pool $ID dynamic items cover what the pre-allocated ones do not" \
		"$(( (PRE + DYN) * ITEMS_PER_BLOCK ))" -ge "$INFL"
	check "veth pool $ID alloc-item-fast-empty" "$FE" -gt 0
	check "veth pool $ID alloc-item-slow-failed" "$SF" -eq 0
	ADD=$(ntf_line $NTF add "$ID")
	log "$ADD"
	check "page-pool-add-ntf of pool $ID: item-mem-prealloc" "$(field "$ADD" item-mem-prealloc)" -eq "$MEMP"
	check "page-pool-add-ntf of pool $ID: no dynamic block yet" "$(field "$ADD" item-mem-dyn)" -eq 0
	trace_snap /tmp/veth.trace
	TFE=$(tcount /tmp/veth.trace page_pool_item_fast_empty "id=$ID ")
	check "tracepoint page_pool_item_fast_empty for id $ID: once for the one exhaustion (alloc-item-fast-empty=$FE allocations)" "$TFE" -eq 1
	check "tracepoint page_pool_item_block_alloc count for id $ID = item-blocks-dyn-alloc" \
		"$(tcount /tmp/veth.trace page_pool_item_block_alloc "id=$ID ")" -eq "$DALLOC"
	check "tracepoint page_pool_item_block_free count for id $ID = item-blocks-dyn-free" \
		"$(tcount /tmp/veth.trace page_pool_item_block_free "id=$ID ")" -eq "$DFREE"
	LAST=$(grep " page_pool_item_block_alloc: .* id=$ID " /tmp/veth.trace | tail -n1)
	check "last block_alloc event's dyn = dynamic blocks held (no frees since)" \
		"$(echo "$LAST" | sed -n 's/.* dyn=\([0-9]*\).*/\1/p')" -eq "$DYN"
	# what a tp_btf program sees at page_pool_item_block_alloc: a block set up
	# and linked (block->pp = the pool, the DYNAMIC flag, its 254 unissued
	# items counted in block->ref) and the pool's counts
	BA=$(bcount /tmp/veth.bpf block_alloc "$ID")
	check "tp_btf page_pool_item_block_alloc records for id $ID = item-blocks-dyn-alloc" "$BA" -eq "$DALLOC"
	PPTR=$(grep "^block_alloc id=$ID " /tmp/veth.bpf | head -n1 | sed -n 's/.* pool=\([0-9a-f]*\) .*/\1/p')
	check "tp_btf block_alloc: block->pp is the pool (every record)" "$(bcount /tmp/veth.bpf block_alloc "$ID" " pp=$PPTR ")" -eq "$BA"
	check "tp_btf block_alloc: block->flags has the DYNAMIC bit (every record)" "$(bcount /tmp/veth.bpf block_alloc "$ID" ' flags=1 ')" -eq "$BA"
	check "tp_btf block_alloc: block->ref = $ITEMS_PER_BLOCK unissued items (every record)" "$(bcount /tmp/veth.bpf block_alloc "$ID" " ref=$ITEMS_PER_BLOCK ")" -eq "$BA"
	check "tp_btf block_alloc: pool->item_blks_prealloc = 5 (every record)" "$(bcount /tmp/veth.bpf block_alloc "$ID" ' prealloc=5 ')" -eq "$BA"
	check "tp_btf block_alloc: pool->item_blks_dyn = the event's dyn argument (every record)" \
		"$(grep "^block_alloc id=$ID " /tmp/veth.bpf | awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^dyn=/) d = substr($i, 5); if ($i ~ /^arg_dyn=/) a = substr($i, 9) } if (d == a) n++ } END { print n + 0 }')" -eq "$BA"
	check "tp_btf page_pool_item_fast_empty: once, with the pool exhausted" "$(bcount /tmp/veth.bpf fast_empty "$ID" ' exhausted=1 ')" -eq 1
	echo "PPVM-VALUES: veth id=$ID inflight=$INFL item-mem-prealloc=$MEMP item-mem-dyn=$MEMD item-blocks-dyn-alloc=$DALLOC item-blocks-dyn-free=$DFREE alloc-item-fast-empty=$FE alloc-item-slow-failed=$SF trace-fast-empty=$TFE tp_btf-block_alloc=$BA $(echo "$LAST" | sed -n 's/.*\(block=[^ ]*\).*/first-\1/p')"
	# --- ppwatch cross-check (extend here: item stats and block counts) ---
	if ppw_snap; then
		check "ppwatch: pool $ID state" "$(ppw_pool "$ID" state)" = live
		check "ppwatch: pool $ID inflight >= netlink's" "$(ppw_pool "$ID" inflight)" -ge "$INFL"
		# proposed JSON (kernel/README.md): .items = {blocks_prealloc,
		# blocks_dyn, blocks_dyn_alloc, blocks_dyn_free, fast_empty, slow_failed}
		if ppw_has items; then
			check "ppwatch: pool $ID items.fast_empty = netlink" "$(ppw_pool "$ID" items.fast_empty)" -eq "$FE"
			check "ppwatch: pool $ID items.slow_failed = netlink" "$(ppw_pool "$ID" items.slow_failed)" -eq "$SF"
			check "ppwatch: pool $ID items.blocks_prealloc = netlink item-mem-prealloc in blocks" "$(ppw_pool "$ID" items.blocks_prealloc)" -eq "$PRE"
			check "ppwatch: pool $ID items.blocks_dyn_alloc = netlink" "$(ppw_pool "$ID" items.blocks_dyn_alloc)" -eq "$DALLOC"
		else
			fail "ppwatch: pool $ID has no .items in 'pools -j' on a kernel with item stats (alloc-item-fast-empty=$FE)"
		fi
	fi
elif [ "$FLAVOR" = xarray ]; then
	check "veth pool $ID napi-id (xarray patch 1 'veth: let page pools recycle directly')" "$(field "$LINE" napi-id)" -gt 0
	absent "xarray kernel: no item memory" "$(field "$LINE" item-mem-prealloc)"
	check "veth pool $ID alloc-dma-index-failed (veth does not DMA-map)" "$(field "$SLINE" alloc-dma-index-failed)" -eq 0
	check "veth pool $ID alloc-dma-map-failed (veth does not DMA-map)" "$(field "$SLINE" alloc-dma-map-failed)" -eq 0
	check "page-pool-add-ntf for the veth pool $ID" "$(ntf_line $NTF add "$ID" | wc -l)" -eq 1
	echo "PPVM-VALUES: veth id=$ID inflight=$INFL (xarray: listed by netlink, no item blocks)"
elif [ -z "$LISTED" ]; then
	# (where there is a netdev page-pool family to ask)
	lacks pp-netlink || absent "$FLAVOR kernel (lacks=veth-pp-netdev): veth pools have no netdev, page-pool-get does not list them" \
		"$(nl_ids_of_ifindex "$VBX" vethB)"
fi

# detach XDP while the socket holds the pages: zombie pool
ip netns exec vethB "$TOOL" xdp-detach vb || fail "XDP detach on vb"
destroyed() { trace_snap /tmp/veth.trace; [ -n "$(trace_release_ptr_min /tmp/veth.trace 1000)" ]; }
wait_for 10 destroyed
PTR=$(trace_release_ptr_min /tmp/veth.trace 1000)
check "page_pool_release reports a destroyed veth pool with >= 1000 pages in flight" "${PTR:+1}" = 1 || { sink_stop; return 0; }
RINFL=$(trace_release_inflight /tmp/veth.trace "$PTR")
case "$LISTED" in
1)
	LINE=$(nl_line pools "$ID" vethB)
	log "$LINE"
	check "zombie veth pool $ID has detach-time" "$(field "$LINE" detach-time)" -gt 0
	check "zombie veth pool $ID: netlink inflight = page_pool_release inflight" "$(field "$LINE" inflight)" -eq "$RINFL"
	has_event page_pool_destroy_unmap && check "no page_pool_destroy_unmap for veth (not DMA-mapped)" \
		"$(tcount /tmp/veth.trace page_pool_destroy_unmap "id=$ID ")" -eq 0
	;;
esac
if [ "$FLAVOR" = patched ]; then
	check "page_pool_release pointer is pool $ID's" "$PTR" = "$(grep " page_pool_item_block_alloc: .* id=$ID " /tmp/veth.trace | head -n1 | sed -n 's/.* page_pool=\([^ ]*\) .*/\1/p')"
	SLINE=$(nl_line stats "$ID" vethB)
	ZALLOC=$(field "$SLINE" item-blocks-dyn-alloc); ZFREE=$(field "$SLINE" item-blocks-dyn-free)
	ZDYN=$(( $(field "$LINE" item-mem-dyn) / ITEM_BLOCK_BYTES ))
	check "zombie pool $ID: dynamic blocks held = dyn-alloc - dyn-free" "$ZDYN" -eq $((ZALLOC - ZFREE))
	# per-block occupancy, walked by the tp_btf program at each page_pool_release
	wait_for 4 grep -q "^blocks id=$ID .* inflight=$RINFL " /tmp/veth.bpf
	BL=$(grep "^blocks id=$ID " /tmp/veth.bpf | tail -n1)
	log "$BL"
	check "tp_btf block walk of pool $ID saw the whole list" "$(field "$BL" complete)" -eq 1
	check "tp_btf block walk of pool $ID: blocks = pre-allocated + dynamic" "$(field "$BL" n)" -eq $((PRE + ZDYN))
	check "tp_btf block walk of pool $ID: items in use over all blocks = pages in flight" "$(field "$BL" inuse)" -eq "$RINFL"
	OCC=$(grep "^block id=$ID " /tmp/veth.bpf | tail -n $((PRE + ZDYN)) | awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^flags=/) f = substr($i, 7); if ($i ~ /^inuse=/) u = substr($i, 7) } printf "%s%s:%s", (n++ ? "," : ""), (f % 2 ? "dyn" : "pre"), u }')
	echo "PPVM-VALUES: veth-zombie id=$ID inflight=$RINFL blocks=$((PRE + ZDYN)) in-use-per-block=$OCC"
fi
# --- ppwatch cross-check (extend here) ---
case "$LISTED" in
1)
	# the zombie in 'pools -j' and, on patched, its blocks: one load each,
	# side by side
	ppw_par zpools pools -j
	BZ=
	[ "$FLAVOR" = patched ] && { ppw_par blocks_z blocks "$ID" -j; BZ=blocks_z; }
	ppw_par_wait zpools $BZ
	ppw_rc zpools
	if ppw_ok zpools "ppwatch pools -j (the zombie)"; then
		cp /tmp/zpools.out /tmp/ppw.json
		check "ppwatch: pool $ID state" "$(ppw_pool "$ID" state)" = zombie
		check "ppwatch: pool $ID inflight" "$(ppw_pool "$ID" inflight)" -eq "$RINFL"
		check "ppwatch: pool $ID is the one page_pool_release names" "$(ppw_pool "$ID" addr)" = "$(ppw_addr "$PTR")"
	fi
	# per-block occupancy (issue 11): 'ppwatch blocks ID' walks the same list
	# as ppvm-bpf's tp_btf program; the same blocks with the same items in use
	if [ "$FLAVOR" = patched ]; then
		ppw_rc blocks_z
		if ppw_ok blocks_z "ppwatch blocks $ID -j"; then
			check "ppwatch blocks $ID: items in use over the blocks = pages in flight" \
				"$(jq '[.pools[0].blocks[].used] | add' /tmp/blocks_z.out)" -eq "$RINFL"
			check "ppwatch blocks $ID: blocks = pre-allocated + dynamic" \
				"$(jq '.pools[0].blocks | length' /tmp/blocks_z.out)" -eq $((PRE + ZDYN))
			PW=$(jq -r '[.pools[0].blocks[] | "\(if .kind == "dynamic" then "dyn" else "pre" end):\(.used)"] | sort | join(",")' /tmp/blocks_z.out)
			check "ppwatch blocks $ID: per block (kind:used, sorted) = the tp_btf walk's" \
				"$PW" = "$(echo "$OCC" | tr ',' '\n' | sort | tr '\n' ',' | sed 's/,$//')"
		fi
	fi
	;;
*)
	# who holds the zombie's pages: the sink's socket, every one of them;
	# 'holders -j' of every pool, the zombie found by its address (one load
	# for the pool's state, inflight and holders)
	ppw vholders holders -j
	if ppw_ok vholders "ppwatch holders -j"; then
		ZA=$(ppw_addr "$PTR")
		check "ppwatch holders: the pool page_pool_release names ($ZA) is a zombie" "$(jpool /tmp/vholders.out "$ZA" state)" = zombie
		check "ppwatch holders: the zombie veth pool's inflight" "$(jpool /tmp/vholders.out "$ZA" inflight)" -eq "$RINFL"
		H=$(jq -c --arg a "$ZA" '[.pools[] | select(.addr == $a)][0].holders | map(select(.kind == "socket"))[0]' /tmp/vholders.out)
		log "holder: $H"
		check "ppwatch holders: the UDP socket on 192.0.2.2:$PORT" "$(echo "$H" | jq -r .local)" = "192.0.2.2:$PORT"
		check "ppwatch holders: its pages = the pool's inflight" "$(echo "$H" | jq -r .pages)" -eq "$RINFL"
		check "ppwatch holders: its process" "$(echo "$H" | jq -r '.owners[0].comm')" = ppvm-tool
		check "ppwatch holders: unattributed" "$(jpool /tmp/vholders.out "$ZA" unattributed)" -eq 0
	fi
	;;
esac
if [ "$FLAVOR" = patched ]; then
	SLINE=$(nl_line stats "$ID" vethB)
	FREE_BEFORE=$(field "$SLINE" item-blocks-dyn-free)
fi
sink_stop
freed() { trace_snap /tmp/veth.trace; [ "$(trace_release_inflight /tmp/veth.trace "$PTR")" = 0 ]; }
if wait_for 6 freed; then pass "zombie veth pool freed after the socket closed (page_pool_release inflight=0)"; else fail "zombie veth pool not freed 6 s after the socket closed"; fi
case "$LISTED" in
1)
	absent "pool $ID gone from page-pool-get" "$(nl_line pools "$ID" vethB)"
	wait_for 5 grep -q "^ntf del id=$ID " $NTF
	nl_monitor_stop
	DEL=$(ntf_line $NTF del "$ID")
	log "$DEL"
	check "page-pool-del-ntf for pool $ID" "${DEL:+1}" = 1
	;;
esac
if [ "$FLAVOR" = patched ]; then
	bpf_stop
	DALLOC=$(tcount /tmp/veth.trace page_pool_item_block_alloc "id=$ID ")
	DFREE_ALL=$(tcount /tmp/veth.trace page_pool_item_block_free "id=$ID ")
	check "every dynamic block of pool $ID freed (block_free events = block_alloc events)" "$DFREE_ALL" -eq "$DALLOC"
	check "page-pool-del-ntf of pool $ID: item-mem-prealloc (the blocks held until the end)" "$(field "$DEL" item-mem-prealloc)" -eq "$MEMP"
	check "page-pool-del-ntf of pool $ID: item-mem-dyn = dynamic blocks freed with the pool" \
		"$(field "$DEL" item-mem-dyn)" -eq $(( (DFREE_ALL - FREE_BEFORE) * ITEM_BLOCK_BYTES ))
	check "tp_btf block_free records for id $ID = block_free events" "$(bcount /tmp/veth.bpf block_free "$ID")" -eq "$DFREE_ALL"
	check "tp_btf block_free: no item of a freed block in use (ref=0, every record)" "$(bcount /tmp/veth.bpf block_free "$ID" ' ref=0 ')" -eq "$DFREE_ALL"
	echo "PPVM-VALUES: veth-freed id=$ID ntf-del-item-mem-prealloc=$(field "$DEL" item-mem-prealloc) ntf-del-item-mem-dyn=$(field "$DEL" item-mem-dyn) block_alloc=$DALLOC block_free=$DFREE_ALL"
fi
trace_stop
ip netns del vethA; ip netns del vethB
