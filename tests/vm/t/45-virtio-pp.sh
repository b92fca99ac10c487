# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# The guest's own NIC: virtio_net allocates its receive buffers from page
# pools since 24fbd3967f3f "virtio_net: add page_pool support for buffer
# allocation" (v7.1), one per rx queue, created at probe with no XDP
# involved: a real driver pool that is there from boot. The rig gives the
# guest two virtio-net NICs on one hub. N datagrams from the first to a
# non-reading socket behind the second: the kernel's inflight (page-pool-get)
# and ppwatch's agree, and 'holders' names the socket and its process;
# unbinding the second device destroys its pool with the socket's pages in
# flight (zombie, exactly those pages), which frees when the socket closes.
N=600; SIZE=1000; PORT=5045
lacks virtio-net && { skip "no virtio_net driver on $FLAVOR (kernel/matrix lacks=virtio-net)"; return 0; }
set -- /sys/bus/virtio/drivers/virtio_net/virtio*
if [ $# -lt 2 ] || [ ! -e "$2" ]; then fail "needs the rig's two virtio-net NICs (found: $*)"; return 0; fi
VA=$(basename "$1"); VB=$(basename "$2")
IA=$(first_name "$1/net/"*); IB=$(first_name "$2/net/"*)
log "virtio-net: $VA=$IA $VB=$IB"
if lacks virtio-pp; then
	# before v7.1 virtio_net fills its rings from the page allocator
	if ppw_snap; then
		check "virtio_net uses no page_pool here (kernel/matrix lacks=virtio-pp): ppwatch pools of $IA/$IB" \
			"$(jq --arg a "$IA" --arg b "$IB" '[.pools[] | select(.ifname == $a or .ifname == $b)] | length' /tmp/ppw.json)" -eq 0
	fi
	lacks pp-netlink || absent "virtio_net uses no page_pool here: page-pool-get of $IB" \
		"$(nl_ids_of_ifindex "$(cat "/sys/class/net/$IB/ifindex")")"
	return 0
fi
if ! ip netns add vioA || ! ip netns add vioB; then fail "netns vioA/vioB"; return 0; fi
ip link set "$IA" netns vioA && ip link set "$IB" netns vioB
ip -n vioA addr add 203.0.113.1/24 dev "$IA"; ip -n vioA link set "$IA" up
ip -n vioB addr add 203.0.113.2/24 dev "$IB"; ip -n vioB link set "$IB" up
IFX=$(ip -n vioB -o link show "$IB" | cut -d: -f1)
ID=$(nl_ids_of_ifindex "$IFX" vioB | head -n1)
check "page-pool-get lists the pool of virtio_net $IB (a driver pool, no XDP)" "${ID:-0}" -gt 0 ||
	{ ip netns del vioA; ip netns del vioB; return 0; }
trace_start page_pool_release
sink_start vioB 203.0.113.2 $PORT || { fail "UDP sink did not start"; return 0; }
ip netns exec vioA "$TOOL" send 203.0.113.2 $PORT $N $SIZE
sleep 1
LINE=$(nl_line pools "$ID" vioB)
log "$LINE"
KINFL=$(field "$LINE" inflight)
# --- ppwatch: the live pool, then who holds its pages ---
if ppw_snap; then
	check "ppwatch: pool $ID of $IB is live" "$(ppw_pool "$ID" state)" = live
	check "ppwatch: pool $ID device" "$(ppw_pool "$ID" ifname)" = "$IB"
	check "ppwatch: pool $ID napi_id = page-pool-get's" "$(ppw_pool "$ID" napi_id)" -eq "$(field "$LINE" napi-id)"
	check "ppwatch: pool $ID inflight = the kernel's (page-pool-get)" "$(ppw_pool "$ID" inflight)" -eq "$KINFL"
	check "ppwatch: pool $ID hold_cnt - release_cnt = inflight" \
		"$(( $(ppw_pool "$ID" hold_cnt) - $(ppw_pool "$ID" release_cnt) ))" -eq "$KINFL"
fi
ppw vholders holders "$ID" -j
if ppw_ok vholders "ppwatch holders $ID -j"; then
	H=$(jq -c '.pools[0].holders | map(select(.kind == "socket"))[0]' /tmp/vholders.out)
	log "holder: $H"
	check "ppwatch holders: the UDP socket on 203.0.113.2:$PORT holds pages of pool $ID" "$(echo "$H" | jq -r .local)" = "203.0.113.2:$PORT"
	check "ppwatch holders: its process" "$(echo "$H" | jq -r '.owners[0].comm')" = ppvm-tool
	SP=$(echo "$H" | jq -r .pages)
	check "ppwatch holders: the socket's pages (N=$N datagrams of $SIZE bytes, page_pool frags)" "$SP" -gt 0
	check "ppwatch holders: attributed + unattributed = inflight (the rest is in the rx ring)" \
		"$(jq '.pools[0] | .attributed + .unattributed' /tmp/vholders.out)" -eq "$(jq '.pools[0].inflight' /tmp/vholders.out)"
fi
# unbind: the driver destroys the pool, the socket still holds its pages
ppw_start 6
echo "$VB" >/sys/bus/virtio/drivers/virtio_net/unbind || { fail "unbind $VB"; sink_stop; return 0; }
sleep 2
trace_snap /tmp/vio.trace
PTR=$(trace_release_ptr_min /tmp/vio.trace 1)
check "page_pool_release: the virtio_net pool destroyed with pages in flight" "${PTR:+1}" = 1 || { sink_stop; return 0; }
RINFL=$(trace_release_inflight /tmp/vio.trace "$PTR")
echo "PPVM-VALUES: virtio-pp id=$ID datagrams=$N inflight-live=$KINFL socket-pages=${SP:-} release-inflight=$RINFL"
if ppw_finish; then
	check "ppwatch: pool $ID a zombie after the unbind" "$(ppw_pool "$ID" state)" = zombie
	check "ppwatch: pool $ID inflight = page_pool_release's" "$(ppw_pool "$ID" inflight)" -eq "$RINFL"
	# virtio-pci maps through the DMA API only with VIRTIO_F_ACCESS_PLATFORM
	# (qemu: iommu_platform=on, not set here): then the pool maps nothing
	DM=$(ppw_pool "$ID" dma_map)
	if [ "$DM" = true ]; then
		want=unmapped
		[ "$PPVM_REGIME" = legacy ] && want=hazard
	else
		want=not_mapped
	fi
	check "ppwatch: destroyed pool $ID dma (dma_map=$DM, $PPVM_REGIME regime)" "$(ppw_pool "$ID" dma)" = "$want"
fi
ppw vzholders holders "$ID" -j
if ppw_ok vzholders "ppwatch holders $ID -j (zombie)"; then
	check "ppwatch holders (zombie): the socket holds every page in flight" \
		"$(jq '.pools[0].holders | map(select(.kind == "socket"))[0].pages' /tmp/vzholders.out)" -eq "$RINFL"
	check "ppwatch holders (zombie): unattributed" "$(jq '.pools[0].unattributed' /tmp/vzholders.out)" -eq 0
fi
sink_stop
freed() { trace_snap /tmp/vio.trace; [ "$(trace_release_inflight /tmp/vio.trace "$PTR")" = 0 ]; }
if wait_for 6 freed; then pass "virtio_net zombie pool freed after the socket closed"; else fail "virtio_net zombie pool not freed 6 s after the socket closed"; fi
trace_stop
echo "$VB" >/sys/bus/virtio/drivers/virtio_net/bind
ip netns del vioA; ip netns del vioB
