# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash (sh /vm/run.sh)
# Runs every /vm/t/NN-*.sh (sorted) with a time limit, then prints the
# summary and the end marker the host side (kernel/rig.sh) looks for:
#   PPVM-TIME: NN-name SECONDS s    (one per test; 'total': since boot)
#   PPVM-SUMMARY: flavor=F pass=N fail=N skip=N
#   PPVM-END
export FLAVOR=$1
# shellcheck source=lib.sh
. /vm/lib.sh
T=run
echo "PPVM-BEGIN: flavor=$FLAVOR kernel=$(uname -r)"
{
	# /vm/kernel.env (the matrix line) must be this kernel's
	if [ "$PPVM_KERNEL" != "$FLAVOR" ]; then
		fail "kernel.env is for '$PPVM_KERNEL', the kernel command line says '$FLAVOR'"
	fi
	log "kind=$PPVM_KIND source=$PPVM_SOURCE regime=$PPVM_REGIME lacks=$PPVM_LACKS ${PPVM_PACKAGE:+package=$PPVM_PACKAGE}"
	# the kernel must be the one we were told: the series adds item events
	if [ "$FLAVOR" = patched ] && ! has_event page_pool_item_block_alloc; then
		fail "flavor=patched but the kernel has no page_pool_item_* tracepoints"
	fi
	if [ "$FLAVOR" != patched ] && has_event page_pool_item_block_alloc; then
		fail "flavor=$FLAVOR but the kernel has the series' tracepoints"
	fi
	# ... and the xarray series its counters (struct page_pool_alloc_stats'
	# dma_map_failed, dma_index_failed: names in the kernel's BTF)
	btf_name() { tr '\0' '\n' </sys/kernel/btf/vmlinux 2>/dev/null | grep -qx "$1"; }
	if [ "$FLAVOR" = xarray ] && ! btf_name dma_index_failed; then
		fail "flavor=xarray but the kernel has no alloc_stats.dma_index_failed (BTF)"
	fi
	if [ "$FLAVOR" != xarray ] && btf_name dma_index_failed; then
		fail "flavor=$FLAVOR but the kernel has the xarray series' counters (BTF)"
	fi
	for m in $PPVM_MODULES; do
		if [ -d "/sys/module/$(echo "$m" | tr - _)" ]; then
			pass "module $m loaded"
		else
			fail "module $m not loaded: $(tr '\n' ' ' 2>/dev/null </tmp/modules.log)"
		fi
	done
	# ppvm.only=NN[,NN...] on the kernel command line (VM_APPEND): only those
	# tests, for a quick turn on one kernel; make kernel-test never sets it
	only=$(sed -n 's/.*ppvm\.only=\([0-9,]*\).*/\1/p' /proc/cmdline)
	for t in /vm/t/[0-9]*.sh; do
		name=$(basename "$t" .sh)
		if [ -n "$only" ] && ! echo ",$only," | grep -q ",${name%%-*},"; then
			T=$name; skip "not selected by ppvm.only=$only"; T=run
			continue
		fi
		echo "PPVM-TEST: $name"
		t0=$(cut -d' ' -f1 /proc/uptime)
		timeout "${PPVM_TEST_TIMEOUT:-240}" sh -c ". /vm/lib.sh; T=$name; . $t"
		rc=$?
		[ $rc -eq 0 ] || echo "PPVM: FAIL $name: test script exited $rc (143: timed out)"
		# the wall time of each test (the host prints them: the VM budget)
		echo "PPVM-TIME: $name $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime) s"
	done
	T=dmesg
	if lacks dma-api-debug || lacks vmxnet3-xdp; then
		skip "DMA-API debug report at unbind: this kernel lacks$(lacks dma-api-debug && echo ' CONFIG_DMA_API_DEBUG')$(lacks vmxnet3-xdp && echo ' vmxnet3 XDP')"
	elif [ "$PPVM_REGIME" = legacy ]; then
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
echo "PPVM-TIME: total $(cut -d' ' -f1 /proc/uptime) s"
echo "PPVM-SUMMARY: flavor=$FLAVOR pass=$pass_n fail=$fail_n skip=$skip_n"
echo "PPVM-END"
