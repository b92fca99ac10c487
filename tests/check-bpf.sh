#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The BPF side's structure and its room under the verifier. No root.
#
#   headers   every bpf/*.h compiles alone after the vmlinux.h prelude (it
#             includes what it uses), without warnings
#   structs   one definition per struct name in all of bpf/ ('bpftool gen
#             object' links every family into one object)
#   stack     each program's worst call chain in the linked object
#             ($OUTPUT/ppwatch.bpf.o), by Linux 6.1's verifier rules
#             (tests/bpf-stack.py): at most 448 of the 512 bytes and 7 of the
#             8 frames; the holder scan's socket walks at most 256 B / 5
#             frames, its queue walks 320 B / 6 (room for what they grow)
#
# The stack check needs the build ('make all'): without the object it skips.
set -u
cd "$(dirname "$0")/.." || exit
OUTPUT=${OUTPUT:-$PWD/.output}
fail=0
bad() { echo "  $*"; fail=1; }

# the flags the Makefile compiles the BPF objects with
cflags=$(make -s --no-print-directory print-bpfcflags 2>/dev/null) ||
	{ echo "SKIP bpf: 'make print-bpfcflags' failed"; exit 4; }
clang=$(make -s --no-print-directory print-clang 2>/dev/null)
command -v "${clang:-clang}" >/dev/null ||
	{ echo "SKIP bpf: ${clang:-clang} not installed (make deps)"; exit 4; }

n=0
for h in bpf/*.h; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the flags are words
	if ! out=$(printf '#include "vmlinux.h"\n#include "%s"\n' "${h#bpf/}" |
		"$clang" $cflags -x c -fsyntax-only - 2>&1); then
		bad "$h does not compile alone after vmlinux.h:"
		printf '%s\n' "$out" | grep -m5 'error' | sed 's/^/    /'
	fi
done

while read -r name; do
	bad "struct $name is defined more than once in bpf/:" \
		"$(grep -ln "^struct $name {" bpf/*.[ch] | tr '\n' ' ')"
done < <(grep -ho '^struct [A-Za-z_0-9]* {' bpf/*.[ch] | awk '{ print $2 }' | sort | uniq -d)

obj=$OUTPUT/ppwatch.bpf.o
if [ ! -f "$obj" ]; then
	echo "  (stack: no $obj; 'make all' builds it)"
	stack=skipped
elif ! out=$(python3 tests/bpf-stack.py --max-bytes 448 --max-frames 7 \
	--limit 'scan_tcp=256/5' --limit 'scan_udp=256/5' --limit 'scan_unix=256/5' \
	--limit 'scan_fds=256/5' --limit 'scan_inflight=256/5' \
	--limit 'scan_queues=320/6' --limit 'scan_qobj=320/6' "$obj"); then
	bad "a program's call chain is over its stack budget (6.1's rules; tests/bpf-stack.py):"
	printf '%s\n' "$out" | grep -v '^ok' | sed 's/^/    /'
	stack=failed
else
	stack="$(printf '%s\n' "$out" | wc -l) programs"
	printf '%s\n' "$out" | grep ' scan_\| discover\| blocks_' | sed 's/^ok  /  /'
fi

if [ $fail -eq 0 ]; then
	echo "PASS bpf ($n headers compile alone, one name per struct, stack: $stack)"
else
	echo "FAIL bpf"
fi
exit $fail
