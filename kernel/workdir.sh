# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=bash # sourced by kernel/*.sh after they set ROOT
#
# The kernel rig's work dir (trees, build dirs, package kernels,
# initramfs, logs) is the checkout's own: /var/tmp/ppwatch-kernel-NAME-HASH,
# NAME the checkout's folder and HASH its physical path's, so that a clone
# (CI's, a worktree) never uses or patches another checkout's trees. The
# compiler cache is shared by every checkout (ccache is safe to share):
# /var/tmp/ppwatch-ccache. Either can be set (KERNEL_WORK, CCACHE_DIR).
if [ -z "${KERNEL_WORK:-}" ]; then
	KERNEL_WORK=$(cd "$ROOT" && pwd -P)
	KERNEL_WORK=/var/tmp/ppwatch-kernel-${KERNEL_WORK##*/}-$(printf %s "$KERNEL_WORK" | sha256sum | cut -c1-8)
fi
export KERNEL_WORK
export CCACHE_DIR=${CCACHE_DIR:-/var/tmp/ppwatch-ccache}
