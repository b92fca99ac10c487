# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Which kernel regime is this, as the tracepoints and ppwatch see it.
if [ "$FLAVOR" = patched ]; then
	for e in page_pool_item_block_alloc page_pool_item_block_free \
		 page_pool_item_fast_empty page_pool_item_slow_failed \
		 page_pool_destroy_unmap; do
		if has_event $e; then pass "tracepoint page_pool:$e exists"; else fail "no tracepoint page_pool:$e"; fi
	done
	grep -q '__field(u32, id)\|field:u32 id;' $TRACE/events/page_pool/page_pool_item_block_alloc/format &&
		pass "page_pool_item_block_alloc records id" ||
		fail "page_pool_item_block_alloc has no id field"
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
		check "ppwatch kernel.unmap_regime" "$(ppw_kernel unmap_regime)" = $want
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
