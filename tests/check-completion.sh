#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# bash completion (bash-completion/ppwatch) against the built binary, as
# bash calls it: COMP_WORDS/COMP_CWORD in, COMPREPLY out. Commands, global
# and per-command options, option values, keywords; every long option a
# command's help text names is offered. No root: pool ids and devices are
# tested by tests/integration/test_package.sh.
set -u
cd "$(dirname "$0")/.." || exit
OUTPUT=${OUTPUT:-$PWD/.output}
PPW=$OUTPUT/ppwatch
[ -x "$PPW" ] || { echo "SKIP completion: $PPW not built (make)"; exit 4; }
fail=0

# shellcheck source=../bash-completion/ppwatch
. bash-completion/ppwatch
# no pool look-ups here, even as root: they are another test's
_ppwatch_pools() { :; }

# complete "WORDS..." : COMPREPLY, sorted, space-separated, for the last word
complete_line() {
	local line=$1
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=('')
	COMP_WORDS[0]=$PPW
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ppwatch
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//'
}

expect() {	# "line" "expected words"
	local got
	got=$(complete_line "$1")
	if [ "$got" != "$2" ]; then
		echo "  '$1<TAB>': got '$got', expected '$2'"
		fail=1
	fi
}

contains() {	# "line" word...
	local line=$1 got w
	shift
	got=" $(complete_line "$line") "
	for w in "$@"; do
		[[ $got == *" $w "* ]] || { echo "  '$line<TAB>': no '$w' in '$got'"; fail=1; }
	done
}

complete -p ppwatch 2>/dev/null | grep -q -- '-F _ppwatch ppwatch$' ||
	{ echo "  complete -p ppwatch: not registered"; fail=1; }

expect "ppwatch " "blocks check export help holders pages pools postmortem record stacks top watch"
expect "ppwatch po" "pools postmortem"
expect "ppwatch --att" "--attach"
expect "ppwatch --attach " "auto raw_tp tp_btf tracepoint"
# bash splits --attach=tp into "--attach" "=" "tp"
expect "ppwatch --attach = t" "tp_btf tracepoint"
expect "ppwatch --max-pages 100 pools -" "$(complete_line "ppwatch pools -")"
contains "ppwatch --max-pages 100 top -" -b --batch -s --sort --json --no-netlink
contains "ppwatch pools --" --window --sort --reverse --all --json --attach --max-pools
expect "ppwatch pools -s inflight" "inflight inflight_bytes"
expect "ppwatch top --sort zombie" "zombie.bytes zombie.refs zombie_s zombies"
expect "ppwatch pools group-by " "device none pool"
contains "ppwatch pools " group-by pool dev ifindex help
contains "ppwatch holders " group-by pool dev
expect "ppwatch -j pools pool " ""
expect "ppwatch watch -e new,de" "new,destroy"
expect "ppwatch watch --event freed,netlink_" "freed,netlink_add freed,netlink_change freed,netlink_del"
expect "ppwatch check --format " "json junit tap text"
expect "ppwatch check --format = " "json junit tap text"
# and whole, where COMP_WORDBREAKS has no "="
expect "ppwatch check --format=j" "--format=json --format=junit"
expect "ppwatch pages --older" "--older-than"
expect "ppwatch pages --older-than " ""
expect "ppwatch export --on" "--once"
expect "ppwatch help " ""
# files for -f: yaml only (and directories)
contains "ppwatch check -f examples/" examples/driver-ci.yaml examples/fleet.yaml
expect "ppwatch check -f README" ""

# every long option a command's help text names is offered, and no
# offered one is missing from the help: the tables and the help agree
for cmd in $("$PPW" __complete commands); do
	[ "$cmd" = help ] && continue
	offered=" $(complete_line "ppwatch $cmd --") "
	for o in $("$PPW" "$cmd" help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		[[ $offered == *" $o "* ]] ||
			{ echo "  ppwatch $cmd help names $o, completion does not offer it"; fail=1; }
	done
	helptext=$("$PPW" "$cmd" help)
	for o in $offered; do
		[[ $o == --help || $helptext == *"$o"* ]] ||
			{ echo "  ppwatch $cmd: completion offers $o, its help does not name it"; fail=1; }
	done
done

if [ $fail -eq 0 ]; then
	echo "PASS completion (bash-completion/ppwatch with $PPW)"
else
	echo "FAIL completion"
fi
exit $fail
