# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# Every ppwatch command on a real page_pool that exists on every kernel of
# the matrix (5.18+): BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES runs
# an XDP program on N frames from the run's own pool, and the run ends with
# page_pool_destroy(). What holds the N pages past the destroy:
#
#  - a socket (kernels with "xdp: recycle Page Pool backed skbs built from
#    XDP frames", 9c94bbf9a87b, v6.4): XDP_PASS turns each frame into an skb
#    on lo that keeps its pool page, a UDP socket that never reads holds all
#    N until it closes (ppvm-tool live);
#  - a TX ring (older kernels, kernel/matrix lacks=xdp-skb-recycle: an skb
#    built from an XDP frame gives its page up at once, no socket can hold
#    one): the program redirects every frame to a virtio_net device with
#    XDP and napi_tx=0, whose driver reaps XDP frames only at its next
#    transmit; unbinding the device frees them (ppvm-tool live-tx).
#
# Either way a zombie with exactly N pages in flight, asserted against the
# kernel's page_pool_release tracepoint: pools (zombie, inflight N), holders
# (the socket and its process hold all N / N unattributed), pages, postmortem,
# check (a rule that must fail, one that must pass), export --once (the
# inflight and zombie gauges), watch and record across the whole life
# (destroy, retries, freed), postmortem of the recording.
N=200; PORT=5050; NS=lz
# kernels without live frames (5.10: kernel/matrix lacks=live-frames) have
# no page_pool the guest can make; every command there: t/lib-floor.sh
if lacks live-frames; then
	# shellcheck source=tests/vm/t/lib-floor.sh
	. /vm/t/lib-floor.sh
	floor_every_command
	return 0
fi
if ! ip netns add "$NS" || ! ip -n "$NS" link set lo up; then fail "netns $NS"; return 0; fi
trace_start page_pool_release page_pool_state_hold page_pool_state_release || { ip netns del $NS; return 0; }
if lacks xdp-skb-recycle; then
	MODE=tx
	# first, what this kernel does with an skb built from an XDP frame
	ip netns exec $NS "$TOOL" live $((PORT + 9)) 100 0 >/tmp/live0.log 2>&1 ||
		fail "ppvm-tool live: $(cat /tmp/live0.log)"
	trace_snap /tmp/lz0.trace
	check "no xdp-skb-recycle: every XDP_PASS frame's page released at skb build (page_pool_state_release events)" \
		"$(tcount /tmp/lz0.trace page_pool_state_release)" -ge 100
	check "no xdp-skb-recycle: the pool destroyed with nothing in flight, though the socket holds the datagrams" \
		"$(grep ' page_pool_release: ' /tmp/lz0.trace | head -n1 | sed -n 's/.* inflight=\([-0-9]*\) .*/\1/p')" -eq 0
	trace_start page_pool_release page_pool_state_hold page_pool_state_release
	virtio_xdp_setup $NS || { ip netns del $NS; return 0; }
else
	MODE=socket
fi
# both load at once (the holder scan's iterators make record's load the
# longest of all under TCG)
ppw_bg_start watch watch -j 600
# a directory only root writes: record refuses /tmp itself (mode 1777)
[ -d /tmp/rec.d ] || mkdir -m 0700 /tmp/rec.d
# (--stall-after 1s: the zombie lives longer, the recording has its stall)
ppw_bg_start record record -o /tmp/rec.d/rec.jsonl --snapshot-every 1s --scan-every 5s --stall-after 1s 600
ppw_bg_ready watch record

if [ $MODE = socket ]; then
	/sbin/ip netns exec $NS "$TOOL" live $PORT $N 600 >/tmp/live.log 2>&1 &
	LIVE=$!
	wait_for 60 grep -q 'frames run' /tmp/live.log ||
		{ fail "ppvm-tool live: no live-frames run: $(cat /tmp/live.log)"; kill $LIVE; return 0; }
else
	ip netns exec $NS "$TOOL" live-tx "$VIF" $N >/tmp/live.log 2>&1 ||
		{ fail "ppvm-tool live-tx: $(cat /tmp/live.log)"; return 0; }
	LIVE=
fi
# the run has ended: its pool is destroyed (postmortem's age truth)
now; T_DESTROY=$NOW
log "$(cat /tmp/live.log)"
# release: close the socket, or unbind the device (frees its TX ring)
release_pages() {
	if [ -n "$LIVE" ]; then kill $LIVE; wait $LIVE; else virtio_xdp_release; fi
}
destroyed() { trace_snap /tmp/lz.trace; [ -n "$(trace_release_ptr_min /tmp/lz.trace $N)" ]; }
wait_for 10 destroyed
PTR=$(trace_release_ptr_min /tmp/lz.trace $N)
check "page_pool_release: the test run's pool destroyed with $N pages in flight ($MODE)" "${PTR:+1}" = 1 ||
	{ log "$(grep ' page_pool_release: ' /tmp/lz.trace | head -n3)"; release_pages; return 0; }
RINFL=$(trace_release_inflight /tmp/lz.trace "$PTR")
check "page_pool_release inflight = frames held ($MODE)" "$RINFL" -eq $N
# the kernel's own counters of the pool (pages_state_hold_cnt, _release_cnt)
HOLDK=$(trace_release_field /tmp/lz.trace "$PTR" hold)
RELK=$(trace_release_field /tmp/lz.trace "$PTR" release)
ZADDR=$(ppw_addr "$PTR")
echo "PPVM-VALUES: live-zombie mode=$MODE frames=$N release-inflight=$RINFL holds=$(tcount /tmp/lz.trace page_pool_state_hold) releases=$(tcount /tmp/lz.trace page_pool_state_release)"

# --- pools ---
# (and, where the kernel cannot report everything, the text's note: side by side)
now; T_POOLS=$NOW
ppw_par pools pools -j
TXT=
lacks pp-netlink && { ppw_par pools_txt pools; TXT=pools_txt; }
ppw_par_wait pools $TXT
ppw_rc pools
ppw_ok pools "ppwatch pools -j" || { release_pages; return 0; }
regime_check /tmp/pools.out
check "ppwatch pools: the pool at $ZADDR (page_pool_release's) is a zombie" "$(jpool /tmp/pools.out "$ZADDR" state)" = zombie ||
	{ log "pools: $(jq -c '[.pools[] | {addr, state, inflight}]' /tmp/pools.out)"; release_pages; return 0; }
check "ppwatch pools: inflight = page_pool_release's" "$(jpool /tmp/pools.out "$ZADDR" inflight)" -eq "$RINFL"
check "ppwatch pools: hold_cnt = the kernel's (page_pool_release hold=)" "$(jpool /tmp/pools.out "$ZADDR" hold_cnt)" -eq "$HOLDK"
check "ppwatch pools: release_cnt = the kernel's (page_pool_release release=)" "$(jpool /tmp/pools.out "$ZADDR" release_cnt)" -eq "$RELK"
check "ppwatch pools: destroy_cnt (1 + retries)" "$(jpool /tmp/pools.out "$ZADDR" destroy_cnt)" -ge 1
check "ppwatch pools: pool_size = the run's batch (64)" "$(jpool /tmp/pools.out "$ZADDR" pool_size)" -eq 64
# the zombie's pages are at least as old as its destroy, which this
# ppwatch did not see: dated by the kernel (its detach time, or, without
# one, the destroy's jiffies the pool keeps, pool->defer_start), a bound
# no less than the destroy's age when pools started (T_DESTROY is after
# the destroy), less a tick
ZAGE=$(awk -v a="$T_DESTROY" -v b="$T_POOLS" 'BEGIN { printf "%.3f", b - a }')
check "ppwatch pools: the oldest page's age is a lower bound" "$(jpool /tmp/pools.out "$ZADDR" oldest_age_is_lower_bound)" = true
check "ppwatch pools: the oldest page at least $ZAGE s old (destroyed before pools started)" \
	"$(jpool /tmp/pools.out "$ZADDR" oldest_age_s | awk -v z="$ZAGE" '{ print ($1 >= z - 0.02) }')" = 1 ||
	log "pools: $(jq -c --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0] | {oldest_age_s, detach_age_s}' /tmp/pools.out)"
check "ppwatch pools: the test-run pool is not in netlink" "$(jpool /tmp/pools.out "$ZADDR" netlink)" = false
if lacks pp-netlink; then
	check "ppwatch pools: .kernel.netlink is false (no netdev page-pool family)" "$(jq -r .kernel.netlink /tmp/pools.out)" = false
	# what this kernel cannot report: said once, in the JSON and as one text line
	U=$(jq -r '.kernel.unavailable // empty | join(",")' /tmp/pools.out)
	case ",$U," in
	*,netlink,*) pass "ppwatch pools: .kernel.unavailable names netlink ($U)" ;;
	*) fail "cli: 'ppwatch pools -j' has no .kernel.unavailable listing what this kernel cannot report (netlink ids and stats, detach time, item stats) (issue 9 item 4), got '$U'" ;;
	esac
	ppw_rc pools_txt
	NOTE=$(grep -c 'cannot report' /tmp/pools_txt.out /tmp/pools_txt.err | awk -F: '{s += $2} END {print s + 0}')
	check "ppwatch pools (text): one line 'this kernel cannot report ...' (cli, issue 9 item 4)" "$NOTE" -eq 1
else
	check "ppwatch pools: .kernel.netlink is true" "$(jq -r .kernel.netlink /tmp/pools.out)" = true
	check "ppwatch pools: the pool has the kernel's id (pool->user.id)" "$(jpool /tmp/pools.out "$ZADDR" id)" -gt 0
fi
SEL=$(ppw_sel "$ZADDR" /tmp/pools.out)

# postmortem first, alone, while the zombie is young (the kernel names a
# pool stalled in its log after 60 s, which postmortem reads too): its
# verdict is known here. The kernel dates the destroy (its detach time,
# pool->user, or the destroy's jiffies where it has none): a zombie
# destroyed over a second ago is stalled past --stall-after 1s: exit 1,
# this pool stalled.
wait_for 5 awk -v a="$T_DESTROY" '{ exit !($1 - a >= 1.1) }' /proc/uptime
PM_WANT=1
ppw pm --attach tracepoint postmortem -j --stall-after 1s
# (its exit status, checked below once the other commands have run)
PM_RC=$PPW_RC
now; PM_AGE=$(awk -v a="$T_DESTROY" -v b="$NOW" 'BEGIN { printf "%d", b - a }')
# The other commands that read this zombie, all at once (each is its own
# process with its own BPF session; the kernel state they read holds still
# until the pages are let go). The holder scan loads in every attach mode
# here: holders with tp_btf (auto), pages with raw_tp, postmortem (above)
# with the classic tracepoint programs (t/56 runs each mode's hot path).
printf 'version: 1\nrules:\n  - name: small\n    max_inflight: 100\n  - name: roomy\n    max_inflight: 100000\n  - name: old\n    max_oldest_age: 1s\n' >/tmp/rules.yaml
ppw_par holders holders -j
[ -n "$SEL" ] && ppw_par pages --attach raw_tp pages "$SEL" -j
ppw_par check check -f /tmp/rules.yaml -j
ppw_par export export --once
ppw_par_wait holders ${SEL:+pages} check export

# --- holders: the socket and its process hold every page (or: nothing does) ---
ppw_rc holders
if ppw_ok holders "ppwatch holders -j" && [ $MODE = socket ]; then
	check "ppwatch holders: pages of the pool attributed" "$(jpool /tmp/holders.out "$ZADDR" attributed)" -eq $N
	check "ppwatch holders: unattributed" "$(jpool /tmp/holders.out "$ZADDR" unattributed)" -eq 0
	H=$(jq -c --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0].holders[0]' /tmp/holders.out)
	log "holder: $H"
	check "ppwatch holders: holder kind" "$(echo "$H" | jq -r .kind)" = socket
	check "ppwatch holders: the UDP socket on 127.0.0.1:$PORT" "$(echo "$H" | jq -r .local)" = "127.0.0.1:$PORT"
	check "ppwatch holders: its pages" "$(echo "$H" | jq -r .pages)" -eq $N
	check "ppwatch holders: its process" "$(echo "$H" | jq -r '.owners[0].comm')" = ppvm-tool
	check "ppwatch holders: virt_to_page self-check" "$(jq -r .scan.virt_to_page /tmp/holders.out)" = checked
elif [ "$PPW_RC" -eq 0 ]; then
	# pages in a device's TX ring: no socket has them, and none is named
	check "ppwatch holders: pages attributed to a holder (TX ring: none)" "$(jpool /tmp/holders.out "$ZADDR" attributed)" -eq 0
	check "ppwatch holders: unattributed (in the TX ring)" "$(jpool /tmp/holders.out "$ZADDR" unattributed)" -eq $N ||
		log "holders: $(head -c 1500 /tmp/holders.out)"
	# (no socket to check virt_to_page on: the self-check needs one)
fi

# --- pages ---
if [ -n "$SEL" ]; then
	ppw_rc pages
	if ppw_ok pages "ppwatch --attach raw_tp pages $SEL -j"; then
		if [ $MODE = socket ]; then
			check "ppwatch pages: pages listed" "$(jq '[.pools[].pages[]] | length' /tmp/pages.out)" -eq $N
		else
			# in the TX ring since before this ppwatch: no scan reaches them, no
			# hold was seen; counted, not listed
			check "ppwatch pages: TX-ring pages counted, not listed (unseen_pages)" \
				"$(jq '[.pools[].unseen_pages] | add' /tmp/pages.out)" -eq $N
		fi
		check "ppwatch pages: the pool named as pools names it" "$(jq -r '.pools[0].pool' /tmp/pages.out)" = "$SEL"
		[ $MODE = socket ] && check "ppwatch pages: every page in the socket on :$PORT" \
			"$(jq --arg p "127.0.0.1:$PORT" '[.pools[].pages[] | select((.holder // "") | contains($p))] | length' /tmp/pages.out)" -eq $N
	fi
else
	fail "ppwatch pages: cannot select the pool (no identity, see above)"
fi

# --- postmortem (live) ---
check "ppwatch --attach tracepoint postmortem -j --stall-after 1s (zombie ${PM_AGE} s old): exit $PM_WANT" "$PM_RC" -eq $PM_WANT
if [ "$PM_RC" -le 1 ]; then
	check "ppwatch postmortem: stalled pools (this one, or none)" \
		"$(jq '[.pools[]? | select(.stalled == true)] | length' /tmp/pm.out)" -eq $PM_WANT
	check "ppwatch postmortem: the pool's stalled" "$(jpool /tmp/pm.out "$ZADDR" stalled)" = \
		"$([ $PM_WANT = 1 ] && echo true || echo false)"
	check "ppwatch postmortem: the pool is a zombie" "$(jpool /tmp/pm.out "$ZADDR" state)" = zombie
	check "ppwatch postmortem: inflight" "$(jpool /tmp/pm.out "$ZADDR" inflight)" -eq $N
	if [ $MODE = socket ]; then
		check "ppwatch postmortem: holders' pages" \
			"$(jq --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0].holders.holders[0].pages // empty' /tmp/pm.out)" -eq $N
	else
		check "ppwatch postmortem: unattributed pages (TX ring)" \
			"$(jq --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0].holders.unattributed // empty' /tmp/pm.out)" -eq $N
	fi
fi

# --- check: a rule that fails on this pool, one that passes ---
ppw_rc check
check "ppwatch check (max_inflight 100 and 100000): exit 1 (a check failed)" "$PPW_RC" -eq 1
check "ppwatch check: result" "$(jq -r .result /tmp/check.out)" = fail
check "ppwatch check max_inflight 100: failed" "$(jq -r '.checks[] | select(.rule == "small") | .result' /tmp/check.out)" = fail
check "ppwatch check max_inflight 100: a finding with inflight $N" \
	"$(jq "[.checks[] | select(.rule == \"small\") | .findings[] | select(tostring | contains(\"$N\"))] | length" /tmp/check.out)" -ge 1
check "ppwatch check max_inflight 100000: passed" "$(jq -r '.checks[] | select(.rule == "roomy") | .result' /tmp/check.out)" = pass
check "ppwatch check max_inflight 100000: pools checked" "$(jq '.checks[] | select(.rule == "roomy") | .pools_checked' /tmp/check.out)" -ge 1
# destroyed over 1.1 s before check started: the bound fails max_oldest_age 1s
check "ppwatch check max_oldest_age 1s: failed on the zombie's bound" \
	"$(jq --arg p "$(jpool /tmp/pools.out "$ZADDR" pool)" '[.checks[] | select(.rule == "old") | .findings[] | select(.pool == $p and .at_least)] | length' /tmp/check.out)" -eq 1 ||
	log "check old: $(jq -c '.checks[] | select(.rule == "old")' /tmp/check.out)"

# --- export --once ---
ppw_rc export
if ppw_ok export "ppwatch export --once"; then
	# the gauges and counters of the zombie (pool_id = its name) against the
	# kernel's: page_pool_release's inflight, hold= and release=; the zombie
	# count against the trace's pools still waiting (their retries)
	trace_snap /tmp/lz.trace
	E() { sed -n "s/^$1{pool_id=\"$SEL\",.*} //p" /tmp/export.out | head -n1; }
	check "ppwatch export: ppwatch_pool_inflight_pages of pool $SEL = page_pool_release inflight" "$(E ppwatch_pool_inflight_pages)" -eq "$RINFL"
	check "ppwatch export: ppwatch_pool_pages_held_total = the kernel's hold count" "$(E ppwatch_pool_pages_held_total)" -eq "$HOLDK"
	check "ppwatch export: ppwatch_pool_pages_released_total = the kernel's release count" "$(E ppwatch_pool_pages_released_total)" -eq "$RELK"
	check "ppwatch export: ppwatch_pool_zombie of pool $SEL" "$(E ppwatch_pool_zombie)" -eq 1
	check "ppwatch export: ppwatch_pools{state=\"zombie\"} = the zombies in the trace" \
		"$(sed -n 's/^ppwatch_pools{state="zombie"} //p' /tmp/export.out)" -eq "$(trace_zombies /tmp/lz.trace)"
	if lacks pp-netlink; then
		Z=$(grep "^ppwatch_pool_inflight_pages{.*} $N\$" /tmp/export.out | head -n1)
		case "$Z" in
		*'pool_id=""'*|*'pool_id="0"'*|*'pool_id="-"'*|"")
			fail "cli: export names the pool without an id ($Z): needs the stable identity of pools without pool->user.id (issue 9 item 4)" ;;
		*) pass "ppwatch export: the pool has an identity: $Z" ;;
		esac
	fi
fi

# --- the socket closes (the device is unbound): freed ---
release_pages
freed() { trace_snap /tmp/lz.trace; [ "$(trace_release_inflight /tmp/lz.trace "$PTR")" = 0 ]; }
if wait_for 10 freed; then pass "test-run pool freed once its pages came back ($MODE; page_pool_release inflight=0)"; else fail "test-run pool not freed 10 s after its pages were let go ($MODE)"; fi
# watch and record have the freed event
seen_freed() {
	jq -e --arg a "$ZADDR" 'select(.addr == $a and .event == "freed")' /tmp/watch.out >/dev/null 2>&1 &&
	grep -q "\"freed\".*\"$ZADDR\"\|\"$ZADDR\".*\"freed\"" /tmp/rec.d/rec.jsonl
}
wait_for 10 seen_freed || log "watch or record has no freed event of $ZADDR 10 s after the pool was freed"

# --- watch: the whole life of the pool ---
ppw_bg_stop watch
check "ppwatch watch: exit status after SIGINT" "$PPW_RC" -eq 0
W() { jq -r --arg a "$ZADDR" "select(.addr == \$a and .event == \"$1\") | .$2" /tmp/watch.out 2>/dev/null | head -n1; }
check "ppwatch watch: destroy event with inflight $N" "$(W destroy inflight)" -eq $N
check "ppwatch watch: retry events" "$(jq -r --arg a "$ZADDR" 'select(.addr == $a and .event == "retry") | .retry' /tmp/watch.out | wc -l)" -ge 1
check "ppwatch watch: freed event" "$(W freed state)" = freed
check "ppwatch watch: time spent a zombie (s)" "$(W freed zombie_s | cut -d. -f1)" -ge 1

# --- record, and postmortem of the recording ---
ppw_bg_stop record
check "ppwatch record: exit status after SIGINT" "$PPW_RC" -eq 0
check "ppwatch record: header line" "$(head -n1 /tmp/rec.d/rec.jsonl | jq -r .type)" = header
check "ppwatch record: events of the pool" "$(grep -c "\"$ZADDR\"" /tmp/rec.d/rec.jsonl)" -ge 3
ppw pm_rec postmortem /tmp/rec.d/rec.jsonl -j
# (the recording saw the destroy; its stall threshold is 1 s, the zombie
# lived longer: this pool, and only it, stalled)
check "ppwatch postmortem FILE -j: exit 1 (the pool stalled past the recording's 1 s)" "$PPW_RC" -eq 1
if [ "$PPW_RC" -le 1 ]; then
	check "ppwatch postmortem FILE: stalled pools (this one)" \
		"$(jq -r '[.pools[]? | select(.stalled == true) | .addr] | join(" ")' /tmp/pm_rec.out)" = "$ZADDR"
	check "ppwatch postmortem FILE: its timeline has the stall" \
		"$(jq --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0].timeline | map(select(.event == "stalled")) | length' /tmp/pm_rec.out)" -ge 1
	check "ppwatch postmortem FILE: the pool freed" "$(jpool /tmp/pm_rec.out "$ZADDR" state)" = freed
	check "ppwatch postmortem FILE: its timeline has the destroy" \
		"$(jq --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0].timeline | map(select(.event == "destroy")) | length' /tmp/pm_rec.out)" -ge 1
	# a scan while the socket held every page; postmortem shows the last
	# scan, which may have met the socket's close half-way (65 of 200 once)
	[ $MODE = socket ] && check "ppwatch record: a holder scan found the socket's $N pages" \
		"$(jq -s --arg a "$ZADDR" '[.[] | select(.type == "holders") | .pools[]? | select(.addr == $a) | .holders[0].pages // 0] | max // empty' /tmp/rec.d/rec.jsonl)" -eq $N
	[ $MODE = socket ] && check "ppwatch postmortem FILE: holders from the recording's last scan of the pool" \
		"$(jq --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0].holders.time // empty' /tmp/pm_rec.out)" = \
		"$(jq -s --arg a "$ZADDR" '[.[] | select(.type == "holders" and any(.pools[]?; .addr == $a)) | .time] | last // empty' /tmp/rec.d/rec.jsonl)"
fi
trace_stop
ip netns del $NS
[ $MODE = tx ] && virtio_xdp_reset
return 0
