#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The tables of the kernel matrix, from the committed result records
# (kernel/results/NAME.env and NAME.log: kernel/rig-record.sh), or with
# --logs from this machine's last run (KERNEL_WORK/logs: vm-NAME.log.txt,
# run-NAME.env, build-NAME.time, prepare.time, initramfs.time):
#
#  - Results: for each kernel the rig booted, what each ppwatch command's
#    checks found, the tests that skipped, the verdict. A check belongs to
#    the command its line names ("ppwatch holders: ...", "ppwatch --attach
#    raw_tp top: ..."; "ppwatch: ..." is the 'pools -j' cross-check every
#    test makes).
#  - Times: where each line's time went: its build or fetch, the boot,
#    the modules, the tests, the ppwatch runs and their BPF loads, fixed
#    sleeps, waits on events, traffic (tests/vm/run.sh's PPVM-TIME lines);
#    and each test's seconds on each line.
#
#   kernel/report.sh [--logs] [NAME...]   both tables (markdown) on stdout
#   kernel/report.sh --update FILE [NAME...]
#                                         replace FILE's tables between its
#                                         "<!-- kernel-report -->" and
#                                         "<!-- /kernel-report -->" lines
#                                         (Results) and "<!-- kernel-times -->"
#                                         and "<!-- /kernel-times -->" (Times)
#
# The tests skipped: those that only skipped, those that skipped some of
# their checks "(partly)", and in bold the tests with a skip the kernel's
# matrix line does not declare (kernel/rig.sh check_log: the line fails).
# Result cells: "✓ N" every one of N checks passed, "✗ F of N" F failed,
# "refused" the command said in one line why this kernel cannot serve it
# (and the test checked that line), "skip" only skipped checks, "–" none.
# NAMEs default to every line of kernel/matrix; a line without a record
# (log) is listed as not booted. From the records, each row's verdict
# names the commit it ran on, and a record whose code or matrix line is
# not today's is marked stale (a key of the kernel's inputs as well is
# what 'make test-matrix' compares before it boots a line again).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kernel/workdir.sh
. "$ROOT/kernel/workdir.sh"
KERNEL_MATRIX=${KERNEL_MATRIX:-$ROOT/kernel/matrix}
LOGS=$KERNEL_WORK/logs
# shellcheck source=kernel/rig-record.sh
. "$ROOT/kernel/rig-record.sh"
CMDS="pools top holders blocks pages stacks watch record postmortem check export"

update=
from_logs=0
if [ "${1:-}" = --logs ]; then
	from_logs=1
	shift
fi
if [ "${1:-}" = --update ]; then
	update=${2:?--update FILE}
	shift 2
fi
say() { printf 'report: %s\n' "$*" >&2; }
names=("$@")
all=0
if [ ${#names[@]} -eq 0 ]; then
	mapfile -t names < <(sed 's/#.*//' "$KERNEL_MATRIX" | awk 'NF >= 3 { print $1 }')
	all=1
fi

# the files of line NAME: its env (run record or result record) and log
env_file() { if [ $from_logs -eq 1 ]; then echo "$LOGS/run-$1.env"; else echo "$RESULTS/$1.env"; fi; }
log_file() { if [ $from_logs -eq 1 ]; then echo "$LOGS/vm-$1.log.txt"; else echo "$RESULTS/$1.log"; fi; }
# env NAME KEY: KEY of NAME's env (empty if none)
env_of() {
	local f
	f=$(env_file "$1")
	if [ -f "$f" ]; then sed -n "s/^$2=//p" "$f" | tail -n1; fi
}
# time_of build-NAME|prepare|initramfs: seconds, '?' if unknown
time_of() {
	local v=
	case "$1" in
	build-*) [ $from_logs -eq 1 ] || v=$(env_of "${1#build-}" build_s) ;;
	esac
	[ -n "$v" ] || v=$(cat "$LOGS/$1.time" 2>/dev/null) || true
	echo "${v:-?}"
}
# the matrix line of NAME as the rig writes it (NAME KIND SOURCES KEYS)
line_of() {
	sed 's/#.*//' "$KERNEL_MATRIX" | awk -v n="$1" '$1 == n {
		s = ""; o = ""
		for (i = 3; i <= NF; i++) if ($i ~ /=/) o = o (o == "" ? "" : " ") $i; else s = s (s == "" ? "" : " ") $i
		print $1 " " $2 " " s " " o }'
}
CODE_NOW=$(code_hash)
# stale NAME: NAME's record is of other code or another matrix line
stale() {
	[ $from_logs -eq 0 ] || return 1
	[ "$(env_of "$1" code)" != "$CODE_NOW" ] || [ "$(env_of "$1" input.line)" != "$(line_of "$1")" ]
}
# verdict_cell NAME: pass/FAIL, and from a record its commit and staleness
verdict_cell() {
	local v c
	if [ "$(env_of "$1" verdict)" = pass ]; then v=pass; else v='**FAIL**'; fi
	[ $from_logs -eq 0 ] || { echo "$v"; return 0; }
	c=$(env_of "$1" commit)
	if stale "$1"; then
		echo "$v on ${c:0:7}, stale"
	else
		echo "$v on ${c:0:7}"
	fi
}

# the run the tables come from: its dates and commits, over the lines
provenance() {
	local n d c dates='' commits='' booted=0 passed=0
	local stl=0
	for n in "${names[@]}"; do
		[ -f "$(env_file "$n")" ] || continue
		booted=$((booted + 1))
		if stale "$n"; then stl=$((stl + 1)); fi
		[ "$(env_of "$n" verdict)" = pass ] && passed=$((passed + 1))
		d=$(env_of "$n" date) c=$(env_of "$n" commit)
		dates="$dates ${d%%T*}" commits="$commits $c"
	done
	dates=$(echo "$dates" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
	commits=$(echo "$commits" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
	if [ "$booted" -eq 0 ]; then
		echo "No records for ${names[*]}: no date, commit or verdict to say."
		return 0
	fi
	if [ $from_logs -eq 1 ]; then
		printf 'Run of %s (commit %s): %d of %d lines booted, %d passed.\n' \
			"${dates% }" "${commits% }" "$booted" "${#names[@]}" "$passed"
		return 0
	fi
	printf 'From the result records (kernel/results; runs of %s, commits %s): %d of %d lines have one, %d passed; %d stale (run on other code or another matrix line: booted again by make test-matrix).\n' \
		"${dates% }" "${commits% }" "$booted" "${#names[@]}" "$passed" "$stl"
}

results() {
	local n log
	printf '| kernel | booted |'
	for c in $CMDS; do printf ' %s |' "$c"; done
	printf ' checks | tests skipped | verdict |\n|---|---|'
	for c in $CMDS; do printf -- '---|'; done
	printf -- '---|---|---|\n'
	for n in "${names[@]}"; do
		log=$(log_file "$n")
		if [ ! -f "$log" ]; then
			if [ -n "$(env_of "$n" reason)" ]; then
				# the rig could not boot it this run, and said why
				printf '| %s | not booted: %s |' "$n" "$(env_of "$n" reason | sed 's/|/\\|/g')"
				for c in $CMDS; do printf ' |'; done
				printf ' | | %s |\n' "$(verdict_cell "$n")"
				continue
			fi
			printf '| %s | not booted |' "$n"
			for c in $CMDS; do printf ' |'; done
			printf ' | | – |\n'
			continue
		fi
		awk -v name="$n" -v cmds="$CMDS" -v verdict="$(verdict_cell "$n")" \
		    -v base="$(env_of "$n" base)" -v series="$(env_of "$n" series)" \
		    -v undeclared="$(env_of "$n" undeclared_skips)" '
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
		/^PPVM-TEST: .* verdict=skipped$/ { sk = sk (sk == "" ? "" : ", ") $2 }
		/^PPVM-TEST: .* verdict=partial$/ { sk = sk (sk == "" ? "" : ", ") $2 " (partly)" }
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
			if (base != "") booted = base " + " series " (" rel ")"
			if (booted == "") booted = "no PPVM-BEGIN"
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
			if (undeclared != "") sk = sk (sk == "" ? "" : "; ") "**undeclared: " undeclared "**"
			printf " %d pass, %d fail, %d skip | %s | %s |\n", all["PASS"], all["FAIL"], all["SKIP"],
				sk == "" ? "–" : sk, verdict
		}' "$log"
	done
}

# per line: build or fetch, boot, modules, the tests and where their time went
times() {
	local n log
	printf '| kernel | build/fetch s | boot s | modules s | tests s | ppwatch runs | their process-s | a run alone, start to exit: median / longest s (n) | start to attached (in the background, some side by side): median / longest s (n) | fixed sleeps s | waits s | traffic s | VM s |\n'
	printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
	for n in "${names[@]}"; do
		log=$(log_file "$n")
		[ -f "$log" ] || continue
		awk -v name="$n" -v build="$(time_of "build-$n")" -v vm="$(env_of "$n" vm_s)" '
		function kv(s, k,    m) { if (match(s, k "=[0-9./]+")) { m = substr(s, RSTART + length(k) + 1, RLENGTH - length(k) - 1); return m } return "" }
		/^PPVM-TIME: boot / { boot = $3 }
		/^PPVM-TIME: modules / { mods = $3 }
		/^PPVM-TIME: [0-9]/ {
			tests += $3
			split(kv($0, "ppwatch"), p, "/"); pn += p[1]; ps += p[2]
			split(kv($0, "attach"), a, "/"); an += a[1]; if (a[3] + 0 > am) am = a[3] + 0
			sl += kv($0, "sleep"); wt += kv($0, "wait"); tr += kv($0, "traffic")
		}
		/^  \[[0-9][^]]*\] ppwatch .* attached after [0-9.]+ s/ {
			# every timed load, for the median
			x = $0; sub(/.* attached after /, "", x); sub(/ s.*/, "", x); ld[++nl] = x + 0
		}
		/^  \[[0-9][^]]*\] ppwatch .* -> exit [0-9]+ \([0-9.]+ s\)$/ {
			# a run alone, start to exit (its load, its work, its exit)
			x = $0; sub(/.*\(/, "", x); sub(/ s\)$/, "", x); rn[++nr] = x + 0
		}
		END {
			# the median of the timed loads (insertion sort: a few dozen)
			for (i = 2; i <= nl; i++) { v = ld[i]; for (j = i - 1; j >= 1 && ld[j] > v; j--) ld[j + 1] = ld[j]; ld[j + 1] = v }
			med = nl ? ld[int((nl + 1) / 2)] : 0
			if (nl && ld[nl] > am) am = ld[nl]
			for (i = 2; i <= nr; i++) { v = rn[i]; for (j = i - 1; j >= 1 && rn[j] > v; j--) rn[j + 1] = rn[j]; rn[j + 1] = v }
			printf "| %s | %s | %s | %s | %.0f | %d | %.0f | %s | %s | %.0f | %.0f | %.0f | %s |\n", name,
				build == "" ? "?" : build, boot == "" ? "?" : boot, mods == "" ? "–" : mods,
				tests, pn, ps, nr ? sprintf("%.1f / %.1f (%d)", rn[int((nr + 1) / 2)], rn[nr], nr) : "–",
				nl ? sprintf("%.1f / %.1f (%d)", med, am, nl) : "–", sl, wt, tr, vm == "" ? "?" : vm
		}' "$log"
	done
	if [ $from_logs -eq 1 ]; then
		printf '\nOnce per run: the trees (unpack, git am) %s s, the initramfs %s s.\n\n' \
			"$(time_of prepare)" "$(time_of initramfs)"
	else
		printf '\n'
	fi
	# each test's seconds on each line (ppwatch runs in brackets)
	local tests booted=()
	for n in "${names[@]}"; do
		if [ -f "$(log_file "$n")" ]; then booted+=("$n"); fi
	done
	[ ${#booted[@]} -gt 0 ] || return 0
	tests=$(for n in "${booted[@]}"; do sed -n 's/^PPVM-TIME: \([0-9][^ ]*\) .*/\1/p' "$(log_file "$n")"; done | sort -u)
	[ -n "$tests" ] || return 0
	printf '| test (s, ppwatch runs) |'
	for n in "${booted[@]}"; do printf ' %s |' "$n"; done
	printf '\n|---|'
	for n in "${booted[@]}"; do printf -- '---|'; done
	printf '\n'
	for t in $tests; do
		printf '| %s |' "$t"
		for n in "${booted[@]}"; do
			awk -v t="$t" '$1 == "PPVM-TIME:" && $2 == t {
				split(substr($5, 9), p, "/"); printf " %.0f (%d) |", $3, p[1]; f = 1 }
				END { if (!f) printf " – |" }' "$(log_file "$n")"
		done
		printf '\n'
	done
}

if [ -z "$update" ]; then
	provenance
	echo
	results
	echo
	times
	exit 0
fi
for m in kernel-report kernel-times; do
	if ! grep -q "^<!-- $m -->\$" "$update" || ! grep -q "^<!-- /$m -->\$" "$update"; then
		echo "report.sh: $update has no <!-- $m --> ... <!-- /$m --> lines" >&2
		exit 1
	fi
done
[ $all -eq 1 ] || echo "report.sh: only ${names[*]}: the tables will not show every line" >&2
tmp=$(mktemp)
{ provenance; echo; results; } >"$tmp.results"
{ provenance; echo; times; } >"$tmp.times"
awk -v r="$tmp.results" -v t="$tmp.times" '
	/^<!-- kernel-report -->$/ { print; while ((getline l < r) > 0) print l; skip = 1; next }
	/^<!-- kernel-times -->$/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
	/^<!-- \/kernel-(report|times) -->$/ { skip = 0 }
	!skip' "$update" >"$tmp"
cat "$tmp" >"$update"
rm -f "$tmp" "$tmp.results" "$tmp.times"
