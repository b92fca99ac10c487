#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The whole suite ('make test'): unit tests (no root), then the integration
# tests on the running kernel in network-namespace labs (root, BTF), then
# the kernel VM tests when the rig is present. Skips print their reason;
# any failure makes the run fail.
#
#   SUITES="unit integration kernel"   which layers to run
#   TESTS="case ..."                    only these integration cases
set -u
cd "$(dirname "$0")/.."
export OUTPUT=${OUTPUT:-$PWD/.output}
SUITES=${SUITES:-unit integration kernel}

declare -a results
fail=0

record() {	# name rc
	case $2 in
	0) results+=("PASS $1") ;;
	4) results+=("SKIP $1") ;;
	*) results+=("FAIL $1"); fail=1 ;;
	esac
}

for suite in $SUITES; do
	case $suite in
	unit)
		echo "== unit"
		tests/run-unit.sh "$OUTPUT/tests"
		rc=$?
		record unit $rc
		tests/check-docs.sh
		rc=$?
		record docs $rc
		;;
	integration)
		for t in tests/integration/test_*.sh; do
			echo "== integration/$(basename "$t" .sh)"
			if [ "$(id -u)" -ne 0 ]; then
				echo "  SKIP: integration tests need root (BPF and network namespaces)"
				record "integration/$(basename "$t" .sh)" 4
				continue
			fi
			bash "$t"
			rc=$?	# before any command substitution resets $?
			record "integration/$(basename "$t" .sh)" $rc
		done
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
