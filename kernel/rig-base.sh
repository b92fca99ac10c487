# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=bash # sourced by kernel/rig.sh and kernel/check-patches.sh
#
# The source bases of the kernel rig's build lines, and how each becomes a
# git repository. Needs ROOT, KERNEL_WORK, TREES, say and die.

# --- source bases -------------------------------------------------------------
# A build line's first SOURCE word is its base: a Debian linux-source
# tarball, unpacked once into a git repository of its own and committed as
# is with a fixed author and date (tag 'base'), so that the commit is the
# same on every machine: the base-commit: of the series written on it.
#   base      linux-source-6.12 6.12.117: the host's apt (bookworm-security);
#             the prerequisite series (kernel/prereq) is written on it
#   base-7.3  linux-source-7.3 7.3.4: trixie-backports, fetched through
#             kernel/apt.sh (a private apt configuration) into KERNEL_WORK
# B_REPO: the repository; worktrees of it hold the line's trees. The 6.12
# one is also the source tree of the 'patched' kernel (the path is
# historical, so that existing build dirs stay valid).
declare -A B_PKG=([base]=linux-source-6.12 [base-7.3]=linux-source-7.3)
declare -A B_VERSION=([base]=6.12.117 [base-7.3]=7.3.4)
declare -A B_SUITE=([base]='' [base-7.3]=trixie-backports)
declare -A B_REPO=([base]=$TREES/patched/src [base-7.3]=$TREES/base-7.3/src)

# base_desc BASE: its package and version, for messages
base_desc() { echo "${B_PKG[$1]} ${B_VERSION[$1]}"; }

# TARBALL: BASE's tarball. The host's /usr/src one if installed; else the
# 6.12 one is installed with the host's apt (it is in bookworm), a later
# one fetched with kernel/apt.sh from its suite into KERNEL_WORK/src (the
# .deb kept: later runs need no mirror).
ensure_tarball() {
	local b=$1 pkg=${B_PKG[$1]} dir=$KERNEL_WORK/src deb
	TARBALL=/usr/src/$pkg.tar.xz
	[ -f "$TARBALL" ] && return 0
	if [ -z "${B_SUITE[$b]}" ]; then
		say "installing $pkg with apt"
		[ "$(id -u)" -eq 0 ] || die "$TARBALL missing; run 'make deps' as root"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"$pkg" >&2
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

# Unpack BASE's tarball once into a git repository (B_REPO), tag the
# pristine tree 'base'; the other trees of the base are worktrees of it.
ensure_repo() {
	local b=$1 repo=${B_REPO[$1]} pkg=${B_PKG[$1]} tmp v
	if [ -d "$repo/.git" ] && git -C "$repo" rev-parse -q --verify base >/dev/null; then
		return 0
	fi
	ensure_tarball "$b"
	say "unpacking $TARBALL"
	mkdir -p "$(dirname "$repo")"
	tmp=$(mktemp -d "$TREES/unpack.XXXXXX")
	tar -C "$tmp" -xf "$TARBALL"
	[ -d "$tmp/$pkg" ] || die "unexpected tarball layout (no $pkg/ in $TARBALL)"
	rm -rf "$repo"
	mv "$tmp/$pkg" "$repo"
	rmdir "$tmp"
	v=$(make -s -C "$repo" kernelversion 2>/dev/null)
	[ "$v" = "${B_VERSION[$b]}" ] ||
		die "$pkg is $v, the series on $b are written for ${B_VERSION[$b]}"
	say "committing the pristine tree"
	git -C "$repo" init -q -b ppwatch-base
	git -C "$repo" config user.name "ppwatch rig"
	git -C "$repo" config user.email "rig@localhost"
	git -C "$repo" config gc.auto 0
	# Debian's top-level .gitignore ignores '/*': force-add the tarball as is
	git -C "$repo" add -f -A
	# a fixed identity and date: the same tarball gives the same 'base'
	# commit on every machine, the one the base-commit: lines of the
	# series name
	GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z \
		git -C "$repo" commit -q -m "Debian $pkg $v"
	git -C "$repo" tag base
}
