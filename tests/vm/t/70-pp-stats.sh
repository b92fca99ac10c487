# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# Allocation and recycling statistics (CONFIG_PAGE_POOL_STATS): each
# pool's .stats in 'ppwatch pools -j' against the kernel's own sums,
# page_pool_get_stats() over the pool's alloc_stats and every CPU's
# recycle_stats, as two other interfaces report them:
#   - page-pool-stats-get (ppvm-nl) for the pools netlink lists: ppwatch
#     reads them from netlink, and with --no-netlink from the pool itself
#     (its BPF read, bpf/stats.bpf.c): both must equal the kernel's;
#   - ethtool -S for a veth device's pools (veth sums its rx queues' pools,
#     rx_pp_*): pools an unpatched kernel's netlink does not list, which
#     ppwatch reads from the pool; and the recycling ratio (ynltool's
#     definition) computed here from ethtool's numbers.
# Each ppwatch read sits between two reads of the kernel's counters: equal
# when nothing moved (the traffic is over), else within them.
# A kernel without CONFIG_PAGE_POOL_STATS (kernel/matrix lacks=pp-stats):
# 'not available', said once; .kernel.unavailable names pp_stats; every
# pool's .stats is null.
N=400; SIZE=1000; PORT=5070
KEYS="alloc_fast alloc_slow alloc_slow_high_order alloc_empty alloc_refill alloc_waive recycle_cached recycle_cache_full recycle_ring recycle_ring_full recycle_released_refcnt"
if lacks pp-stats; then
	ppw_snap || return 0
	check "ppwatch: .kernel.pp_stats false (kernel/matrix lacks=pp-stats)" "$(jq -r .kernel.pp_stats /tmp/ppw.json)" = false
	check "ppwatch: .kernel.unavailable names pp_stats" "$(jq '.kernel.unavailable | index("pp_stats") != null' /tmp/ppw.json)" = true
	check "ppwatch: every pool's .stats is null ($(jq '.pools | length' /tmp/ppw.json) pools)" \
		"$(jq '[.pools[] | select(.stats != null)] | length' /tmp/ppw.json)" -eq 0
	ppw ppstxt pools --recycling
	ppw_ok ppstxt "ppwatch pools --recycling" &&
		check "ppwatch pools --recycling: 'cannot report allocation and recycling statistics' said once" \
			"$(grep -c 'allocation and recycling statistics' /tmp/ppstxt.err)" -eq 1
	return 0
fi
# nl_key KEY: page-pool-stats-get's attribute name of a .stats key
nl_key() { echo "$1" | tr _ -; }
# eth_key KEY: ethtool's name (page_pool_ethtool_stats_get_strings())
eth_key() {
	case $1 in
	alloc_slow_high_order) echo rx_pp_alloc_slow_ho ;;
	recycle_released_refcnt) echo rx_pp_recycle_released_ref ;;
	*) echo "rx_pp_$1" ;;
	esac
}
# eth KEY FILE: the value of ethtool's KEY in FILE
eth() { awk -v k="$(eth_key "$1"):" '$1 == k { print $2 }' "$2"; }
# between WHAT VALUE LO HI: LO <= VALUE <= HI (equal when LO = HI)
between() {
	if [ "$3" = "$4" ]; then check "$1" "$2" -eq "$3"; return; fi
	check "$1 (>= before)" "$2" -ge "$3" && check "$1 (<= after)" "$2" -le "$4"
}

# export_check VETH: the exporter's counters, in the file node_exporter's
# textfile collector serves (export --textfile --once), each between two
# reads of the kernel's: ppwatch_pool_alloc_total / _recycle_total{kind=...}
# of the first pool netlink lists (= page-pool-stats-get's) and, with VETH 1,
# of veth ppsb's pools summed (= ethtool -S). Then the file and those reads
# go to the log (PPVM-PROM-*): the rig's host half, tests/vm/host-prom.sh,
# has a real Prometheus scrape the file through node_exporter and holds what
# it stores to the same reads.
export_check() {
	ID=$(echo "$IDS" | head -n1)
	[ -n "$ID" ] && nl_stats >/tmp/pps.nl1
	[ "$1" = 1 ] && ip netns exec ppsB ethtool -S ppsb >/tmp/pps.eth1
	[ -d /tmp/pps.tf ] || mkdir -m 0700 /tmp/pps.tf
	ppw pps_export export --textfile /tmp/pps.tf/ppwatch.prom --once
	[ -n "$ID" ] && nl_stats >/tmp/pps.nl2
	[ "$1" = 1 ] && ip netns exec ppsB ethtool -S ppsb >/tmp/pps.eth2
	ppw_ok pps_export "ppwatch export --textfile --once" || return 0
	F=/tmp/pps.tf/ppwatch.prom
	if [ -n "$ID" ]; then
		L1=$(grep " id=$ID " /tmp/pps.nl1); L2=$(grep " id=$ID " /tmp/pps.nl2)
		TRUTH=
		for k in $KEYS; do
			fam=ppwatch_pool_${k%%_*}_total kind=${k#*_}
			lo=$(field "$L1" "$(nl_key "$k")") hi=$(field "$L2" "$(nl_key "$k")")
			between "ppwatch export: $fam{pool_id=\"$ID\",kind=\"$kind\"} = page-pool-stats-get's $(nl_key "$k")" \
				"$(sed -n "s/^$fam{pool_id=\"$ID\",.*kind=\"$kind\"} //p" $F | head -n1)" "$lo" "$hi"
			TRUTH="$TRUTH $k=$lo:$hi"
		done
		echo "PPVM-PROM-TRUTH: pool_id=\"$ID\"$TRUTH"
	fi
	if [ "$1" = 1 ]; then
		TRUTH=
		for k in $KEYS; do
			fam=ppwatch_pool_${k%%_*}_total kind=${k#*_}
			lo=$(eth "$k" /tmp/pps.eth1) hi=$(eth "$k" /tmp/pps.eth2)
			between "ppwatch export: $fam{device=\"ppsb\",kind=\"$kind\"} summed = ethtool -S $(eth_key "$k")" \
				"$(sed -n "s/^$fam{.*device=\"ppsb\",.*kind=\"$kind\"} //p" $F | awk '{ s += $1 } END { print s + 0 }')" "$lo" "$hi"
			TRUTH="$TRUTH $k=$lo:$hi"
		done
		echo "PPVM-PROM-TRUTH: device=\"ppsb\"$TRUTH"
	fi
	sed 's/^/PPVM-PROM-FILE: /' $F
}

# --- the pools netlink lists (the initial namespace) ---
# virtio-net's (7.1+) where the guest's NIC has them; else a netdevsim
# device's, made here (t/10 shows netlink lists its pools)
nl_stats >/tmp/pps.nl0 2>/dev/null
IDS=$(sed -n 's/^stats .*id=\([0-9]*\) .*/\1/p' /tmp/pps.nl0 | head -n 8)
NSIM=
nsim_del() { [ -z "$NSIM" ] || echo "$NSIM" >/sys/bus/netdevsim/del_device; NSIM=; }
if [ -z "$IDS" ] && ! lacks netdevsim && [ -d /sys/bus/netdevsim ]; then
	echo "70 1 1" >/sys/bus/netdevsim/new_device && NSIM=70
	wait_for 5 ls /sys/bus/netdevsim/devices/netdevsim70/net/ >/dev/null 2>&1
	DEV=$(first_name /sys/bus/netdevsim/devices/netdevsim70/net/*)
	[ -n "$DEV" ] && ip link set "$DEV" up
	nl_stats >/tmp/pps.nl0 2>/dev/null
	IDS=$(sed -n 's/^stats .*id=\([0-9]*\) .*/\1/p' /tmp/pps.nl0 | head -n 8)
	log "netdevsim70 ($DEV): page-pool-stats-get lists pools $(echo "$IDS" | tr "\n" " ")"
fi
if [ -z "$IDS" ]; then
	fail "page-pool-stats-get lists no pool on $FLAVOR, not even a netdevsim device's: no netlink truth to compare with"
else
	for MODE in netlink bpf; do
		nl_stats >/tmp/pps.nl1
		if [ $MODE = bpf ]; then ppw_snap --no-netlink || break; else ppw_snap || break; fi
		nl_stats >/tmp/pps.nl2
		for ID in $IDS; do
			L1=$(grep " id=$ID " /tmp/pps.nl1); L2=$(grep " id=$ID " /tmp/pps.nl2)
			[ -n "$L2" ] || continue
			check "ppwatch${MODE:+ ($MODE)}: pool $ID .stats.source" "$(ppw_pool "$ID" stats.source)" = $MODE || continue
			for k in $KEYS; do
				between "ppwatch ($MODE): pool $ID $k = page-pool-stats-get's $(nl_key "$k")" \
					"$(ppw_pool "$ID" "stats.$k")" "$(field "$L1" "$(nl_key "$k")")" "$(field "$L2" "$(nl_key "$k")")"
			done
		done
	done
fi

# --- a veth device's pools: ethtool -S ---
if lacks veth-pp; then
	skip lacks=veth-pp "veth uses no page_pool on $FLAVOR"
	export_check 0
	nsim_del
	return 0
fi
veth_pair ppsA ppsa ppsB ppsb || { fail "cannot create the veth pair"; nsim_del; return 0; }
ip netns exec ppsB "$TOOL" xdp-attach ppsb || { fail "XDP attach on ppsb"; nsim_del; ip netns del ppsA; ip netns del ppsB; return 0; }
# noports: datagrams ppsB dropped for want of a socket (Udp NoPorts): each
# gave its page back to the pool
noports() {
	ip netns exec ppsB cat /proc/net/snmp |
		awk '$1 == "Udp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "NoPorts") c = i; h = 1 } else print $c }'
}
P0=$(noports)
ip netns exec ppsA "$TOOL" send 192.0.2.2 $PORT $N $SIZE
dropped() { [ "$(( $(noports) - P0 ))" -ge $N ]; }
wait_for 10 dropped
check "the $N datagrams reached ppsb's XDP program and were dropped, no socket (Udp NoPorts)" "$(( $(noports) - P0 ))" -ge $N
for MODE in default bpf; do
	ip netns exec ppsB ethtool -S ppsb >/tmp/pps.eth1
	if [ $MODE = bpf ]; then ppw_snap --no-netlink || break; else ppw_snap || break; fi
	ip netns exec ppsB ethtool -S ppsb >/tmp/pps.eth2
	SEL='.ifname == "ppsb" and .state == "live"'
	NP=$(jq "[.pools[] | select($SEL)] | length" /tmp/ppw.json)
	log "ethtool -S ppsb: $(grep rx_pp_ /tmp/pps.eth2 | tr -s ' \n' ' ')"
	log "ppwatch ($MODE): $(jq -c "[.pools[] | select($SEL) | {id, pool, stats}]" /tmp/ppw.json)"
	check "ppwatch ($MODE): the live pools of veth ppsb" "$NP" -ge 1 || break
	check "ppwatch ($MODE): every pool of ppsb has .stats" "$(jq "[.pools[] | select($SEL) | select(.stats != null)] | length" /tmp/ppw.json)" -eq "$NP"
	[ $MODE = bpf ] && check "ppwatch --no-netlink: ppsb's pools read from the pool (.stats.source)" \
		"$(jq -r "[.pools[] | select($SEL) | .stats.source] | unique | join(\",\")" /tmp/ppw.json)" = bpf
	for k in $KEYS; do
		between "ppwatch ($MODE): ppsb's pools' $k summed = ethtool -S $(eth_key "$k")" \
			"$(jq "[.pools[] | select($SEL) | .stats.$k] | add" /tmp/ppw.json)" "$(eth "$k" /tmp/pps.eth1)" "$(eth "$k" /tmp/pps.eth2)"
	done
	# the traffic moved pages through the pool and back
	check "ethtool -S ppsb: pages allocated (fast + refill + slow)" \
		"$(( $(eth alloc_fast /tmp/pps.eth2) + $(eth alloc_refill /tmp/pps.eth2) + $(eth alloc_slow /tmp/pps.eth2) ))" -gt 0
	# ynltool's ratio from ethtool's counters, where one pool has them all
	if [ "$NP" -eq 1 ] && cmp -s /tmp/pps.eth1 /tmp/pps.eth2; then
		WANT=$(awk -v f="$(eth alloc_fast /tmp/pps.eth2)" -v r="$(eth alloc_refill /tmp/pps.eth2)" \
			-v s="$(eth alloc_slow /tmp/pps.eth2)" -v g="$(eth recycle_ring /tmp/pps.eth2)" \
			-v c="$(eth recycle_cached /tmp/pps.eth2)" 'BEGIN { printf "%.3f", (g + c) / (f + r + s) * 100 }')
		GOT=$(jq -r "[.pools[] | select($SEL)][0].stats.recycling_pct * 1000 | round / 1000 | tostring" /tmp/ppw.json)
		check "ppwatch ($MODE): recycling_pct = (ring + cached) / (fast + refill + slow) * 100 of ethtool's ($WANT)" \
			"$(awk -v a="$GOT" -v b="$WANT" 'BEGIN { d = a - b; print (d < 0 ? -d : d) < 0.01 ? "yes" : "no: " a }')" = yes
	fi
done
export_check 1
nsim_del
ip netns exec ppsB "$TOOL" xdp-detach ppsb 2>/dev/null
ip netns del ppsA; ip netns del ppsB
