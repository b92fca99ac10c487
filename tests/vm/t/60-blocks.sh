# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# ppwatch blocks: each pool's item blocks and the items in use in each, read
# by the blocks_walk iterator from the pool's item_blocks list.
#
# On the item-block kernel (flavor patched): a live-frames run (as in
# 50-live-zombie) leaves N pages held by a socket, more than the pool's
# pre-allocated items, so dynamic blocks exist. The pool is the one
# page_pool_release names destroyed with N in flight; its size is the
# run's batch, 64 (ppvm-tool sets batch_size; the test run's pool_size is
# it). At that release a tp_btf program (ppvm-bpf) walks the pool's block
# list in the kernel and reads its counters (item_blks_prealloc, _dyn).
# What 'ppwatch blocks' must find:
#  - items in use, summed over every block = N (each page out holds one
#    item), per block and in the totals;
#  - pre-allocated blocks = ceil((2 * 64 + 128 + 512) / 254) = 4,
#    page_pool_item_init()'s formula, = the kernel's item_blks_prealloc;
#  - dynamic blocks: at least what the pre-allocated items could not hold
#    (pages that came back early took items too), = item_blks_dyn;
#  - each block's kind and items in use as the kernel's walk found them;
#  - 'pools -j' carries the same totals in .block_occupancy and the
#    kernel's counters in .items, 'pools -w' the BLOCKS column.
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
trace_start page_pool_release || { ip netns del $NS; return 0; }
bpf_start /tmp/blk.bpf
/sbin/ip netns exec $NS "$TOOL" live $PORT $N 600 >/tmp/blk-live.log 2>&1 &
LIVE=$!
wait_for 60 grep -q 'frames run' /tmp/blk-live.log ||
	{ fail "ppvm-tool live: no live-frames run: $(cat /tmp/blk-live.log)"; kill $LIVE; bpf_stop; return 0; }
destroyed() { trace_snap /tmp/blk.trace; [ -n "$(trace_release_ptr_min /tmp/blk.trace $N)" ]; }
wait_for 10 destroyed
PTR=$(trace_release_ptr_min /tmp/blk.trace $N)
check "page_pool_release: the live-frames pool destroyed with $N pages in flight" "${PTR:+1}" = 1 ||
	{ kill $LIVE; bpf_stop; return 0; }
ADDR=$(ppw_addr "$PTR")
P=${PTR#0x}
# the kernel's block list at that release (tp_btf walk)
wait_for 5 grep -q "^blocks id=[0-9]* pool=$P inflight=$N " /tmp/blk.bpf
bpf_stop
KB=$(grep "^blocks id=[0-9]* pool=$P inflight=$N " /tmp/blk.bpf | head -n1)
log "$KB"
KPRE=$(field "$KB" prealloc); KDYN=$(field "$KB" dyn)
check "tp_btf walk: the whole block list" "$(field "$KB" complete)" -eq 1
check "tp_btf walk: items in use over the blocks = the $N pages held" "$(field "$KB" inuse)" -eq $N
check "tp_btf walk: blocks = item_blks_prealloc + item_blks_dyn" "$(field "$KB" n)" -eq $((KPRE + KDYN))
# the walk's blocks, "pre:used" / "dyn:used", sorted: its last n block records
KOCC=$(grep "^block id=[0-9]* pool=$P " /tmp/blk.bpf | head -n "$(field "$KB" n)" |
	awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^flags=/) f = substr($i, 7); if ($i ~ /^inuse=/) u = substr($i, 7) } print (f % 2 ? "dyn" : "pre") ":" u }' |
	sort | tr '\n' ',' | sed 's/,$//')

SIZE=64; PER=254
WANT_PRE=$(( (2 * SIZE + 128 + 512 + PER - 1) / PER ))
WANT_DYN=$(( N > WANT_PRE * PER ? (N - WANT_PRE * PER + PER - 1) / PER : 0 ))
check "the kernel: pre-allocated blocks = ceil((2 * $SIZE + 640) / $PER)" "$KPRE" -eq $WANT_PRE
check "the kernel: dynamic blocks, at least enough for the $((N - WANT_PRE * PER)) pages the pre-allocated items could not track" \
	"$KDYN" -ge $WANT_DYN

ppw pools pools -j
ppw_ok pools "ppwatch pools -j" || { kill $LIVE; return 0; }
check "ppwatch pools: the pool page_pool_release names, $N pages in flight" "$(jpool /tmp/pools.out "$ADDR" inflight)" -eq $N ||
	{ kill $LIVE; return 0; }
check "ppwatch pools: pool_size = the run's batch ($SIZE)" "$(jpool /tmp/pools.out "$ADDR" pool_size)" -eq $SIZE
SEL=$(ppw_sel "$ADDR" /tmp/pools.out)

# blocks and pools -w of the pool, side by side
ppw_par blocks blocks "$SEL" -j
ppw_par pools_w pools -w "$SEL"
ppw_par_wait blocks pools_w
ppw_rc blocks
if ppw_ok blocks "ppwatch blocks $SEL -j"; then
	B() { jq -r ".pools[0].$1" /tmp/blocks.out; }
	PRE=$(B blocks_prealloc); DYN=$(B blocks_dynamic)
	log "blocks: $(jq -c '.pools[0] | del(.blocks)' /tmp/blocks.out)"
	check "ppwatch blocks: items per block (4 KiB pages, 16-byte items)" "$(B items_per_block)" -eq $PER
	check "ppwatch blocks: items in use = the $N pages held" "$(B items_used)" -eq $N
	check "ppwatch blocks: the blocks' used items sum to the $N pages" \
		"$(jq '[.pools[0].blocks[].used] | add' /tmp/blocks.out)" -eq $N
	check "ppwatch blocks: pre-allocated blocks = the kernel's ($KPRE)" "$PRE" -eq "$KPRE"
	check "ppwatch blocks: dynamic blocks = the kernel's ($KDYN)" "$DYN" -eq "$KDYN"
	check "ppwatch blocks: one record per block" \
		"$(jq '.pools[0].blocks | length' /tmp/blocks.out)" -eq $((KPRE + KDYN))
	check "ppwatch blocks: per block (kind:used, sorted) = the kernel's walk" \
		"$(jq -r '[.pools[0].blocks[] | "\(if .kind == "dynamic" then "dyn" else "pre" end):\(.used)"] | sort | join(",")' /tmp/blocks.out)" = "$KOCC"
	check "ppwatch blocks: items in use in dynamic blocks = the kernel's" \
		"$(B items_used_dynamic)" -eq "$(echo "$KOCC" | tr ',' '\n' | awk -F: '$1 == "dyn" { s += $2 } END { print s + 0 }')"
	check "ppwatch blocks: nothing unissued (a destroyed pool gave its current block's back)" \
		"$(B items_unissued)" -eq 0
	check "ppwatch blocks: no block is current in a destroyed pool" \
		"$(jq '[.pools[0].blocks[] | select(.current)] | length' /tmp/blocks.out)" -eq 0
	check "ppwatch blocks: sparse_blocks = the blocks marked sparse (the walk's count and the list agree)" \
		"$(jq '[.pools[0].blocks[] | select(.sparse)] | length' /tmp/blocks.out)" -eq "$(B sparse_blocks)"
	echo "PPVM-VALUES: blocks inflight=$N per=$PER prealloc=$PRE dynamic=$DYN used=$(B items_used) sparse=$(B sparse_blocks) kernel=$KOCC"
fi
# the series' counters in 'pools -j' (.items): the kernel's
C=$(jq -c "[.pools[] | select(.addr == \"$ADDR\")][0].items" /tmp/pools.out)
if [ "$(echo "$C" | jq -r '.blocks_prealloc // empty')" = "" ]; then
	fail "ppwatch pools -j: the pool has no .items on the item-block kernel: $C"
else
	check "ppwatch pools -j: .items.blocks_prealloc = the kernel's item_blks_prealloc" "$(echo "$C" | jq .blocks_prealloc)" -eq "$KPRE"
	check "ppwatch pools -j: .items.blocks_dyn = the kernel's item_blks_dyn" "$(echo "$C" | jq .blocks_dyn)" -eq "$KDYN"
fi
O=$(jq -c "[.pools[] | select(.addr == \"$ADDR\")][0].block_occupancy" /tmp/pools.out)
check "ppwatch pools -j: .block_occupancy.items_used = the $N pages" "$(echo "$O" | jq .items_used)" -eq $N
ppw_rc pools_w
check "ppwatch pools -w: BLOCKS column ($KPRE+$KDYN, the kernel's)" "$(grep -c "$KPRE+$KDYN" /tmp/pools_w.out)" -ge 1 ||
	log "$(cat /tmp/pools_w.out)"

kill $LIVE
wait $LIVE
freed() { trace_snap /tmp/blk.trace; [ "$(trace_release_inflight /tmp/blk.trace "$PTR")" = 0 ]; }
if wait_for 10 freed; then pass "the live-frames pool freed once its socket closed"; else fail "the live-frames pool not freed 10 s after its socket closed"; fi
ppw blocks_after blocks "$SEL" -j
check "ppwatch blocks: the freed pool is not listed" \
	"$(jq '.pools | length' /tmp/blocks_after.out 2>/dev/null || echo x)" -eq 0
trace_stop
ip netns del $NS
