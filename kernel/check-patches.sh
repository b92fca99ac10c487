#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Checks of the kernel series of this repository, each on its own base
# (kernel/rig-base.sh):
#   items   patches/series         on base (6.12.y) + the prerequisite (kernel/prereq)
#   xarray  patches/xarray/series  on base-7.3 (7.3.y)
#
#   kernel/check-patches.sh [--bisect] [--if-stale] [SERIES...]
#                                            (default: items xarray)
#
# Its verdict is a result record too (kernel/results/patches-check.env,
# kernel/rig-record.sh), keyed on patches/, the prerequisite, this script,
# the config fragments it uses and the bases' levels; --if-stale ('make
# test-matrix') checks nothing when the committed record has today's key
# and passed.
#
# Always (make kernel-patches-check):
#   1. git am on a pristine tree is clean (--whitespace=error, no 3-way merge)
#   2. scripts/checkpatch.pl --strict: no error, warning or check, per patch
#   3. at every patch: the selftests the series touches install
#      (kselftest's install with TARGETS=the touched dirs, their scripts and
#      files: a Makefile naming a file a later patch adds fails here), and
#      the python ones compile
#   4. at the head: scripts/kernel-doc -Wall of the touched C files and
#      headers adds no warning; tools/net/ynl/ynl-regen.sh -f leaves the
#      generated files as committed (spec, uapi headers, kernel and user
#      code in sync; ynl-regen.sh has no check mode, -f + git diff is it)
#   5. at the head: W=1 adds no warning to the touched .c files (series
#      head against its base)
#   6. at the head: 32-bit: net/core and the other touched .c files build
#      for i386 (SMP, PAE: 64-bit dma_addr_t, u64_stats with a seqcount)
# With --bisect (make kernel-bisect), 4 and 5 at every patch instead, and
# bzImage built at every patch: each patch builds, adds no W=1 or
# kernel-doc warning to the files the series touches, and keeps the YNL
# files in sync.
#
# Trees: trees/check-BASE/{src,build,build32} under KERNEL_WORK, a worktree
# of the base's repository (made here if the rig has not made it yet).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kernel/workdir.sh
. "$ROOT/kernel/workdir.sh"
KERNEL_JOBS=${KERNEL_JOBS:-$(nproc)}
PREREQ_DIR=${PREREQ_DIR:-$ROOT/kernel/prereq}
TREES=$KERNEL_WORK/trees
OUT=$KERNEL_WORK/logs/check
export CCACHE_BASEDIR=$TREES CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros
export KBUILD_BUILD_USER=ppwatch KBUILD_BUILD_HOST=rig
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
BISECT=0
IF_STALE=0
while [ $# -gt 0 ]; do
	case "$1" in
	--bisect) BISECT=1 ;;
	--if-stale) IF_STALE=1 ;;
	*) break ;;
	esac
	shift
done
CHECK_SERIES=${*:-${CHECK_SERIES:-items xarray}}

say() { printf 'check: %s\n' "$*" >&2; }
die() { printf 'check: ERROR: %s\n' "$*" >&2; exit 1; }
FAILED=0
bad() { say "FAIL: $*"; FAILED=1; }

# shellcheck source=kernel/rig-base.sh
. "$ROOT/kernel/rig-base.sh"

mkdir -p "$OUT"
exec 9>"${KERNEL_LOCK:-/var/tmp/ppwatch-kernel-rig.lock}"
flock -n 9 || { say "waiting for another rig run"; flock 9; }

mapfile -t PRE < <(sed 's/^[0-9a-f]*  //' "$ROOT/kernel/prereq.sha256" | sed "s|^|$PREREQ_DIR/|")
(cd "$PREREQ_DIR" && sha256sum --quiet -c "$ROOT/kernel/prereq.sha256") || die "prereq mismatch"

# series_files SERIESFILE: the patch files it lists (quilt style)
series_files() {
	local dir
	dir=$(dirname "$ROOT/$1")
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$ROOT/$1" | grep -v '^$' | sed "s|^|$dir/|"
}

# the check tree of base B: SRC, BLD, BLD32
check_tree() {
	local b=$1 repo=${B_REPO[$1]}
	ensure_repo "$b"
	SRC=$TREES/check-$b/src BLD=$TREES/check-$b/build BLD32=$TREES/check-$b/build32
	if [ -e "$SRC/.git" ] &&
	   [ "$(cd "$SRC" && realpath "$(git rev-parse --git-common-dir)" 2>/dev/null)" != \
	     "$(cd "$repo" && realpath "$(git rev-parse --git-common-dir)")" ]; then
		rm -rf "$SRC"
	fi
	if [ ! -e "$SRC/.git" ]; then
		mkdir -p "$TREES/check-$b"
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$SRC" base
	fi
}

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
	local tag=$1 f o log
	: >"$OUT/w1-$tag.txt"
	for f in "${CFILES[@]}"; do
		[ -f "$SRC/$f" ] || continue # added by a later patch
		o=${f%.c}.o
		log=$OUT/w1-$tag-$(echo "$f" | tr / _).log
		rm -f "$BLD/$o"
		make -C "$SRC" O="$BLD" CC="ccache gcc" W=1 "$o" >"$log" 2>&1 ||
			{ tail -20 "$log" >&2; bad "W=1 build of $f failed at $tag"; continue; }
		grep -E 'warning:' "$log" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u >>"$OUT/w1-$tag.txt" || true
	done
}

# kdoc TAG: scripts/kernel-doc -Wall warnings of the touched C files and
# headers, line numbers stripped
kdoc() {
	local tag=$1 f
	: >"$OUT/kdoc-$tag.txt"
	for f in "${KFILES[@]}"; do
		[ -f "$SRC/$f" ] || continue
		(cd "$SRC" && PATH=/usr/bin:$PATH ./scripts/kernel-doc -none -Wall "$f" 2>&1) |
			grep -E 'warning|error' | sed -E 's/:[0-9]+:/:/' | sort -u >>"$OUT/kdoc-$tag.txt" || true
	done
}

# compare KIND PREV NOW WHAT: no line of NOW's KIND list that PREV lacks
compare() {
	local kind=$1 prev=$2 now=$3 what=$4 new
	new=$(comm -13 "$OUT/$kind-$prev.txt" "$OUT/$kind-$now.txt")
	if [ -n "$new" ]; then
		echo "$new" >&2
		bad "$what adds $kind warnings"
	else
		say "$what: no new $kind warning ($(wc -l <"$OUT/$kind-$now.txt") in the touched files, as before)"
	fi
}

build_at() {
	local rev=$1
	git -C "$SRC" checkout -q -f --detach "$rev"
	make -s -C "$SRC" O="$BLD" CC="ccache gcc" -j"$KERNEL_JOBS" bzImage >"$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log" >&2; return 1; }
}

# ynl_check TAG: ynl-regen.sh -f leaves the tree as it is
ynl_check() {
	(cd "$SRC" && PATH=/usr/bin:$PATH ./tools/net/ynl/ynl-regen.sh -f >"$OUT/ynl.log" 2>&1) ||
		{ tail -5 "$OUT/ynl.log" >&2; bad "$1: ynl-regen.sh failed"; return; }
	if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
		git -C "$SRC" status --short >&2
		git -C "$SRC" diff --stat >&2
		bad "$1: ynl-regen.sh -f changes generated files: spec and generated code out of sync"
		git -C "$SRC" checkout -q -f HEAD
	else
		say "$1: ynl-regen.sh -f: generated netlink code matches the spec"
	fi
	cmp -s "$SRC/include/uapi/linux/netdev.h" "$SRC/tools/include/uapi/linux/netdev.h" ||
		bad "$1: tools/include/uapi/linux/netdev.h differs from include/uapi/linux/netdev.h"
}

# selftests_check TAG: the touched selftests dirs install with what the
# tree has at this point (kselftest's own install, through the top-level
# selftests Makefile, TARGETS=the dirs: their Makefiles' scripts, files
# and includes; the compiled programs are left out, as the series add
# none and building them needs what each dir's Makefile probes for), and
# the python files compile
selftests_check() {
	local tag=$1 d f dst=$OUT/ksft-install
	local -a targets=()
	for d in "${KSFT_DIRS[@]}"; do
		[ -f "$SRC/$d/Makefile" ] && targets+=("${d#tools/testing/selftests/}")
	done
	rm -rf "$dst"
	if [ ${#targets[@]} -gt 0 ]; then
		if make -s -C "$SRC/tools/testing/selftests" TARGETS="${targets[*]}" install \
			INSTALL_PATH="$dst" TEST_GEN_PROGS= TEST_GEN_FILES= TEST_GEN_PROGS_EXTENDED= \
			TEST_CUSTOM_PROGS= TEST_GEN_MODS_DIR= YNL_GEN_FILES= >"$OUT/ksft-$tag.log" 2>&1 &&
		   # the top-level install goes on, and exits 0, when a target's fails
		   ! grep -q -e '^rsync error' -e '\*\*\* \[' "$OUT/ksft-$tag.log"; then
			say "$tag: selftests install (TARGETS=${targets[*]})"
		else
			grep -v '^make' "$OUT/ksft-$tag.log" | tail -6 >&2
			bad "$tag: the selftests of ${targets[*]} do not install"
		fi
	fi
	for f in "${PYFILES[@]}"; do
		[ -f "$SRC/$f" ] || continue
		python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$SRC/$f" ||
			bad "$tag: $f does not compile"
	done
	rm -rf "$dst"
}

check_series() {
	local name=$1 sfile b p f n prev c subj t0 tag
	local -a ser base_patches objs revs
	case "$name" in
	items) sfile=patches/series b=base base_patches=("${PRE[@]}") ;;
	xarray) sfile=patches/xarray/series b=base-7.3 base_patches=() ;;
	*) die "unknown series '$name' (items, xarray)" ;;
	esac
	mapfile -t ser < <(series_files "$sfile")
	[ ${#ser[@]} -gt 0 ] || die "$sfile lists no patches"
	check_tree "$b"
	say "=== $name: $sfile (${#ser[@]} patches) on $(base_desc "$b")${base_patches[*]:+ + the prerequisite (${#base_patches[@]} patches)}"

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

	# what the series touches: .c files W=1 can build in this config, C
	# files and headers for kernel-doc, selftests dirs and python files
	mapfile -t CFILES < <(git -C "$SRC" diff --name-only "$BASE_HEAD" "$SERIES_HEAD" -- '*.c' |
		grep -v '^tools/' | sort || true)
	mapfile -t KFILES < <(git -C "$SRC" diff --name-only "$BASE_HEAD" "$SERIES_HEAD" -- '*.c' '*.h' |
		grep -v -e '^tools/' -e '^include/uapi/' -e '^include/trace/' || true)
	mapfile -t KSFT_DIRS < <(git -C "$SRC" diff --name-only "$BASE_HEAD" "$SERIES_HEAD" -- tools/testing/selftests |
		xargs -r -n1 dirname | sort -u || true)
	mapfile -t PYFILES < <(git -C "$SRC" diff --name-only "$BASE_HEAD" "$SERIES_HEAD" -- '*.py' || true)
	mapfile -t revs < <(git -C "$SRC" rev-list --reverse "$BASE_HEAD..$SERIES_HEAD")

	configure
	if [ $BISECT -eq 0 ]; then
		# --- 3. selftests at every patch --------------------------------------
		n=0
		for c in "${revs[@]}"; do
			n=$((n + 1))
			git -C "$SRC" checkout -q -f --detach "$c"
			selftests_check "$name patch $n"
		done
		# --- 4. kernel-doc, YNL at the head ---------------------------------------
		git -C "$SRC" checkout -q -f --detach "$BASE_HEAD"
		kdoc "$name-base"
		git -C "$SRC" checkout -q -f --detach "$SERIES_HEAD"
		kdoc "$name-series"
		compare kdoc "$name-base" "$name-series" "$name (kernel-doc -Wall of ${KFILES[*]})"
		ynl_check "$name"

		# --- 5. W=1 ---------------------------------------------------------
		git -C "$SRC" checkout -q -f --detach "$BASE_HEAD"
		make -s -C "$SRC" O="$BLD" prepare >/dev/null 2>&1 || die "make prepare failed"
		w1 "$name-base"
		git -C "$SRC" checkout -q -f --detach "$SERIES_HEAD"
		w1 "$name-series"
		for f in "${CFILES[@]}"; do
			say "$name: W=1 $f: $(grep -c "^[^:]*$f:" "$OUT/w1-$name-base.txt" || true) warnings before the series, $(grep -c "^[^:]*$f:" "$OUT/w1-$name-series.txt" || true) after"
		done
		compare w1 "$name-base" "$name-series" "$name (W=1 of ${CFILES[*]})"
	else
		prev=$name-base
		t0=$(date +%s)
		build_at "$BASE_HEAD" || die "$name: base head does not build"
		say "$name: bisect: the base builds ($(( $(date +%s) - t0 )) s)"
		w1 "$prev"
		kdoc "$prev"
		n=0
		for c in "${revs[@]}"; do
			n=$((n + 1))
			tag="$name patch $n"
			subj=$(git -C "$SRC" log -1 --format=%s "$c")
			t0=$(date +%s)
			if build_at "$c"; then
				say "$name: bisect: patch $n builds (bzImage, $(( $(date +%s) - t0 )) s): $subj"
			else
				bad "$name: bisect: patch $n does not build: $subj"
				continue
			fi
			ynl_check "$tag"
			selftests_check "$tag"
			w1 "$name-p$n"
			compare w1 "$prev" "$name-p$n" "$tag"
			kdoc "$name-p$n"
			compare kdoc "$prev" "$name-p$n" "$tag"
			prev=$name-p$n
		done
	fi

	# --- 6. 32-bit --------------------------------------------------------------
	git -C "$SRC" checkout -q -f --detach "$SERIES_HEAD"
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
}

# the record's inputs: what the checks read
# shellcheck source=kernel/rig-record.sh
. "$ROOT/kernel/rig-record.sh"
CODE_PATHS=(patches kernel/prereq.sha256 kernel/check-patches.sh kernel/rig-base.sh
	kernel/config kernel/config-check)
check_inputs() {
	local b
	echo "series=$CHECK_SERIES bisect=$BISECT"
	echo "prereq=$(cd "$PREREQ_DIR" && sha256sum -- * | sha256sum | cut -c1-16)"
	for b in base base-7.3; do
		ensure_repo "$b" >&2
		echo "base.$b=${B_PKG[$b]} ${B_VERSION[$b]}"
	done
}
INPUTS=$(check_inputs)
KEY=$(record_key "$INPUTS")
if [ $IF_STALE -eq 1 ] && code_clean && [ "$(rec_get patches-check key)" = "$KEY" ] &&
   [ "$(rec_get patches-check verdict)" = pass ]; then
	say "up to date: passed on $(rec_get patches-check commit) ($(rec_get patches-check date)) with these patches and bases (kernel/results/patches-check.env)"
	exit 0
fi

T0=$(date +%s)
for s in $CHECK_SERIES; do
	t=$(date +%s)
	check_series "$s"
	say "$s: checked in $(( $(date +%s) - t )) s"
done

V=pass
[ $FAILED -eq 0 ] || V=fail
echo "vm_s=$(( $(date +%s) - T0 ))" >"$OUT/run.env"
write_record patches-check "$INPUTS" "$V" "" "$OUT/run.env"
[ $FAILED -eq 0 ] || die "patch checks failed (logs: $OUT)"
say "all patch checks passed ($CHECK_SERIES) in $(( $(date +%s) - T0 )) s"
