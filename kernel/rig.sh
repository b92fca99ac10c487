#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch kernel rig: unpack Debian's linux-source-6.12 outside the repo,
# apply the prerequisite item-block series and our patches/ with git am,
# build minimal x86_64 kernels with ccache and boot them under qemu TCG.
#
#   kernel/rig.sh prepare                 unpack + git am (both flavors)
#   kernel/rig.sh build   FLAVOR          configure + build bzImage
#   kernel/rig.sh initramfs               build the test initramfs
#   kernel/rig.sh boot    FLAVOR          boot, run tests/vm, check the log
#   kernel/rig.sh test                    all of it for $KERNEL_FLAVORS
#
# Flavors: stock (6.12.117 as is: dma_mapped xarray), patched (prerequisite
# + patches/: item blocks), prefix (prerequisite patches 1-3 only: neither
# fix, the legacy regime where DMA mappings outlive the driver).
#
# Knobs (environment; kernel/kernel.mk passes its make variables through):
#   KERNEL_WORK   work dir for trees, build dirs, ccache, logs
#                 (default /var/tmp/ppwatch-kernel)
#   PREREQ_DIR    the prerequisite series (default kernel/prereq)
#   KERNEL_JOBS   make -j (default: nproc)
#   VM_TIMEOUT    seconds before a VM run counts as hung (default 900)
#   KERNEL_FLAVORS  flavors 'test' builds and boots (default "stock prefix patched")
#   KERNEL_CONFIG_EXTRA  more config fragments (e.g. kernel/config-debug/*.config)
#   KERNEL_BUILD_NAME    build dir name under trees/FLAVOR (default build)
#   PPWATCH_BIN   ppwatch binary copied into the initramfs
#                 (default .output/ppwatch)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KERNEL_WORK=${KERNEL_WORK:-/var/tmp/ppwatch-kernel}
PREREQ_DIR=${PREREQ_DIR:-$ROOT/kernel/prereq}
KERNEL_JOBS=${KERNEL_JOBS:-$(nproc)}
VM_TIMEOUT=${VM_TIMEOUT:-900}
KERNEL_FLAVORS=${KERNEL_FLAVORS:-stock prefix patched}
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
	stock|patched|prefix) ;;
	*) die "flavor must be 'stock', 'patched' or 'prefix', not '${1:-}'" ;;
	esac
}

# SER: the patches/ series in 'series' order (quilt style: one file name a
# line, '#' comments). Sets a global, not a pipe, so that die() stops the run.
load_series() {
	local f
	[ -f "$ROOT/patches/series" ] || die "patches/series is missing"
	SER=()
	while read -r f; do
		f=${f%%#*}
		f=${f%"${f##*[![:space:]]}"}
		[ -n "$f" ] || continue
		[ -f "$ROOT/patches/$f" ] || die "patches/series lists missing file $f"
		SER+=("$ROOT/patches/$f")
	done <"$ROOT/patches/series"
	[ ${#SER[@]} -gt 0 ] || die "patches/series lists no patches"
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
	load_prereq
	load_series
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

# prefix: base + prerequisite patches 1-3 (page_pool_get_pp(), the napi_local
# fix and the revert of the dma_mapped xarray backport), nothing else
ensure_prefix() {
	local repo=$TREES/patched/src wt=$TREES/prefix/src want stamp
	load_prereq
	want=$(cat "${PRE[@]:0:3}" | sha256sum | cut -d' ' -f1)
	if [ ! -e "$wt/.git" ]; then
		mkdir -p "$TREES/prefix"
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$wt" base
	fi
	stamp=$(git -C "$wt" rev-parse --git-dir)/ppwatch-applied
	if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] &&
	   [ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ]; then
		return 0
	fi
	rm -f "$stamp"
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach base
	git -C "$wt" am -q "${PRE[@]:0:3}" || die "prerequisite patches 1-3 do not apply"
	echo "$want" >"$stamp"
}

cmd_prepare() {
	mkdir -p "$KERNEL_WORK" "$LOGS"
	ensure_repo
	apply_series
	ensure_stock
	case " $KERNEL_FLAVORS " in *" prefix "*) ensure_prefix ;; esac
}

fragments() {
	local f
	ls "$ROOT"/kernel/config/*.config | sort
	for f in ${KERNEL_CONFIG_EXTRA:-}; do
		case "$f" in /*) ;; *) f=$ROOT/$f ;; esac
		[ -f "$f" ] || die "no config fragment $f"
		echo "$f"
	done
}
BUILD_NAME=${KERNEL_BUILD_NAME:-build}

cmd_config() {
	local flavor=$1 src=$TREES/$1/src bld=$TREES/$1/$BUILD_NAME want
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
	local flavor=$1 src=$TREES/$1/src bld=$TREES/$1/$BUILD_NAME t0
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

# --- guest helpers and initramfs ----------------------------------------------
IRD=$KERNEL_WORK/initramfs

# ppvm-nl is built from the *patched* tree: YNL library + netdev code
# generated from its netdev.yaml, with its uapi netdev.h. Static.
cmd_helpers() {
	local src=$TREES/patched/src out=$IRD/bin ynl gen
	ynl=$src/tools/net/ynl
	gen=$IRD/ynl-gen
	[ -f "$src/Documentation/netlink/specs/netdev.yaml" ] || die "run 'rig.sh prepare' first"
	mkdir -p "$out" "$gen"
	python3 "$ynl/ynl-gen-c.py" --mode user --header \
		--spec "$src/Documentation/netlink/specs/netdev.yaml" -o "$gen/netdev-user.h"
	python3 "$ynl/ynl-gen-c.py" --mode user --source \
		--spec "$src/Documentation/netlink/specs/netdev.yaml" -o "$gen/netdev-user.c"
	gcc -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -Werror -static \
		-I"$ynl/lib" -I"$gen" -idirafter "$src/include/uapi" \
		-D_LINUX_NETDEV_H -include "$src/include/uapi/linux/netdev.h" \
		-o "$out/ppvm-nl" "$ROOT/tests/vm/ppvm-nl.c" "$gen/netdev-user.c" "$ynl/lib/ynl.c"
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
		-o "$out/ppvm-tool" "$ROOT/tests/vm/ppvm-tool.c"
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
	local bb
	cmd_helpers
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
	install -m 0755 "$IRD/bin/ppvm-nl" "$IRD/bin/ppvm-tool" "$STAGE/vm/bin/"
	# iproute2 (ip netns, veth) and jq (ppwatch -j) from the host, with libs
	copy_dyn "$(command -v ip)" "$STAGE/sbin/ip"
	copy_dyn "$(command -v jq)" "$STAGE/usr/bin/jq"
	if [ -x "$PPWATCH_BIN" ]; then
		copy_dyn "$PPWATCH_BIN" "$STAGE/vm/bin/ppwatch"
	else
		say "WARNING: $PPWATCH_BIN missing: the ppwatch cross-checks will SKIP"
	fi
	echo "root:x:0:0:root:/:/bin/sh" >"$STAGE/etc/passwd"
	(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$IRD/initramfs.cpio.gz"
	say "initramfs: $(du -h "$IRD/initramfs.cpio.gz" | cut -f1)"
}

# Boot FLAVOR's kernel under qemu TCG with two vmxnet3 NICs joined by a qemu
# hub (no host or user-mode networking) behind an emulated intel-iommu, run
# the tests and check the serial log.
cmd_boot() {
	local flavor=$1 bld=$TREES/$1/$BUILD_NAME log rc t0
	need_flavor "$flavor"
	[ -s "$bld/arch/x86/boot/bzImage" ] || die "no $flavor kernel: rig.sh build $flavor"
	[ -s "$IRD/initramfs.cpio.gz" ] || die "no initramfs: rig.sh initramfs"
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"
	mkdir -p "$LOGS"
	log=$LOGS/vm-$flavor${BUILD_NAME#build}.log
	say "booting $flavor kernel (log: $log, timeout ${VM_TIMEOUT}s)"
	t0=$(date +%s)
	set +e
	timeout --foreground -k 10 "$VM_TIMEOUT" qemu-system-x86_64 \
		-M q35 -accel tcg,thread=multi -cpu max -smp 2 -m 1024 \
		-nographic -no-reboot -nodefaults -serial stdio \
		-device intel-iommu \
		-netdev hubport,id=h0,hubid=0 -device vmxnet3,netdev=h0 \
		-netdev hubport,id=h1,hubid=0 -device vmxnet3,netdev=h1 \
		-kernel "$bld/arch/x86/boot/bzImage" -initrd "$IRD/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 ppvm.flavor=$flavor ${VM_APPEND:-}" \
		</dev/null >"$log" 2>&1
	rc=$?
	set -e
	say "$flavor VM ran $(( $(date +%s) - t0 )) s (qemu exit $rc)"
	check_log "$flavor" "$log" "$rc"
}

# The verdict: end marker present, summary with fail=0 and pass>0, no FAIL
# line, no kernel splat, qemu not killed by the timeout.
check_log() {
	local flavor=$1 log=$2 rc=$3 bad=0 summary
	tr -d '\r' <"$log" >"$log.txt"
	grep -E '^PPVM: (FAIL|SKIP)|^PPVM-VALUES|^PPVM-SUMMARY' "$log.txt" | sed "s/^/  [$flavor] /" >&2 || true
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		say "$flavor: FAIL: VM timed out after ${VM_TIMEOUT}s"; bad=1
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
	*" pass=0 "*) say "$flavor: FAIL: no test passed"; bad=1 ;;
	esac
	if grep -q '^PPVM: FAIL' "$log.txt"; then bad=1; fi
	# prefix: the DMA-API debug warning about mappings left at unbind is the
	# expected symptom of the legacy regime (the tests check it is there)
	local allow='^$'
	[ "$flavor" = prefix ] && allow='kernel/dma/debug\.c:[0-9]+ dma_debug_device_change'
	if grep -E 'Kernel panic|BUG:|WARNING:|Oops|general protection fault|KASAN|UBSAN|refcnt [-0-9]+ violation|Negative\([-0-9]+\) inflight' "$log.txt" |
	   grep -Ev "$allow" >&2; then
		say "$flavor: FAIL: kernel splat in the log"; bad=1
	fi
	[ $bad -eq 0 ] || die "$flavor VM tests failed (log: $log)"
	say "$flavor VM tests passed: $summary"
}

# Everything: prepare, build both kernels, initramfs, boot both.
cmd_test() {
	local t0=$(date +%s) fl
	cmd_prepare
	for fl in $KERNEL_FLAVORS; do need_flavor $fl; cmd_build $fl; done
	cmd_initramfs
	local fails=0
	for fl in $KERNEL_FLAVORS; do (cmd_boot $fl) || fails=$((fails + 1)); done
	say "kernel-test took $(( $(date +%s) - t0 )) s"
	[ $fails -eq 0 ] || die "$fails VM run(s) failed"
}

# Only one kernel build/boot at a time on this machine.
mkdir -p "$(dirname "$KERNEL_WORK")"
# one lock for the machine, whatever KERNEL_WORK: never two kernel builds at once
exec 9>"${KERNEL_LOCK:-/var/tmp/ppwatch-kernel-rig.lock}"
flock -n 9 || { say "waiting for another rig run (${KERNEL_LOCK:-/var/tmp/ppwatch-kernel-rig.lock})"; flock 9; }

case "${1:-}" in
prepare) cmd_prepare ;;
config) cmd_config "${2:-}" ;;
build) cmd_build "${2:-}" ;;
helpers) cmd_helpers ;;
initramfs) cmd_initramfs ;;
boot) cmd_boot "${2:-}" ;;
test) cmd_test ;;
*) die "usage: $0 prepare | build FLAVOR | initramfs | boot FLAVOR | test" ;;
esac
