#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Install every Debian package listed in deps/*.txt (and kernel/deps.txt)
# that is missing. Idempotent and non-interactive; needs root only when
# something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

lists=(deps/*.txt)
[ -f kernel/deps.txt ] && lists+=(kernel/deps.txt)
mapfile -t pkgs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "${lists[@]}" | grep -v '^$' | sort -u)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
