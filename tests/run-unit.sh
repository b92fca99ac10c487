#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Run the unit-test binaries in $1 (no root needed).
set -u
cd "$(dirname "$0")/.." || exit
dir=${1:-.output/tests}
fail=0
for t in "$dir"/test_*; do
	[ -x "$t" ] || continue
	if out=$("$t" 2>&1); then
		echo "PASS unit/$(basename "$t") ($(echo "$out" | tail -1 | sed 's/^# //'))"
	else
		echo "$out" | grep -v '^ok'
		echo "FAIL unit/$(basename "$t")"
		fail=1
	fi
done
exit $fail
