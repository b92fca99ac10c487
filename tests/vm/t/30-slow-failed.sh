# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# item_slow_failed: make the dynamic item block allocation fail, and only
# that allocation. fail_page_alloc is restricted by its stack-trace filter
# (require-start/require-end) to allocations made from within the function
# that allocates item blocks: page_pool_item_blk_add(), or the function it
# was inlined into (page_pool_item_add(), page_pool_set_pp_info()). The page
# pool's own page allocations happen before page_pool_set_pp_info() and are
# not affected. times=5: exactly five block allocations fail.
[ "$PPVM_REGIME" = item-blocks ] ||
	{ skip regime!=item-blocks "item blocks exist only on the item-block series' kernel (regime=item-blocks)"; return 0; }
# (the build's config has fault injection: kernel/config/20-ppwatch-vm.config)
FI=/sys/kernel/debug/fail_page_alloc
[ -d $FI ] || { fail "no $FI (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS)"; return 0; }
[ -e $FI/require-start ] || { fail "no stack-trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"; return 0; }
FAILS=5; N=2000; SIZE=2000; PORT=5003
sort /proc/kallsyms >/tmp/kallsyms.sorted
for SYM in page_pool_item_blk_add page_pool_item_add page_pool_set_pp_info; do
	START=$(awk -v s=$SYM '$3 == s && ($2 == "t" || $2 == "T") { print $1; exit }' /tmp/kallsyms.sorted)
	[ -n "$START" ] && break
done
[ -n "$START" ] || { fail "none of the item allocation functions is in /proc/kallsyms"; return 0; }
END=$(awk -v a="$START" 'f && $1 != a { print $1; exit } $1 == a { f = 1 }' /tmp/kallsyms.sorted)
log "fault injection window: $SYM 0x$START..0x$END"
echo "0x$START" >$FI/require-start
echo "0x$END" >$FI/require-end
echo 32 >$FI/stacktrace-depth
echo 0 >$FI/min-order
echo 1 >$FI/interval
echo $FAILS >$FI/times
echo 0 >$FI/verbose
echo 100 >$FI/probability

trace_start page_pool_item_block_alloc page_pool_item_fast_empty page_pool_item_slow_failed || return 0
veth_pair sfA va sfB vb || { fail "cannot create the veth pair"; return 0; }
VBX=$(ip -n sfB -o link show vb | cut -d: -f1)
ip netns exec sfB "$TOOL" xdp-attach vb || { fail "XDP attach on vb"; return 0; }
sink_start sfB 192.0.2.2 $PORT || { fail "UDP sink did not start"; return 0; }
U0=$(delivered sfB)
ip netns exec sfA "$TOOL" send 192.0.2.2 $PORT $N $SIZE
arrived() { [ "$(( $(delivered sfB) - U0 ))" -ge "$N" ]; }
wait_for 10 arrived
check "the $N datagrams passed vb's XDP program into the sink (Ip InDelivers of sfB)" "$(( $(delivered sfB) - U0 ))" -eq $N
echo 0 >$FI/probability
check "fail_page_alloc used up its $FAILS failures" "$(cat $FI/times)" -eq 0
ID=; best=-1
for i in $(nl_ids_of_ifindex "$VBX" sfB); do
	v=$(nl_get stats "$i" alloc-item-slow-failed sfB)
	[ "${v:-0}" -gt "$best" ] && { best=$v; ID=$i; }
done
check "veth pool listed" "${ID:-0}" -gt 0 || { sink_stop; return 0; }
LINE=$(nl_line pools "$ID" sfB); SLINE=$(nl_line stats "$ID" sfB)
log "$LINE"; log "$SLINE"
SF=$(field "$SLINE" alloc-item-slow-failed)
FE=$(field "$SLINE" alloc-item-fast-empty)
trace_snap /tmp/sf.trace
TSF=$(tcount /tmp/sf.trace page_pool_item_slow_failed "id=$ID ")
check "pool $ID alloc-item-slow-failed = injected failures" "$SF" -eq $FAILS
check "tracepoint page_pool_item_slow_failed count for id $ID = alloc-item-slow-failed" "$TSF" -eq "$SF"
# the failed block allocations do not end the exhaustion: one event
check "tracepoint page_pool_item_fast_empty for id $ID: once (alloc-item-fast-empty=$FE allocations)" \
	"$(tcount /tmp/sf.trace page_pool_item_fast_empty "id=$ID ")" -eq 1
DALLOC=$(field "$SLINE" item-blocks-dyn-alloc)
check "pool $ID allocated dynamic blocks once the failures were used up" "$DALLOC" -ge 1
check "pool $ID item-mem-dyn: blocks held" "$(field "$LINE" item-mem-dyn)" -ge "$ITEM_BLOCK_BYTES"
echo "PPVM-VALUES: slow-failed id=$ID alloc-item-slow-failed=$SF trace-slow-failed=$TSF alloc-item-fast-empty=$FE item-blocks-dyn-alloc=$DALLOC"
# --- ppwatch cross-check (extend here: alloc-item-slow-failed) ---
if ppw_snap; then
	check "ppwatch: pool $ID state" "$(ppw_pool "$ID" state)" = live
	if ppw_has items; then
		check "ppwatch: pool $ID items.slow_failed = netlink" "$(ppw_pool "$ID" items.slow_failed)" -eq "$SF"
		check "ppwatch: pool $ID items.fast_empty = netlink" "$(ppw_pool "$ID" items.fast_empty)" -eq "$FE"
	else
		fail "ppwatch: pool $ID has no .items in 'pools -j' on a kernel with item stats (alloc-item-slow-failed=$SF)"
	fi
fi
sink_stop
trace_stop
ip netns del sfA; ip netns del sfB
