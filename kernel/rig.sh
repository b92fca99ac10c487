#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch kernel rig: unpack Debian's linux-source-6.12 outside the repo,
# apply the prerequisite item-block series and our patches/ with git am,
# build minimal x86_64 kernels with ccache and boot them under qemu TCG.
#
#   kernel/rig.sh prepare                 unpack + git am (both flavors)
#   kernel/rig.sh build   stock|patched   configure + build bzImage
#   kernel/rig.sh initramfs               build the test initramfs
#   kernel/rig.sh boot    stock|patched   boot, run tests/vm, check the log
#
# Knobs (environment; kernel/kernel.mk passes its make variables through):
#   KERNEL_WORK   work dir for trees, build dirs, ccache, logs
#                 (default /var/tmp/ppwatch-kernel)
#   PREREQ_DIR    the prerequisite series (default ../shared/kernel/prereq)
#   KERNEL_JOBS   make -j (default: nproc)
#   VM_TIMEOUT    seconds before a VM run counts as hung (default 900)
#   PPWATCH_BIN   ppwatch binary copied into the initramfs
#                 (default .output/ppwatch)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KERNEL_WORK=${KERNEL_WORK:-/var/tmp/ppwatch-kernel}
PREREQ_DIR=${PREREQ_DIR:-$ROOT/../shared/kernel/prereq}
KERNEL_JOBS=${KERNEL_JOBS:-$(nproc)}
VM_TIMEOUT=${VM_TIMEOUT:-900}
PPWATCH_BIN=${PPWATCH_BIN:-$ROOT/.output/ppwatch}
TARBALL=/usr/src/linux-source-6.12.tar.xz
EXPECT_VERSION=6.12.117

TREES=$KERNEL_WORK/trees
LOGS=$KERNEL_WORK/logs
export CCACHE_DIR=${CCACHE_DIR:-$KERNEL_WORK/ccache}
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
die() { printf 'rig: ERROR: %s\n' "$*" >&2; exit 1; }

need_flavor() {
	case "${1:-}" in
	stock|patched) ;;
	*) die "flavor must be 'stock' or 'patched', not '${1:-}'" ;;
	esac
}

# The patches/ series in 'series' order (quilt style: one file name a line,
# '#' comments).
series_files() {
	local f
	[ -f "$ROOT/patches/series" ] || die "patches/series is missing"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$ROOT/patches/series" | grep -v '^$' |
	while read -r f; do
		[ -f "$ROOT/patches/$f" ] || die "patches/series lists missing file $f"
		printf '%s\n' "$ROOT/patches/$f"
	done
}

prereq_files() {
	[ -d "$PREREQ_DIR" ] || die "prerequisite series not found at $PREREQ_DIR (set PREREQ_DIR)"
	# pinned: our series is written against exactly these patches
	(cd "$PREREQ_DIR" && sha256sum --quiet -c "$ROOT/kernel/prereq.sha256") ||
		die "prerequisite series in $PREREQ_DIR differs from kernel/prereq.sha256"
	sed 's/^[0-9a-f]*  //' "$ROOT/kernel/prereq.sha256" | sed "s|^|$PREREQ_DIR/|"
}

ensure_tarball() {
	if [ ! -f "$TARBALL" ]; then
		say "installing linux-source-6.12 with apt"
		[ "$(id -u)" -eq 0 ] || die "$TARBALL missing; run 'make deps' as root"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			linux-source-6.12 >&2
	fi
}

# Unpack the tarball once into a git repository at trees/patched/src, tag
# the pristine tree 'base'; trees/stock/src is a worktree of 'base'.
ensure_repo() {
	local repo=$TREES/patched/src tmp
	if [ -d "$repo/.git" ] && git -C "$repo" rev-parse -q --verify base >/dev/null; then
		return 0
	fi
	ensure_tarball
	say "unpacking $TARBALL"
	mkdir -p "$TREES/patched"
	tmp=$(mktemp -d "$TREES/unpack.XXXXXX")
	tar -C "$tmp" -xf "$TARBALL"
	[ -d "$tmp/linux-source-6.12" ] || die "unexpected tarball layout"
	rm -rf "$repo"
	mv "$tmp/linux-source-6.12" "$repo"
	rmdir "$tmp"
	local v
	v=$(make -s -C "$repo" kernelversion 2>/dev/null)
	[ "$v" = "$EXPECT_VERSION" ] ||
		die "linux-source-6.12 is $v, the prerequisite series is for $EXPECT_VERSION"
	say "committing the pristine tree"
	git -C "$repo" init -q -b ppwatch-base
	git -C "$repo" config user.name "ppwatch rig"
	git -C "$repo" config user.email "rig@localhost"
	git -C "$repo" config gc.auto 0
	# Debian's top-level .gitignore ignores '/*': force-add the tarball as is
	git -C "$repo" add -f -A
	git -C "$repo" commit -q -m "Debian linux-source-6.12 $v"
	git -C "$repo" tag base
}

# (Re)apply prereq + patches/ on 'base' when either changed. Any conflict
# fails the run: git am is never asked to use a 3-way merge or to skip.
apply_series() {
	local repo=$TREES/patched/src stamp want
	mapfile -t PRE < <(prereq_files)
	mapfile -t SER < <(series_files)
	want=$(cat "${PRE[@]}" "${SER[@]}" | sha256sum | cut -d' ' -f1)
	stamp=$repo/.git/ppwatch-applied
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	   [ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
		say "patched tree up to date ($(git -C "$repo" rev-parse --short HEAD))"
		return 0
	fi
	rm -f "$stamp"
	git -C "$repo" am --abort >/dev/null 2>&1 || true
	git -C "$repo" checkout -q -f -B ppwatch base
	say "git am prerequisite series (${#PRE[@]} patches)"
	git -C "$repo" am -q "${PRE[@]}" ||
		die "prerequisite series does not apply (git am stopped, see above)"
	git -C "$repo" tag -f prereq-head >/dev/null
	say "git am patches/ (${#SER[@]} patches)"
	git -C "$repo" am -q "${SER[@]}" ||
		die "patches/ does not apply on the prerequisite series (git am stopped, see above)"
	echo "$want" >"$stamp"
	say "patched tree at $(git -C "$repo" rev-parse --short HEAD)"
}

ensure_stock() {
	local repo=$TREES/patched/src wt=$TREES/stock/src
	if [ ! -e "$wt/.git" ]; then
		mkdir -p "$TREES/stock"
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$wt" base
	fi
	[ "$(git -C "$wt" rev-parse HEAD)" = "$(git -C "$repo" rev-parse base)" ] ||
		git -C "$wt" checkout -q -f --detach base
}

cmd_prepare() {
	mkdir -p "$KERNEL_WORK" "$LOGS"
	ensure_repo
	apply_series
	ensure_stock
}

fragments() {
	ls "$ROOT"/kernel/config/*.config | sort
}

cmd_config() {
	local flavor=$1 src=$TREES/$1/src bld=$TREES/$1/build want
	need_flavor "$flavor"
	mkdir -p "$bld"
	want=$(cat $(fragments) | sha256sum | cut -d' ' -f1)
	if [ -f "$bld/.config" ] && [ "$(cat "$bld/.ppwatch-config" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	say "configuring $flavor: tinyconfig + $(fragments | xargs -n1 basename | tr '\n' ' ')"
	make -s -C "$src" O="$bld" tinyconfig >/dev/null
	(cd "$bld" && "$src/scripts/kconfig/merge_config.sh" -m -O "$bld" "$bld/.config" $(fragments) >/dev/null)
	make -s -C "$src" O="$bld" olddefconfig >/dev/null
	# every option a fragment asks for must have survived olddefconfig
	local miss=0 line opt val
	while read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*}; val=${line#*=} ;;
		*) continue ;;
		esac
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$bld/.config" && { say "$opt should be off"; miss=1; }
		elif ! grep -qx "$opt=$val" "$bld/.config"; then
			say "$opt=$val did not survive olddefconfig"
			miss=1
		fi
	done < <(cat $(fragments))
	[ $miss -eq 0 ] || die "config fragments are not satisfiable"
	echo "$want" >"$bld/.ppwatch-config"
}

cmd_build() {
	local flavor=$1 src=$TREES/$1/src bld=$TREES/$1/build t0
	need_flavor "$flavor"
	command -v ccache >/dev/null || die "ccache missing: run 'make deps'"
	cmd_config "$flavor"
	t0=$(date +%s)
	say "building $flavor kernel in $bld (-j$KERNEL_JOBS, ccache $CCACHE_DIR)"
	make -s -C "$src" O="$bld" CC="ccache gcc" -j"$KERNEL_JOBS" bzImage \
		>"$LOGS/build-$flavor.log" 2>&1 ||
		{ tail -40 "$LOGS/build-$flavor.log" >&2; die "$flavor kernel build failed ($LOGS/build-$flavor.log)"; }
	[ -s "$bld/vmlinux" ] && [ -s "$bld/arch/x86/boot/bzImage" ] || die "no bzImage"
	say "$flavor kernel built in $(( $(date +%s) - t0 )) s: $(cat "$bld/include/config/kernel.release")"
}

case "${1:-}" in
prepare) cmd_prepare ;;
config) cmd_config "${2:-}" ;;
build) cmd_build "${2:-}" ;;
*) die "usage: $0 prepare | config FLAVOR | build FLAVOR | initramfs | boot FLAVOR" ;;
esac
