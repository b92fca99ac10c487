# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=bash # sourced by kernel/rig.sh and kernel/check-patches.sh
#
# The source bases of the kernel rig's build lines, and how each becomes a
# git repository. Needs ROOT, KERNEL_WORK, TREES, say and die.

# --- source bases -------------------------------------------------------------
# A build line's first SOURCE word is its base: a Debian linux-source
# tarball, unpacked once into a git repository of its own and committed as
# is with a fixed author and date (tag 'base'), so that the same tarball
# gives the same commit on every machine.
#   base      linux-source-6.12: the host's apt (bookworm-security); the
#             prerequisite series (kernel/prereq) is written on it
#   base-7.3  linux-source-7.3: trixie-backports, fetched through
#             kernel/apt.sh (a private apt configuration) into KERNEL_WORK
# A base is a stable series (B_SERIES), not a patch level: Debian moves its
# packages (6.12.117 -> 6.12.118) and drops the old ones from the archive,
# so the series are applied to whatever patch level the package holds that
# day (B_WRITTEN is the one their cover letters' base-commit: names), the
# level a run used is said and recorded (logs/base-BASE.version, each
# line's run record), and a series that no longer applies fails only the
# lines built on it, naming its patch (kernel/rig.sh ensure_tree).
# B_REPO: the repository; worktrees of it hold the line's trees. The 6.12
# one is also the source tree of the 'patched' kernel (the path is
# historical, so that existing build dirs stay valid).
# KERNEL_SRC_DIR: where installed tarballs are looked for (default
# /usr/src; the checks suite points it at a fake base, tests/check-rig.sh).
declare -A B_PKG=([base]=linux-source-6.12 [base-7.3]=linux-source-7.3)
declare -A B_SERIES=([base]=6.12 [base-7.3]=7.3)
declare -A B_WRITTEN=([base]=6.12.117 [base-7.3]=7.3.4)
declare -A B_SUITE=([base]='' [base-7.3]=trixie-backports)
declare -A B_REPO=([base]=$TREES/patched/src [base-7.3]=$TREES/base-7.3/src)
# B_VERSION[BASE]: the patch level of BASE's repository, once ensure_repo ran
declare -A B_VERSION=()
KERNEL_SRC_DIR=${KERNEL_SRC_DIR:-/usr/src}

# base_desc BASE: its package and version, for messages
base_desc() { echo "${B_PKG[$1]} ${B_VERSION[$1]:-${B_SERIES[$1]}.y}"; }

# TARBALL: BASE's tarball. The host's /usr/src one if installed; else the
# 6.12 one is installed with the host's apt (it is in bookworm), a later
# one fetched with kernel/apt.sh from its suite into KERNEL_WORK/src (the
# .deb kept: later runs need no mirror).
ensure_tarball() {
	local b=$1 pkg=${B_PKG[$1]} dir=$KERNEL_WORK/src deb
	TARBALL=$KERNEL_SRC_DIR/$pkg.tar.xz
	[ -f "$TARBALL" ] && return 0
	if [ -z "${B_SUITE[$b]}" ]; then
		say "installing $pkg with apt"
		[ "$(id -u)" -eq 0 ] || die "$TARBALL missing; run 'make deps' as root"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"$pkg" >&2
		[ -f "$TARBALL" ] || die "apt installed $pkg but there is no $TARBALL"
		return 0
	fi
	TARBALL=$dir/$pkg.tar.xz
	[ -f "$TARBALL" ] && return 0
	mkdir -p "$dir"
	deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n1)
	if [ -z "$deb" ]; then
		say "fetching $pkg from ${B_SUITE[$b]} (kernel/apt.sh)"
		(cd "$dir" && KERNEL_WORK=$KERNEL_WORK "$ROOT/kernel/apt.sh" "${B_SUITE[$b]}" \
			apt-get download -q "$pkg" >&2) ||
			die "cannot fetch $pkg from ${B_SUITE[$b]}"
		deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n1)
		[ -n "$deb" ] || die "apt-get download left no ${pkg}_*.deb in $dir"
	fi
	say "$pkg: $(dpkg-deb -f "$deb" Version) (${deb##*/})"
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/src/$pkg.tar.xz" >"$TARBALL.tmp" ||
		die "$deb holds no usr/src/$pkg.tar.xz"
	mv "$TARBALL.tmp" "$TARBALL"
}

# base_version_ok BASE V: V is a patch level of BASE's stable series
base_version_ok() {
	case "$2" in
	"${B_SERIES[$1]}".[0-9]*) case "${2#"${B_SERIES[$1]}".}" in *[!0-9]*) return 1 ;; esac ;;
	*) return 1 ;;
	esac
}

# Unpack BASE's tarball once into a git repository (B_REPO), tag the
# pristine tree 'base'; the other trees of the base are worktrees of it.
# Sets B_VERSION[BASE] and records it (logs/base-BASE.version).
ensure_repo() {
	local b=$1 repo=${B_REPO[$1]} pkg=${B_PKG[$1]} tmp v
	[ -z "${B_VERSION[$b]:-}" ] || return 0
	if [ -d "$repo/.git" ] && git -C "$repo" rev-parse -q --verify base >/dev/null; then
		# the level it was unpacked at (its commit says it: "Debian PKG V")
		v=$(git -C "$repo" log -1 --format=%s base)
		v=${v##* }
		base_version_ok "$b" "$v" ||
			die "$repo: its 'base' commit is not of $pkg ${B_SERIES[$b]}.y ($v): remove it to unpack the tarball again"
		note_base_version "$b" "$v"
		return 0
	fi
	ensure_tarball "$b"
	say "unpacking $TARBALL"
	mkdir -p "$(dirname "$repo")"
	tmp=$(mktemp -d "$TREES/unpack.XXXXXX")
	tar -C "$tmp" -xf "$TARBALL"
	[ -d "$tmp/$pkg" ] || die "unexpected tarball layout (no $pkg/ in $TARBALL)"
	v=$(make -s -C "$tmp/$pkg" kernelversion 2>/dev/null) || v=
	if ! base_version_ok "$b" "$v"; then
		rm -rf "$tmp"
		die "$TARBALL is ${v:-of no kernel version}, not of the ${B_SERIES[$b]}.y series the series on $b are written for: a new stable series is a new base (kernel/rig-base.sh)"
	fi
	rm -rf "$repo"
	mv "$tmp/$pkg" "$repo"
	rmdir "$tmp"
	say "committing the pristine tree"
	git -C "$repo" init -q -b ppwatch-base
	git -C "$repo" config user.name "ppwatch rig"
	git -C "$repo" config user.email "rig@localhost"
	git -C "$repo" config gc.auto 0
	# Debian's top-level .gitignore ignores '/*': force-add the tarball as is
	git -C "$repo" add -f -A
	# a fixed identity and date: the same tarball gives the same 'base'
	# commit on every machine (the base-commit: of the cover letters is
	# that of B_WRITTEN's tarball)
	GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z \
		git -C "$repo" commit -q -m "Debian $pkg $v"
	git -C "$repo" tag base
	note_base_version "$b" "$v"
}

# note_base_version BASE V: B_VERSION, the record, and a word when the
# series were written on another patch level
note_base_version() {
	local b=$1 v=$2
	B_VERSION[$b]=$v
	if [ -n "${LOGS:-}" ]; then
		mkdir -p "$LOGS"
		echo "${B_PKG[$b]} $v" >"$LOGS/base-$b.version"
	fi
	[ "$v" = "${B_WRITTEN[$b]}" ] ||
		say "$b is ${B_PKG[$b]} $v; its series were written on ${B_WRITTEN[$b]}: applied as they are"
	return 0
}
