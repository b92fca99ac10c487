#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Run the unit-test binaries in DIR (no root needed): one line per binary,
# then "# NAME: N passed, N failed, N skipped" over their cases (each
# TEST() of tests/unit/unit.h is one). A binary fails when a case fails, when
# it exits non-zero (a crash: one failure more), or when it checks nothing;
# no binary in DIR at all is a failure too (they were not built). Under
# tests/run.sh (PPWATCH_TALLY set) the counts go to its tally as well.
#
#   tests/run-unit.sh [DIR [NAME]]    DIR: .output/tests; NAME: unit
set -u
cd "$(dirname "$0")/.." || exit
dir=${1:-.output/tests}
name=${2:-unit}
pass=0 failed=0 bins=0
for t in "$dir"/test_*; do
	[ -x "$t" ] || continue
	bins=$((bins + 1))
	out=$("$t" 2>&1)
	rc=$?
	# the cases' own lines (a failed CHECK's line names a file:line, not a case)
	p=$(grep -cE '^ok - [A-Za-z_][A-Za-z0-9_]*$' <<<"$out")
	f=$(grep -cE '^not ok - [A-Za-z_][A-Za-z0-9_]*$' <<<"$out")
	checks=$(sed -n 's/^# \([0-9][0-9]*\) checks, .*/\1/p' <<<"$out" | tail -1)
	why=
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		why="exited $rc with no failed case (crashed?)"
	elif [ "$rc" -eq 0 ] && [ "${checks:-0}" -eq 0 ]; then
		why="checks nothing"
	fi
	[ -z "$why" ] || f=$((f + 1))
	pass=$((pass + p)) failed=$((failed + f))
	if [ "$f" -eq 0 ]; then
		echo "PASS $name/$(basename "$t") ($p cases, $checks checks)"
	else
		grep -v '^ok' <<<"$out"
		echo "FAIL $name/$(basename "$t")${why:+: $why}"
		[ -z "${PPWATCH_TALLY:-}" ] || echo "F $name/$(basename "$t")${why:+: $why}" >>"$PPWATCH_TALLY"
	fi
done
if [ "$bins" -eq 0 ]; then
	echo "FAIL $name: no test binaries in $dir (make unit builds them)"
	failed=1
fi
echo "# $name: $pass passed, $failed failed, 0 skipped"
[ -z "${PPWATCH_TALLY:-}" ] || echo "T $name $pass $failed 0" >>"$PPWATCH_TALLY"
[ "$failed" -eq 0 ]
