#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel x command table of a VM run, from its logs: for each kernel
# the rig booted (logs/vm-NAME.log.txt under KERNEL_WORK), what each
# ppwatch command's checks found. A check belongs to the command its line
# names ("ppwatch holders: ...", "ppwatch --attach raw_tp top: ...";
# "ppwatch: ..." is the 'pools -j' cross-check every test makes).
#
#   kernel/report.sh [NAME...]            the table (markdown) on stdout
#   kernel/report.sh --update FILE [NAME...]
#                                         replace the table between FILE's
#                                         "<!-- kernel-report -->" and
#                                         "<!-- /kernel-report -->" lines
#
# Cells: "✓ N" every one of N checks passed, "✗ F of N" F failed,
# "refused" the command said in one line why this kernel cannot serve it
# (and the test checked that line), "skip" only skipped checks, "–" none.
# NAMEs default to every line of kernel/matrix that has a log.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kernel/workdir.sh
. "$ROOT/kernel/workdir.sh"
KERNEL_MATRIX=${KERNEL_MATRIX:-$ROOT/kernel/matrix}
LOGS=$KERNEL_WORK/logs
CMDS="pools top holders blocks pages stacks watch record postmortem check export"

update=
if [ "${1:-}" = --update ]; then
	update=${2:?--update FILE}
	shift 2
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	mapfile -t names < <(sed 's/#.*//' "$KERNEL_MATRIX" | awk 'NF >= 3 { print $1 }')
fi

table() {
	local n log
	printf '| kernel | booted |'
	for c in $CMDS; do printf ' %s |' "$c"; done
	printf ' checks | VM |\n|---|---|'
	for c in $CMDS; do printf -- '---|'; done
	printf -- '---|---|\n'
	for n in "${names[@]}"; do
		log=$LOGS/vm-$n.log.txt
		[ -f "$log" ] || continue
		awk -v name="$n" -v cmds="$CMDS" '
		function cmd_of(s,    m) {
			# the command a check line names
			if (match(s, /ppwatch( --attach [a-z_]+| auto)? [a-z]+/)) {
				m = substr(s, RSTART, RLENGTH); sub(/.* /, "", m)
				if (m in known) return m
				if (s ~ /ppwatch auto/) return "top"
			}
			if (s ~ /ppwatch( cross-check)?: /) return "pools"
			return ""
		}
		BEGIN { nc = split(cmds, cl, " "); for (i = 1; i <= nc; i++) known[cl[i]] = 1 }
		/^PPVM-BEGIN:/ { rel = $0; sub(/.*kernel=/, "", rel) }
		/^  \[run\] kind=/ { if (match($0, /package=.*/)) { pk = substr($0, RSTART + 8) } }
		/^PPVM-TIME: total / { vm = $3 }
		/^PPVM: (PASS|FAIL|SKIP) / {
			all[$2]++
			c = cmd_of($0); if (c == "") next
			n[c]++
			if ($2 == "FAIL") f[c]++
			else if ($2 == "SKIP") s[c]++
			else if ($0 ~ /refuse/) r[c]++
		}
		END {
			booted = rel
			if (pk != "") {
				split(pk, kv, " "); suite = ""; ver = ""
				for (i in kv) { if (kv[i] ~ /^suite=/) suite = substr(kv[i], 7); if (kv[i] ~ /^version=/) ver = substr(kv[i], 9) }
				booted = suite " " ver " (" rel ")"
			}
			printf "| %s | %s |", name, booted
			for (i = 1; i <= nc; i++) {
				c = cl[i]
				if (!n[c]) cell = "–"
				else if (f[c]) cell = sprintf("✗ %d of %d", f[c], n[c])
				else if (s[c] == n[c]) cell = "skip"
				else if (r[c] && r[c] == n[c] - s[c]) cell = "refused"
				else cell = sprintf("✓ %d", n[c] - s[c])
				printf " %s |", cell
			}
			printf " %d pass, %d fail, %d skip | %s |\n", all["PASS"], all["FAIL"], all["SKIP"], vm == "" ? "?" : vm " s"
		}' "$log"
	done
}

if [ -z "$update" ]; then
	table
	exit 0
fi
if ! grep -q '^<!-- kernel-report -->$' "$update" || ! grep -q '^<!-- /kernel-report -->$' "$update"; then
	echo "report.sh: $update has no <!-- kernel-report --> ... <!-- /kernel-report --> lines" >&2
	exit 1
fi
tmp=$(mktemp)
table >"$tmp.table"
awk -v t="$tmp.table" '
	/^<!-- kernel-report -->$/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
	/^<!-- \/kernel-report -->$/ { skip = 0 }
	!skip' "$update" >"$tmp"
cat "$tmp" >"$update"
rm -f "$tmp" "$tmp.table"
