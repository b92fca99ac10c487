# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# The guest's own NIC: virtio_net allocates its receive buffers from page
# pools since 24fbd3967f3f "virtio_net: add page_pool support for buffer
# allocation" (v7.1), one per rx queue, created at probe with no XDP
# involved: a real driver pool that is there from boot. The rig puts a
# virtio-net NIC on the hub of the two vmxnet3 NICs: N datagrams from a
# vmxnet3 NIC (in a netns of its own) to a non-reading socket behind it:
# the kernel's inflight (page-pool-get) and ppwatch's agree; unbinding the
# virtio device destroys its pool with the socket's pages in flight (a
# zombie, exactly those pages: 'holders' names the socket and its
# process), which frees when the socket closes.
#
# The receiver stays in the initial netns: moving a device to another
# netns is an unregister to page_pool (NETDEV_UNREGISTER), which hands its
# pools to the old netns' loopback for good, as if the device were gone
# (page_pool_unreg_netdev()); page-pool-get then lists them under lo.
N=600; SIZE=1000; PORT=5045
lacks virtio-net && { skip lacks=virtio-net "no virtio_net driver on $FLAVOR (kernel/matrix lacks=virtio-net)"; return 0; }
# the receiver: the rig's second virtio-net NIC, on the vmxnet3 hub
set -- /sys/bus/virtio/drivers/virtio_net/virtio*
if [ $# -lt 2 ] || [ ! -e "$2" ]; then fail "needs the rig's two virtio-net NICs (found: $*)"; return 0; fi
VB=$(basename "$2"); IB=$(first_name "$2/net/"*)
# the sender: the first vmxnet3 NIC
set -- /sys/bus/pci/drivers/vmxnet3/0000:*/net/*
IA=$(basename "$1")
log "virtio-net $VB=$IB receives from vmxnet3 $IA"
[ -e "/sys/class/net/$IA" ] || { fail "no vmxnet3 NIC to send from (found '$IA')"; return 0; }
if ! ip netns add vioA; then fail "netns vioA"; return 0; fi
ip link set "$IA" netns vioA
ip -n vioA addr add 203.0.113.1/24 dev "$IA"; ip -n vioA link set "$IA" up
ip addr add 203.0.113.2/24 dev "$IB"; ip link set "$IB" up
IFX=$(cat "/sys/class/net/$IB/ifindex")
if lacks virtio-pp; then
	# before v7.1 virtio_net fills its rings from the page allocator: N
	# datagrams arrive through it, and no page_pool page is held or freed
	trace_start page_pool_state_hold page_pool_state_release
	$TOOL sink 203.0.113.2 $PORT >/tmp/sink.$PORT.log 2>&1 &
	# shellcheck disable=SC2034 # sink_stop (lib.sh) stops it
	SINK=$!
	wait_for 5 grep -q ready /tmp/sink.$PORT.log || { fail "UDP sink did not start"; ip netns del vioA; return 0; }
	U0=$(delivered)
	ip netns exec vioA "$TOOL" send 203.0.113.2 $PORT $N $SIZE
	arrived() { [ "$(( $(delivered) - U0 ))" -ge $N ]; }
	wait_for 10 arrived
	trace_snap /tmp/vio.trace
	check "the $N datagrams arrived through virtio_net $IB (Ip InDelivers)" "$(( $(delivered) - U0 ))" -eq $N &&
	check "virtio_net uses no page_pool here (kernel/matrix lacks=virtio-pp): page_pool_state_hold events during its traffic" \
		"$(tcount /tmp/vio.trace page_pool_state_hold)" -eq 0
	lacks pp-netlink || absent "virtio_net uses no page_pool here: page-pool-get of $IB" "$(nl_ids_of_ifindex "$IFX")"
	sink_stop
	trace_stop
	ip netns del vioA
	return 0
fi
ID=$(nl_ids_of_ifindex "$IFX" | head -n1)
check "page-pool-get lists the pool of virtio_net $IB (a driver pool, no XDP)" "${ID:-0}" -gt 0 ||
	{ log "$(nl_pools)"; ip netns del vioA; return 0; }
trace_start page_pool_release
# the sink in the initial netns: sink_start's 'ip netns exec' wants a netns
$TOOL sink 203.0.113.2 $PORT >/tmp/sink.$PORT.log 2>&1 &
# shellcheck disable=SC2034 # sink_stop (lib.sh) stops it
SINK=$!
wait_for 5 grep -q ready /tmp/sink.$PORT.log || { fail "UDP sink did not start"; return 0; }
# one ppwatch for the pool's whole life here: 'top -b -j' every second,
# live, then the zombie (no load of its own for each)
ppw_bg vtop top -b -j -a 1 120
U0=$(delivered)
ip netns exec vioA "$TOOL" send 203.0.113.2 $PORT $N $SIZE
arrived() { [ "$(( $(delivered) - U0 ))" -ge $N ]; }
wait_for 10 arrived
check "the $N datagrams arrived through virtio_net $IB into the sink (Ip InDelivers)" "$(( $(delivered) - U0 ))" -eq $N
LINE=$(nl_line pools "$ID")
log "$LINE"
KINFL=$(field "$LINE" inflight)
# vrow STATE: top's last row of pool ID in STATE into /tmp/vio.row
vrow() {
	jq -c --argjson id "$ID" --arg st "$1" 'select(.pools != null) | .pools[] | select(.id == $id and .state == $st)' \
		/tmp/vtop.out 2>/dev/null | tail -n1 >/tmp/vio.row
	[ -s /tmp/vio.row ]
}
V() { jq -r ".$1 // empty" /tmp/vio.row; }
# --- ppwatch: the live pool, then who holds its pages ---
# (the first of top's snapshots to show the socket's pages)
settled() { vrow live && [ "$(V inflight)" = "$KINFL" ]; }
wait_for 10 settled
if vrow live; then
	check "ppwatch top: pool $ID of $IB is live" "$(V state)" = live
	check "ppwatch top: pool $ID device" "$(V ifname)" = "$IB"
	check "ppwatch top: pool $ID napi_id = page-pool-get's" "$(V napi_id)" -eq "$(field "$LINE" napi-id)"
	check "ppwatch top: pool $ID inflight = the kernel's (page-pool-get)" "$(V inflight)" -eq "$KINFL"
	check "ppwatch top: pool $ID hold_cnt - release_cnt = inflight" "$(( $(V hold_cnt) - $(V release_cnt) ))" -eq "$KINFL"
else
	fail "ppwatch top: no row of pool $ID: $(tail -c 400 /tmp/vtop.out)"
fi
# unbind: the driver destroys the pool, the socket still holds its pages
echo "$VB" >/sys/bus/virtio/drivers/virtio_net/unbind || { fail "unbind $VB"; sink_stop; return 0; }
destroyed() { trace_snap /tmp/vio.trace; [ -n "$(trace_release_ptr_min /tmp/vio.trace 1)" ]; }
wait_for 10 destroyed
PTR=$(trace_release_ptr_min /tmp/vio.trace 1)
check "page_pool_release: the virtio_net pool destroyed with pages in flight" "${PTR:+1}" = 1 || { sink_stop; return 0; }
RINFL=$(trace_release_inflight /tmp/vio.trace "$PTR")
echo "PPVM-VALUES: virtio-pp id=$ID datagrams=$N inflight-live=$KINFL release-inflight=$RINFL"
wait_for 10 vrow zombie
ppw_bg_stop vtop
check "ppwatch top -b: exit" "$PPW_RC" -eq 0
if vrow zombie; then
	check "ppwatch top: pool $ID a zombie after the unbind" "$(V state)" = zombie
	check "ppwatch top: pool $ID inflight = page_pool_release's" "$(V inflight)" -eq "$RINFL"
	check "ppwatch top: pool $ID is the one page_pool_release names" "$(V addr)" = "$(ppw_addr "$PTR")"
	# virtio-pci maps through the DMA API only with VIRTIO_F_ACCESS_PLATFORM
	# (qemu: iommu_platform=on, not set here): then the pool maps nothing
	DM=$(V dma_map)
	if [ "$DM" = true ]; then
		want=unmapped
		[ "$PPVM_REGIME" = legacy ] && want=hazard
	else
		want=not_mapped
	fi
	check "ppwatch top: destroyed pool $ID dma (dma_map=$DM, $PPVM_REGIME regime)" "$(V dma)" = "$want"
fi
ppw vzholders holders "$ID" -j
if ppw_ok vzholders "ppwatch holders $ID -j (zombie)"; then
	H=$(jq -c '.pools[0].holders | map(select(.kind == "socket"))[0]' /tmp/vzholders.out)
	log "holder: $H"
	check "ppwatch holders: the UDP socket on 203.0.113.2:$PORT holds pages of pool $ID" "$(echo "$H" | jq -r .local)" = "203.0.113.2:$PORT"
	check "ppwatch holders: its process" "$(echo "$H" | jq -r '.owners[0].comm')" = ppvm-tool
	check "ppwatch holders: the socket holds every page in flight" "$(echo "$H" | jq -r .pages)" -eq "$RINFL"
	check "ppwatch holders: unattributed" "$(jq '.pools[0].unattributed' /tmp/vzholders.out)" -eq 0
fi
sink_stop
freed() { trace_snap /tmp/vio.trace; [ "$(trace_release_inflight /tmp/vio.trace "$PTR")" = 0 ]; }
if wait_for 6 freed; then pass "virtio_net zombie pool freed after the socket closed"; else fail "virtio_net zombie pool not freed 6 s after the socket closed"; fi
trace_stop
echo "$VB" >/sys/bus/virtio/drivers/virtio_net/bind
ip netns del vioA
