#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The whole suite ('make test'): unit tests (no root), plain and under
# ASan+UBSan; the source checks (docs, layout, format, shellcheck, bash
# completion) and the fuzz targets, briefly (tests/fuzz/run.sh --brief);
# the integration tests on the running kernel in network-namespace labs
# (root, BTF); then the kernel VM tests when the rig is present. Skips print
# their reason; any failure makes the run fail.
#
#   SUITES="unit checks integration kernel"   which layers to run
#   TESTS="case ..."                          only these integration cases
set -u
cd "$(dirname "$0")/.." || exit
export OUTPUT=${OUTPUT:-$PWD/.output}
SUITES=${SUITES:-unit checks integration kernel}

declare -a results
fail=0

record() {	# name rc
	case $2 in
	0) results+=("PASS $1") ;;
	4) results+=("SKIP $1") ;;
	*) results+=("FAIL $1"); fail=1 ;;
	esac
}

# run NAME CMD...: one result line for one check
run() {
	local name=$1
	shift
	"$@"
	record "$name" $?
}

for suite in $SUITES; do
	case $suite in
	unit)
		echo "== unit"
		run unit tests/run-unit.sh "$OUTPUT/tests"
		echo "== unit (ASan+UBSan)"
		run unit-san tests/run-unit.sh "$OUTPUT/san/tests"
		;;
	checks)
		echo "== checks"
		run docs tests/check-docs.sh
		run layout tests/check-layout.sh
		run format tests/check-format.sh
		run shell tests/check-shell.sh
		run completion tests/check-completion.sh
		# make test's kernel set crosses every boundary of kernel/matrix
		run matrix kernel/rig.sh sets --check
		# every fuzz target briefly, its corpus replayed: a regression fails here
		run fuzz tests/fuzz/run.sh --brief
		;;
	integration)
		if [ "$(id -u)" -ne 0 ]; then
			echo "== integration"
			echo "  SKIP: integration tests need root (BPF and network namespaces)"
			record integration 4
			continue
		fi
		# one lab run per machine: a test that counts the pools a command
		# destroys must not see another checkout's lab
		exec 8>/var/tmp/ppwatch-host-tests.lock
		flock -n 8 || { echo "== waiting for another integration run on this machine"; flock 8; }
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
		if [ -f kernel/kernel.mk ] && make -s -n kernel-test >/dev/null 2>&1; then
			make --no-print-directory kernel-test
			rc=$?
			record kernel $rc
		else
			echo "  SKIP: the kernel VM rig (kernel/kernel.mk) is not in this tree"
			record kernel 4
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
exit $fail
