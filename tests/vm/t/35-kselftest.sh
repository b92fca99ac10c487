# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# The kselftests of the kernel's own tree that its kernel/matrix line names
# (selftests=): python ksft, run in place under /vm/ksrc (the tree's layout:
# tools/testing/selftests/..., tools/net/ynl/lib, the netlink specs). Each
# KTAP result line becomes a PPVM line; a test that exits non-zero (other
# than 4, all skipped) fails. A kselftest's own SKIP (KTAP '# SKIP', exit 4)
# is declared only by its line's skips=35-kselftest (kernel/matrix). drivers/net/hw tests get the two vmxnet3 NICs:
# the second is NETIF (in this netns), the first the remote end, in netns
# ksft-remote (REMOTE_TYPE=netns). Runs before 40-vmxnet3 unbinds a NIC.
[ -n "$PPVM_SELFTESTS" ] || { skip selftests=none "kernel/matrix names no selftests for $FLAVOR"; return 0; }
command -v python3 >/dev/null || { fail "no python3 in the initramfs"; return 0; }
KSRC=/vm/ksrc/tools/testing/selftests

hw_env_up() {
	set -- /sys/bus/pci/drivers/vmxnet3/0000:*
	[ $# -ge 2 ] || return 1
	HW_REMOTE=$(ls "$1/net") HW_LOCAL=$(ls "$2/net")
	ip netns add ksft-remote || return 1
	ip link set "$HW_REMOTE" netns ksft-remote &&
	ip -n ksft-remote addr add 198.51.100.1/24 dev "$HW_REMOTE" &&
	ip -n ksft-remote link set "$HW_REMOTE" up &&
	ip addr add 198.51.100.2/24 dev "$HW_LOCAL" &&
	ip link set "$HW_LOCAL" up || return 1
	# the hub needs a moment before the first packets get through
	wait_for 10 ip netns exec ksft-remote ping -c1 -W1 198.51.100.2 >/dev/null 2>&1
	log "hw env: NETIF=$HW_LOCAL, remote $HW_REMOTE in netns ksft-remote"
}
hw_env_down() {
	ip addr flush dev "$HW_LOCAL" 2>/dev/null
	ip link set "$HW_LOCAL" down 2>/dev/null
	ip netns del ksft-remote 2>/dev/null
	# the remote NIC comes back to this netns; wait for it
	wait_for 10 test -e "/sys/class/net/$HW_REMOTE"
}

# ppwatch's dma_map_failed and dma_index_failed (patches/xarray/ patch 4,
# read from each pool): 'ppwatch watch' across page_pool_dma.py, whose
# failslab runs make the pools of its XDP program drop pages, and whose
# XDP detach destroys them: their destroy events carry the counters
# ppw_dma_check FIELD WANT: FIELD summed over the pools >= WANT
ppw_dma_check() {
	local f=$1 want=$2 sum
	sum=$(jq -s --arg f "$f" '[.[] | select(.[$f] != null)] | group_by(.addr) | map(max_by(.[$f])[$f]) | add // 0' /tmp/ks_watch.out)
	check "ppwatch watch: $f summed over the pools >= the kselftest's failures" "$sum" -ge "${want:-1}"
	check "ppwatch watch: every pool's events carry $f" \
		"$(jq -s --arg f "$f" '[.[] | select(.addr != null and .[$f] == null)] | length' /tmp/ks_watch.out)" -eq 0
	echo "PPVM-VALUES: ppwatch $f sum=$sum (kselftest: +${want:-?})"
}

for t in $PPVM_SELFTESTS; do
	dir=$KSRC/$(dirname "$t")
	[ -f "$KSRC/$t" ] || { fail "selftest $t not in the initramfs"; continue; }
	envs=
	case "$t" in
	drivers/net/hw/*)
		if ! hw_env_up; then
			fail "selftest $t: cannot set up the two vmxnet3 NICs"; hw_env_down; continue
		fi
		envs="NETIF=$HW_LOCAL LOCAL_V4=198.51.100.2 REMOTE_V4=198.51.100.1 REMOTE_TYPE=netns REMOTE_ARGS=ksft-remote"
		;;
	esac
	log "running $t"
	watch=
	[ "$t" = drivers/net/hw/page_pool_dma.py ] && [ "$FLAVOR" = xarray ] &&
		ppw_bg ks_watch watch -j 600 && watch=1
	# shellcheck disable=SC2086 # envs: NAME=VALUE words for env, or none
	(cd "$dir" && env $envs timeout 200 python3 "./$(basename "$t")") >/tmp/ksft.log 2>&1
	rc=$?
	case "$t" in drivers/net/hw/*) hw_env_down ;; esac
	# (after hw_env_down: the NIC going down destroys the pools it still has)
	if [ -n "$watch" ]; then
		sleep 1
		ppw_bg_stop ks_watch
		check "ppwatch watch across $t: exit 0" "$PPW_RC" -eq 0
	fi
	sed 's/^/  | /' /tmp/ksft.log
	# KTAP: "ok N name", "not ok N name", "ok N name # SKIP why"
	while read -r line; do
		case "$line" in
		"not ok "*"# XFAIL"*) pass "kselftest $t: ${line#not ok }" ;;
		"not ok "*) fail "kselftest $t: ${line#not ok }" ;;
		"ok "*"# SKIP"*) skip "skips=$T" "kselftest $t: ${line#ok }" ;;
		"ok "*) pass "kselftest $t: ${line#ok }" ;;
		esac
	done </tmp/ksft.log
	# what the tests measured ("# " lines of ksft_pr)
	case "$t" in
	drivers/net/hw/page_pool_dma.py)
		v=$(sed -n 's/^# \([0-9]*\) pages in flight at destroy, \([0-9]*\) mappings of the device left/inflight-at-destroy=\1 mappings-left=\2/p' /tmp/ksft.log | tail -n1)
		nidx=$(sed -n 's/^# alloc-dma-index-failed went up by \([0-9]*\)/\1/p' /tmp/ksft.log | tail -n1)
		nmap=$(sed -n 's/^# alloc-dma-map-failed went up by \([0-9]*\)/\1/p' /tmp/ksft.log | tail -n1)
		echo "PPVM-VALUES: kselftest page_pool_dma.py ${v:-no destroy count} alloc-dma-index-failed=+${nidx:-?} alloc-dma-map-failed=+${nmap:-?}"
		# ppwatch against the counts the kselftest measured; a test of it
		# that skipped (its own SKIP, declared above) measured none
		if [ -n "$watch" ]; then
			for fw in dma_index_failed:"$nidx" dma_map_failed:"$nmap"; do
				if [ -n "${fw#*:}" ]; then
					ppw_dma_check "${fw%%:*}" "${fw#*:}"
				else
					skip "skips=$T" "ppwatch ${fw%%:*}: the kselftest counted no failure to compare with"
				fi
			done
		fi
		;;
	esac
	case $rc in
	0) pass "kselftest $t: exit 0" ;;
	4) skip "skips=$T" "kselftest $t: all skipped (exit 4)" ;;
	124) fail "kselftest $t: timed out" ;;
	*) fail "kselftest $t: exit $rc" ;;
	esac
done
