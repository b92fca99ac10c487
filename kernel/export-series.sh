#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Regenerate patches/ from a kernel tree holding the series as commits:
#   kernel/export-series.sh TREE BASE
# BASE: the prerequisite head in TREE. The cover letter's subject and text
# come from kernel/cover-letter.txt (first line: subject; the rest: body).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?tree}; base=${2:?base commit}
out=$(mktemp -d)
git -C "$tree" format-patch -q --cover-letter --subject-prefix="PATCH net-next" -o "$out" "$base"..
python3 - "$out/0000-cover-letter.patch" "$ROOT/kernel/cover-letter.txt" <<'PY'
import sys
p, c = sys.argv[1], sys.argv[2]
s = open(p).read()
subj, body = open(c).read().split('\n', 1)
s = s.replace('*** SUBJECT HERE ***', subj.strip()).replace('*** BLURB HERE ***', body.strip('\n'))
open(p, 'w').write(s)
PY
rm -f "$ROOT"/patches/*.patch
cp "$out"/*.patch "$ROOT/patches/"
(cd "$ROOT/patches" && ls [0-9]*.patch | grep -v '^0000-' >series)
rm -rf "$out"
echo "patches/: $(wc -l <"$ROOT/patches/series") patches + cover letter"
