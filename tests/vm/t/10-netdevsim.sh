# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# netdevsim: its pools are listed by page-pool-get with the new attributes;
# pp_hold + link down leaves a zombie (detached) pool that frees once the
# page is released.
SYS=/sys/bus/netdevsim
if lacks netdevsim; then
	absent "netdevsim: the matrix says this kernel has none" "$(ls -d $SYS 2>/dev/null)"
	return 0
fi
[ -d $SYS ] || { fail "no netdevsim (CONFIG_NETDEVSIM), and kernel/matrix does not say lacks=netdevsim"; return 0; }
trace_start page_pool_item_block_alloc page_pool_item_block_free page_pool_release page_pool_destroy_unmap
echo "11 1 1" >$SYS/new_device
wait_for 5 ls /sys/bus/netdevsim/devices/netdevsim11/net/ >/dev/null 2>&1
DEV=$(ls /sys/bus/netdevsim/devices/netdevsim11/net/ 2>/dev/null | head -n1)
[ -n "$DEV" ] || { fail "netdevsim11 has no netdev"; return 0; }
ip link set "$DEV" up
IFX=$(cat /sys/class/net/$DEV/ifindex)
ID=$(nl_ids_of_ifindex $IFX | head -n1)
check "page-pool-get lists a pool of netdevsim $DEV (ifindex $IFX)" "${ID:-0}" -gt 0 || return 0
LINE=$(nl_line pools $ID)
log "$LINE"
log "$(nl_line stats $ID)"
if [ "$FLAVOR" = patched ]; then
	PRE=$(field "$LINE" item-blocks-prealloc)
	check "netdevsim pool $ID item-blocks-prealloc" "$PRE" -gt 0
	check "netdevsim pool $ID item-blocks-dyn" "$(field "$LINE" item-blocks-dyn)" -eq 0
	check "netdevsim pool $ID item-blocks-dyn-alloc" "$(field "$LINE" item-blocks-dyn-alloc)" -eq 0
	check "netdevsim pool $ID item-blocks-dyn-free" "$(field "$LINE" item-blocks-dyn-free)" -eq 0
	check "netdevsim pool $ID alloc-item-fast-empty" "$(nl_get stats $ID alloc-item-fast-empty)" -eq 0
	check "netdevsim pool $ID alloc-item-slow-failed" "$(nl_get stats $ID alloc-item-slow-failed)" -eq 0
	trace_snap /tmp/nsim.trace
	check "page_pool_item_block_alloc events (static) for id $ID = item-blocks-prealloc" \
		"$(tcount /tmp/nsim.trace page_pool_item_block_alloc "id=$ID block=.* dynamic=0")" -eq "$PRE"
else
	absent "$FLAVOR kernel: item-blocks-prealloc" "$(field "$LINE" item-blocks-prealloc)"
	absent "$FLAVOR kernel: alloc-item-fast-empty" "$(nl_get stats $ID alloc-item-fast-empty)"
fi

# hold a page, take the link down: the pool is destroyed but waits for it
PPH=/sys/kernel/debug/netdevsim/netdevsim11/ports/0/pp_hold
echo y >$PPH || { fail "cannot write $PPH"; return 0; }
ip link set "$DEV" down
LINE=$(nl_line pools $ID)
log "$LINE"
check "zombie pool $ID has detach-time" "$(field "$LINE" detach-time)" -gt 0
check "zombie pool $ID inflight" "$(field "$LINE" inflight)" -eq 1
# --- ppwatch cross-check (extend here) ---
if ppw_snap; then
	check "ppwatch: pool $ID state" "$(ppw_pool $ID state)" = zombie
	check "ppwatch: pool $ID inflight" "$(ppw_pool $ID inflight)" -eq 1
fi
echo n >$PPH
gone() { [ -z "$(nl_line pools $ID)" ]; }
if wait_for 5 gone; then pass "pool $ID freed after pp_hold released"; else fail "pool $ID still listed 5 s after pp_hold released"; fi
if [ "$FLAVOR" = patched ]; then
	trace_snap /tmp/nsim.trace
	check "page_pool_item_block_free events for id $ID = item-blocks-prealloc" \
		"$(tcount /tmp/nsim.trace page_pool_item_block_free "id=$ID ")" -eq "$PRE"
	check "no page_pool_destroy_unmap for id $ID (netdevsim does not DMA-map)" \
		"$(tcount /tmp/nsim.trace page_pool_destroy_unmap "id=$ID ")" -eq 0
fi
trace_stop
echo 11 >$SYS/del_device
