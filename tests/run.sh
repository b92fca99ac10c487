#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The whole suite ('make test'): unit tests (no root), plain and under
# ASan+UBSan; the source checks (docs, layout, BPF structure and stack
# budget, format, shellcheck, bash completion) and the fuzz targets,
# briefly (tests/fuzz/run.sh --brief);
# the integration tests on the running kernel in network-namespace labs
# (root, BTF); then the kernel VM tests when the rig is present. Skips print
# their reason; any failure makes the run fail. It ends with one line over
# every layer: "N passed, N failed, N skipped", counting unit-test cases
# (TEST()s), checks, integration cases and the VM tests of every kernel;
# every skip counts, a case's or file's and those inside a passing case
# (skip_note, tests/integration/lib.sh), and the summary lists each reason.
#
#   SUITES="unit checks integration kernel"   which layers to run
#   TESTS="case ..."                          only these integration cases
#   CI=true                                   a layer that cannot run here
#                                             (integration without root, the
#                                             kernel layer without its rig)
#                                             FAILS with its reason: CI
#                                             must run every layer
set -u
cd "$(dirname "$0")/.." || exit
export OUTPUT=${OUTPUT:-$PWD/.output}
SUITES=${SUITES:-unit checks integration kernel}

declare -a results
fail=0
# What every layer counts (tests/integration/lib.sh describes the lines):
#   T NAME PASSED FAILED SKIPPED   counts of one check, unit run, test file, VM
#   S NAME: why                    one skip and its reason
PPWATCH_TALLY=$(mktemp /tmp/ppwatch-tally.XXXXXX) || exit
export PPWATCH_TALLY
# make test's kernel builds, if it began them (kernel/prebuild.sh), end
# with this run
trap 'rm -f "$PPWATCH_TALLY" "$PPWATCH_TALLY".out
	case " $SUITES " in *" kernel "*) kernel/prebuild.sh stop ;; esac' EXIT
unselected=0

# counts NAME: "PASSED FAILED SKIPPED" from the tally's T lines of NAME and
# NAME/..., if any
counts() {
	awk -v n="$1" '$1 == "T" && ($2 == n || index($2, n "/") == 1) { p += $3; f += $4; s += $5; hit = 1 }
		END { if (hit) print p + 0, f + 0, s + 0 }' "$PPWATCH_TALLY"
}

# record NAME RC [WHY]: the result line of one check, unit run, test file or
# the VM suite; what counted nothing itself (a check script, a file that
# ended before run_tests) counts as one by its exit status
record() {
	local name=$1 rc=$2 why=${3:-} c p f s
	c=$(counts "$name")
	read -r p f s <<<"$c"
	if [ -z "$c" ]; then
		case $rc in
		0) c="1 0 0" ;;
		4) c="0 0 1"
			grep -q "^S ${name}[:/]" "$PPWATCH_TALLY" ||
				echo "S $name: ${why:-skipped (its reason is above)}" >>"$PPWATCH_TALLY" ;;
		*) c="0 1 0" ;;
		esac
		echo "T $name $c" >>"$PPWATCH_TALLY"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		# it counted no failure and still failed (its clean-up, a crash)
		echo "T $name 0 1 0" >>"$PPWATCH_TALLY"
		c=$(counts "$name")
	fi
	read -r p f s <<<"$c"
	if [ $((p + f + s)) -eq 1 ]; then
		c=
	elif [ "$rc" -eq 4 ] && [ "$p$f$s" = 000 ]; then
		results+=("SKIP $name (no case of TESTS here)")
		unselected=$((unselected + 1))
		return
	fi
	if [ "$f" -gt 0 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; }; then
		results+=("FAIL $name${c:+ ($p passed, $f failed, $s skipped)}")
		fail=1
	elif [ "$rc" -eq 4 ]; then
		results+=("SKIP $name${c:+ ($s skipped)}")
	else
		results+=("PASS $name${c:+ ($p passed, $s skipped)}")
	fi
}

# cannot_run NAME WHY: a layer that cannot run on this machine: SKIP, or
# in CI (CI=true) FAIL, with its reason
cannot_run() {
	if [ "${CI:-}" = true ]; then
		echo "  FAIL: $2 (CI=true: every layer must run)"
		record "$1" 1 "$2"
	else
		echo "  SKIP: $2"
		record "$1" 4 "$2"
	fi
}

# run NAME CMD...: one result line for one check, which counts as one, or
# as the "PASS NAME/..." and "FAIL NAME/..." lines it prints (the fuzz
# targets); a skip's reason is the SKIP line it prints
run() {
	local name=$1 rc p f
	shift
	"$@" 2>&1 | tee "$PPWATCH_TALLY.out"
	rc=${PIPESTATUS[0]}
	p=$(grep -c "^PASS $name/" "$PPWATCH_TALLY.out")
	f=$(grep -c "^FAIL $name/" "$PPWATCH_TALLY.out")
	[ $((p + f)) -eq 0 ] || echo "T $name $p $f 0" >>"$PPWATCH_TALLY"
	record "$name" "$rc" "$(grep -m1 -o 'SKIP.*' "$PPWATCH_TALLY.out")"
}

# the kernel VM suite: its per-kernel summaries (kernel/rig.sh prints each
# VM's "PPVM-SUMMARY: flavor=F pass=N fail=N skip=N" and its SKIP lines)
# into the tally; a kernel whose run failed with no failed test (a splat, a
# timeout, no summary) and a rig that failed outside any VM count as one
# failure each
kernel_tally() {	# log rc
	awk -v rc="$2" '
	match($0, /\[[^]]*\] PPVM-SUMMARY: flavor=[^ ]* pass=[0-9]+ fail=[0-9]+ skip=[0-9]+/) {
		split(substr($0, RSTART, RLENGTH), w, /[ =]/)
		fl = w[4]; pass[fl] = w[6]; fails[fl] = w[8]; skip[fl] = w[10]
	}
	match($0, /\[[^]]*\] PPVM: FAIL .*/) {
		s = substr($0, RSTART, RLENGTH); fl = substr(s, 2, index(s, "]") - 2)
		sub(/^[^]]*\] PPVM: FAIL /, "", s)
		print "F kernel/" fl "/" substr(s, 1, 300)
	}
	match($0, /\[[^]]*\] PPVM: SKIP .*/) {
		s = substr($0, RSTART, RLENGTH); fl = substr(s, 2, index(s, "]") - 2)
		sub(/^[^]]*\] PPVM: SKIP /, "", s)
		print "S kernel/" fl "/" s
	}
	/^rig: ERROR: [^ ]* VM tests failed/ { bad[$3] = 1 }
	/^rig: ERROR: [^ ]* not booted: / { bad[$3] = 1 }
	END {
		for (fl in bad) if (!(fl in fails) || fails[fl] == 0) { fails[fl]++ }
		for (fl in fails) { print "T kernel/" fl, pass[fl] + 0, fails[fl] + 0, skip[fl] + 0; f += fails[fl] }
		if (rc != 0 && f == 0) print "T kernel 0 1 0"
	}' "$1" >>"$PPWATCH_TALLY"
}

for suite in $SUITES; do
	case $suite in
	unit)
		echo "== unit"
		tests/run-unit.sh "$OUTPUT/tests" unit
		record unit $?
		echo "== unit (ASan+UBSan)"
		tests/run-unit.sh "$OUTPUT/san/tests" unit-san
		record unit-san $?
		;;
	checks)
		echo "== checks"
		run docs tests/check-docs.sh
		run layout tests/check-layout.sh
		# bpf/ headers compile alone; each program's stack by 6.1's rules
		run bpf tests/check-bpf.sh
		run format tests/check-format.sh
		run shell tests/check-shell.sh
		run completion tests/check-completion.sh
		# make test's kernel set crosses every boundary of kernel/matrix
		run matrix kernel/rig.sh sets --check
		# the rig takes the patch level of the day (a base is a stable series)
		run rig tests/check-rig.sh
		# every fuzz target briefly, its corpus replayed: a regression fails here
		run fuzz tests/fuzz/run.sh --brief
		;;
	integration)
		if [ "$(id -u)" -ne 0 ]; then
			echo "== integration"
			cannot_run integration "integration tests need root (BPF and network namespaces)"
			continue
		fi
		# one lab run per machine: a test that counts the pools a command
		# destroys must not see another checkout's lab
		exec 8>/var/tmp/ppwatch-host-tests.lock
		flock -n 8 || { echo "== waiting for another integration run on this machine"; flock 8; }
		# a case TESTS names that no file has is a typo, not a skip
		for c in ${TESTS:-}; do
			grep -q "^$c() {" tests/integration/test_*.sh ||
				{ echo "== TESTS: no integration case is named '$c'"; record "integration/TESTS:$c" 1; }
		done
		for t in tests/integration/test_*.sh; do
			echo "== integration/$(basename "$t" .sh)"
			bash "$t"
			rc=$?	# before any command substitution resets $?
			record "integration/$(basename "$t" .sh)" $rc
		done
		exec 8>&-
		;;
	kernel)
		echo "== kernel (VM)"
		if [ ! -f kernel/kernel.mk ]; then
			cannot_run kernel "the kernel VM rig (kernel/kernel.mk) is not in this tree"
		elif ! make -s -n kernel-test >"$PPWATCH_TALLY.out" 2>&1; then
			cannot_run kernel "'make -n kernel-test' fails: $(tail -n 3 "$PPWATCH_TALLY.out" | tr '\n' ' ')"
		else
			kernel/prebuild.sh wait
			make --no-print-directory kernel-test 2>&1 | tee "$PPWATCH_TALLY.out"
			rc=${PIPESTATUS[0]}
			kernel_tally "$PPWATCH_TALLY.out" "$rc"
			record kernel "$rc"
		fi
		;;
	*)
		echo "unknown suite '$suite'" >&2
		exit 2
		;;
	esac
done

echo
echo "== summary"
printf '  %s\n' "${results[@]}"
if grep -q '^S ' "$PPWATCH_TALLY"; then
	echo "  skipped:"
	sed -n 's/^S /    /p' "$PPWATCH_TALLY"
fi
# the failures last: a log cut to its head and tail still names them
if [ "$fail" -ne 0 ]; then
	echo "  failed:"
	for r in "${results[@]}"; do [[ $r != FAIL* ]] || echo "    ${r#FAIL }"; done
	sed -n 's/^F /      /p; s/^D /        | /p' "$PPWATCH_TALLY"
fi
[ "$unselected" -eq 0 ] || echo "  ($unselected test files have no case TESTS names: not run)"
awk '$1 == "T" { p += $3; f += $4; s += $5 }
	END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$PPWATCH_TALLY"
exit $fail
