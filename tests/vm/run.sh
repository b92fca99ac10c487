# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Runs every /vm/t/NN-*.sh (sorted) with a time limit, then prints the
# summary and the end marker the host side (kernel/rig.sh) looks for:
#   PPVM-SUMMARY: flavor=F pass=N fail=N skip=N
#   PPVM-END
export FLAVOR=$1
. /vm/lib.sh
T=run
echo "PPVM-BEGIN: flavor=$FLAVOR kernel=$(uname -r)"
{
	case "$FLAVOR" in
	stock|patched|prefix) ;;
	*) fail "unknown flavor '$FLAVOR' on the kernel command line" ;;
	esac
	# the kernel must be the flavor we were told: the series adds item events
	if [ "$FLAVOR" = patched ] && ! has_event page_pool_item_block_alloc; then
		fail "flavor=patched but the kernel has no page_pool_item_* tracepoints"
	fi
	if [ "$FLAVOR" != patched ] && has_event page_pool_item_block_alloc; then
		fail "flavor=$FLAVOR but the kernel has the series' tracepoints"
	fi
	for t in /vm/t/[0-9]*.sh; do
		name=$(basename "$t" .sh)
		echo "PPVM-TEST: $name"
		timeout ${PPVM_TEST_TIMEOUT:-240} sh -c ". /vm/lib.sh; T=$name; . $t"
		rc=$?
		[ $rc -eq 0 ] || echo "PPVM: FAIL $name: test script exited $rc (143: timed out)"
	done
	T=dmesg
	if [ "$FLAVOR" = prefix ]; then
		# the legacy regime: nothing unmaps the pages in flight at unbind
		if dmesg | grep -q 'pending DMA allocations while released'; then
			pass "legacy regime: DMA-API debug reports the mappings left at unbind: $(dmesg | grep -o 'count=[0-9]*' | head -n1)"
		else
			fail "legacy regime: expected DMA-API 'pending DMA allocations' at vmxnet3 unbind"
		fi
	elif dmesg | grep -q 'pending DMA allocations while released'; then
		fail "DMA-API debug reports pending DMA allocations at driver unbind"
	else
		pass "no DMA-API 'pending DMA allocations' report"
	fi
} 2>&1 | tee /tmp/results.log
pass_n=$(grep -c '^PPVM: PASS ' /tmp/results.log)
fail_n=$(grep -c '^PPVM: FAIL ' /tmp/results.log)
skip_n=$(grep -c '^PPVM: SKIP ' /tmp/results.log)
echo "PPVM-SUMMARY: flavor=$FLAVOR pass=$pass_n fail=$fail_n skip=$skip_n"
echo "PPVM-END"
