#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# compile_commands.json on stdout for the given sources, each compiled with
# the given command line (the Makefile passes its own): make compdb.
#   scripts/compdb.sh 'cc -I... -std=gnu11 ...' cli/main.c cli/lib/json.c ...
set -euo pipefail
cmd=$1
shift
dir=$(pwd)
esc() { sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'; }
printf '[\n'
sep=
for src in "$@"; do
	line=$(printf '%s -c %s -o /dev/null' "$cmd" "$src" | esc)
	printf '%s  { "directory": "%s", "file": "%s", "command": "%s" }' \
		"$sep" "$(printf '%s' "$dir" | esc)" "$(printf '%s' "$src" | esc)" "$line"
	sep=$',\n'
done
printf '\n]\n'
