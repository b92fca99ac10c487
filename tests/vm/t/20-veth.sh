# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# veth + XDP: a busy pool. 2000 datagrams of 2000 bytes (one page each) held
# in a non-reading socket run the pool (pool_size 256: 1152 pre-allocated
# items, 5 blocks) out of pre-allocated items, so it allocates dynamic item
# blocks. Netlink, the tracepoints and ppwatch must agree on the counts.
# Then the XDP program is detached while the socket still holds the pages:
# the pool becomes a zombie, and frees when the socket closes.
N=2000; SIZE=2000; PORT=5001
EVENTS="page_pool_item_block_alloc page_pool_item_block_free page_pool_item_fast_empty page_pool_item_slow_failed page_pool_release page_pool_destroy_unmap"
if lacks veth-pp; then
	# before "net: veth: add page_pool for page recycling" (v6.6) veth's XDP
	# path copies into pages of its own: no page_pool, no events
	trace_start page_pool_state_hold page_pool_release
	veth_pair vethA va vethB vb || { fail "cannot create the veth pair"; return 0; }
	ip netns exec vethB $TOOL xdp-attach vb || { fail "XDP attach on vb"; return 0; }
	sink_start vethB 192.0.2.2 $PORT || { fail "UDP sink did not start"; return 0; }
	ip netns exec vethA $TOOL send 192.0.2.2 $PORT 200 $SIZE
	sleep 1
	trace_snap /tmp/veth.trace
	check "veth + XDP makes no page_pool pages here (kernel/matrix: lacks=veth-pp): page_pool_state_hold events" \
		"$(tcount /tmp/veth.trace page_pool_state_hold)" -eq 0
	sink_stop; trace_stop
	ip netns del vethA; ip netns del vethB
	return 0
fi
trace_start $EVENTS
veth_pair vethA va vethB vb || { fail "cannot create the veth pair"; return 0; }
VBX=$(ip -n vethB -o link show vb | cut -d: -f1)
ip netns exec vethB $TOOL xdp-attach vb || { fail "XDP attach on vb"; return 0; }
sink_start vethB 192.0.2.2 $PORT || { fail "UDP sink did not start"; return 0; }
ip netns exec vethA $TOOL send 192.0.2.2 $PORT $N $SIZE
sleep 1
log "$(ip netns exec vethB cat /proc/net/udp | grep ":$(printf %04X $PORT) " | head -n1)"

if [ "$FLAVOR" = patched ]; then
	IDS=$(nl_ids_of_ifindex $VBX vethB)
	check "page-pool-get lists the veth pool (series patch 'veth: link page pools')" "$(echo $IDS | wc -w)" -ge 1 || return 0
	# the busiest pool of vb
	ID=; best=-1
	for i in $IDS; do
		v=$(nl_get pools $i inflight vethB)
		[ "${v:-0}" -gt "$best" ] && { best=$v; ID=$i; }
	done
	LINE=$(nl_line pools $ID vethB); SLINE=$(nl_line stats $ID vethB)
	log "$LINE"; log "$SLINE"
	INFL=$(field "$LINE" inflight)
	PRE=$(field "$LINE" item-blocks-prealloc)
	DYN=$(field "$LINE" item-blocks-dyn)
	DALLOC=$(field "$LINE" item-blocks-dyn-alloc)
	DFREE=$(field "$LINE" item-blocks-dyn-free)
	FE=$(field "$SLINE" alloc-item-fast-empty)
	SF=$(field "$SLINE" alloc-item-slow-failed)
	check "veth pool $ID inflight above the 1270 pre-allocated items" "$INFL" -gt 1270
	check "veth pool $ID item-blocks-prealloc (pool_size 256: 1152 items)" "$PRE" -eq 5
	check "veth pool $ID item-blocks-dyn" "$DYN" -ge 1
	check "veth pool $ID item-blocks-dyn-alloc" "$DALLOC" -ge "$DYN"
	check "veth pool $ID dyn = dyn-alloc - dyn-free" "$DYN" -eq $((DALLOC - DFREE))
	check "veth pool $ID alloc-item-fast-empty" "$FE" -gt 0
	check "veth pool $ID alloc-item-slow-failed" "$SF" -eq 0
	trace_snap /tmp/veth.trace
	check "tracepoint page_pool_item_fast_empty count for id $ID = alloc-item-fast-empty" \
		"$(tcount /tmp/veth.trace page_pool_item_fast_empty "id=$ID ")" -eq "$FE"
	check "tracepoint page_pool_item_block_alloc dynamic=1 count for id $ID = item-blocks-dyn-alloc" \
		"$(tcount /tmp/veth.trace page_pool_item_block_alloc "id=$ID block=.* dynamic=1")" -eq "$DALLOC"
	check "tracepoint page_pool_item_block_alloc dynamic=0 count for id $ID = item-blocks-prealloc" \
		"$(tcount /tmp/veth.trace page_pool_item_block_alloc "id=$ID block=.* dynamic=0")" -eq "$PRE"
	check "tracepoint page_pool_item_block_free dynamic=1 count for id $ID = item-blocks-dyn-free" \
		"$(tcount /tmp/veth.trace page_pool_item_block_free "id=$ID block=.* dynamic=1")" -eq "$DFREE"
	LAST=$(grep " page_pool_item_block_alloc: .* id=$ID .*dynamic=1" /tmp/veth.trace | tail -n1)
	check "last dynamic block_alloc event's running dyn count = item-blocks-dyn (no frees since)" \
		"$(echo "$LAST" | sed -n 's/.* dyn=\([0-9]*\).*/\1/p')" -ge "$DYN"
	echo "PPVM-VALUES: veth id=$ID inflight=$INFL item-blocks-prealloc=$PRE item-blocks-dyn=$DYN item-blocks-dyn-alloc=$DALLOC item-blocks-dyn-free=$DFREE alloc-item-fast-empty=$FE alloc-item-slow-failed=$SF trace-fast-empty=$(tcount /tmp/veth.trace page_pool_item_fast_empty "id=$ID ")"
	# --- ppwatch cross-check (extend here: item stats and block counts) ---
	if ppw_snap; then
		check "ppwatch: pool $ID state" "$(ppw_pool $ID state)" = live
		check "ppwatch: pool $ID inflight >= netlink's" "$(ppw_pool $ID inflight)" -ge "$INFL"
		# proposed JSON (kernel/README.md): .items = {blocks_prealloc,
		# blocks_dyn, blocks_dyn_alloc, blocks_dyn_free, fast_empty, slow_failed}
		if ppw_has items; then
			check "ppwatch: pool $ID items.fast_empty = netlink" "$(ppw_pool $ID items.fast_empty)" -eq "$FE"
			check "ppwatch: pool $ID items.slow_failed = netlink" "$(ppw_pool $ID items.slow_failed)" -eq "$SF"
			check "ppwatch: pool $ID items.blocks_prealloc = netlink" "$(ppw_pool $ID items.blocks_prealloc)" -eq "$PRE"
			check "ppwatch: pool $ID items.blocks_dyn_alloc = netlink" "$(ppw_pool $ID items.blocks_dyn_alloc)" -eq "$DALLOC"
		else
			skip "ppwatch cross-check: 'ppwatch pools -j' has no .items (item stats) yet"
		fi
	fi
else
	absent "$FLAVOR kernel: veth pools have no netdev, page-pool-get does not list them" \
		"$(nl_ids_of_ifindex $VBX vethB)"
fi

# detach XDP while the socket holds the pages: zombie pool
ip netns exec vethB $TOOL xdp-detach vb || fail "XDP detach on vb"
sleep 1.5
trace_snap /tmp/veth.trace
PTR=$(trace_release_ptr_min /tmp/veth.trace 1000)
check "page_pool_release reports a destroyed veth pool with >= 1000 pages in flight" "${PTR:+1}" = 1 || { sink_stop; return 0; }
RINFL=$(trace_release_inflight /tmp/veth.trace $PTR)
if [ "$FLAVOR" = patched ]; then
	LINE=$(nl_line pools $ID vethB)
	log "$LINE"
	check "zombie veth pool $ID has detach-time" "$(field "$LINE" detach-time)" -gt 0
	check "zombie veth pool $ID: netlink inflight = page_pool_release inflight" "$(field "$LINE" inflight)" -eq "$RINFL"
	check "page_pool_release pointer is pool $ID's" "$PTR" = "$(trace_ptr_of_id /tmp/veth.trace $ID)"
	check "no page_pool_destroy_unmap for veth (not DMA-mapped)" \
		"$(tcount /tmp/veth.trace page_pool_destroy_unmap "id=$ID ")" -eq 0
fi
# --- ppwatch cross-check (extend here) ---
if ppw_snap; then
	if [ "$FLAVOR" = patched ]; then
		check "ppwatch: pool $ID state" "$(ppw_pool $ID state)" = zombie
		check "ppwatch: pool $ID inflight" "$(ppw_pool $ID inflight)" -eq "$RINFL"
	else
		ZID=$(ppw_find ".state == \"zombie\" and .inflight == $RINFL" id)
		check "ppwatch: a zombie pool with inflight $RINFL" "$ZID" -gt 0
		# item stats do not exist here: "not available", never 0
		if ppw_has items; then
			absent "ppwatch: $FLAVOR kernel: pool $ZID .items is null" "$(ppw_pool "${ZID:-0}" items)"
		fi
	fi
fi
sink_stop
freed() { trace_snap /tmp/veth.trace; [ "$(trace_release_inflight /tmp/veth.trace $PTR)" = 0 ]; }
if wait_for 6 freed; then pass "zombie veth pool freed after the socket closed (page_pool_release inflight=0)"; else fail "zombie veth pool not freed 6 s after the socket closed"; fi
if [ "$FLAVOR" = patched ]; then
	absent "pool $ID gone from page-pool-get" "$(nl_line pools $ID vethB)"
	DALLOC=$(tcount /tmp/veth.trace page_pool_item_block_alloc "id=$ID block=.* dynamic=1")
	check "every block of pool $ID freed (block_free events = prealloc + dynamic allocs)" \
		"$(tcount /tmp/veth.trace page_pool_item_block_free "id=$ID ")" -eq $((PRE + DALLOC))
fi
trace_stop
ip netns del vethA; ip netns del vethB
