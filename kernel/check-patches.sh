#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Checks of the kernel series of this repository (make kernel-patches-check),
# each on its own base:
#   items   patches/series         on base + the prerequisite (kernel/prereq)
#   xarray  patches/xarray/series  on base (stock 6.12.117)
# For each:
#   1. git am on a pristine tree is clean (--whitespace=error, no 3-way merge)
#   2. scripts/checkpatch.pl --strict: no error, warning or check, per patch
#   3. YNL: tools/net/ynl/ynl-regen.sh -f reproduces the committed generated
#      files (uapi headers in include/ and tools/include, netdev-genl-gen.[ch])
#   4. W=1: the .c files the series touches build without new W=1 warnings
#      (series head vs its base)
#   5. 32-bit: net/core and the other .c files the series touches build for
#      i386 (ARCH=i386, SMP, PAE: 64-bit dma_addr_t, u64_stats with seqcount)
# With --bisect (make kernel-bisect), instead of 4 and 5: build bzImage at
# every patch of each series, compare the W=1 warnings of the touched files
# from patch to patch, and check the YNL generated files at every patch.
# CHECK_SERIES (default "items xarray") picks the series.
#
# Uses trees/check/{src,build,build32} under KERNEL_WORK (a worktree of the
# rig's repository; run 'kernel/rig.sh prepare' first, the make target does).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kernel/workdir.sh
. "$ROOT/kernel/workdir.sh"
KERNEL_JOBS=${KERNEL_JOBS:-$(nproc)}
PREREQ_DIR=${PREREQ_DIR:-$ROOT/kernel/prereq}
CHECK_SERIES=${CHECK_SERIES:-items xarray}
TREES=$KERNEL_WORK/trees
REPO=$TREES/patched/src
SRC=$TREES/check/src
BLD=$TREES/check/build
BLD32=$TREES/check/build32
OUT=$KERNEL_WORK/logs/check
export CCACHE_BASEDIR=$TREES CCACHE_NOHASHDIR=1
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

# series_files SERIESFILE: the patch files it lists (quilt style)
series_files() {
	local dir
	dir=$(dirname "$ROOT/$1")
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$ROOT/$1" | grep -v '^$' | sed "s|^|$dir/|"
}

if [ ! -e "$SRC/.git" ]; then
	mkdir -p "$TREES/check"
	git -C "$REPO" worktree prune
	git -C "$REPO" worktree add -q --detach "$SRC" base
fi

configure() {
	mkdir -p "$BLD"
	if [ ! -f "$BLD/.config" ]; then
		make -s -C "$SRC" O="$BLD" tinyconfig >/dev/null
		(cd "$BLD" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$BLD" "$BLD/.config" \
			"$ROOT"/kernel/config/*.config >/dev/null)
		make -s -C "$SRC" O="$BLD" olddefconfig >/dev/null
	fi
}

configure32() {
	mkdir -p "$BLD32"
	if [ ! -f "$BLD32/.config" ]; then
		make -s -C "$SRC" O="$BLD32" ARCH=i386 tinyconfig >/dev/null
		(cd "$BLD32" && ARCH=i386 "$SRC/scripts/kconfig/merge_config.sh" -m -O "$BLD32" \
			"$BLD32/.config" "$ROOT/kernel/config-check/i386.config" >/dev/null)
		make -s -C "$SRC" O="$BLD32" ARCH=i386 olddefconfig >/dev/null
		if grep -q '^CONFIG_64BIT=y' "$BLD32/.config"; then die "the i386 config is 64-bit"; fi
	fi
}

# w1 TAG: W=1 warnings of each touched .c file, one "file: warning" a line,
# line/column numbers stripped so that moved code compares equal
w1() {
	local tag=$1 f o
	: >"$OUT/w1-$tag.txt"
	for f in "${CFILES[@]}"; do
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

# ynl_check TAG: ynl-regen.sh -f leaves the tree as it is
ynl_check() {
	(cd "$SRC" && ./tools/net/ynl/ynl-regen.sh -f >/dev/null 2>&1) || { bad "$1: ynl-regen.sh failed"; return; }
	if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
		git -C "$SRC" status --short >&2
		bad "$1: ynl-regen.sh -f changes generated files: spec and generated code out of sync"
		git -C "$SRC" checkout -q -f HEAD
	else
		say "$1: ynl-regen.sh -f: generated netlink code matches the spec"
	fi
	cmp -s "$SRC/include/uapi/linux/netdev.h" "$SRC/tools/include/uapi/linux/netdev.h" ||
		bad "$1: tools/include/uapi/linux/netdev.h differs from include/uapi/linux/netdev.h"
}

check_series() {
	local name=$1 sfile base_desc p f n prev c subj t0 new
	local -a ser base_patches objs
	case "$name" in
	items) sfile=patches/series; base_patches=("${PRE[@]}"); base_desc="base + prerequisite" ;;
	xarray) sfile=patches/xarray/series; base_patches=(); base_desc="base (stock)" ;;
	*) die "unknown series '$name' (items, xarray)" ;;
	esac
	mapfile -t ser < <(series_files "$sfile")
	[ ${#ser[@]} -gt 0 ] || die "$sfile lists no patches"
	say "=== $name: $sfile (${#ser[@]} patches) on $base_desc"

	# --- 1. git am ------------------------------------------------------------
	git -C "$SRC" am --abort >/dev/null 2>&1 || true
	git -C "$SRC" checkout -q -f --detach base
	if [ ${#base_patches[@]} -gt 0 ]; then
		git -C "$SRC" am -q --whitespace=error "${base_patches[@]}" ||
			die "$name: prerequisite series: git am failed"
	fi
	BASE_HEAD=$(git -C "$SRC" rev-parse HEAD)
	if git -C "$SRC" am -q --whitespace=error "${ser[@]}" >"$OUT/am-$name.log" 2>&1; then
		say "$name: git am: ${#ser[@]} patches apply cleanly (whitespace=error)"
	else
		cat "$OUT/am-$name.log" >&2
		git -C "$SRC" am --abort || true
		bad "$name: git am of $sfile failed"
		return
	fi
	SERIES_HEAD=$(git -C "$SRC" rev-parse HEAD)

	# --- 2. checkpatch --strict -----------------------------------------------
	for p in "${ser[@]}"; do
		# the system python3 (Debian's, with python3-ply and python3-git for
		# spdxcheck.py), not whatever python3 comes first in PATH
		if (cd "$SRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --quiet "$p") \
			>"$OUT/checkpatch.log" 2>&1; then
			say "$name: checkpatch --strict: clean: $(basename "$p")"
		else
			cat "$OUT/checkpatch.log" >&2
			bad "$name: checkpatch --strict: $(basename "$p")"
		fi
	done

	# --- 3. YNL generated code in sync with the spec --------------------------
	ynl_check "$name"

	# .c files the series touches (those W=1 can build in this config)
	mapfile -t CFILES < <(git -C "$SRC" diff --name-only "$BASE_HEAD" "$SERIES_HEAD" -- '*.c' |
		grep -v '^tools/' | sort)

	configure
	if [ $BISECT -eq 0 ]; then
		# --- 4. W=1 ---------------------------------------------------------
		git -C "$SRC" checkout -q -f --detach "$BASE_HEAD"
		make -s -C "$SRC" O="$BLD" prepare >/dev/null 2>&1 || die "make prepare failed"
		w1 "$name-base"
		git -C "$SRC" checkout -q -f --detach "$SERIES_HEAD"
		w1 "$name-series"
		new=$(comm -13 "$OUT/w1-$name-base.txt" "$OUT/w1-$name-series.txt")
		for f in "${CFILES[@]}"; do
			say "$name: W=1 $f: $(grep -c "^[^:]*$f:" "$OUT/w1-$name-base.txt" || true) warnings before the series, $(grep -c "^[^:]*$f:" "$OUT/w1-$name-series.txt" || true) after"
		done
		if [ -n "$new" ]; then echo "$new" >&2; bad "$name: new W=1 warnings"; else say "$name: W=1: no new warnings in ${CFILES[*]}"; fi

		# --- 5. 32-bit ------------------------------------------------------
		configure32
		objs=(net/core/)
		for f in "${CFILES[@]}"; do
			case "$f" in net/core/*) ;; *) objs+=("${f%.c}.o") ;; esac
		done
		if make -C "$SRC" O="$BLD32" ARCH=i386 CC="ccache gcc" -j"$KERNEL_JOBS" "${objs[@]}" \
			>"$OUT/build32-$name.log" 2>&1; then
			say "$name: 32-bit (i386, PAE) build of ${objs[*]}: ok ($(grep -c ' CC ' "$OUT/build32-$name.log" || true) objects compiled, $(grep -c 'warning:' "$OUT/build32-$name.log" || true) warnings)"
		else
			tail -30 "$OUT/build32-$name.log" >&2
			bad "$name: 32-bit build of ${objs[*]} failed"
		fi
	else
		prev=$name-base
		build_at "$BASE_HEAD" || die "$name: base head does not build"
		w1 "$prev"
		n=0
		for c in $(git -C "$SRC" rev-list --reverse "$BASE_HEAD..$SERIES_HEAD"); do
			n=$((n + 1))
			subj=$(git -C "$SRC" log -1 --format=%s "$c")
			t0=$(date +%s)
			if build_at "$c"; then
				say "$name: bisect: patch $n builds (bzImage, $(( $(date +%s) - t0 )) s): $subj"
			else
				bad "$name: bisect: patch $n does not build: $subj"
				continue
			fi
			ynl_check "$name patch $n"
			w1 "$name-p$n"
			new=$(comm -13 "$OUT/w1-$prev.txt" "$OUT/w1-$name-p$n.txt")
			if [ -n "$new" ]; then echo "$new" >&2; bad "$name: patch $n adds W=1 warnings"; else say "$name: bisect: patch $n adds no W=1 warning"; fi
			prev=$name-p$n
		done
	fi
	git -C "$SRC" checkout -q -f --detach "$SERIES_HEAD"
}

for s in $CHECK_SERIES; do
	check_series "$s"
done

[ $FAILED -eq 0 ] || die "patch checks failed (logs: $OUT)"
say "all patch checks passed ($CHECK_SERIES)"
