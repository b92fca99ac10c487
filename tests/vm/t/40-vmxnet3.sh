# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# A DMA-mapping driver: qemu's vmxnet3 behind an emulated intel-iommu. With
# an XDP program attached, its rx queues allocate from PP_FLAG_DMA_MAP page
# pools. Two NICs on a qemu hub, each in its own netns. 1000 datagrams are
# held by a non-reading socket, then the receiving NIC's driver is unbound:
# the pool is destroyed with those pages in flight. The item series'
# page_pool_destroy_unmap (patched) must report them unmapped, and a tp_btf
# program must read the same. Where the kernel tracks the pool's mappings
# in its dma_mapped xarray (regime=dma_mapped-xarray), a tp_btf program
# (ppvm-bpf) reads it: not empty while the pool is live, empty at the
# destroy with the pages still in flight: the kernel unmapped them, what
# ppwatch's "unmapped" must say; without one (legacy) they stay mapped, as
# DMA-API debug counts at unbind (run.sh). The xarray series (xarray) lists the zombie
# over netlink (vmxnet3 links its pools to the netdev) with its
# page-pool-stats, DMA failure counters included; on every kernel the pool
# must stay a zombie until the socket closes, then free.
N=1000; SIZE=1000; PORT=5004
set -- /sys/bus/pci/drivers/vmxnet3/0000:*
[ -e "$1" ] || set --	# the glob matched nothing
[ $# -ge 2 ] || { fail "needs the rig's two vmxnet3 NICs (found $#)"; return 0; }
P0=$(basename "$1"); P1=$(basename "$2")
N0=$(ls "$1/net"); N1=$(ls "$2/net")
log "vmxnet3: $P0=$N0 $P1=$N1"
trace_start page_pool_release page_pool_destroy_unmap page_pool_item_block_alloc page_pool_item_block_free || return 0
ip netns add vmxA && ip netns add vmxB
ip link set "$N0" netns vmxA && ip link set "$N1" netns vmxB
ip -n vmxA addr add 198.51.100.1/24 dev "$N0"; ip -n vmxA link set "$N0" up
ip -n vmxB addr add 198.51.100.2/24 dev "$N1"; ip -n vmxB link set "$N1" up
if lacks vmxnet3-xdp; then
	# vmxnet3 has XDP (and with it page_pool) since v6.6
	# the kernel's answer must be 'not supported' (no ndo_bpf), not any
	# failure of the test's own set-up
	if ip netns exec vmxB "$TOOL" xdp-attach "$N1" 2>/tmp/vmx.err; then
		fail "XDP attach on vmxnet3 $N1 worked, but kernel/matrix says lacks=vmxnet3-xdp"
	else
		check "vmxnet3 has no driver-mode XDP here (kernel/matrix: lacks=vmxnet3-xdp): $(cat /tmp/vmx.err)" \
			"$(grep -c 'attach XDP: Operation not supported' /tmp/vmx.err)" -eq 1
	fi
	trace_stop
	ip netns del vmxA; ip netns del vmxB
	return 0
fi
ip netns exec vmxB "$TOOL" xdp-attach "$N1" || { fail "XDP attach on vmxnet3 $N1"; return 0; }
# the XDP attach resets the NIC: its link comes back up, and the hub
# passes packets once the sender's ARP gets an answer
carrier() { [ "$(ip netns exec vmxB cat "/sys/class/net/$N1/carrier" 2>/dev/null)" = 1 ]; }
wait_for 10 carrier || log "vmxnet3 $N1: no carrier 10 s after the XDP attach"
sink_start vmxB 198.51.100.2 $PORT || { fail "UDP sink did not start"; return 0; }
# the pool's DMA state as the kernel holds it, from the traffic on (its
# ring refills: the first page_pool_state_hold), through the destroy; on
# the item-block kernel also page_pool_destroy_unmap and the block counts
bpf_start /tmp/vmx.bpf
wait_for 10 ip netns exec vmxA ping -c1 -W1 198.51.100.2 >/dev/null 2>&1
U0=$(delivered vmxB)
ip netns exec vmxA "$TOOL" send 198.51.100.2 $PORT $N $SIZE
arrived() { [ "$(( $(delivered vmxB) - U0 ))" -ge $N ]; }
wait_for 10 arrived
check "the $N datagrams arrived through vmxnet3 $N1's XDP program into the sink (Ip InDelivers of vmxB)" \
	"$(( $(delivered vmxB) - U0 ))" -eq $N
log "$(ip netns exec vmxB cat /proc/net/udp | grep ":$(printf %04X $PORT) " | head -n1)"
Q=$(ip netns exec vmxB cat /proc/net/udp | awk -v p=":$(printf %04X $PORT)" 'index($2, p) { split($5, q, ":"); print q[2]; exit }')
check "datagrams queued in the sink (rx_queue bytes)" "$(printf '%d' "0x${Q:-0}")" -gt 0

# ppwatch watches across the unbind: on the item-block kernel the unmap
# event (page_pool_destroy_unmap) fires once; so does ppvm-bpf (tp_btf),
# which also reads the pool's block counts
ppw_start 8
echo "$P1" >/sys/bus/pci/drivers/vmxnet3/unbind || { fail "unbind $P1"; sink_stop; return 0; }
# the destroy, then a retry of the release a second later: a zombie
retried() {
	trace_snap /tmp/vmx.trace
	PTR=$(trace_release_ptr_min /tmp/vmx.trace 100)
	[ -n "$PTR" ] && [ "$(tcount /tmp/vmx.trace page_pool_release "page_pool=$PTR ")" -ge 2 ]
}
wait_for 10 retried
check "page_pool_release reports the destroyed vmxnet3 pool with pages in flight" "${PTR:+1}" = 1 || { sink_stop; return 0; }
# the destroy's release: the first with pages out (the pool XDP attach
# replaced can have had the same address, and went with inflight 0)
INFL1=$(grep " page_pool_release: page_pool=$PTR " /tmp/vmx.trace | grep -v ' inflight=0 ' | head -n1 | sed -n 's/.* inflight=\([-0-9]*\) .*/\1/p')
# (run.sh's DMA-API debug check: the mappings left at unbind)
echo "$INFL1" >/tmp/vmx.inflight-at-destroy
NREL=$(tcount /tmp/vmx.trace page_pool_release "page_pool=$PTR ")
check "zombie: page_pool_release retried for the pool (still waiting)" "$NREL" -ge 2
check "zombie: inflight unchanged while the socket holds the pages" "$(trace_release_inflight /tmp/vmx.trace "$PTR")" -eq "$INFL1"
if [ "$FLAVOR" = patched ]; then
	EV=page_pool_destroy_unmap
	UL=$(grep " $EV: page_pool=$PTR " /tmp/vmx.trace | head -n1)
	log "$UL"
	check "$EV fired for the pool" "${UL:+1}" = 1
	ID=$(echo "$UL" | sed -n 's/.* id=\([0-9]*\) .*/\1/p')
	UNM=$(echo "$UL" | sed -n 's/.* unmapped=\([0-9]*\).*/\1/p')
	check "$EV unmapped = pages in flight at destroy (page_pool_release)" "$UNM" -eq "$INFL1"
	check "$EV inflight field = page_pool_release inflight" \
		"$(echo "$UL" | sed -n 's/.* inflight=\([-0-9]*\) .*/\1/p')" -eq "$INFL1"
	check "$EV: exactly once for the pool" "$(tcount /tmp/vmx.trace $EV "page_pool=$PTR ")" -eq 1
	BU=$(grep "^destroy_unmap id=$ID " /tmp/vmx.bpf | head -n1)
	log "$BU"
	check "tp_btf $EV: inflight and unmapped as traced" \
		"$(field "$BU" inflight):$(field "$BU" unmapped)" = "$INFL1:$UNM"
fi
# the DMA state in the kernel's own structures (ppvm-bpf): the pool maps
# pages (its dma_map bit); with a dma_mapped xarray, it held mappings while
# the pool was live and none at the destroy, INFL1 pages in flight
P=${PTR#0x}
wait_for 5 grep -q "^dma id=[0-9]* pool=$P inflight=$INFL1 " /tmp/vmx.bpf
bpf_stop
DLIVE=$(grep "^dma_live id=[0-9]* pool=$P " /tmp/vmx.bpf | head -n1)
DREL=$(grep "^dma id=[0-9]* pool=$P inflight=$INFL1 " /tmp/vmx.bpf | head -n1)
log "$DLIVE"; log "$DREL"
check "tp_btf: the vmxnet3 pool's dma_map bit (while live)" "$(field "$DLIVE" dma_map)" -eq 1
case $PPVM_REGIME in
dma_mapped-xarray)
	check "tp_btf: the pool has a dma_mapped xarray (regime=dma_mapped-xarray)" "$(field "$DLIVE" xarray)" -eq 1
	check "tp_btf: live, its dma_mapped xarray holds the pages' mappings" "$(field "$DLIVE" xa_empty)" -eq 0
	check "tp_btf: at the destroy ($INFL1 pages in flight) its dma_mapped xarray is empty: the kernel unmapped them" \
		"$(field "$DREL" xa_empty)" -eq 1
	XA_UNMAPPED=$INFL1
	;;
*)
	# legacy: nothing tracks the mappings; item-blocks: the items do
	check "tp_btf: no dma_mapped xarray in the pool (regime=$PPVM_REGIME)" "$(field "$DREL" xarray)" -eq 0
	XA_UNMAPPED=
	;;
esac
if [ "$FLAVOR" = patched ]; then
	BLK=$(echo "$UL" | sed -n 's/.* blocks=\([0-9]*\) .*/\1/p')
	DUR=$(echo "$UL" | sed -n 's/.* duration_ns=\([0-9]*\).*/\1/p')
	check "page_pool_destroy_unmap blocks walked = the pool's pre-allocated + dynamic blocks (tp_btf)" \
		"$BLK" -eq $(( $(field "$BU" prealloc) + $(field "$BU" dyn) ))
	check "page_pool_destroy_unmap duration_ns (whole destroy, synchronize_rcu() included)" "$DUR" -gt 0
	echo "PPVM-VALUES: vmxnet3 id=$ID inflight-at-destroy=$INFL1 unmapped=$UNM blocks=$BLK (prealloc=$(field "$BU" prealloc) dyn=$(field "$BU" dyn)) duration_ns=$DUR"
elif [ "$FLAVOR" = xarray ]; then
	absent "xarray kernel: no unmap-at-destroy tracepoint (neither series')" \
		"$(has_event page_pool_destroy_unmap && echo present)$(has_event page_pool_inflight_unmap && echo present)"
	# patch 'vmxnet3: link page pools to their netdev': the zombie is listed,
	# under the netns' loopback now that its device is gone: the zombie
	# with page_pool_release's inflight
	ZL=$(nl_pools vmxB | grep ' detach-time=' | grep " inflight=$INFL1 " | head -n1)
	log "$ZL"
	ID=$(field "$ZL" id)
	check "vmxnet3 zombie pool listed by page-pool-get with detach-time" "$(field "$ZL" detach-time)" -gt 0
	check "vmxnet3 zombie pool $ID: netlink inflight = page_pool_release inflight" "$(field "$ZL" inflight)" -eq "$INFL1"
	absent "vmxnet3 zombie pool $ID: no ifindex (its device is gone)" "$(field "$ZL" ifindex)"
	# patch 'page_pool: count DMA mapping failures in page-pool-stats'
	ZS=$(nl_line stats "$ID" vmxB)
	log "$ZS"
	check "vmxnet3 zombie pool $ID: page-pool-stats alloc-dma-map-failed 0 (no fault injected)" "$(field "$ZS" alloc-dma-map-failed)" -eq 0
	check "vmxnet3 zombie pool $ID: page-pool-stats alloc-dma-index-failed 0" "$(field "$ZS" alloc-dma-index-failed)" -eq 0
	check "vmxnet3 zombie pool $ID: page-pool-stats alloc-slow > 0 (it allocated)" "$(field "$ZS" alloc-slow)" -gt 0
	echo "PPVM-VALUES: vmxnet3 id=$ID inflight-at-destroy=$INFL1 (xarray: unmapped through the dma_mapped xarray; listed over netlink, alloc-dma-map-failed=$(field "$ZS" alloc-dma-map-failed) alloc-dma-index-failed=$(field "$ZS" alloc-dma-index-failed))"
else
	absent "$FLAVOR kernel: no unmap-at-destroy tracepoint" \
		"$(has_event page_pool_destroy_unmap && echo present)$(has_event page_pool_inflight_unmap && echo present)"
	if [ "$PPVM_REGIME" = legacy ]; then how="left mapped: legacy regime"; else how="unmapped through the dma_mapped xarray, unreported"; fi
	echo "PPVM-VALUES: vmxnet3 inflight-at-destroy=$INFL1 ($FLAVOR: $how)"
fi
# --- ppwatch cross-check (extend here: unmap at destroy) ---
if ppw_finish; then
	ZID=$(ppw_find ".state == \"zombie\" and .inflight == $INFL1" id)
	check "ppwatch: a zombie pool with inflight $INFL1" "$ZID" -gt 0
	# .destroy_unmap: patched (page_pool_destroy_unmap); no event elsewhere
	case "$FLAVOR" in
	patched)
		check "ppwatch: pool $ZID destroy_unmap.event" "$(ppw_pool "$ZID" destroy_unmap.event)" = page_pool_destroy_unmap
		check "ppwatch: pool $ZID destroy_unmap.unmapped = tracepoint" "$(ppw_pool "$ZID" destroy_unmap.unmapped)" -eq "$UNM"
		check "ppwatch: pool $ZID destroy_unmap.inflight = page_pool_release" "$(ppw_pool "$ZID" destroy_unmap.inflight)" -eq "$INFL1"
		check "ppwatch: pool $ZID destroy_unmap.blocks = tracepoint" "$(ppw_pool "$ZID" destroy_unmap.blocks)" -eq "$BLK"
		absent "ppwatch: pool $ZID dma_map_failed (not available: item-block kernel)" "$(ppw_pool "$ZID" dma_map_failed)"
		absent "ppwatch: pool $ZID dma_index_failed (not available: item-block kernel)" "$(ppw_pool "$ZID" dma_index_failed)"
		;;
	*)
		absent "ppwatch: $FLAVOR kernel: pool $ZID destroy_unmap (no unmap tracepoint)" "$(ppw_pool "$ZID" destroy_unmap)"
		check "ppwatch: $FLAVOR kernel: .kernel.unavailable names unmap_event" \
			"$(jq -r '.kernel.unavailable | index("unmap_event") != null' /tmp/ppw.json)" = true
		if [ "$FLAVOR" = xarray ]; then
			# the series' counters, read from the pool: netlink's values
			check "ppwatch: pool $ZID (netlink id $ID) dma_map_failed = page-pool-stats" "$(ppw_pool "$ZID" dma_map_failed)" -eq "$(field "$ZS" alloc-dma-map-failed)"
			check "ppwatch: pool $ZID dma_index_failed = page-pool-stats" "$(ppw_pool "$ZID" dma_index_failed)" -eq "$(field "$ZS" alloc-dma-index-failed)"
			check "ppwatch: pool $ZID id = netlink's" "$ZID" -eq "$ID"
		else
			absent "ppwatch: $FLAVOR kernel: pool $ZID dma_map_failed (not available)" "$(ppw_pool "$ZID" dma_map_failed)"
			absent "ppwatch: $FLAVOR kernel: pool $ZID dma_index_failed (not available)" "$(ppw_pool "$ZID" dma_index_failed)"
		fi
		;;
	esac
	# the DMA state of the destroyed pool against the kernel's: its dma_map
	# bit (tp_btf); unmapped at destroy as page_pool_destroy_unmap says
	# (item-blocks) or the emptied xarray shows (dma_mapped-xarray); still
	# mapped where neither is (legacy: DMA-API debug's count, run.sh)
	check "ppwatch: pool $ZID maps its pages (the kernel's dma_map bit, tp_btf)" \
		"$(ppw_pool "$ZID" dma_map)" = "$([ "$(field "$DLIVE" dma_map)" = 1 ] && echo true || echo false)"
	case $PPVM_REGIME in
	legacy)
		# neither fix: every page still out is still mapped, the legacy hazard
		check "ppwatch: pool $ZID dma = hazard" "$(ppw_pool "$ZID" dma)" = hazard
		check "ppwatch: pool $ZID dma_still_mapped = inflight" "$(ppw_pool "$ZID" dma_still_mapped)" -eq "$INFL1"
		;;
	*)
		check "ppwatch: pool $ZID dma = unmapped" "$(ppw_pool "$ZID" dma)" = unmapped
		check "ppwatch: pool $ZID dma_still_mapped = 0" "$(ppw_pool "$ZID" dma_still_mapped)" -eq 0
		check "ppwatch: pool $ZID dma_unmapped_at_destroy = what the kernel unmapped (${UNM:+page_pool_destroy_unmap}${XA_UNMAPPED:+the xarray emptied with $INFL1 in flight})" \
			"$(ppw_pool "$ZID" dma_unmapped_at_destroy)" -eq "${UNM:-${XA_UNMAPPED:-x}}"
		;;
	esac
fi
sink_stop
freed() { trace_snap /tmp/vmx.trace; [ "$(trace_release_inflight /tmp/vmx.trace "$PTR")" = 0 ]; }
if wait_for 6 freed; then pass "zombie vmxnet3 pool freed after the socket closed"; else fail "zombie vmxnet3 pool not freed 6 s after the socket closed"; fi
if [ "$FLAVOR" = patched ]; then
	check "every block of the vmxnet3 pool freed" \
		"$(tcount /tmp/vmx.trace page_pool_item_block_free "page_pool=$PTR ")" -eq \
		"$(tcount /tmp/vmx.trace page_pool_item_block_alloc "page_pool=$PTR ")"
fi
trace_stop
# the first NIC back to the initial netns (t/45 sends from it)
ip netns del vmxA; ip netns del vmxB
