# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# veth page pools with and without their NAPI instance (.napi, the xarray
# series' patch 1 "veth: let page pools recycle directly in their NAPI
# context"; the patched line has no .napi): XDP_PASS on vb, a flood of datagrams to a port nobody listens
# on, each of the largest size that is not IP-fragmented (1472 bytes of
# payload: skb_pp_cow_data() copies such a packet into a page of its own,
# smaller ones share pages through the page_pool frag API, which reuses a
# page without going through the recycling paths). The stack drops each one in vb's NAPI poll (softirq, the
# NAPI's CPU); with .napi the page goes straight back into the pool's
# allocation cache (recycle-cached), without it into its ptr_ring
# (recycle-ring). The numbers (page-pool-stats deltas, the time the flood
# took) are the PPVM-VALUES line; kernels which do not list veth pools over
# netlink skip (kernel/matrix lacks=veth-pp-netdev). The test asserts where the pages go back; it measures no
# speed (bench/ does): one round of 4000 datagrams by default
# (PPVM_NAPI_ROUNDS, PPVM_NAPI_PACKETS for more).
lacks veth-pp && { skip lacks=veth-pp "veth has no page_pool here"; return 0; }
# (t/20 asserts that page-pool-get does not list them there)
lacks veth-pp-netdev &&
	{ skip lacks=veth-pp-netdev "veth page pools are not linked to their netdev on $FLAVOR: no page-pool-stats to measure"; return 0; }
N=${PPVM_NAPI_PACKETS:-4000}; SIZE=1472; PORT=9
veth_pair napiA va napiB vb || { fail "cannot create the veth pair"; return 0; }
VBX=$(ip -n napiB -o link show vb | cut -d: -f1)
ip netns exec napiB "$TOOL" xdp-attach vb || { fail "XDP attach on vb"; return 0; }
ID=$(nl_ids_of_ifindex "$VBX" napiB | head -n1)
if [ -z "$ID" ]; then
	fail "the veth pool of vb is not listed by page-pool-get (kernel/matrix: no lacks=veth-pp-netdev)"
	ip netns del napiA; ip netns del napiB
	return 0
fi
NAPI=$(field "$(nl_line pools "$ID" napiB)" napi-id)
# warm up (the pool's first pages come from the page allocator either way)
ip netns exec napiA "$TOOL" flood 192.0.2.2 $PORT 1000 $SIZE >/dev/null
ROUNDS=${PPVM_NAPI_ROUNDS:-1}
S0=$(nl_line stats "$ID" napiB)
PPSL=; i=0
while [ $i -lt "$ROUNDS" ]; do
	R=$(ip netns exec napiA "$TOOL" flood 192.0.2.2 $PORT "$N" $SIZE)
	log "$R"
	NS=$(echo "$R" | sed -n 's/.* ns=\([0-9]*\).*/\1/p')
	SENT=$(echo "$R" | sed -n 's/.*sent=\([0-9]*\).*/\1/p')
	PPSL="$PPSL $(( ${SENT:-0} * 1000000000 / ${NS:-1} ))"
	i=$((i + 1))
done
sleep 0.5
S1=$(nl_line stats "$ID" napiB)
log "$S0"; log "$S1"
d() { echo $(( $(field "$S1" "$1") - $(field "$S0" "$1") )); }
# shellcheck disable=SC2086 # split: the rates without PPSL's leading blank
MED=$(echo $PPSL | tr ' ' '\n' | sort -n | sed -n "$(( (ROUNDS + 1) / 2 ))p")
CACHED=$(d recycle-cached); RING=$(d recycle-ring)
# shellcheck disable=SC2086 # split: the rates without PPSL's leading blank
echo "PPVM-VALUES: veth-napi flavor=$FLAVOR napi-id=${NAPI:-none} rounds=$ROUNDS packets=$((ROUNDS * N)) size=$SIZE pps=$(echo $PPSL | tr ' ' ',') median-pps=$MED recycle-cached=$CACHED recycle-ring=$RING recycle-ring-full=$(d recycle-ring-full) recycle-released-refcnt=$(d recycle-released-refcnt) alloc-fast=$(d alloc-fast) alloc-slow=$(d alloc-slow) alloc-refill=$(d alloc-refill) alloc-empty=$(d alloc-empty)"
if [ -n "$NAPI" ]; then
	check "with .napi: pages freed in vb's NAPI context recycle directly (recycle-cached)" "$CACHED" -gt 0
else
	check "without .napi: no direct recycling (recycle-cached)" "$CACHED" -eq 0
	check "without .napi: pages recycle through the ring" "$RING" -gt 0
fi
ip netns del napiA; ip netns del napiB
