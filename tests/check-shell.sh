#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The shell scripts pass shellcheck, every severity, with the project's
# .shellcheckrc (sourced files followed; its two exclusions say why). A
# warning that is meant is disabled on its own line with the reason. The
# scripts: every tracked *.sh, every tracked file whose first line runs
# sh, bash or dash, and the bash completion. No root, no build needed.
set -u
cd "$(dirname "$0")/.." || exit

command -v shellcheck >/dev/null ||
	{ echo "SKIP shell: shellcheck not installed (apt-get install shellcheck)"; exit 4; }

# every candidate file, NUL-separated: the tracked ones, or all in an
# exported tree
candidates() {
	git ls-files -z 2>/dev/null ||
		find . \( -path ./.git -o -path ./.output \) -prune -o -type f -printf '%P\0'
}

scripts=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	case $f in
	tests/fuzz/corpus/*) continue ;;	# fuzz inputs: data, whatever their first bytes
	*.sh | bash-completion/*) ;;
	*)
		head -n1 "$f" 2>/dev/null |
			grep -qE '^#!.*[/ ](ba|da)?sh([[:space:]]|$)' || continue
		;;
	esac
	scripts+=("$f")
done < <(candidates)
[ ${#scripts[@]} -gt 0 ] || { echo "FAIL shell: no shell scripts found"; exit 1; }

# one line per finding: file:line:column: severity: message [SCnnnn]
out=$(shellcheck -f gcc "${scripts[@]}" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	echo "PASS shell (${#scripts[@]} scripts)"
	exit 0
fi
n=0
while IFS= read -r line; do
	if [[ $line =~ ^(.+):([0-9]+):[0-9]+:\ ([a-z]+):\ (.*)\ \[(SC[0-9]+)\]$ ]]; then
		echo "FAIL shell: ${BASH_REMATCH[1]}:${BASH_REMATCH[2]}: ${BASH_REMATCH[5]} (${BASH_REMATCH[3]}): ${BASH_REMATCH[4]}"
		n=$((n + 1))
	else
		echo "  $line"	# an error of the tool itself (a file it cannot read, ...)
	fi
done <<<"$out"
echo "FAIL shell: $n finding(s) in ${#scripts[@]} scripts (shellcheck $(shellcheck --version | sed -n 's/^version: //p'); https://www.shellcheck.net/wiki/SCnnnn says why)"
exit 1
