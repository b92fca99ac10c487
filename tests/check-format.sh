#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Lines of C changed since .clang-format arrived (or since FORMAT_BASE)
# must be formatted as it says: token spacing, braces, line breaks, the
# 100-column limit. Whitespace runs inside a line are not compared, so
# hand-aligned tables (#defines, enum comments) stay as written, as in the
# kernel. Older code is left as it is. --fix reformats the changed lines in
# place (review the result: it also flattens alignment). No root needed.
set -u
cd "$(dirname "$0")/.." || exit
fix=0
[ "${1:-}" = --fix ] && fix=1
cfd=$(command -v clang-format-diff-14 || command -v clang-format-diff) ||
	{ echo "SKIP format: clang-format-diff not installed (make deps)"; exit 4; }
if ! base=${FORMAT_BASE:-$(git log --diff-filter=A --format=%H -- .clang-format 2>/dev/null | tail -n1)} ||
   [ -z "$base" ]; then
	echo "SKIP format: no git history with .clang-format here (a shallow or exported tree)"
	exit 4
fi
paths=('*.c' '*.h' ':!vmlinux/*' ':!patches/*' ':!kernel/*')
if [ $fix -eq 1 ]; then
	git diff -U0 --no-color -M "$base" -- "${paths[@]}" | "$cfd" -p1 -style=file -i
	exit 0
fi
git diff -U0 --no-color -M "$base" -- "${paths[@]}" | "$cfd" -p1 -style=file | python3 -c '
import re, sys

def norm(lines):
    return re.sub(r"\s+", " ", " ".join(lines)).strip()

bad, name, old, new = [], None, [], []
def flush():
    global old, new
    if (old or new) and norm(old) != norm(new):
        bad.append((name, old, new))
    old, new = [], []
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("+++ "):
        flush()
        name = line[4:].split("\t")[0]
    elif line.startswith("--- "):
        flush()
    elif line.startswith("@@"):
        flush()
    elif line.startswith("-"):
        old.append(line[1:])
    elif line.startswith("+"):
        new.append(line[1:])
    else:
        flush()
flush()
for name, o, n in bad:
    print("%s:" % name)
    for l in o:
        print("  -" + l)
    for l in n:
        print("  +" + l)
if bad:
    print("FAIL format: %d place(s) differ from .clang-format beyond alignment (tests/check-format.sh --fix)" % len(bad))
    sys.exit(1)
'
rc=$?
[ $rc -eq 0 ] && echo "PASS format (C lines changed since $(git log -1 --format=%h "$base"); alignment whitespace not compared)"
exit $rc
