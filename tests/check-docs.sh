#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Every command ppwatch offers has a man page, and every page builds
# without a warning. No root needed.
set -u
cd "$(dirname "$0")/.." || exit
OUTPUT=${OUTPUT:-.output}
fail=0
cmds=$("$OUTPUT/ppwatch" help | awk '/^COMMANDS:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }')
[ -n "$cmds" ] || { echo "FAIL docs: no commands in 'ppwatch help'"; exit 1; }
for c in $cmds; do
	[ "$c" = help ] && continue
	if [ ! -f "docs/ppwatch-$c.rst" ]; then
		echo "FAIL docs: command '$c' has no docs/ppwatch-$c.rst"
		fail=1
	fi
	if ! "$OUTPUT/ppwatch" "$c" help >/dev/null; then
		echo "FAIL docs: 'ppwatch $c help' failed"
		fail=1
	fi
done
if ! make -s --no-print-directory man >/dev/null; then
	echo "FAIL docs: man pages do not build cleanly (rst2man --halt=warning)"
	fail=1
fi
[ $fail -eq 0 ] && echo "PASS docs ($(wc -w <<<"$cmds") commands, $(find "$OUTPUT/man" -maxdepth 1 -name '*.8' | wc -l) man pages)"
exit $fail
