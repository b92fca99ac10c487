#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Lines of C changed since .clang-format arrived (or since FORMAT_BASE)
# must be formatted as it says; older code is left as it is. With --fix,
# reformat those lines in place instead. No root needed.
set -u
cd "$(dirname "$0")/.."
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
out=$(git diff -U0 --no-color -M "$base" -- "${paths[@]}" | "$cfd" -p1 -style=file)
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	echo "FAIL format: the lines above differ from .clang-format (tests/check-format.sh --fix)"
	exit 1
fi
echo "PASS format (C lines changed since $(git log -1 --format=%h "$base"))"
