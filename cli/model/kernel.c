// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "model/kernel.h"

const char *unmap_regime_name(enum unmap_regime r)
{
	switch (r) {
	case UNMAP_XARRAY: return "dma_mapped-xarray";
	case UNMAP_ITEM_BLOCKS: return "item-blocks";
	case UNMAP_ON_RETURN: return "on-return";
	default: return "unknown";
	}
}
