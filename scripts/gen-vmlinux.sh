#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Regenerate vmlinux/<arch>/vmlinux.h from this machine's kernel BTF.
# The result is checked in: builds never depend on the build host's kernel.
#   scripts/gen-vmlinux.sh vmlinux/x86/vmlinux.h [BTF file]
set -euo pipefail
out=${1:?usage: $0 OUTPUT.h [BTF]}
btf=${2:-/sys/kernel/btf/vmlinux}
bpftool=${BPFTOOL:-bpftool}
[ -r "$btf" ] || { echo "gen-vmlinux: $btf is not readable: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF)" >&2; exit 1; }
command -v "$bpftool" >/dev/null || { echo "gen-vmlinux: $bpftool not found: run 'make deps'" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$bpftool" btf dump file "$btf" format c >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "gen-vmlinux: wrote $out ($(wc -l <"$out") lines) from $btf ($(uname -r))"
