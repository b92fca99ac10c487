#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Every C file of the project (not vmlinux/, patches/, kernel/: the kernel's
# own code and style) is formatted exactly as .clang-format says: the whole
# tree was formatted once, so any difference is a change that was not.
# --fix formats the files in place. No root needed.
set -u
cd "$(dirname "$0")/.." || exit
fix=0
[ "${1:-}" = --fix ] && fix=1
cf=$(command -v clang-format-14 || command -v clang-format) ||
	{ echo "SKIP format: clang-format not installed (make deps)"; exit 4; }
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP format: not a git checkout (the file list comes from git ls-files)"
	exit 4
fi
mapfile -t files < <(git ls-files -- '*.c' '*.h' ':!vmlinux/*' ':!patches/*' ':!kernel/*')
if [ $fix -eq 1 ]; then
	"$cf" --style=file -i "${files[@]}"
	exit 0
fi
bad=0
for f in "${files[@]}"; do
	if ! out=$("$cf" --style=file "$f" | diff -u --label "$f" --label "$f (clang-format)" "$f" -); then
		printf '%s\n' "$out" | head -40
		bad=$((bad + 1))
	fi
done
if [ $bad -gt 0 ]; then
	echo "FAIL format: $bad of ${#files[@]} C files differ from .clang-format (tests/check-format.sh --fix)"
	exit 1
fi
echo "PASS format (${#files[@]} C files as .clang-format has them)"
