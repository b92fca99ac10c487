# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# ppwatch blocks: each pool's item blocks and the items in use in each, read
# by the blocks_walk iterator from the pool's item_blocks list.
#
# On the item-block kernel (flavor patched): a live-frames run (as in
# 50-live-zombie) leaves N pages held by a socket, more than the pool's
# pre-allocated items, so dynamic blocks exist. What the walk must find:
#  - items in use, summed over every block = the pool's inflight = N (each
#    page out holds one item), per block and in the totals;
#  - pre-allocated blocks = ceil((2 * pool_size + 128 + 512) / items per
#    block), page_pool_item_init()'s formula, and = the series' counter;
#  - dynamic blocks: at least what the pre-allocated items could not hold
#    (pages that came back early took items too), and = the series'
#    counter (item_blks_dyn);
#  - 'pools -j' carries the same totals in .block_occupancy, 'pools -w' the
#    BLOCKS column.
# Everywhere else: 'ppwatch blocks' says "not available" and exits 2, and
# .block_occupancy is null.
N=1500; PORT=5060; NS=blk
if [ "$FLAVOR" != patched ]; then
	ppw blocks_na blocks
	check "ppwatch blocks without item blocks: exit 2" "$PPW_RC" -eq 2
	check "ppwatch blocks without item blocks: says 'not available'" \
		"$(grep -c 'not available' /tmp/blocks_na.err)" -ge 1
	# the 'pools -j' of 50-live-zombie, its zombie among the pools (one
	# ppwatch load less), else one of its own
	PJ=/tmp/pools.out
	[ -s $PJ ] || { ppw pools_na pools -j; PJ=/tmp/pools_na.out; }
	check "ppwatch pools -j without item blocks: no pool has .block_occupancy ($(jq '.pools | length' $PJ) pools)" \
		"$(jq '[.pools[] | select(.block_occupancy != null)] | length' $PJ)" -eq 0
	return 0
fi
if ! ip netns add "$NS" || ! ip -n "$NS" link set lo up; then fail "netns $NS"; return 0; fi
trace_start page_pool_release
/sbin/ip netns exec $NS "$TOOL" live $PORT $N 600 >/tmp/blk-live.log 2>&1 &
LIVE=$!
wait_for 60 grep -q 'frames run' /tmp/blk-live.log ||
	{ fail "ppvm-tool live: no live-frames run: $(cat /tmp/blk-live.log)"; kill $LIVE; return 0; }

ppw pools pools -j
ppw_ok pools "ppwatch pools -j" || { kill $LIVE; return 0; }
ADDR=$(jq -r "[.pools[] | select(.inflight == $N)][0].addr // empty" /tmp/pools.out)
check "ppwatch pools: the live-frames pool with $N pages in flight" "${ADDR:+1}" = 1 ||
	{ kill $LIVE; return 0; }
SEL=$(ppw_sel "$ADDR" /tmp/pools.out)
SIZE=$(jpool /tmp/pools.out "$ADDR" pool_size)

# blocks and pools -w of the pool, side by side
ppw_par blocks blocks "$SEL" -j
ppw_par pools_w pools -w "$SEL"
ppw_par_wait blocks pools_w
ppw_rc blocks
if ppw_ok blocks "ppwatch blocks $SEL -j"; then
	B() { jq -r ".pools[0].$1" /tmp/blocks.out; }
	PER=$(B items_per_block); PRE=$(B blocks_prealloc); DYN=$(B blocks_dynamic)
	WANT_PRE=$(( (2 * SIZE + 128 + 512 + PER - 1) / PER ))
	WANT_DYN=$(( N > PRE * PER ? (N - PRE * PER + PER - 1) / PER : 0 ))
	log "blocks: $(jq -c '.pools[0] | del(.blocks)' /tmp/blocks.out)"
	check "ppwatch blocks: items per block (4 KiB pages, 16-byte items)" "$PER" -eq 254
	check "ppwatch blocks: items in use = inflight" "$(B items_used)" -eq $N
	check "ppwatch blocks: the blocks' used items sum to items_used" \
		"$(jq '[.pools[0].blocks[].used] | add' /tmp/blocks.out)" -eq $N
	check "ppwatch blocks: pre-allocated blocks = ceil((2 * $SIZE + 640) / $PER)" "$PRE" -eq $WANT_PRE
	check "ppwatch blocks: dynamic blocks, at least enough for the $((N - PRE * PER)) pages the pre-allocated items could not track" \
		"$DYN" -ge $WANT_DYN
	check "ppwatch blocks: one record per block" \
		"$(jq '.pools[0].blocks | length' /tmp/blocks.out)" -eq $((PRE + DYN))
	check "ppwatch blocks: items in use in dynamic blocks, at least the overflow" \
		"$(B items_used_dynamic)" -ge $((N - PRE * PER))
	check "ppwatch blocks: nothing unissued (a destroyed pool gave its current block's back)" \
		"$(B items_unissued)" -eq 0
	check "ppwatch blocks: no block is current in a destroyed pool" \
		"$(jq '[.pools[0].blocks[] | select(.current)] | length' /tmp/blocks.out)" -eq 0
	check "ppwatch blocks: sparse_blocks = the blocks marked sparse (the walk's count and the list agree)" \
		"$(jq '[.pools[0].blocks[] | select(.sparse)] | length' /tmp/blocks.out)" -eq "$(B sparse_blocks)"
	C=$(jq -r "[.pools[] | select(.addr == \"$ADDR\")][0].items" /tmp/pools.out)
	if [ "$(echo "$C" | jq -r '.blocks_prealloc // empty')" != "" ]; then
		check "ppwatch blocks: pre-allocated = the series' counter" "$PRE" -eq "$(echo "$C" | jq .blocks_prealloc)"
		check "ppwatch blocks: dynamic = the series' counter" "$DYN" -eq "$(echo "$C" | jq .blocks_dyn)"
	fi
	echo "PPVM-VALUES: blocks inflight=$N per=$PER prealloc=$PRE dynamic=$DYN used=$(B items_used) sparse=$(B sparse_blocks)"
fi
O=$(jq -c "[.pools[] | select(.addr == \"$ADDR\")][0].block_occupancy" /tmp/pools.out)
check "ppwatch pools -j: .block_occupancy.items_used = inflight" "$(echo "$O" | jq .items_used)" -eq $N
ppw_rc pools_w
check "ppwatch pools -w: BLOCKS column" "$(grep -c "$PRE+$DYN" /tmp/pools_w.out)" -ge 1 ||
	log "$(cat /tmp/pools_w.out)"

kill $LIVE
wait $LIVE
freed() { trace_snap /tmp/blk.trace; [ "$(trace_zombies /tmp/blk.trace)" -eq 0 ]; }
wait_for 10 freed || fail "the live-frames pool not freed 10 s after its socket closed"
ppw blocks_after blocks "$SEL" -j
check "ppwatch blocks: the freed pool is not listed" \
	"$(jq '.pools | length' /tmp/blocks_after.out 2>/dev/null || echo x)" -eq 0
trace_stop
ip netns del $NS
