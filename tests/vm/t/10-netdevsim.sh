# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# netdevsim: its pools are listed by page-pool-get with the new attributes;
# pp_hold + link down leaves a zombie (detached) pool that frees once the
# page is released. The page-pool add/change/del notifications carry the
# same attributes (patched: the item memory the pool holds, del included).
SYS=/sys/bus/netdevsim
if lacks netdevsim; then
	# the kernel's own configuration: not built in, and no module of it
	# the rig could have left out of the guest (modules= loads only some)
	[ -f /vm/kernel.config ] ||
		{ fail "no /vm/kernel.config: the kernel's own configuration is what lacks=netdevsim is held to"; return 0; }
	v=$(kconfig CONFIG_NETDEVSIM)
	check "lacks=netdevsim: the kernel's config has no CONFIG_NETDEVSIM (neither built in nor a module)" "${v:-unset}" = unset
	absent "lacks=netdevsim: no netdevsim bus" "$(ls -d $SYS 2>/dev/null)"
	return 0
fi
[ -d $SYS ] || { fail "no netdevsim (CONFIG_NETDEVSIM), and kernel/matrix does not say lacks=netdevsim"; return 0; }
trace_start page_pool_item_block_alloc page_pool_item_block_free page_pool_release page_pool_destroy_unmap || return 0
NTF=
lacks pp-netlink || { NTF=/tmp/nsim.ntf; nl_monitor_start $NTF; }
echo "11 1 1" >$SYS/new_device
wait_for 5 ls /sys/bus/netdevsim/devices/netdevsim11/net/ >/dev/null 2>&1
DEV=$(first_name /sys/bus/netdevsim/devices/netdevsim11/net/*)
[ -n "$DEV" ] || { fail "netdevsim11 has no netdev"; return 0; }
ip link set "$DEV" up
IFX=$(cat "/sys/class/net/$DEV/ifindex")
ID=$(nl_ids_of_ifindex "$IFX" | head -n1)
check "page-pool-get lists a pool of netdevsim $DEV (ifindex $IFX)" "${ID:-0}" -gt 0 || return 0
LINE=$(nl_line pools "$ID")
log "$LINE"
log "$(nl_line stats "$ID")"
if [ "$FLAVOR" = patched ]; then
	MEMP=$(field "$LINE" item-mem-prealloc)
	check "netdevsim pool $ID item-mem-prealloc: at least one block" "$MEMP" -ge "$ITEM_BLOCK_BYTES"
	check "netdevsim pool $ID item-mem-prealloc: whole blocks" "$(( ${MEMP:-1} % ITEM_BLOCK_BYTES ))" -eq 0
	check "netdevsim pool $ID item-mem-dyn" "$(field "$LINE" item-mem-dyn)" -eq 0
	SLINE=$(nl_line stats "$ID")
	for a in alloc-item-fast-empty alloc-item-slow-failed item-blocks-dyn-alloc item-blocks-dyn-free; do
		check "netdevsim pool $ID $a" "$(field "$SLINE" $a)" -eq 0
	done
	trace_snap /tmp/nsim.trace
	# pre-allocated blocks are not announced: no event before the pool had an id
	check "no page_pool_item_block_alloc event for the pre-allocated blocks of id $ID" \
		"$(tcount /tmp/nsim.trace page_pool_item_block_alloc "id=$ID ")" -eq 0
else
	absent "$FLAVOR kernel: item-mem-prealloc" "$(field "$LINE" item-mem-prealloc)"
	absent "$FLAVOR kernel: alloc-item-fast-empty" "$(nl_get stats "$ID" alloc-item-fast-empty)"
fi
if [ "$FLAVOR" = xarray ]; then
	check "netdevsim pool $ID alloc-dma-index-failed (no DMA mapping)" "$(nl_get stats "$ID" alloc-dma-index-failed)" -eq 0
	check "netdevsim pool $ID alloc-dma-map-failed (no DMA mapping)" "$(nl_get stats "$ID" alloc-dma-map-failed)" -eq 0
else
	absent "$FLAVOR kernel: alloc-dma-index-failed" "$(nl_get stats "$ID" alloc-dma-index-failed)"
	absent "$FLAVOR kernel: alloc-dma-map-failed" "$(nl_get stats "$ID" alloc-dma-map-failed)"
fi

# hold a page, take the link down: the pool is destroyed but waits for it
PPH=/sys/kernel/debug/netdevsim/netdevsim11/ports/0/pp_hold
echo y >$PPH || { fail "cannot write $PPH"; return 0; }
ip link set "$DEV" down
LINE=$(nl_line pools "$ID")
log "$LINE"
check "zombie pool $ID has detach-time" "$(field "$LINE" detach-time)" -gt 0
check "zombie pool $ID inflight" "$(field "$LINE" inflight)" -eq 1
# --- ppwatch cross-check (extend here) ---
if ppw_snap; then
	check "ppwatch: pool $ID state" "$(ppw_pool "$ID" state)" = zombie
	check "ppwatch: pool $ID inflight" "$(ppw_pool "$ID" inflight)" -eq 1
fi
echo n >$PPH
gone() { [ -z "$(nl_line pools "$ID")" ]; }
if wait_for 5 gone; then pass "pool $ID freed after pp_hold released"; else fail "pool $ID still listed 5 s after pp_hold released"; fi
trace_snap /tmp/nsim.trace
if [ "$FLAVOR" = patched ]; then
	check "no page_pool_item_block_free event for id $ID (only dynamic blocks are announced)" \
		"$(tcount /tmp/nsim.trace page_pool_item_block_free "id=$ID ")" -eq 0
fi
has_event page_pool_destroy_unmap && check "no page_pool_destroy_unmap for id $ID (netdevsim does not DMA-map)" \
	"$(tcount /tmp/nsim.trace page_pool_destroy_unmap "id=$ID ")" -eq 0
if [ -n "$NTF" ]; then
	nl_monitor_stop
	ADD=$(ntf_line $NTF add "$ID"); CHG=$(ntf_line $NTF change "$ID"); DEL=$(ntf_line $NTF del "$ID")
	log "$ADD"; log "$CHG"; log "$DEL"
	check "page-pool-add-ntf for pool $ID" "${ADD:+1}" = 1
	check "page-pool-change-ntf (detach) for pool $ID with detach-time" "$(field "$CHG" detach-time)" -gt 0
	check "page-pool-del-ntf for pool $ID" "${DEL:+1}" = 1
	if [ "$FLAVOR" = patched ]; then
		for n in add change del; do
			L=$(ntf_line $NTF $n "$ID")
			check "page-pool-$n-ntf of pool $ID: item-mem-prealloc = page-pool-get's" "$(field "$L" item-mem-prealloc)" -eq "$MEMP"
			check "page-pool-$n-ntf of pool $ID: item-mem-dyn" "$(field "$L" item-mem-dyn)" -eq 0
		done
		echo "PPVM-VALUES: netdevsim id=$ID ntf-add-item-mem-prealloc=$(field "$ADD" item-mem-prealloc) ntf-del-item-mem-prealloc=$(field "$DEL" item-mem-prealloc) blocks=$((MEMP / ITEM_BLOCK_BYTES))"
	else
		absent "$FLAVOR kernel: page-pool-del-ntf has no item memory" "$(field "$DEL" item-mem-prealloc)"
	fi
fi
trace_stop
echo 11 >$SYS/del_device
