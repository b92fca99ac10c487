#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The tables of a VM run, from its logs (KERNEL_WORK/logs: vm-NAME.log.txt,
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
#   kernel/report.sh [NAME...]            both tables (markdown) on stdout
#   kernel/report.sh --update FILE [NAME...]
#                                         replace FILE's tables between its
#                                         "<!-- kernel-report -->" and
#                                         "<!-- /kernel-report -->" lines
#                                         (Results) and "<!-- kernel-times -->"
#                                         and "<!-- /kernel-times -->" (Times)
#
# Result cells: "✓ N" every one of N checks passed, "✗ F of N" F failed,
# "refused" the command said in one line why this kernel cannot serve it
# (and the test checked that line), "skip" only skipped checks, "–" none.
# NAMEs default to every line of kernel/matrix that has a log; a line
# without one is listed as not booted.
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
all=0
if [ ${#names[@]} -eq 0 ]; then
	mapfile -t names < <(sed 's/#.*//' "$KERNEL_MATRIX" | awk 'NF >= 3 { print $1 }')
	all=1
fi

# env NAME KEY: KEY of logs/run-NAME.env (empty if none)
env_of() {
	if [ -f "$LOGS/run-$1.env" ]; then sed -n "s/^$2=//p" "$LOGS/run-$1.env" | tail -n1; fi
}
time_of() { cat "$LOGS/$1.time" 2>/dev/null || echo '?'; }

# the run the tables come from: its dates and commits, over the lines
provenance() {
	local n d c dates='' commits='' booted=0 passed=0
	for n in "${names[@]}"; do
		[ -f "$LOGS/run-$n.env" ] || continue
		booted=$((booted + 1))
		[ "$(env_of "$n" verdict)" = pass ] && passed=$((passed + 1))
		d=$(env_of "$n" date) c=$(env_of "$n" commit)
		dates="$dates ${d%%T*}" commits="$commits $c"
	done
	dates=$(echo "$dates" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
	commits=$(echo "$commits" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
	if [ "$booted" -eq 0 ]; then
		echo "No run records (logs/run-NAME.env) for ${names[*]}: no date, commit or verdict to say."
		return 0
	fi
	printf 'Run of %s (commit %s): %d of %d lines booted, %d passed.\n' \
		"${dates% }" "${commits% }" "$booted" "${#names[@]}" "$passed"
}

results() {
	local n log
	printf '| kernel | booted |'
	for c in $CMDS; do printf ' %s |' "$c"; done
	printf ' checks | tests skipped | verdict |\n|---|---|'
	for c in $CMDS; do printf -- '---|'; done
	printf -- '---|---|---|\n'
	for n in "${names[@]}"; do
		log=$LOGS/vm-$n.log.txt
		if [ ! -f "$log" ]; then
			if [ -n "$(env_of "$n" reason)" ]; then
				# the rig could not boot it this run, and said why
				printf '| %s | not booted: %s |' "$n" "$(env_of "$n" reason | sed 's/|/\\|/g')"
				for c in $CMDS; do printf ' |'; done
				printf ' | | **FAIL** |\n'
				continue
			fi
			printf '| %s | not booted |' "$n"
			for c in $CMDS; do printf ' |'; done
			printf ' | | – |\n'
			continue
		fi
		awk -v name="$n" -v cmds="$CMDS" -v verdict="$(env_of "$n" verdict)" \
		    -v base="$(env_of "$n" base)" -v series="$(env_of "$n" series)" '
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
			printf " %d pass, %d fail, %d skip | %s | %s |\n", all["PASS"], all["FAIL"], all["SKIP"],
				sk == "" ? "–" : sk, verdict == "pass" ? "pass" : "**FAIL**"
		}' "$log"
	done
}

# per line: build or fetch, boot, modules, the tests and where their time went
times() {
	local n log
	printf '| kernel | build/fetch s | boot s | modules s | tests s | ppwatch runs | their process-s | a run alone, start to exit: median / longest s (n) | start to attached (in the background, some side by side): median / longest s (n) | fixed sleeps s | waits s | traffic s | VM s |\n'
	printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
	for n in "${names[@]}"; do
		log=$LOGS/vm-$n.log.txt
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
	printf '\nOnce per run: the trees (unpack, git am) %s s, the initramfs %s s.\n\n' \
		"$(time_of prepare)" "$(time_of initramfs)"
	# each test's seconds on each line (ppwatch runs in brackets)
	local tests booted=()
	for n in "${names[@]}"; do
		if [ -f "$LOGS/vm-$n.log.txt" ]; then booted+=("$n"); fi
	done
	[ ${#booted[@]} -gt 0 ] || return 0
	tests=$(for n in "${booted[@]}"; do sed -n 's/^PPVM-TIME: \([0-9][^ ]*\) .*/\1/p' "$LOGS/vm-$n.log.txt"; done | sort -u)
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
				END { if (!f) printf " – |" }' "$LOGS/vm-$n.log.txt"
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
