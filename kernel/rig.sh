#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch kernel rig: the kernels of kernel/matrix, one line each, built
# from a Debian linux-source tarball, 6.12 or 7.3 (unpacked outside the
# repo, patch series applied with git am, minimal x86_64 configs, ccache)
# or taken as a Debian kernel package (apt-get download, nothing built),
# booted under qemu TCG with the tests of tests/vm.
#
#   kernel/rig.sh list                    the matrix: NAME KIND (selected ones)
#   kernel/rig.sh prepare                 unpack + git am (every selected build)
#   kernel/rig.sh build   NAME            configure + build bzImage, or fetch
#                                         and unpack a package kernel
#   kernel/rig.sh initramfs               build the test initramfs
#   kernel/rig.sh boot    NAME            boot, run tests/vm, check the log
#   kernel/rig.sh test                    all of it for $KERNEL_FLAVORS
#   kernel/rig.sh vmcore  NAME            dump NAME's VM mid-stall, check
#                                         'postmortem --vmcore' (rig-vmcore.sh)
#
# Kernels (kernel/matrix): stock (6.12.y as is: dma_mapped xarray), prefix
# (prerequisite patches 1-3 only: neither fix, the legacy regime where DMA
# mappings outlive the driver), patched (prerequisite + patches/: item
# blocks), deb12 (Debian 12's own linux-image-amd64, 6.1).
#
# Knobs (environment; kernel/kernel.mk passes its make variables through):
#   KERNEL_WORK   work dir for trees, build dirs, package kernels, logs
#                 (default: the checkout's own, kernel/workdir.sh)
#   CCACHE_DIR    the compiler cache (default /var/tmp/ppwatch-ccache,
#                 shared by every checkout)
#   PREREQ_DIR    the prerequisite series (default kernel/prereq)
#   KERNEL_JOBS   make -j (default: nproc)
#   VM_TIMEOUT    seconds a VM run may take at most (default 1800: the
#                 guest's own limit of 240 s a test catches a hung test)
#   VM_SILENCE    seconds without a new line on the serial console before
#                 a VM counts as hung (default 300: a hung kernel, or one
#                 that never reaches the tests)
#   KERNEL_MATRIX the matrix file (default kernel/matrix)
#   KERNEL_SET    test (default: the lines with set=test, 'make test') or
#                 matrix (every line, 'make test-matrix')
#   KERNEL_FLAVORS  kernels 'test' builds and boots, by name ('all': every
#                 line); overrides KERNEL_SET
#   KERNEL_CONFIG_EXTRA  more config fragments (e.g. kernel/config-debug/*.config)
#   KERNEL_BUILD_NAME    build dir name under trees/FLAVOR (default build)
#   PPWATCH_BIN   ppwatch binary copied into the initramfs
#                 (default .output/ppwatch)
#   PPKINDS_BIN   the lab's holder maker (t/52-holder-kinds, t/53-holders-churn)
#                 (default .output/lab/ppkinds)
#   VM_MEM_MB     the guest's memory (default 1024; bench/run.sh vmcore
#                 boots larger ones for its dumps)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# KERNEL_WORK (this checkout's own), CCACHE_DIR (shared)
# shellcheck source=kernel/workdir.sh
. "$ROOT/kernel/workdir.sh"
PREREQ_DIR=${PREREQ_DIR:-$ROOT/kernel/prereq}
KERNEL_JOBS=${KERNEL_JOBS:-$(nproc)}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VM_SILENCE=${VM_SILENCE:-300}
KERNEL_MATRIX=${KERNEL_MATRIX:-$ROOT/kernel/matrix}
PPWATCH_BIN=${PPWATCH_BIN:-$ROOT/.output/ppwatch}
PPKINDS_BIN=${PPKINDS_BIN:-$(dirname "$PPWATCH_BIN")/lab/ppkinds}

TREES=$KERNEL_WORK/trees
LOGS=$KERNEL_WORK/logs

# the crash-dump test (vmcore_one, vmcore_wanted): kernel/rig-vmcore.sh
# shellcheck source=kernel/rig-vmcore.sh
. "$ROOT/kernel/rig-vmcore.sh"
# a guest stuck for good that keeps printing (vm_livelocked)
# shellcheck source=kernel/rig-vmwatch.sh
. "$ROOT/kernel/rig-vmwatch.sh"
# the source bases (B_*), ensure_tarball, ensure_repo: kernel/rig-base.sh
# shellcheck source=kernel/rig-base.sh
. "$ROOT/kernel/rig-base.sh"
REPO=${B_REPO[base]}
# both flavors live at trees/<flavor>/{src,build}: with base_dir and no cwd
# hashing, files that are identical in both trees hit the same cache entry
export CCACHE_BASEDIR=$TREES
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-6G}
export CCACHE_SLOPPINESS=time_macros
# reproducible version strings, so that init/version.c is not the only
# object that differs between two builds of the same tree
export KBUILD_BUILD_USER=ppwatch KBUILD_BUILD_HOST=rig
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'

say() { printf 'rig: %s\n' "$*" >&2; }
# RIG_ERR: a file die() also writes its reason to (try)
die() {
	printf 'rig: ERROR: %s\n' "$*" >&2
	if [ -n "${RIG_ERR:-}" ]; then printf '%s\n' "$*" >>"$RIG_ERR"; fi
	exit 1
}

# --- the matrix ---------------------------------------------------------------
# M_KIND[NAME]=build|package, M_SRC[NAME]="base prereq ...", M_OPT[NAME]="k=v ..."
declare -A M_KIND M_SRC M_OPT
M_NAMES=()
load_matrix() {
	local line name kind tok src opt n=0
	[ -f "$KERNEL_MATRIX" ] || die "no kernel matrix at $KERNEL_MATRIX"
	while IFS= read -r line; do
		n=$((n + 1))
		line=${line%%#*}
		# shellcheck disable=SC2086 # the line's fields, split on blanks
		set -- $line
		[ $# -gt 0 ] || continue
		[ $# -ge 3 ] || die "$KERNEL_MATRIX:$n: want NAME KIND SOURCE... [KEY=VALUE...]"
		name=$1 kind=$2
		shift 2
		case "$name" in *[!a-z0-9_-]*|"") die "$KERNEL_MATRIX:$n: bad name '$name'" ;; esac
		[ -z "${M_KIND[$name]:-}" ] || die "$KERNEL_MATRIX:$n: '$name' listed twice"
		src='' opt=''
		for tok in "$@"; do
			case "$tok" in
			*=*) opt="$opt $tok" ;;
			*) src="$src $tok" ;;
			esac
		done
		case "$kind" in
		build)
			# shellcheck disable=SC2086 # the sources, one word each
			set -- $src
			if [ -z "${1:-}" ] || [ -z "${B_PKG[$1]:-}" ]; then
				die "$KERNEL_MATRIX:$n: a build starts from its base (${!B_PKG[*]}), not '${1:-}'"
			fi
			;;
		package)
			# shellcheck disable=SC2086 # the sources, one word each
			set -- $src
			[ $# -eq 1 ] || die "$KERNEL_MATRIX:$n: a package kernel names one package"
			;;
		*) die "$KERNEL_MATRIX:$n: kind must be 'build' or 'package', not '$kind'" ;;
		esac
		M_KIND[$name]=$kind
		M_SRC[$name]=${src# }
		M_OPT[$name]=${opt# }
		M_NAMES+=("$name")
	done <"$KERNEL_MATRIX"
	[ ${#M_NAMES[@]} -gt 0 ] || die "$KERNEL_MATRIX lists no kernel"
	local nm
	for nm in "${M_NAMES[@]}"; do
		case "$(opt "$nm" set)" in
		""|test|matrix) ;;
		*) die "$KERNEL_MATRIX: $nm: set=$(opt "$nm" set): 'test' (make test's set) or 'matrix' (left to make test-matrix for make test's time; every line is in the matrix)" ;;
		esac
	done
	# KERNEL_FLAVORS names lines ('all': every line); else KERNEL_SET: test
	# (the lines with set=test, 'make test') or matrix (every line)
	if [ "${KERNEL_FLAVORS:-}" = all ]; then
		KERNEL_FLAVORS=${M_NAMES[*]}
	elif [ -z "${KERNEL_FLAVORS:-}" ]; then
		case "${KERNEL_SET:-test}" in
		matrix) KERNEL_FLAVORS=${M_NAMES[*]} ;;
		test) KERNEL_FLAVORS=$(set_lines) ;;
		*) die "KERNEL_SET=$KERNEL_SET: 'test' (make test) or 'matrix' (make test-matrix)" ;;
		esac
	fi
}

# the lines of the set 'make test' boots (set=test), in the matrix's order;
# set_lines matrix: those left to make test-matrix for its time (set=matrix)
set_lines() {
	local nm out='' want=${1:-test}
	for nm in "${M_NAMES[@]}"; do
		[ "$(opt "$nm" set)" = "$want" ] && out="$out${out:+ }$nm"
	done
	echo "$out"
}

# The boundaries of the matrix and how the set crosses them: for each
# lacks= value, the set's lines that lack it and those that have it (both
# must be there), for each regime= the set's lines with it and a DMA-mapping
# pool (vmxnet3 XDP), for each KIND the set's lines with it (one at least).
# A boundary no set line crosses may be crossed by a set=matrix line (left
# to make test-matrix for make test's cold budget): printed as such.
# Prints the table; --check: exits 1 if one is crossed nowhere.
cmd_sets() {
	local check=${1:-} members deferred v nm with without bad=0 vals
	members=$(set_lines)
	deferred=$(set_lines matrix)
	printf 'make test (set=test): %s\nmake test-matrix: %s\n' "${members:-none}" "${M_NAMES[*]}"
	[ -z "$deferred" ] || printf 'left to make test-matrix for the cold budget (set=matrix): %s\n' "$deferred"
	printf '\n%-44s %-34s %s\n' BOUNDARY 'SET LINES ON ONE SIDE' 'ON THE OTHER'
	vals=$(for nm in "${M_NAMES[@]}"; do opt "$nm" lacks | tr , '\n'; done | sed '/^$/d' | sort -u)
	for v in $vals; do
		# shellcheck disable=SC2086 # the lines, one word each
		with=$(sets_lacking "$v" yes $members) without=$(sets_lacking "$v" no $members)
		# shellcheck disable=SC2086
		[ -n "$with" ] || with=$(sets_deferred "$(sets_lacking "$v" yes $deferred)")
		# shellcheck disable=SC2086
		[ -n "$without" ] || without=$(sets_deferred "$(sets_lacking "$v" no $deferred)")
		printf '%-44s %-34s %s\n' "lacks=$v" "${with:-NONE}" "${without:-NONE}"
		if [ -z "$with" ] || [ -z "$without" ]; then bad=1; fi
	done
	# a regime is what happens to the DMA mappings of a destroyed pool: it
	# is crossed where a pool maps DMA, the rig's vmxnet3 with XDP
	vals=$(for nm in "${M_NAMES[@]}"; do echo "regime=$(opt "$nm" regime)"; echo "kind=${M_KIND[$nm]}"; done | sort -u)
	for v in $vals; do
		# shellcheck disable=SC2086 # the lines, one word each
		with=$(sets_crossing "$v" $members)
		# shellcheck disable=SC2086
		[ -n "$with" ] || with=$(sets_deferred "$(sets_crossing "$v" $deferred)")
		case "$v" in regime=*) v="$v (a pool mapping DMA)" ;; esac
		printf '%-44s %s\n' "$v" "${with:-NONE}"
		[ -n "$with" ] || bad=1
	done
	[ "$check" = --check ] || return 0
	[ $bad -eq 0 ] || die "the set of 'make test' (set=test in $KERNEL_MATRIX) does not cross every boundary: NONE above; mark a line that crosses it set=test (or set=matrix, if make test cannot afford it: kernel/README.md)"
	say "the set of 'make test' crosses every boundary of $KERNEL_MATRIX${deferred:+ (with $deferred in make test-matrix: set=matrix)}"
}

# sets_lacking VALUE yes|no LINE...: those of LINEs that lack VALUE (yes)
# or have it (no)
sets_lacking() {
	local v=$1 want=$2 nm out=''
	shift 2
	for nm in "$@"; do
		case ",$(opt "$nm" lacks)," in
		*",$v,"*) [ "$want" = yes ] && out="$out${out:+ }$nm" ;;
		*) [ "$want" = no ] && out="$out${out:+ }$nm" ;;
		esac
	done
	echo "$out"
}

# sets_crossing regime=R|kind=K LINE...: those of LINEs with regime R on a
# pool that maps DMA (no lacks=vmxnet3-xdp), or of kind K
sets_crossing() {
	local v=$1 nm out=''
	shift
	for nm in "$@"; do
		case "$v" in
		regime=*)
			[ "regime=$(opt "$nm" regime)" = "$v" ] || continue
			case ",$(opt "$nm" lacks)," in *,vmxnet3-xdp,*) continue ;; esac ;;
		kind=*) [ "kind=${M_KIND[$nm]}" = "$v" ] || continue ;;
		esac
		out="$out${out:+ }$nm"
	done
	echo "$out"
}

# sets_deferred "LINE...": the set=matrix lines that cross a boundary the
# set does not, as the table shows them (empty if none)
sets_deferred() { [ -z "$1" ] || echo "only in make test-matrix: $1 (set=matrix)"; }

need_flavor() {
	if [ -z "${1:-}" ] || [ -z "${M_KIND[${1}]:-}" ]; then
		die "'${1:-}' is not a kernel of $KERNEL_MATRIX (${M_NAMES[*]})"
	fi
}

# opt NAME KEY: the value of KEY=VALUE on NAME's matrix line (empty if none)
opt() {
	local kv
	for kv in ${M_OPT[$1]}; do
		[ "${kv%%=*}" = "$2" ] && { echo "${kv#*=}"; return 0; }
	done
	return 0
}

# SER: the patches of the series file $1 (relative to the repository, quilt
# style: one file name a line, relative to the file's folder, '#' comments).
# Sets a global, not a pipe, so that die() stops the run.
load_series() {
	local f sf=$ROOT/$1 dir
	case "$1" in /*) sf=$1 ;; esac	# (tests/check-rig.sh: a series outside the tree)
	[ -f "$sf" ] || die "$1 is missing"
	dir=$(dirname "$sf")
	SER=()
	while read -r f; do
		f=${f%%#*}
		f=${f%"${f##*[![:space:]]}"}
		[ -n "$f" ] || continue
		[ -f "$dir/$f" ] || die "$1 lists missing file $f"
		SER+=("$dir/$f")
	done <"$sf"
	[ ${#SER[@]} -gt 0 ] || die "$1 lists no patches"
}

# PRE: the prerequisite series, pinned: patches/ is written against exactly
# these patches (kernel/prereq.sha256).
load_prereq() {
	local f
	[ -d "$PREREQ_DIR" ] || die "prerequisite series not found at $PREREQ_DIR (set PREREQ_DIR)"
	(cd "$PREREQ_DIR" && sha256sum --quiet -c "$ROOT/kernel/prereq.sha256") ||
		die "prerequisite series in $PREREQ_DIR differs from kernel/prereq.sha256"
	PRE=()
	while read -r _ f; do
		PRE+=("$PREREQ_DIR/$f")
	done <"$ROOT/kernel/prereq.sha256"
	[ ${#PRE[@]} -gt 0 ] || die "kernel/prereq.sha256 lists no patches"
}

# base_of NAME: the base of build line NAME (its first SOURCE word)
base_of() { echo "${M_SRC[$1]%% *}"; }

# series_desc NAME: what build line NAME applies on its base
series_desc() {
	case "${M_SRC[$1]}" in
	*" "*) echo "${M_SRC[$1]#* }" ;;
	*) echo "no patches" ;;
	esac
}

# PATCHES: the patch files of build NAME's sources after 'base', in order.
patches_of() {
	local tok a b
	local -a words
	read -ra words <<<"${M_SRC[$1]}"
	PATCHES=()
	for tok in "${words[@]:1}"; do
		case "$tok" in
		prereq*)
			[ "${words[0]}" = base ] ||
				die "$1: the prerequisite series is written on 'base' (6.12.y), not ${words[0]}"
			;;
		esac
		case "$tok" in
		prereq)
			load_prereq
			PATCHES+=("${PRE[@]}")
			;;
		prereq:*)
			load_prereq
			a=${tok#prereq:} b=${a#*-} a=${a%-*}
			case "$a$b" in *[!0-9]*|"") die "$1: bad range '$tok' (prereq:A-B)" ;; esac
			if ! { [ "$a" -ge 1 ] && [ "$a" -le "$b" ] && [ "$b" -le ${#PRE[@]} ]; }; then
				die "$1: '$tok' is outside the ${#PRE[@]} prerequisite patches"
			fi
			PATCHES+=("${PRE[@]:$((a - 1)):$((b - a + 1))}")
			;;
		*)
			load_series "$tok"
			PATCHES+=("${SER[@]}")
			;;
		esac
	done
}

# patches_hash NAME: the sha256 of build NAME's patches, in order (the
# tree's stamp: the same as before the matrix, so existing trees are not
# re-applied)
patches_hash() {
	patches_of "$1"
	( [ ${#PATCHES[@]} -eq 0 ] || cat "${PATCHES[@]}") | sha256sum | cut -d' ' -f1
}

# Source tree of build NAME: trees/NAME/src, a worktree of its base's
# repository (the 6.12 repository itself for 'patched'), at 'base' plus
# NAME's patches. Redone only when a patch file changed (sha256 stamp in
# the tree's git dir). Any conflict fails the run: git am is never asked
# to use a 3-way merge.
ensure_tree() {
	local name=$1 wt=$TREES/$1/src want stamp gd b repo
	b=$(base_of "$name")
	repo=${B_REPO[$b]}
	ensure_repo "$b"
	want=$(patches_hash "$name")
	patches_of "$name"
	# a tree of another repository (another base: the line moved to a new
	# one, or a KERNEL_WORK shared with another checkout of the rig): never
	# patch that one
	if [ "$wt" != "$repo" ] && [ -e "$wt/.git" ] &&
	   [ "$(cd "$wt" && realpath "$(git rev-parse --git-common-dir)" 2>/dev/null)" != \
	     "$(cd "$repo" && realpath "$(git rev-parse --git-common-dir)")" ]; then
		say "$name: $wt is not a worktree of $repo ($(base_desc "$b")): made again"
		rm -rf "$wt"
	fi
	if [ "$wt" != "$repo" ] && [ ! -e "$wt/.git" ]; then
		mkdir -p "$TREES/$name"
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$wt" base
	fi
	gd=$(git -C "$wt" rev-parse --absolute-git-dir)
	stamp=$gd/ppwatch-applied
	if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] &&
	   [ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ]; then
		say "$name tree up to date ($(base_desc "$b") + $(git -C "$wt" rev-parse --short HEAD))"
		return 0
	fi
	rm -f "$stamp"
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	if [ "$wt" = "$repo" ]; then
		git -C "$wt" checkout -q -f -B ppwatch base
	else
		git -C "$wt" checkout -q -f --detach base
	fi
	if [ ${#PATCHES[@]} -gt 0 ]; then
		say "$name: git am $(series_desc "$name") on $(base_desc "$b") (${#PATCHES[@]} patches)"
		if ! git -C "$wt" am -q "${PATCHES[@]}"; then
			# the patch git am stopped at: rebase-apply/next counts from 1
			local next
			next=$(cat "$(git -C "$wt" rev-parse --git-path rebase-apply/next)" 2>/dev/null) || next=0
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			case "$next" in ''|*[!0-9]*) next=0 ;; esac
			if [ "$next" -ge 1 ] && [ "$next" -le ${#PATCHES[@]} ]; then
				die "$name: ${PATCHES[$((next - 1))]#"$ROOT"/} (patch $next of ${#PATCHES[@]}: $(series_desc "$name")) does not apply on $(base_desc "$b")"
			fi
			die "$name: $(series_desc "$name") does not apply on $(base_desc "$b") (git am stopped, see above)"
		fi
	fi
	echo "$want" >"$stamp"
	say "$name tree at $(git -C "$wt" rev-parse --short HEAD) ($(base_desc "$b"))"
}

# BROKEN[NAME]: why line NAME cannot be booted this run (its series does
# not apply, its build or fetch failed); the other lines go on
declare -A BROKEN=()

# broken NAME WHY: NAME is not booted; its run record says why (verdict
# fail), and the kernel tally of tests/run.sh counts it as a failure
broken() {
	BROKEN[$1]=$2
	mkdir -p "$LOGS"
	rm -f "$LOGS/vm-$1.log" "$LOGS/vm-$1.log.txt"
	{
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "commit=$(git -C "$ROOT" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
		echo "verdict=fail"
		echo "reason=$2"
	} >"$LOGS/run-$1.env"
	printf 'rig: ERROR: %s not booted: %s\n' "$1" "$2" >&2
	if [ -n "${RECORDS:-}" ]; then write_record "$1" "$(inputs_of "$1")" fail "" "$LOGS/run-$1.env"; fi
}

# try NAME CMD...: CMD in a subshell; if it fails, line NAME is broken
# with the reason CMD died with, and the other lines go on
try() {
	local name=$1 rc=0
	shift
	[ -z "${BROKEN[$name]:-}" ] || return 1
	: >"$LOGS/.why-$name"
	(RIG_ERR=$LOGS/.why-$name; "$@") || rc=$?
	if [ $rc -ne 0 ]; then
		broken "$name" "$(tail -n1 "$LOGS/.why-$name" | grep . || echo "$* failed (exit $rc)")"
	fi
	rm -f "$LOGS/.why-$name"
	return $rc
}

cmd_prepare() {
	local fl t0 b
	t0=$(date +%s.%N)
	mkdir -p "$KERNEL_WORK" "$LOGS"
	ensure_repo base
	# the guest helpers are built from the patched tree (its netdev.yaml)
	[ -n "${M_KIND[patched]:-}" ] && { try patched ensure_tree patched || true; }
	for fl in $KERNEL_FLAVORS; do
		need_flavor "$fl"
		if [ "${M_KIND[$fl]}" != build ] || [ "$fl" = patched ]; then continue; fi
		b=$(base_of "$fl")
		# a base that cannot be made fails the lines built on it
		if [ -z "${B_VERSION[$b]:-}" ]; then
			try "$fl" ensure_repo "$b" || continue
			ensure_repo "$b"
		fi
		try "$fl" ensure_tree "$fl" || true
	done
	stamp_time prepare "$t0"
}

# FRAGS: the config fragments, kernel/config/*.config then those of
# KERNEL_CONFIG_EXTRA. Sets a global, not a pipe, so that die() stops the run.
fragments() {
	local f
	FRAGS=("$ROOT"/kernel/config/*.config)
	for f in ${KERNEL_CONFIG_EXTRA:-}; do
		case "$f" in /*) ;; *) f=$ROOT/$f ;; esac
		[ -f "$f" ] || die "no config fragment $f"
		FRAGS+=("$f")
	done
}
BUILD_NAME=${KERNEL_BUILD_NAME:-build}

# config_hash NAME: the hash of build NAME's config fragments (that of
# 'base' builds is that of their fragments alone, as it was)
config_hash() {
	local b
	b=$(base_of "$1")
	fragments
	{ cat "${FRAGS[@]}"; [ "$b" = base ] || echo "base=$b"; } | sha256sum | cut -d' ' -f1
}

cmd_config() {
	local flavor=$1 src=$TREES/$1/src bld=$TREES/$1/$BUILD_NAME want b
	need_flavor "$flavor"
	[ "${M_KIND[$flavor]}" = build ] || die "$flavor is a ${M_KIND[$flavor]} kernel: nothing to configure"
	b=$(base_of "$flavor")
	# a build dir of another base (the line moved to a new one): made
	# again, not built over (a build dir without the mark is of 'base')
	if [ -d "$bld" ] && [ "$(cat "$bld/.ppwatch-base" 2>/dev/null || echo base)" != "$b" ]; then
		say "$flavor: $bld was built from another base: made again"
		rm -rf "$bld"
	fi
	mkdir -p "$bld"
	echo "$b" >"$bld/.ppwatch-base"
	want=$(config_hash "$flavor")
	fragments
	if [ -f "$bld/.config" ] && [ "$(cat "$bld/.ppwatch-config" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	say "configuring $flavor ($(base_desc "$b")): tinyconfig + $(printf '%s ' "${FRAGS[@]##*/}")"
	make -s -C "$src" O="$bld" tinyconfig >/dev/null
	(cd "$bld" && "$src/scripts/kconfig/merge_config.sh" -m -O "$bld" "$bld/.config" "${FRAGS[@]}" >/dev/null)
	make -s -C "$src" O="$bld" olddefconfig >/dev/null
	# every option a fragment asks for must have survived olddefconfig,
	# but those the base's Kconfig does not have (renamed or merged
	# in another base: the fragment says which), said once
	local miss=0 line opt val gone='' syms=$bld/.ppwatch-kconfig-symbols
	git -C "$src" grep -h -o -E '^[[:space:]]*(menu)?config [A-Za-z0-9_]+' -- '*Kconfig*' |
		awk '{ print "CONFIG_" $2 }' | sort -u >"$syms"
	while read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*}; val=${line#*=} ;;
		*) continue ;;
		esac
		if ! grep -qx "$opt" "$syms"; then
			gone="$gone $opt"
			continue
		fi
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$bld/.config" && { say "$opt should be off"; miss=1; }
		elif ! grep -qx "$opt=$val" "$bld/.config"; then
			say "$opt=$val did not survive olddefconfig"
			miss=1
		fi
	done < <(cat "${FRAGS[@]}")
	[ -z "$gone" ] || say "$flavor: not in $(base_desc "$b")'s Kconfig, left out:$gone"
	[ $miss -eq 0 ] || die "config fragments are not satisfiable"
	echo "$want" >"$bld/.ppwatch-config"
}

build_kernel() {
	local flavor=$1 src=$TREES/$1/src bld=$TREES/$1/$BUILD_NAME t0
	command -v ccache >/dev/null || die "ccache missing: run 'make deps'"
	[ -e "$src/.git" ] || die "no $flavor tree: rig.sh prepare"
	cmd_config "$flavor"
	t0=$(date +%s)
	say "building $flavor kernel ($(base_desc "$(base_of "$flavor")") + $(series_desc "$flavor")) in $bld (-j$KERNEL_JOBS, ccache $CCACHE_DIR)"
	make -s -C "$src" O="$bld" CC="ccache gcc" -j"$KERNEL_JOBS" bzImage \
		>"$LOGS/build-$flavor.log" 2>&1 ||
		{ tail -40 "$LOGS/build-$flavor.log" >&2; die "$flavor kernel build failed ($LOGS/build-$flavor.log)"; }
	if [ ! -s "$bld/vmlinux" ] || [ ! -s "$bld/arch/x86/boot/bzImage" ]; then die "no bzImage"; fi
	say "$flavor kernel built in $(( $(date +%s) - t0 )) s: $(cat "$bld/include/config/kernel.release")"
}

# --- result records ---------------------------------------------------------------
# code_hash, code_clean, rec_get, record_key, write_record: kernel/rig-record.sh
# shellcheck source=kernel/rig-record.sh
. "$ROOT/kernel/rig-record.sh"

# line_inputs NAME: what line NAME's verdict depends on besides the code,
# one "k=v" a line: the line as written, the depth, and its kernel (a
# build's base level, patches and config fragments; a package's
# resolution of today)
line_inputs() {
	local name=$1 b
	echo "line=$name ${M_KIND[$name]} ${M_SRC[$name]} ${M_OPT[$name]}"
	echo "depth=${KERNEL_SET:-test}"
	case "${M_KIND[$name]}" in
	build)
		b=$(base_of "$name")
		ensure_repo "$b"
		echo "base=${B_PKG[$b]} ${B_VERSION[$b]}"
		echo "patches=$(patches_hash "$name")"
		echo "config=$(config_hash "$name")"
		;;
	package)
		package_resolve "$name" >&2
		echo "package=$PKG_WANT"
		;;
	esac
}

# inputs_of NAME: line_inputs of NAME as this run found them (cmd_test)
inputs_of() {
	cat "$LOGS/inputs-$1" 2>/dev/null || echo "line=$1 ${M_KIND[$1]} ${M_SRC[$1]} ${M_OPT[$1]}"
}

# --- package kernels -------------------------------------------------------------
# fetch_package, package_env, package_overlay: kernel/rig-package.sh
# shellcheck source=kernel/rig-package.sh
. "$ROOT/kernel/rig-package.sh"

# the kernel image NAME boots
kernel_image() {
	case "${M_KIND[$1]}" in
	build) echo "$TREES/$1/$BUILD_NAME/arch/x86/boot/bzImage" ;;
	package) echo "$PKGS/$1/vmlinuz" ;;
	esac
}

cmd_build() {
	local fl t0 bad=0
	mkdir -p "$LOGS"
	for fl in ${1:-$KERNEL_FLAVORS}; do
		need_flavor "$fl"
		[ -z "${BROKEN[$fl]:-}" ] || continue
		t0=$(date +%s.%N)
		case "${M_KIND[$fl]}" in
		build) try "$fl" build_kernel "$fl" || { bad=1; continue; } ;;
		package) try "$fl" fetch_package "$fl" || { bad=1; continue; } ;;
		esac
		# the build (or fetch) time of the line, for the Times table
		stamp_time "build-$fl" "$t0"
	done
	[ $bad -eq 0 ]
}

# stamp_time NAME T0: seconds since T0 into $LOGS/NAME.time (kernel/report.sh)
stamp_time() {
	awk -v a="$2" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$LOGS/$1.time"
}

# --- guest helpers and initramfs ----------------------------------------------
IRD=$KERNEL_WORK/initramfs

# build_nl_helper SRC OUT: ppvm-nl for the kernel tree SRC, static: the YNL
# library and the netdev code generated from SRC's netdev.yaml, with SRC's
# uapi netdev.h; -DHAVE_NETDEV_A_... for each attribute that header has, so
# that one ppvm-nl.c serves every tree.
build_nl_helper() {
	local src=$1 out=$2 ynl gen tool f
	ynl=$src/tools/net/ynl
	gen=$out.gen
	[ -f "$src/Documentation/netlink/specs/netdev.yaml" ] || die "no netdev.yaml in $src: run 'rig.sh prepare' first"
	# the generator: tools/net/ynl/ynl-gen-c.py (6.12), pyynl/ynl_gen_c.py (6.14 on)
	tool=
	for f in "$ynl/pyynl/ynl_gen_c.py" "$ynl/ynl-gen-c.py"; do
		if [ -f "$f" ]; then
			tool=$f
			break
		fi
	done
	[ -n "$tool" ] || die "no YNL C generator in $ynl"
	mkdir -p "$gen" "$(dirname "$out")"
	python3 "$tool" --mode user --header \
		--spec "$src/Documentation/netlink/specs/netdev.yaml" -o "$gen/netdev-user.h"
	python3 "$tool" --mode user --source \
		--spec "$src/Documentation/netlink/specs/netdev.yaml" -o "$gen/netdev-user.c"
	{
		grep -o 'NETDEV_A_PAGE_POOL_[A-Z_]*' "$src/include/uapi/linux/netdev.h" | sort -u |
			sed 's/.*/#define HAVE_& 1/'
		# dumps with a filter request (6.14 on)
		if grep -q 'struct netdev_page_pool_get_req_dump' "$gen/netdev-user.h"; then
			echo '#define PPVM_DUMP_REQ 1'
		fi
	} >"$gen/have.h"
	gcc -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -Werror -static \
		-I"$ynl/lib" -I"$gen" -idirafter "$src/include/uapi" -include "$gen/have.h" \
		-D_LINUX_NETDEV_H -include "$src/include/uapi/linux/netdev.h" \
		-o "$out" "$ROOT/tests/vm/ppvm-nl.c" "$gen/netdev-user.c" "$ynl/lib/ynl.c"
}

# The common helpers: ppvm-nl of the patched tree (the overlay of every
# built kernel replaces it with the one of the kernel's own tree) and
# ppvm-tool. Static.
cmd_helpers() {
	local out=$IRD/bin
	[ "$(git -C "$REPO" rev-parse --abbrev-ref HEAD 2>/dev/null)" = ppwatch ] ||
		say "WARNING: $REPO is not the patched tree: ppvm-nl lacks the series' attributes"
	build_nl_helper "$REPO" "$out/ppvm-nl"
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
		-o "$out/ppvm-tool" "$ROOT/tests/vm/ppvm-tool.c"
	build_bpf_helper "$out"
}

# ppvm-bpf: tp_btf programs on the series' tracepoints (CO-RE against the
# repository's vmlinux.h, so one binary serves every kernel), libbpf.a.
build_bpf_helper() {
	local out=$1 inc
	inc=$(clang_sys_includes)
	# shellcheck disable=SC2086 # inc: clang's -idirafter DIR flags, one word each
	clang -g -O2 -Wall -Werror -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 \
		-I"$ROOT/vmlinux/x86" -I"$ROOT/tests/vm" $inc \
		-c "$ROOT/tests/vm/ppvm-bpf.bpf.c" -o "$out/ppvm-bpf.bpf.o"
	llvm-strip -g "$out/ppvm-bpf.bpf.o"
	bpftool gen skeleton "$out/ppvm-bpf.bpf.o" name ppvm_bpf >"$out/ppvm-bpf.skel.h"
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static -I"$out" -I"$ROOT/tests/vm" \
		-o "$out/ppvm-bpf" "$ROOT/tests/vm/ppvm-bpf.c" -lbpf -lelf -lz
}

# What a built kernel's overlay takes from the kernel's own tree:
#  - /vm/bin/ppvm-nl, generated from its netdev.yaml;
#  - with selftests=A,B on its matrix line: those kselftests (paths below
#    tools/testing/selftests) and what they import from the tree (the
#    selftests' python libraries, the YNL python library, the netlink
#    specs, xdp_dummy.bpf.o built from the net selftests) under /vm/ksrc,
#    laid out as in the tree; the python runtime is a cpio of its own
#    (python_cpio), appended to the initrd of such kernels.
kernel_extras() {
	local name=$1 st=$2 src=$TREES/$1/src t d f n=0
	[ "${M_KIND[$name]}" = build ] || return 0
	build_nl_helper "$src" "$IRD/bin-$name/ppvm-nl"
	install -D -m 0755 "$IRD/bin-$name/ppvm-nl" "$st/vm/bin/ppvm-nl"
	[ -n "$(opt "$name" selftests)" ] || return 0
	# the python libraries where the tree has them: the YNL one is
	# tools/net/ynl/lib (6.12) or tools/net/ynl/pyynl (6.14 on)
	for d in tools/testing/selftests/net/lib/py tools/testing/selftests/drivers/net/lib/py \
		 tools/testing/selftests/drivers/net/hw/lib/py tools/net/ynl/lib \
		 tools/net/ynl/pyynl tools/net/ynl/pyynl/lib; do
		for f in "$src/$d"/*.py; do
			[ -f "$f" ] || continue
			install -D -m 0644 "$f" "$st/vm/ksrc/$d/${f##*/}"
		done
	done
	# every netlink spec (a tree's libraries name them by file, and the
	# names change: rt_link.yaml, rt-link.yaml) and the schemas
	mkdir -p "$st/vm/ksrc/Documentation/netlink/specs"
	cp "$src"/Documentation/netlink/specs/*.yaml "$st/vm/ksrc/Documentation/netlink/specs/"
	cp "$src"/Documentation/netlink/*.yaml "$st/vm/ksrc/Documentation/netlink/"
	for t in $(opt "$name" selftests | tr , ' '); do
		[ -f "$src/tools/testing/selftests/$t" ] || die "$name: no selftest $t in its tree"
		install -D -m 0755 "$src/tools/testing/selftests/$t" "$st/vm/ksrc/tools/testing/selftests/$t"
	done
	# the XDP program the tests attach: net/ (6.12) or net/lib/ (6.14 on)
	for d in net net/lib; do
		f=tools/testing/selftests/$d/xdp_dummy.bpf
		[ -f "$src/$f.c" ] || continue
		mkdir -p "$st/vm/ksrc/${f%/*}"
		# shellcheck disable=SC2046 # clang's -idirafter DIR flags, one word each
		clang -O2 -Wall -target bpf $(clang_sys_includes) -c "$src/$f.c" -o "$st/vm/ksrc/$f.o" ||
			die "$name: cannot build $f.o for the selftests"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || die "$name: no xdp_dummy.bpf.c in the tree's net selftests"
}

# clang's own system include dirs (for <asm/types.h> & co. with -target bpf)
clang_sys_includes() {
	clang -v -E - </dev/null 2>&1 |
		sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }'
}

# python3 (the host's Debian python3.11, its standard library without the
# test suite, tkinter and the like, python3-yaml), bash, ethtool, socat and a
# no-op udevadm for the kselftests, as one cpio built once per initramfs.
python_cpio() {
	local st=$IRD/python py lib
	[ -s "$IRD/python.cpio.gz" ] && return 0
	py=/usr/bin/python3.11
	[ -x "$py" ] || die "no $py: install python3 (Debian's)"
	command -v ethtool >/dev/null || die "ethtool missing: run 'make deps'"
	command -v socat >/dev/null || die "socat missing: run 'make deps'"
	rm -rf "$st"
	local STAGE=$st
	mkdir -p "$st/usr/bin" "$st/usr/lib/python3/dist-packages"
	copy_dyn "$py" "$st/usr/bin/python3"
	copy_dyn "$(command -v bash)" "$st/bin/bash"
	copy_dyn "$(command -v ethtool)" "$st/usr/sbin/ethtool"
	copy_dyn "$(command -v socat)" "$st/usr/bin/socat"
	tar -C /usr/lib -cf - --exclude=test --exclude=tests --exclude=idlelib \
		--exclude=tkinter --exclude=turtledemo --exclude=ensurepip --exclude=lib2to3 \
		--exclude=pydoc_data --exclude='config-3.11-*' --exclude=site-packages \
		python3.11 | tar -C "$st/usr/lib" -xf -
	for lib in /usr/lib/python3.11/lib-dynload/*.so; do
		ldd "$lib" | awk '/=> \//{print $3}' | while read -r l; do
			[ -e "$st$l" ] || install -D -m 0755 "$l" "$st$l"
		done
	done
	cp -a /usr/lib/python3/dist-packages/yaml "$st/usr/lib/python3/dist-packages/"
	for lib in /usr/lib/python3/dist-packages/yaml/*.so; do
		[ -e "$lib" ] || continue
		ldd "$lib" | awk '/=> \//{print $3}' | while read -r l; do
			[ -e "$st$l" ] || install -D -m 0755 "$l" "$st$l"
		done
	done
	printf '#!/bin/sh\n# no udev in the VM: nothing to settle\nexit 0\n' >"$st/usr/bin/udevadm"
	# the guest's /bin/sh is busybox ash, whose applets (ip, ...) shadow
	# PATH: the kselftests' shell commands (subprocess shell=True) run
	# with bash, which finds iproute2's /sbin/ip
	rm -f "$st/usr/lib/python3.11/sitecustomize.py"
	cat >"$st/usr/lib/python3.11/sitecustomize.py" <<-'PY'
	import subprocess
	_popen_init = subprocess.Popen.__init__
	def _init(self, args, *a, **kw):
	    if kw.get("shell") and not kw.get("executable"):
	        kw["executable"] = "/bin/bash"
	    _popen_init(self, args, *a, **kw)
	subprocess.Popen.__init__ = _init
	PY
	chmod 0755 "$st/usr/bin/udevadm"
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$IRD/python.cpio.gz"
	say "python runtime for the kselftests: $(du -h "$IRD/python.cpio.gz" | cut -f1)"
}

# copy a dynamically linked binary and the libraries ldd lists
copy_dyn() {
	local bin=$1 dst=$2 lib
	install -D -m 0755 "$bin" "$dst"
	for lib in $(ldd "$bin" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do
		[ -e "$STAGE$lib" ] || install -D -m 0755 "$lib" "$STAGE$lib"
	done
}

cmd_initramfs() {
	local bb t0
	t0=$(date +%s.%N)
	cmd_helpers
	rm -f "$IRD/python.cpio.gz"
	STAGE=$IRD/root
	rm -rf "$STAGE"
	mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,vm/bin,vm/t}
	mkdir -p "$STAGE/var"
	ln -s /run "$STAGE/var/run"
	bb=$(command -v busybox) || die "busybox missing: run 'make deps' (busybox-static)"
	ldd "$bb" >/dev/null 2>&1 && die "$bb is not static (install busybox-static)"
	install -m 0755 "$bb" "$STAGE/bin/busybox"
	install -m 0755 "$ROOT/tests/vm/init.sh" "$STAGE/init"
	install -m 0644 "$ROOT/tests/vm/lib.sh" "$ROOT/tests/vm/run.sh" "$STAGE/vm/"
	install -m 0644 "$ROOT"/tests/vm/t/*.sh "$STAGE/vm/t/"
	install -m 0755 "$IRD/bin/ppvm-nl" "$IRD/bin/ppvm-tool" "$IRD/bin/ppvm-bpf" "$STAGE/vm/bin/"
	# iproute2 (ip netns, veth; tc: t/52's qdiscs), jq (ppwatch -j) and
	# ethtool (-S: t/70's page-pool statistics of veth) from the host, with libs
	copy_dyn "$(command -v ip)" "$STAGE/sbin/ip"
	copy_dyn "$(command -v tc)" "$STAGE/sbin/tc"
	# ss: the orphans' remedy (ss -K), applied by t/52
	copy_dyn "$(command -v ss)" "$STAGE/sbin/ss"
	copy_dyn "$(command -v jq)" "$STAGE/usr/bin/jq"
	copy_dyn "$(command -v ethtool)" "$STAGE/sbin/ethtool"
	if [ -x "$PPKINDS_BIN" ]; then
		copy_dyn "$PPKINDS_BIN" "$STAGE/vm/bin/ppkinds"
	else
		say "WARNING: $PPKINDS_BIN missing: t/52-holder-kinds and t/53-holders-churn will FAIL"
	fi
	if [ -x "$PPWATCH_BIN" ]; then
		copy_dyn "$PPWATCH_BIN" "$STAGE/vm/bin/ppwatch"
	else
		say "WARNING: $PPWATCH_BIN missing: the ppwatch cross-checks will SKIP"
	fi
	echo "root:x:0:0:root:/:/bin/sh" >"$STAGE/etc/passwd"
	(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$IRD/initramfs.cpio.gz"
	mkdir -p "$LOGS"
	stamp_time initramfs "$t0"
	say "initramfs: $(du -h "$IRD/initramfs.cpio.gz" | cut -f1)"
}

# The per-kernel part of the initramfs, appended to the common one (the
# kernel unpacks concatenated cpio archives in order): /vm/kernel.env (what
# the matrix says about the kernel), /vm/kernel.config (the kernel's own
# configuration: a build's .config, a package's config file; what the
# tests hold a lacks= of a config option to) and, for package kernels, the
# modules.
overlay() {
	local name=$1 st=$IRD/overlay-$1
	rm -rf "$st"
	mkdir -p "$st/vm"
	{
		echo "PPVM_KERNEL=$name"
		echo "PPVM_KIND=${M_KIND[$name]}"
		echo "PPVM_SOURCE='${M_SRC[$name]}'"
		echo "PPVM_REGIME=$(opt "$name" regime)"
		echo "PPVM_LACKS='$(opt "$name" lacks | tr , ' ')'"
		echo "PPVM_MODULES='$(opt "$name" modules | tr , ' ')'"
		echo "PPVM_SELFTESTS='$(opt "$name" selftests | tr , ' ')'"
		# the depth: test (make test, the default) or matrix; kinds=test
		# lines run t/52-holder-kinds in make test too, churn=test lines
		# t/53-holders-churn
		echo "PPVM_DEPTH=${KERNEL_SET:-test}"
		echo "PPVM_KINDS=$(opt "$name" kinds)"
		echo "PPVM_CHURN=$(opt "$name" churn)"
		echo "PPVM_SKIPS='$(opt "$name" skips | tr , ' ')'"
		if [ "${M_KIND[$name]}" = package ]; then package_env "$name"; fi
	} >"$st/vm/kernel.env"
	local cfg=$TREES/$name/$BUILD_NAME/.config
	[ "${M_KIND[$name]}" = build ] || cfg=$PKGS/$name/config
	if [ -f "$cfg" ]; then
		cp "$cfg" "$st/vm/kernel.config"
	else
		say "WARNING: $name has no kernel config ($cfg): the checks of its lacks= against it will FAIL"
	fi
	if [ "${M_KIND[$name]}" = package ]; then package_overlay "$name" "$st"; fi
	kernel_extras "$name" "$st"
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$IRD/overlay-$name.cpio.gz"
	if [ -n "$(opt "$name" selftests)" ]; then
		python_cpio
		cat "$IRD/initramfs.cpio.gz" "$IRD/python.cpio.gz" "$IRD/overlay-$name.cpio.gz" \
			>"$IRD/initrd-$name.cpio.gz"
	else
		cat "$IRD/initramfs.cpio.gz" "$IRD/overlay-$name.cpio.gz" >"$IRD/initrd-$name.cpio.gz"
	fi
}

# Boot NAME's kernel under qemu TCG with two vmxnet3 NICs joined by a qemu
# hub (no host or user-mode networking) behind an emulated intel-iommu, and
# a virtio-net NIC alone on a second hub (a TX ring for XDP frames on kernels
# whose skbs cannot hold pool pages) and another one on the first hub (the
# receiver of t/45-virtio-pp: its driver has page pools on 7.x); kernels
# without virtio_net ignore both. no_hash_pointers: the tracepoints print a
# pool's address as ppwatch does (.addr), so a test names the pool its
# trace shows. Run the tests and check the serial log.
# the machine: everything on qemu's command line but the kernel, its
# initrd and command line (boot_one's, vmcore_one's)
vm_qemu_args() {
	echo "-M q35 -accel tcg,thread=multi -cpu max -smp 2 -m ${VM_MEM_MB:-1024}" \
		"-nographic -no-reboot -nodefaults -serial stdio" \
		"-device intel-iommu" \
		"-netdev hubport,id=h0,hubid=0 -device vmxnet3,netdev=h0" \
		"-netdev hubport,id=h1,hubid=0 -device vmxnet3,netdev=h1" \
		"-netdev hubport,id=h2,hubid=1 -device virtio-net-pci,netdev=h2" \
		"-netdev hubport,id=h3,hubid=0 -device virtio-net-pci,netdev=h3"
}

boot_one() {
	local flavor=$1 img log rc t0
	need_flavor "$flavor"
	img=$(kernel_image "$flavor")
	[ -s "$img" ] || die "no $flavor kernel: rig.sh build $flavor"
	[ -s "$IRD/initramfs.cpio.gz" ] || die "no initramfs: rig.sh initramfs"
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"
	mkdir -p "$LOGS"
	overlay "$flavor"
	log=$LOGS/vm-$flavor${BUILD_NAME#build}.log
	say "booting $flavor kernel (log: $log, timeout ${VM_TIMEOUT}s, ${VM_SILENCE}s of silence)"
	if [ "${M_KIND[$flavor]}" = package ]; then say "$flavor is $(cat "$PKGS/$flavor/package")"; fi
	t0=$(date +%s)
	local boots=0 first='' stuck
	while :; do
		boots=$((boots + 1))
		set +e
		# shellcheck disable=SC2046 # the machine's arguments, one word each
		timeout --foreground -k 10 "$VM_TIMEOUT" qemu-system-x86_64 $(vm_qemu_args) \
			-kernel "$img" -initrd "$IRD/initrd-$flavor.cpio.gz" \
			-append "console=ttyS0 panic=-1 no_hash_pointers ppvm.flavor=$flavor $(opt "$flavor" cmdline | tr , ' ') ${VM_APPEND:-}" \
			</dev/null >"$log" 2>&1 &
		local qpid=$! size=-1 quiet=0 n ticks=0
		stuck=0
		# a hung guest says nothing: the serial log stops growing
		while kill -0 $qpid 2>/dev/null; do
			sleep 5
			n=$(stat -c %s "$log" 2>/dev/null || echo 0)
			if [ "$n" != "$size" ]; then size=$n quiet=0; else quiet=$((quiet + 5)); fi
			# a livelocked one keeps printing RCU's stall reports (every 30 s)
			ticks=$((ticks + 1))
			if [ $((ticks % 6)) -eq 0 ] && vm_livelocked "$log"; then
				say "$flavor: the guest is stuck (RCU reports one grace period stalled $VM_STALL_REPORTS times since its last test line): stopping it"
				echo "rig: VM livelocked (RCU stall, one grace period), stopped" >>"$log"
				stuck=1
				kill $qpid 2>/dev/null
				break
			fi
			if [ $quiet -ge "$VM_SILENCE" ]; then
				say "$flavor: the VM printed nothing for ${VM_SILENCE}s: stopping it"
				echo "rig: VM silent for ${VM_SILENCE}s, stopped" >>"$log"
				kill $qpid 2>/dev/null
				break
			fi
		done
		wait $qpid
		rc=$?
		[ $quiet -lt "$VM_SILENCE" ] || rc=124
		set -e
		# a kernel that died before the tests began (no PPVM-BEGIN: the
		# initramfs not even run) is booted once more, and the record says so:
		# Debian's 7.3.4 died so under TCG once in four boots on 2026-12-06
		# (an int3 in sched_clock_tick while unpacking the initramfs); ppwatch
		# had not run. A second death fails the line as before.
		if [ $boots -eq 1 ] && first=$(vm_died_early "$log"); then
			cp "$log" "$log.first-boot"
			say "$flavor: the kernel died before the tests began ($first; log: $log.first-boot): booting it once more"
			continue
		fi
		# a guest stuck for good (vm_livelocked: QEMU's TCG, not the tests) is
		# booted once more too, and the record says so; a second fails the line
		if [ $boots -eq 1 ] && [ $stuck -eq 1 ]; then
			first="stuck: $(tr -d '\r' <"$log" | grep -m1 -E 'rcu: INFO: .*stall' | cut -c1-120)"
			cp "$log" "$log.first-boot"
			say "$flavor: $first (log: $log.first-boot): booting it once more"
			continue
		fi
		break
	done
	say "$flavor VM ran $(( $(date +%s) - t0 )) s (qemu exit $rc)"
	# what kernel/report.sh needs besides the log: when, from which
	# commit, how long; the verdict once check_log has one
	{
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "commit=$(git -C "$ROOT" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
		echo "vm_s=$(( $(date +%s) - t0 ))"
		echo "qemu_rc=$rc"
		[ -z "$first" ] || echo "boots=$boots (the first died or stuck: $first)"
		# what it booted: a build's base at the level it had this run
		if [ "${M_KIND[$flavor]}" = build ]; then
			echo "base=$(cat "$LOGS/base-$(base_of "$flavor").version" 2>/dev/null || echo unknown)"
			echo "series=$(series_desc "$flavor")"
		fi
		echo "verdict=fail"
	} >"$LOGS/run-$flavor.env"
	local verdict=fail
	if (check_log "$flavor" "$log" "$rc"); then
		verdict=pass
	fi
	# the line's crash-dump test (vmcore=): part of its verdict
	if [ $verdict = pass ] && vmcore_wanted "$flavor" && ! (vmcore_one "$flavor"); then
		verdict=fail
	fi
	[ $verdict = fail ] || sed -i 's/^verdict=fail$/verdict=pass/' "$LOGS/run-$flavor.env"
	if [ -n "${RECORDS:-}" ]; then
		RECORD_BUILD_S=$(cat "$LOGS/build-$flavor.time" 2>/dev/null) \
			write_record "$flavor" "$(inputs_of "$flavor")" "$verdict" "$log.txt" "$LOGS/run-$flavor.env"
	fi
	[ "$verdict" = pass ]
}

cmd_boot() {
	local fl fails=0
	for fl in ${1:-$KERNEL_FLAVORS}; do
		(boot_one "$fl") || fails=$((fails + 1))
	done
	[ $fails -eq 0 ] || die "$fails VM run(s) failed"
}

# skip_declared NAME TEST COND: does NAME's matrix line declare a skip of
# TEST under COND (tests/vm/lib.sh skip: KEY=VALUE or KEY!=VALUE, several
# joined by ',', each must hold)? The line, not the guest, decides.
skip_declared() {
	local name=$1 test=$2 c v
	[ -n "$3" ] || return 1
	for c in ${3//,/ }; do
		case "$c" in
		lacks=*) case ",$(opt "$name" lacks)," in *",${c#lacks=},"*) ;; *) return 1 ;; esac ;;
		regime!=*) [ "$(opt "$name" regime)" != "${c#regime!=}" ] || return 1 ;;
		regime=*) [ "$(opt "$name" regime)" = "${c#regime=}" ] || return 1 ;;
		selftests=none) [ -z "$(opt "$name" selftests)" ] || return 1 ;;
		kinds!=test) [ "$(opt "$name" kinds)" != test ] || return 1 ;;
		churn!=test) [ "$(opt "$name" churn)" != test ] || return 1 ;;
		depth=test) [ "${KERNEL_SET:-test}" = test ] || return 1 ;;
		skips=*)
			v=${c#skips=}
			[ "$v" = "$test" ] || return 1
			case ",$(opt "$name" skips)," in *",$v,"*) ;; *) return 1 ;; esac ;;
		ppvm.only) case "${VM_APPEND:-}" in *ppvm.only=*) ;; *) return 1 ;; esac ;;
		*) return 1 ;;
		esac
	done
	return 0
}

# The verdict: end marker present, summary with fail=0 and at least one
# test that asserted values (asserted>0: run.sh's set-up lines are no
# passes), no test that asserted nothing (run.sh fails it), no FAIL line,
# no SKIP the matrix line does not declare (skip_declared: its lacks=,
# regime=, selftests=, kinds= or skips=), no kernel splat, qemu not killed
# by the timeout. The undeclared skips go into run-NAME.env
# (undeclared_skips: the Results table shows them).
check_log() {
	local flavor=$1 log=$2 rc=$3 bad=0 summary line t cond undeclared=''
	tr -d '\r' <"$log" >"$log.txt"
	# the tests' host half (tests/vm/host-prom.sh: a real Prometheus
	# scrapes what t/70's exporter wrote): its PPVM lines join the log's
	if ! bash "$ROOT/tests/vm/host-prom.sh" "$log.txt" >"$log.host" 2>"$log.host.err" &&
	   ! grep -q '^PPVM: FAIL' "$log.host"; then
		echo "PPVM: FAIL 70-pp-stats: tests/vm/host-prom.sh failed: $(tail -n2 "$log.host.err" | tr '\n' ' ')" >>"$log.host"
	fi
	cat "$log.host" >>"$log.txt"
	grep -E '^PPVM: (FAIL|SKIP)|^PPVM-VALUES|^PPVM-SUMMARY' "$log.txt" | sed "s/^/  [$flavor] /" >&2 || true
	say "$flavor: where the VM's time went (s; ppwatch=runs/s, attach=BPF loads timed/s/longest):"
	sed -n 's/^PPVM-TIME: /    /p' "$log.txt" >&2
	say "$flavor: tests that skipped: $(sed -n 's/^PPVM-TEST: \([^ ]*\) .*verdict=skipped$/\1/p' "$log.txt" | tr '\n' ' ')"
	say "$flavor: tests that skipped some checks: $(sed -n 's/^PPVM-TEST: \([^ ]*\) .*verdict=partial$/\1/p' "$log.txt" | tr '\n' ' ')"
	while IFS= read -r line; do
		t=${line#PPVM: SKIP }
		t=${t%%:*}
		cond=
		case "$line" in *" [declared: "*"]") cond=${line##* \[declared: }; cond=${cond%]} ;; esac
		skip_declared "$flavor" "$t" "$cond" && continue
		say "$flavor: FAIL: a skip its line of $KERNEL_MATRIX does not declare${cond:+ ($cond)}: $line"
		undeclared="$undeclared${undeclared:+ }$t"
		bad=1
	done < <(grep '^PPVM: SKIP ' "$log.txt" || true)
	if [ -f "$LOGS/run-$flavor.env" ]; then
		echo "undeclared_skips=$(echo "$undeclared" | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//')" >>"$LOGS/run-$flavor.env"
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		say "$flavor: FAIL: VM timed out (${VM_TIMEOUT}s in all, or ${VM_SILENCE}s of silence)"; bad=1
	fi
	if ! grep -q '^PPVM-END' "$log.txt"; then
		say "$flavor: FAIL: no end marker (PPVM-END) in the log"; bad=1
	fi
	summary=$(grep '^PPVM-SUMMARY:' "$log.txt" | tail -n1)
	case "$summary" in
	*" fail=0 "*) ;;
	*) say "$flavor: FAIL: summary '${summary:-missing}'"; bad=1 ;;
	esac
	case "$summary" in
	*" asserted=0 "*|*" asserted=0") say "$flavor: FAIL: no test asserted a value"; bad=1 ;;
	*" asserted="*) ;;
	*) say "$flavor: FAIL: the summary counts no asserting test (asserted=)"; bad=1 ;;
	esac
	if grep -q '^PPVM: FAIL' "$log.txt"; then bad=1; fi
	# the legacy regime: the DMA-API debug warning about mappings left at
	# unbind is its expected symptom (the tests check it is there)
	local allow='^$'
	[ "$(opt "$flavor" regime)" = legacy ] && allow='kernel/dma/debug\.c:[0-9]+ dma_debug_device_change'
	if grep -E 'Kernel panic|BUG:|WARNING:|Oops|general protection fault|KASAN|UBSAN|refcnt [-0-9]+ violation|Negative\([-0-9]+\) inflight' "$log.txt" |
	   grep -Ev "$allow" >&2; then
		say "$flavor: FAIL: kernel splat in the log"; bad=1
	fi
	[ $bad -eq 0 ] || die "$flavor VM tests failed (log: $log)"
	say "$flavor VM tests passed: $summary"
}

# est_s NAME: the seconds line NAME is expected to take, from its last
# record (build or fetch + VM), or a guess: a package line 300, a build
# whose bzImage is there 400 (ppwatch's code changed, not the kernel's),
# a cold build 1500 (kernel/README.md, Times)
est_s() {
	local b v
	b=$(rec_get "$1" build_s) v=$(rec_get "$1" vm_s)
	if [ "${M_KIND[$1]}" = build ] && [ ! -s "$(kernel_image "$1")" ]; then
		echo 1500
	elif [ -n "$v" ]; then
		awk -v b="${b:-0}" -v v="$v" 'BEGIN { printf "%d\n", b + v + 30 }'
	elif [ "${M_KIND[$1]}" = package ]; then
		echo 300
	else
		echo 400
	fi
}

# The order a resuming matrix run takes: package lines first (nothing to
# build; the ones whose package moved are the stale ones), then builds
# whose kernel is there, cold builds last; each by its expected time.
resume_order() {
	local fl c
	for fl in "$@"; do
		if [ "${M_KIND[$fl]}" = package ]; then c=0
		elif [ -s "$(kernel_image "$fl")" ]; then c=1
		else c=2; fi
		printf '%s %s %s\n' "$c" "$(est_s "$fl")" "$fl"
	done | sort -k1,1n -k2,2n | awk '{ print $3 }'
}

# Everything: prepare, find each selected line's inputs, build the
# initramfs, then per line build (or fetch) its kernel and boot it. Each
# line's verdict is written to its record (kernel/results, from a clean
# tree). With RIG_RESUME=1 ('make test-matrix'): a line whose committed
# record has today's key and passed is not booted again; the others go in
# resume_order; with MATRIX_BUDGET_S, a line whose expected time would
# pass the budget is not started (exit 3: run again to resume).
cmd_test() {
	local t0 fl todo=() left=() up=() fails key
	t0=$(date +%s)
	RECORDS=1
	# the code the VMs are given (the initramfs is built from the tree now):
	# a record names it, not whatever HEAD is when the run ends
	RECORD_CODE=dirty
	if code_clean; then RECORD_CODE=$(code_hash); fi
	rm -f "$LOGS/matrix.done"
	cmd_prepare
	for fl in $KERNEL_FLAVORS; do
		[ -z "${BROKEN[$fl]:-}" ] || continue
		if try "$fl" line_inputs "$fl" >"$LOGS/inputs-$fl.tmp"; then
			mv "$LOGS/inputs-$fl.tmp" "$LOGS/inputs-$fl"
		else
			continue
		fi
		key=$(record_key "$(inputs_of "$fl")")
		if [ -n "${RIG_RESUME:-}" ] && code_clean && [ "$(rec_get "$fl" key)" = "$key" ] &&
		   [ "$(rec_get "$fl" verdict)" = pass ]; then
			say "$fl: up to date: passed on $(rec_get "$fl" commit) ($(rec_get "$fl" date)) with these inputs (kernel/results/$fl.env, key $key)"
			up+=("$fl")
			continue
		fi
		todo+=("$fl")
	done
	if [ -n "${RIG_RESUME:-}" ] && [ ${#todo[@]} -gt 0 ]; then
		mapfile -t todo < <(resume_order "${todo[@]}")
		say "to boot, in this order: ${todo[*]}${MATRIX_BUDGET_S:+ (budget ${MATRIX_BUDGET_S} s)}"
	fi
	[ ${#todo[@]} -eq 0 ] || cmd_initramfs
	fails=${#BROKEN[@]}
	for fl in "${todo[@]}"; do
		if [ -n "${MATRIX_BUDGET_S:-}" ] &&
		   [ $(( $(date +%s) - t0 + $(est_s "$fl") )) -gt "$MATRIX_BUDGET_S" ]; then
			say "$fl: not started: $(est_s "$fl") s expected, $(( MATRIX_BUDGET_S - $(date +%s) + t0 )) s of MATRIX_BUDGET_S left"
			left+=("$fl")
			continue
		fi
		cmd_build "$fl" || { fails=$((fails + 1)); continue; }
		(boot_one "$fl") || fails=$((fails + 1))
	done
	# shellcheck disable=SC2086 # the flavors, one word each
	"$ROOT/kernel/report.sh" --logs $KERNEL_FLAVORS >&2 || true
	say "kernel-test took $(( $(date +%s) - t0 )) s${up:+; up to date: ${up[*]}}"
	touch "$LOGS/matrix.done"
	[ "$fails" -eq 0 ] || die "$fails VM run(s) failed"
	if [ ${#left[@]} -gt 0 ]; then
		say "not started within MATRIX_BUDGET_S=$MATRIX_BUDGET_S: ${left[*]} (run again to resume)"
		exit 3
	fi
}

cmd_list() {
	local fl s
	for fl in "${M_NAMES[@]}"; do
		case " $KERNEL_FLAVORS " in *" $fl "*) s='*' ;; *) s=' ' ;; esac
		printf '%s %-10s %-8s %s %s\n' "$s" "$fl" "${M_KIND[$fl]}" "${M_SRC[$fl]}" "${M_OPT[$fl]}"
	done
}

load_matrix
case "${1:-}" in
list) cmd_list; exit 0 ;;
sets) cmd_sets "${2:-}"; exit 0 ;;
workdir) echo "$KERNEL_WORK"; exit 0 ;;
esac

# Only one kernel build/boot at a time on this machine.
mkdir -p "$(dirname "$KERNEL_WORK")"
# one lock for the machine, whatever KERNEL_WORK: never two kernel builds at once
exec 9>"${KERNEL_LOCK:-/var/tmp/ppwatch-kernel-rig.lock}"
flock -n 9 || { say "waiting for another rig run (${KERNEL_LOCK:-/var/tmp/ppwatch-kernel-rig.lock})"; flock 9; }

case "${1:-}" in
prepare)
	cmd_prepare
	[ ${#BROKEN[@]} -eq 0 ] || die "${#BROKEN[@]} line(s) not prepared: ${!BROKEN[*]}"
	;;
config) cmd_config "${2:-}" ;;
build) cmd_build "${2:-}" ;;  # no NAME: every selected kernel
helpers) cmd_helpers ;;
initramfs) cmd_initramfs ;;
boot) cmd_boot "${2:-}" ;;
vmcore) vmcore_one "${2:-}" ;;
test) cmd_test ;;
*) die "usage: $0 list | sets [--check] | workdir | prepare | build [NAME] | initramfs | boot [NAME] | vmcore NAME | test" ;;
esac
