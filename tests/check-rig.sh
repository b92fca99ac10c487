#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The kernel rig takes the patch level Debian's package holds today: a base
# is a stable series (6.12.y), not 6.12.117 (kernel/rig-base.sh). With a
# fake linux-source-6.12 tarball at a patch level no series was written on
# (6.12.999) and a two-line matrix, 'kernel/rig.sh prepare':
#   - unpacks it, says and records the level (logs/base-base.version);
#   - applies a series that applies, on that level;
#   - fails only the line whose series does not apply, naming its patch,
#     with a run record the Results table shows (verdict=fail, reason=);
# and a tarball of another stable series (6.13.2) is refused, naming the
# series. 'sets --check' fails a set that leaves a boundary uncrossed,
# and passes it when a set=matrix line (make test's cold budget) crosses
# it, saying so. No root, no kernel build, no network: git, tar and make only.
set -u
cd "$(dirname "$0")/.." || exit
for c in git tar xz make; do
	command -v "$c" >/dev/null || { echo "SKIP rig: $c not installed"; exit 4; }
done
T=$(mktemp -d /tmp/ppwatch-check-rig.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL rig/$1: $2"; fail=1; }
# verdict NAME WHY-IF-NOT CMD...: PASS when CMD succeeds
verdict() {
	local name=$1 why=$2
	shift 2
	if "$@"; then echo "PASS rig/$name"; else bad "$name" "$why"; fi
}

# fake_tarball DIR LEVEL: linux-source-6.12.tar.xz in DIR whose tree says
# it is LEVEL (make kernelversion) and has one source file
fake_tarball() {
	local dir=$1 v=$2 src
	src=$T/mk-$v/linux-source-6.12
	mkdir -p "$src/net/core" "$dir"
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nkernelversion:\n\t@echo %s\n' \
		"${v%%.*}" "$(echo "$v" | cut -d. -f2)" "${v##*.}" "$v" >"$src/Makefile"
	printf 'one\ntwo\nthree\n' >"$src/net/core/page_pool.c"
	tar -C "$T/mk-$v" -cJf "$dir/linux-source-6.12.tar.xz" linux-source-6.12
}

# two series written on the fake tree: one applies, one does not (its
# second patch edits a line the tree does not have)
g=$T/author
git init -q "$g" && git -C "$g" config user.name t && git -C "$g" config user.email t@t
mkdir -p "$g/net/core"
printf 'one\ntwo\nthree\n' >"$g/net/core/page_pool.c"
git -C "$g" add -A && git -C "$g" commit -qm base
sed -i 's/two/TWO/' "$g/net/core/page_pool.c" && git -C "$g" commit -qam "net: good change"
git -C "$g" format-patch -q -1 -o "$T/good"
printf 'absent\n' >>"$g/net/core/page_pool.c" && git -C "$g" commit -qam "net: first"
sed -i 's/absent/ABSENT/' "$g/net/core/page_pool.c" && git -C "$g" commit -qam "net: second"
git -C "$g" format-patch -q -2 -o "$T/bad"
# bad: the good patch, then "second" without "first": patch 2 of 2 fails
find "$T/good" -name "*.patch" -printf "%f\n" | sort >"$T/good/series"
cp "$T/good"/0001-*.patch "$T/bad/0000-good.patch"
printf '0000-good.patch\n%s\n' "$(find "$T/bad" -name "0002-*.patch" -printf "%f\n")" >"$T/bad/series"
cat >"$T/matrix" <<M
good  build  base  $T/good/series  regime=legacy
bad   build  base  $T/bad/series   regime=legacy
M

rig() {
	KERNEL_WORK=$T/work KERNEL_SRC_DIR=$1 KERNEL_MATRIX=$T/matrix KERNEL_LOCK=$T/lock KERNEL_RESULTS=$T/results \
		KERNEL_FLAVORS="good bad" CCACHE_DIR=$T/ccache kernel/rig.sh prepare
}

fake_tarball "$T/src" 6.12.999
out=$(rig "$T/src" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
said() { printf '%s\n' "$out" | grep -q "$1"; }
good=0 only_bad=0 row=0
[ "$(cat "$T/work/trees/good/src/net/core/page_pool.c" 2>/dev/null)" = "$(printf 'one\nTWO\nthree')" ] &&
	[ "$(git -C "$T/work/trees/good/src" log -1 --format=%s 2>/dev/null)" = "net: good change" ] && good=1
grep -qx 'verdict=fail' "$T/work/logs/run-bad.env" 2>/dev/null &&
	grep -q '^reason=.*0002-net-second.patch' "$T/work/logs/run-bad.env" &&
	[ ! -e "$T/work/logs/run-good.env" ] && only_bad=1
KERNEL_WORK=$T/work KERNEL_MATRIX=$T/matrix kernel/report.sh --logs bad good 2>/dev/null |
	grep -q '^| bad | not booted: .*0002-net-second.patch.* | \*\*FAIL\*\* |$' && row=1
verdict prepare-fails-when-a-line-fails "exit 0" [ $rc -ne 0 ]
verdict level-recorded "logs/base-base.version: $(cat "$T/work/logs/base-base.version" 2>&1)" \
	grep -qx 'linux-source-6.12 6.12.999' "$T/work/logs/base-base.version"
verdict level-said "no word of 6.12.999 against 6.12.117" \
	said 'base is linux-source-6.12 6.12.999; its series were written on 6.12.117'
verdict applies-on-another-level "the good line's tree is not base + its patch" [ $good = 1 ]
verdict names-the-patch "no line names 0002-net-second.patch" \
	said "rig: ERROR: bad not booted: bad: .*0002-net-second.patch (patch 2 of 2: .*) does not apply on linux-source-6.12 6.12.999"
verdict only-its-line-fails "run records: $(cat "$T/work/logs"/run-*.env 2>&1)" [ $only_bad = 1 ]
verdict results-say-why "the Results row of 'bad' does not say why" [ $row = 1 ]

# another stable series is another base: refused, by name
rm -rf "$T/work" "$T/mk-"*
fake_tarball "$T/src13" 6.13.2
out=$(rig "$T/src13" 2>&1)
rc=$?
verdict other-series-refused "exit $rc: $out" said 'is 6.13.2, not of the 6.12.y series'

# the set's boundaries: legacy on a pool mapping DMA crossed by 'old' only
sets() {
	printf '%s\n' "new  package  sid/linux-image-amd64  regime=dma_mapped-xarray set=test" \
		"old  package  bookworm/linux-image-amd64  regime=legacy $1" >"$T/matrix"
	KERNEL_MATRIX=$T/matrix KERNEL_WORK=$T/work kernel/rig.sh sets --check 2>&1
}
out=$(sets "")
rc=$?
ok=0
[ $rc -ne 0 ] && said 'regime=legacy (a pool mapping DMA) *NONE$' && ok=1
verdict sets-fail-uncrossed "exit $rc: $out" [ $ok = 1 ]
out=$(sets set=matrix)
rc=$?
ok=0
[ $rc -eq 0 ] && said 'only in make test-matrix: old (set=matrix)' && ok=1
verdict sets-matrix-crosses "exit $rc: $out" [ $ok = 1 ]

# vm_livelocked (kernel/rig-vmwatch.sh): one grace period's stall reported
# 4 times after the last test line is a guest stuck for good; a stall whose
# grace period moves on, or test lines after it, is not
# shellcheck source=kernel/rig-vmwatch.sh
. kernel/rig-vmwatch.sh
stall() { printf '[ %d.0] rcu: INFO: rcu_preempt self-detected stall on CPU\r\n[ %d.0] \t(t=%d jiffies g=%d q=6 ncpus=2)\r\n' "$1" "$1" "$2" "$3"; }
{ echo "PPVM-TEST-BEGIN: 20-veth"; stall 41 5250 953; stall 104 21003 953; stall 167 36756 953; stall 230 52509 953; } >"$T/stuck.log"
verdict livelock-seen "4 stalls of g=953 after the last test line not seen" vm_livelocked "$T/stuck.log"
{ echo "PPVM-TEST-BEGIN: 53"; stall 41 5250 953; stall 104 21003 954; stall 167 36756 955; stall 230 52509 956; } >"$T/moving.log"
verdict livelock-gp-moves "a stall whose grace period moves on taken for a livelock" eval '! vm_livelocked "$T/moving.log"'
{ stall 41 5250 953; stall 104 21003 953; echo "PPVM: PASS x: y"; stall 167 36756 953; stall 230 52509 953; } >"$T/progress.log"
verdict livelock-tests-go-on "stalls with test lines between taken for a livelock" eval '! vm_livelocked "$T/progress.log"'
# vm_died_early: a panic before PPVM-BEGIN, its first splat line said; a panic after it is not
printf '[ 1.7] Oops: int3: 0000 [#1] SMP NOPTI\r\n[ 1.7] Kernel panic - not syncing: Fatal exception\r\n' >"$T/early.log"
verdict died-early-seen "a panic before the tests not seen, or its line not said" \
	eval '[ "$(vm_died_early "$T/early.log")" = "[ 1.7] Oops: int3: 0000 [#1] SMP NOPTI" ]'
{ echo "PPVM-BEGIN: flavor=x"; cat "$T/early.log"; } >"$T/late.log"
verdict died-early-not-late "a panic during the tests taken for one before them" eval '! vm_died_early "$T/late.log" >/dev/null'
exit $fail
