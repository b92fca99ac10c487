#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Regenerate a patch series of this repository from a kernel tree holding
# it as commits:
#
#   kernel/export-series.sh items  TREE FROM   -> patches/
#   kernel/export-series.sh xarray TREE FROM   -> patches/xarray/
#
# FROM: the commit the series starts after in TREE (the prerequisite head
# for 'items', 'base' for 'xarray'). TREE's tag 'base' is the commit of the
# unpacked Debian tarball (kernel/rig.sh makes it reproducible); format-patch
# --base names it and, for 'items', lists the prerequisite series as
# prerequisite-patch-id lines. The cover letter's subject and text come from
# kernel/cover-letter.txt or kernel/cover-letter-xarray.txt (first line:
# subject; the rest: body). Every patch is addressed as netdev expects: To
# netdev, Cc what TREE's scripts/get_maintainer.pl names for the series
# (--nogit: the MAINTAINERS file alone) and the authors of what it builds on
# (the prerequisite's for 'items', the dma_mapped xarray's for 'xarray').
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
which=${1:?items|xarray}; tree=${2:?tree}; from=${3:?start commit}
case "$which" in
items) dest=$ROOT/patches cover=$ROOT/kernel/cover-letter.txt prefix="RFC PATCH"
	also="Yunsheng Lin <linyunsheng@huawei.com>" ;;
xarray) dest=$ROOT/patches/xarray cover=$ROOT/kernel/cover-letter-xarray.txt prefix="RFC PATCH net-next"
	also="Toke Hoiland-Jorgensen <toke@redhat.com>" ;;
*) echo "export-series.sh: items or xarray, not '$which'" >&2; exit 2 ;;
esac
out=$(mktemp -d)
git -C "$tree" format-patch -q -o "$out/gm" "$from"..
cc=(--cc="$also")
while read -r who; do
	case "$who" in netdev@vger.kernel.org|"") ;; *) cc+=(--cc="$who") ;; esac
done < <(cd "$tree" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats "$out"/gm/*.patch)
rm -rf "$out/gm"
git -C "$tree" format-patch -q --cover-letter --subject-prefix="$prefix" \
	--to=netdev@vger.kernel.org "${cc[@]}" \
	--base="$(git -C "$tree" rev-parse base)" -o "$out" "$from"..
python3 - "$out/0000-cover-letter.patch" "$cover" <<'PY'
import sys
p, c = sys.argv[1], sys.argv[2]
s = open(p).read()
subj, body = open(c).read().split('\n', 1)
s = s.replace('*** SUBJECT HERE ***', subj.strip()).replace('*** BLURB HERE ***', body.strip('\n'))
open(p, 'w').write(s)
PY
mkdir -p "$dest"
rm -f "$dest"/*.patch
cp "$out"/*.patch "$dest/"
(cd "$dest" && printf '%s\n' [0-9]*.patch | grep -v '^0000-' >series)
rm -rf "$out"
echo "${dest#"$ROOT"/}: $(wc -l <"$dest/series") patches + cover letter"
