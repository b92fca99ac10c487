# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# Which kernel regime is this, as the tracepoints and ppwatch see it.
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
# the matrix line's regime=: item-blocks, dma_mapped-xarray or legacy
case "$PPVM_REGIME" in
item-blocks|dma_mapped-xarray) want=$PPVM_REGIME ;;
legacy) want= ;;
*) fail "kernel/matrix gives no regime= for $FLAVOR ('$PPVM_REGIME')"; want= ;;
esac
# --- ppwatch cross-check ---
if ppw_snap; then
	if [ -n "$want" ]; then
		check "ppwatch kernel.unmap_regime" "$(ppw_kernel unmap_regime)" = "$want"
	else
		# legacy (prefix, 6.1): neither fix; ppwatch must not claim either regime
		r=$(ppw_kernel unmap_regime)
		log "ppwatch kernel.unmap_regime on the legacy kernel: '$r'"
		case "$r" in
		item-blocks|dma_mapped-xarray) fail "ppwatch: legacy kernel reported as unmap regime '$r'" ;;
		*) pass "ppwatch: legacy kernel not reported as a fixed regime ('$r')" ;;
		esac
	fi
fi
