# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# What the kernel/matrix line says of this kernel, against the kernel
# itself, before any test relies on it: its regime (the DMA unmap of a
# destroyed pool) from the layout of its struct page_pool (BTF) and its
# tracepoints; what it lacks of its configuration from its own config
# (/vm/kernel.config) and what that leaves in it (types, symbols). ppwatch's
# own report of both (.kernel.unmap_regime, the stats it cannot read):
# regime_check, run on the 'pools -j' of t/50 (one ppwatch load less).
# fmt_has EVENT FIELD: does the event's format record FIELD?
fmt_has() { grep -q "field:[^;]* $2;" "$TRACE/events/page_pool/$1/format"; }

# --- the regime: struct page_pool's layout ---
# item-blocks: the item-block series (pool->item_blocks, its tracepoints);
# dma_mapped-xarray: ee62ce7a1d90 (v6.16, stable 6.12.34) tracks every
# mapped page in pool->dma_mapped and unmaps them at destroy; legacy:
# neither (the prerequisite's third patch reverts the 6.12.y backport)
BTF=$(btf_facts page_pool.item_blocks page_pool.dma_mapped page_pool_recycle_stats)
log "BTF: $BTF"
ITEMS=$(fact "$BTF" page_pool.item_blocks)
XA=$(fact "$BTF" page_pool.dma_mapped)
case "$PPVM_REGIME" in
item-blocks) check "regime=item-blocks: struct page_pool has item_blocks (BTF)" "$ITEMS" = yes ;;
dma_mapped-xarray)
	check "regime=dma_mapped-xarray: struct page_pool has dma_mapped (BTF)" "$XA" = yes
	check "regime=dma_mapped-xarray: struct page_pool has no item_blocks (BTF)" "$ITEMS" = no
	;;
legacy)
	check "regime=legacy: struct page_pool has no dma_mapped xarray (BTF)" "$XA" = no
	check "regime=legacy: struct page_pool has no item_blocks (BTF)" "$ITEMS" = no
	;;
*) fail "kernel/matrix gives no regime= for $FLAVOR ('$PPVM_REGIME')" ;;
esac
if [ "$PPVM_REGIME" = item-blocks ]; then
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
else
	absent "regime=$PPVM_REGIME: no item block tracepoints" "$(has_event page_pool_item_fast_empty && echo present)"
	absent "regime=$PPVM_REGIME: no page_pool_destroy_unmap (the item series' event)" "$(has_event page_pool_destroy_unmap && echo present)"
	absent "regime=$PPVM_REGIME: no page_pool_inflight_unmap (dropped after the xarray series' second review)" \
		"$(has_event page_pool_inflight_unmap && echo present)"
fi

# --- what the line lacks of the kernel's configuration ---
# each lacks= that is a config option, against the kernel's own config
# (a build's .config, a package's /boot/config-*); netdevsim: t/10
for c in pp-stats:CONFIG_PAGE_POOL_STATS dma-api-debug:CONFIG_DMA_API_DEBUG virtio-net:CONFIG_VIRTIO_NET; do
	v=$(kconfig "${c#*:}")
	if [ -n "${KCONFIG_MISSING:-}" ]; then
		fail "no /vm/kernel.config: the kernel's own configuration is what its lacks= are held to"
		break
	fi
	if lacks "${c%%:*}"; then
		check "lacks=${c%%:*}: the kernel's config has no ${c#*:}" "${v:-unset}" = unset
	else
		check "no lacks=${c%%:*}: the kernel's config has ${c#*:}" "${v:-unset}" != unset
	fi
done
# page-pool stats (CONFIG_PAGE_POOL_STATS, v5.19): their types and the
# exported reader exist only with them
STATS_T=$(fact "$BTF" page_pool_recycle_stats)
STATS_F=$(yes_no ksym page_pool_get_stats)
if lacks pp-stats; then
	check "lacks=pp-stats: no struct page_pool_recycle_stats (BTF)" "$STATS_T" = no
	check "lacks=pp-stats: no page_pool_get_stats() (kallsyms)" "$STATS_F" = no
else
	check "page-pool stats: struct page_pool_recycle_stats (BTF)" "$STATS_T" = yes
	check "page-pool stats: page_pool_get_stats() (kallsyms)" "$STATS_F" = yes
fi
echo "PPVM-VALUES: kernel-facts regime=$PPVM_REGIME item_blocks=$ITEMS dma_mapped=$XA recycle_stats=$STATS_T page_pool_get_stats=$STATS_F"
