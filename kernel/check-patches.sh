#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Checks of the kernel series in patches/ (make kernel-patches-check):
#   1. git am of prereq + patches/ on a pristine tree is clean
#      (--whitespace=error, no 3-way merge)
#   2. scripts/checkpatch.pl --strict: no error, warning or check, per patch
#   3. YNL: tools/net/ynl/ynl-regen.sh -f reproduces the committed generated
#      files (uapi headers in include/ and tools/include, netdev-genl-gen.[ch])
#   4. W=1: the .c files the series touches build without new W=1 warnings
#      (series head vs the prerequisite head)
# With --bisect (make kernel-bisect), instead of 4: build bzImage at every
# patch of the series and compare the W=1 warnings of the touched files
# from patch to patch.
#
# Uses trees/check/{src,build} under KERNEL_WORK (a worktree of the rig's
# repository; run 'kernel/rig.sh prepare' first, the make target does).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KERNEL_WORK=${KERNEL_WORK:-/var/tmp/ppwatch-kernel}
KERNEL_JOBS=${KERNEL_JOBS:-$(nproc)}
PREREQ_DIR=${PREREQ_DIR:-$ROOT/kernel/prereq}
TREES=$KERNEL_WORK/trees
REPO=$TREES/patched/src
SRC=$TREES/check/src
BLD=$TREES/check/build
OUT=$KERNEL_WORK/logs/check
export CCACHE_DIR=${CCACHE_DIR:-$KERNEL_WORK/ccache} CCACHE_BASEDIR=$TREES CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros
export KBUILD_BUILD_USER=ppwatch KBUILD_BUILD_HOST=rig
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
BISECT=0
[ "${1:-}" = --bisect ] && BISECT=1

say() { printf 'check: %s\n' "$*" >&2; }
die() { printf 'check: ERROR: %s\n' "$*" >&2; exit 1; }
FAILED=0
bad() { say "FAIL: $*"; FAILED=1; }

mkdir -p "$OUT"
exec 9>"${KERNEL_LOCK:-/var/tmp/ppwatch-kernel-rig.lock}"
flock -n 9 || { say "waiting for another rig run"; flock 9; }

[ -d "$REPO/.git" ] || die "no rig repository at $REPO: run 'make kernel-prepare'"
mapfile -t PRE < <(sed 's/^[0-9a-f]*  //' "$ROOT/kernel/prereq.sha256" | sed "s|^|$PREREQ_DIR/|")
(cd "$PREREQ_DIR" && sha256sum --quiet -c "$ROOT/kernel/prereq.sha256") || die "prereq mismatch"
mapfile -t SER < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$ROOT/patches/series" | grep -v '^$' | sed "s|^|$ROOT/patches/|")

# --- 1. git am ----------------------------------------------------------------
if [ ! -e "$SRC/.git" ]; then
	mkdir -p "$TREES/check"
	git -C "$REPO" worktree prune
	git -C "$REPO" worktree add -q --detach "$SRC" base
fi
git -C "$SRC" am --abort >/dev/null 2>&1 || true
git -C "$SRC" checkout -q -f --detach base
git -C "$SRC" am -q --whitespace=error "${PRE[@]}" || die "prerequisite series: git am failed"
PREREQ_HEAD=$(git -C "$SRC" rev-parse HEAD)
if git -C "$SRC" am -q --whitespace=error "${SER[@]}" >"$OUT/am.log" 2>&1; then
	say "git am: ${#SER[@]} patches apply cleanly on the prerequisite (whitespace=error)"
else
	cat "$OUT/am.log" >&2
	git -C "$SRC" am --abort || true
	die "git am of patches/ failed"
fi
SERIES_HEAD=$(git -C "$SRC" rev-parse HEAD)

# --- 2. checkpatch --strict ---------------------------------------------------
for p in "${SER[@]}"; do
	if (cd "$SRC" && ./scripts/checkpatch.pl --strict --quiet "$p") >"$OUT/checkpatch.log" 2>&1; then
		say "checkpatch --strict: clean: $(basename "$p")"
	else
		cat "$OUT/checkpatch.log" >&2
		bad "checkpatch --strict: $(basename "$p")"
	fi
done

# --- 3. YNL generated code in sync with the spec ------------------------------
(cd "$SRC" && ./tools/net/ynl/ynl-regen.sh -f >/dev/null 2>&1) || bad "ynl-regen.sh failed"
if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
	git -C "$SRC" status --short >&2
	git -C "$SRC" diff --stat >&2
	bad "ynl-regen.sh -f changes generated files: spec and generated code out of sync"
	git -C "$SRC" checkout -q -f HEAD
else
	say "ynl-regen.sh -f: generated netlink code matches the spec"
fi
cmp -s "$SRC/include/uapi/linux/netdev.h" "$SRC/tools/include/uapi/linux/netdev.h" &&
	say "include/uapi and tools/include/uapi netdev.h identical" ||
	bad "tools/include/uapi/linux/netdev.h differs from include/uapi/linux/netdev.h"

# --- 4. builds and W=1 --------------------------------------------------------
configure() {
	mkdir -p "$BLD"
	if [ ! -f "$BLD/.config" ]; then
		make -s -C "$SRC" O="$BLD" tinyconfig >/dev/null
		(cd "$BLD" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$BLD" "$BLD/.config" \
			$(ls "$ROOT"/kernel/config/*.config | sort) >/dev/null)
		make -s -C "$SRC" O="$BLD" olddefconfig >/dev/null
	fi
}

# .c files the series touches (those W=1 can build in this config)
CFILES=$(git -C "$SRC" diff --name-only "$PREREQ_HEAD" "$SERIES_HEAD" -- '*.c' | sort)

# w1 TAG: W=1 warnings of each touched .c file, one "file: warning" a line,
# line/column numbers stripped so that moved code compares equal
w1() {
	local tag=$1 f o
	: >"$OUT/w1-$tag.txt"
	for f in $CFILES; do
		o=${f%.c}.o
		rm -f "$BLD/$o"
		make -C "$SRC" O="$BLD" CC="ccache gcc" W=1 "$o" >"$OUT/w1-$tag-$(echo "$f" | tr / _).log" 2>&1 ||
			{ bad "W=1 build of $f failed at $tag"; continue; }
		grep -E 'warning:' "$OUT/w1-$tag-$(echo "$f" | tr / _).log" |
			sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u >>"$OUT/w1-$tag.txt" || true
	done
}

build_at() {
	local rev=$1
	git -C "$SRC" checkout -q -f --detach "$rev"
	make -s -C "$SRC" O="$BLD" CC="ccache gcc" -j"$KERNEL_JOBS" bzImage >"$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log" >&2; return 1; }
}

configure
if [ $BISECT -eq 0 ]; then
	git -C "$SRC" checkout -q -f --detach "$PREREQ_HEAD"
	make -s -C "$SRC" O="$BLD" prepare >/dev/null 2>&1 || die "make prepare failed"
	w1 prereq
	git -C "$SRC" checkout -q -f --detach "$SERIES_HEAD"
	w1 series
	new=$(comm -13 "$OUT/w1-prereq.txt" "$OUT/w1-series.txt")
	for f in $CFILES; do
		say "W=1 $f: $(grep -c "^[^:]*$f:" "$OUT/w1-prereq.txt" || true) warnings before the series, $(grep -c "^[^:]*$f:" "$OUT/w1-series.txt" || true) after"
	done
	if [ -n "$new" ]; then echo "$new" >&2; bad "new W=1 warnings"; else say "W=1: no new warnings in $(echo $CFILES)"; fi
else
	prev=prereq
	build_at "$PREREQ_HEAD" || die "prerequisite head does not build"
	w1 prereq
	n=0
	for c in $(git -C "$SRC" rev-list --reverse "$PREREQ_HEAD..$SERIES_HEAD"); do
		n=$((n + 1))
		subj=$(git -C "$SRC" log -1 --format=%s "$c")
		t0=$(date +%s)
		if build_at "$c"; then
			say "bisect: patch $n builds (bzImage, $(( $(date +%s) - t0 )) s): $subj"
		else
			bad "bisect: patch $n does not build: $subj"
			continue
		fi
		w1 p$n
		new=$(comm -13 "$OUT/w1-$prev.txt" "$OUT/w1-p$n.txt")
		if [ -n "$new" ]; then echo "$new" >&2; bad "patch $n adds W=1 warnings"; else say "bisect: patch $n adds no W=1 warning"; fi
		prev=p$n
	done
fi
git -C "$SRC" checkout -q -f --detach "$SERIES_HEAD"

[ $FAILED -eq 0 ] || die "patch checks failed (logs: $OUT)"
say "all patch checks passed"
