#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The layout says the architecture (README "How it works"); this keeps it
# true. No root, no build needed.
#
#   cli/lib     small libraries           may include: lib
#   cli/model   the pure model            may include: lib, model, the ABI header
#   cli/output  text/JSON/... renderers   may include: lib, model, output, the ABI header
#   cli/sources everything kernel-facing  anything but serve/, cmd/ and the front end
#   cli/serve   the exporter's listener   may include: lib, model, output, serve
#   cli/cmd     one command per file      anything
#
# The pure folders (lib, model, output) are what the unit tests link
# without root: they may not include the BPF skeleton, libbpf, main.h or
# args.h. Every .c below cli/ but cmd/ has its own header, every command
# file defines exactly one command, and no source file grows past 800
# lines.
set -u
cd "$(dirname "$0")/.." || exit
fail=0
bad() { echo "  $*"; fail=1; }

# allowed quoted-include prefixes per folder ("" = the top of cli/ or bpf/)
allowed() {
	case $1 in
	lib) echo "lib/" ;;
	model) echo "lib/ model/ ppwatch.h" ;;
	output) echo "lib/ model/ output/ ppwatch.h" ;;
	sources) echo "lib/ model/ output/ sources/ ppwatch.h ppwatch.skel.h" ;;
	serve) echo "lib/ model/ output/ serve/" ;;
	cmd) echo "lib/ model/ output/ sources/ serve/ ppwatch.h ppwatch.skel.h main.h args.h" ;;
	esac
}

for dir in lib model output sources serve cmd; do
	ok=$(allowed $dir)
	for f in "cli/$dir"/*.[ch]; do
		while IFS=: read -r line inc; do
			inc=${inc#*\"}
			inc=${inc%\"*}
			hit=0
			for a in $ok; do
				case $inc in "$a"*) hit=1 ;; esac
			done
			[ $hit -eq 1 ] || bad "$f:$line: includes \"$inc\" (cli/$dir may include: $ok)"
		done < <(grep -n '^#include "' "$f")
		case $dir in
		lib|model|output)
			if grep -qn '^#include <bpf/' "$f"; then
				bad "$f: includes libbpf (<bpf/...>): cli/$dir is pure, the unit tests link it without libbpf"
			fi
			;;
		esac
	done
done

# each .c its own header (cmd/ files declare their command in main.h)
for f in cli/lib/*.c cli/model/*.c cli/output/*.c cli/sources/*.c cli/serve/*.c cli/args.c; do
	[ -f "${f%.c}.h" ] || bad "$f: no ${f%.c}.h (each .c has its own header)"
done
for h in cli/lib/*.h cli/model/*.h cli/output/*.h cli/sources/*.h cli/serve/*.h; do
	[ -f "${h%.h}.c" ] || grep -q 'static inline\|#define' "$h" ||
		bad "$h: no ${h%.h}.c behind it"
done

# cli/cmd: one command per file, named after it, registered in main.c
for f in cli/cmd/*.c; do
	name=$(basename "$f" .c)
	n=$(grep -c '^const struct command cmd_' "$f")
	[ "$n" -eq 1 ] || bad "$f: defines $n commands (one per file)"
	grep -q "^const struct command cmd_$name = {" "$f" || bad "$f: does not define cmd_$name"
	grep -q "&cmd_$name," cli/main.c || bad "$f: cmd_$name is not in main.c's command table"
	if grep -nE '^[a-z_][a-z0-9_ \*]*\(' "$f" | grep -v '^[0-9]*:static ' >/dev/null; then
		bad "$f: exports functions; library code belongs in lib/, model/, output/ or sources/:" \
			"$(grep -nE '^[a-z_][a-z0-9_ \*]*\(' "$f" | grep -v '^[0-9]*:static ' | head -3 | tr '\n' ' ')"
	fi
done

# files stay small enough to read
while read -r n f; do
	[ "$f" = total ] && continue
	[ "$n" -le 800 ] || bad "$f: $n lines (split it along a seam; the limit is 800)"
done < <(wc -l cli/*.[ch] cli/*/*.[ch] bpf/*.[ch] | sort -n)

if [ $fail -eq 0 ]; then
	srcs=(cli/*/*.c cli/*.c)
	echo "PASS layout (${#srcs[@]} sources in cli/{lib,model,output,sources,serve,cmd})"
else
	echo "FAIL layout"
fi
exit $fail
