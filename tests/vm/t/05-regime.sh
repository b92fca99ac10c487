# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# Which kernel regime is this, as the tracepoints see it (ppwatch's
# .kernel.unmap_regime: regime_check in t/50 and t/lib-floor.sh).
# fmt_has EVENT FIELD: does the event's format record FIELD?
fmt_has() { grep -q "field:[^;]* $2;" "$TRACE/events/page_pool/$1/format"; }
if [ "$FLAVOR" = patched ]; then
	for e in page_pool_item_block_alloc page_pool_item_block_free \
		 page_pool_item_fast_empty page_pool_item_slow_failed \
		 page_pool_destroy_unmap; do
		if has_event $e; then pass "tracepoint page_pool:$e exists"; else fail "no tracepoint page_pool:$e"; fi
	done
	for f in id dyn; do
		if fmt_has page_pool_item_block_alloc $f; then pass "page_pool_item_block_alloc records $f"; else fail "page_pool_item_block_alloc has no $f field"; fi
	done
	for f in id inflight unmapped blocks duration_ns; do
		if fmt_has page_pool_destroy_unmap $f; then pass "page_pool_destroy_unmap records $f"; else fail "page_pool_destroy_unmap has no $f field"; fi
	done
elif [ "$FLAVOR" = xarray ]; then
	# the xarray series reports failures in page-pool-stats, no event:
	# the unmap at destroy happens before the first page_pool_release
	absent "xarray kernel: no item block tracepoints" "$(has_event page_pool_item_fast_empty && echo present)"
	absent "xarray kernel: no page_pool_destroy_unmap (the item series' event)" "$(has_event page_pool_destroy_unmap && echo present)"
	absent "xarray kernel: no page_pool_inflight_unmap (dropped after the second review)" "$(has_event page_pool_inflight_unmap && echo present)"
else
	absent "$FLAVOR kernel: no page_pool_destroy_unmap tracepoint" "$(has_event page_pool_destroy_unmap && echo present)"
fi
# the matrix line's regime= must be one ppwatch can be checked against
# (regime_check, run on the 'pools -j' of t/50: one ppwatch load less)
case "$PPVM_REGIME" in
item-blocks|dma_mapped-xarray|legacy) ;;
*) fail "kernel/matrix gives no regime= for $FLAVOR ('$PPVM_REGIME')" ;;
esac
