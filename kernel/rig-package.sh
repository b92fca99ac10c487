# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=bash # sourced by kernel/rig.sh
#
# The package side of the kernel rig: kernel/matrix lines of KIND package,
# Debian kernel packages booted as they are (nothing is built).
#
# SOURCE is SUITE/PACKAGE, e.g. trixie-backports/linux-image-amd64. Every
# apt command goes through kernel/apt.sh SUITE (its own sources list, lists
# and cache under $KERNEL_WORK/apt/SUITE, the machine's mirror URIs), so a
# Debian 12 host reaches bullseye to sid without a change to its own apt
# configuration. PACKAGE is followed at run time: a metapackage
# (linux-image-amd64) to whatever its suite's candidate depends on, so a
# line tracks what a fresh machine of that release boots.
#
# Layouts, found from the packages' file lists, never from version numbers:
#  - one package with /boot/vmlinuz-KVER and /lib/modules/KVER (Debian 11,
#    12) or /usr/lib/modules/KVER (merged /usr: 6.12+deb13 and later);
#  - split (7.x): linux-image-KVER is a 2 kB package that depends on
#    linux-binary-KVER (/usr/lib/modules/KVER/vmlinuz) and
#    linux-modules-KVER (the modules).
#
# pkgs/NAME/ holds the .debs, 'stamp' (what was resolved: suite, every
# package=version, modules=), 'package' (one line for people and the
# guest: suite, package, version, kernel release), vmlinuz, config, the
# modules the line asks for with their dependencies (uncompressed) under
# root/, and modules.load (their guest paths, dependencies first).

PKGS=$KERNEL_WORK/pkgs

pkg_suite() { echo "${M_SRC[$1]%%/*}"; }
pkg_name() { echo "${M_SRC[$1]#*/}"; }

# apt for the line's suite (kernel/apt.sh)
pkg_apt() {
	local suite=$1
	shift
	KERNEL_WORK=$KERNEL_WORK "$ROOT/kernel/apt.sh" "$suite" "$@"
}

# PKG_CLOSURE: PACKAGE and the kernel packages it depends on, recursively:
# the first alternative of each Depends that is a real package named
# linux-image-*, linux-binary-*, linux-modules-* or linux-base-* (7.x: the
# config and modules.builtin; not 'linux-base', the tools). Sets a global
# so that die() stops the run.
pkg_closure() {
	local suite=$1 todo=$2 p dep
	declare -A seen=()
	PKG_CLOSURE=()
	while [ -n "$todo" ]; do
		p=${todo%% *}
		todo=${todo#"$p"}
		todo=${todo# }
		[ -z "${seen[$p]:-}" ] || continue
		seen[$p]=1
		PKG_CLOSURE+=("$p")
		for dep in $(pkg_apt "$suite" apt-cache depends "$p" | awk '
			/^  \|Depends: / { if (!alt) print $2; alt = 1; next }
			/^  Depends: / { if (!alt) print $2; alt = 0; next }
			{ alt = 0 }' | grep -E '^linux-(image|binary|modules|base)-' || true); do
			todo="$todo $dep"
			todo=${todo# }
		done
	done
}

# module_file NAME LIST: the path (in LIST, one a line) of module NAME
# ('-' and '_' alike, any compression)
module_file() {
	local want
	want=$(echo "$1" | tr - _)
	awk -v w="$want" '{
		n = $0; sub(/.*\//, "", n); sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", n); gsub(/-/, "_", n)
		if (n == w && $0 ~ /\.ko(\.xz|\.zst|\.gz)?$/) { print; exit } }' "$2"
}

# package_resolve NAME: what line NAME's package is today: PKG_PINS
# (package=version of the closure) and PKG_WANT (the stamp: suite, pins,
# modules=); PKG_WANT is the stamp of the one fetched before, PKG_PINS
# empty, when the suite cannot be read (no mirror) and one was
package_resolve() {
	local name=$1 suite pkg dir=$PKGS/$1 p ver
	PKG_PINS=()
	suite=$(pkg_suite "$name") pkg=$(pkg_name "$name")
	if [ "$suite/$pkg" != "${M_SRC[$name]}" ] || [ -z "$suite" ] || [ -z "$pkg" ]; then
		die "$name: a package kernel's source is SUITE/PACKAGE (e.g. trixie/linux-image-amd64), not '${M_SRC[$name]}'"
	fi
	mkdir -p "$dir"
	if ! pkg_apt "$suite" apt-cache show "$pkg" >/dev/null 2>"$dir/apt.err"; then
		if [ -s "$dir/vmlinuz" ] && [ -s "$dir/package" ] && [ -s "$dir/stamp" ]; then
			say "WARNING: $name: no '$pkg' in $suite ($(tail -n1 "$dir/apt.err")): booting the one fetched before: $(cat "$dir/package")"
			PKG_WANT=$(cat "$dir/stamp")
			return 0
		fi
		cat "$dir/apt.err" >&2
		die "$name: $suite has no package '$pkg' (kernel/apt.sh $suite apt-cache show $pkg)"
	fi
	pkg_closure "$suite" "$pkg"
	for p in "${PKG_CLOSURE[@]}"; do
		ver=$(pkg_apt "$suite" apt-cache policy "$p" | sed -n 's/^  Candidate: //p')
		if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then die "$name: no installable version of $p in $suite"; fi
		PKG_PINS+=("$p=$ver")
	done
	PKG_WANT="$suite ${PKG_PINS[*]} modules=$(opt "$name" modules)"
}

fetch_package() {
	local name=$1 suite dir=$PKGS/$1 p ver want f real=
	local -a pins=()
	suite=$(pkg_suite "$name")
	package_resolve "$name"
	[ ${#PKG_PINS[@]} -gt 0 ] || return 0	# the one fetched before (said)
	pins=("${PKG_PINS[@]}") want=$PKG_WANT
	if [ "$(cat "$dir/stamp" 2>/dev/null)" = "$want" ] && [ -s "$dir/vmlinuz" ]; then
		say "$name: $(cat "$dir/package") (already unpacked)"
		return 0
	fi
	rm -rf "$dir/root" "$dir/x" "$dir/stamp" "$dir/package" "$dir/vmlinuz" "$dir/config"
	# the .debs of this resolution; any other left over from before goes
	local -a debs=() keep=()
	for p in "${pins[@]}"; do
		keep+=("$(first_deb "$dir" "${p%%=*}" "${p#*=}")")
	done
	for f in "$dir"/*.deb; do
		[ -e "$f" ] || continue
		case " ${keep[*]} " in *" $f "*) ;; *) rm -f "$f" ;; esac
	done
	local -a get=()
	for p in "${pins[@]}"; do
		[ -n "$(first_deb "$dir" "${p%%=*}" "${p#*=}")" ] || get+=("$p")
	done
	if [ ${#get[@]} -gt 0 ]; then
		say "$name: $suite: apt-get download ${get[*]}"
		(cd "$dir" && pkg_apt "$suite" apt-get download -q "${get[@]}" 2>&1 |
			grep -v 'unsandboxed as root' >&2) || true
	fi
	for p in "${pins[@]}"; do
		f=$(first_deb "$dir" "${p%%=*}" "${p#*=}")
		[ -n "$f" ] || die "$name: apt-get download ${p} failed ($suite)"
		debs+=("$f")
	done
	# unpack them all (a few hundred MB at most), find the kernel in the
	# file lists, keep what the guest needs
	mkdir -p "$dir/x"
	for f in "${debs[@]}"; do dpkg-deb -x "$f" "$dir/x"; done
	(cd "$dir/x" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort) >"$dir/files.list"
	local img kver
	img=$(grep -E '^boot/vmlinuz-[^/]+$|^(usr/)?lib/modules/[^/]+/vmlinuz$' "$dir/files.list" | head -n1)
	[ -n "$img" ] || die "$name: no kernel image (boot/vmlinuz-* or lib/modules/*/vmlinuz) in ${PKG_CLOSURE[*]}"
	case "$img" in
	boot/vmlinuz-*) kver=${img#boot/vmlinuz-} ;;
	*) kver=${img%/vmlinuz}; kver=${kver##*/} ;;
	esac
	for p in "${pins[@]}"; do
		case "${p%%=*}" in linux-image-"$kver"*) real=${p%%=*} ver=${p#*=} ;; esac
	done
	[ -n "$real" ] || { real=${pins[-1]%%=*}; ver=${pins[-1]#*=}; }
	cp "$dir/x/$img" "$dir/vmlinuz"
	for p in "boot/config-$kver" "usr/lib/modules/$kver/config" "lib/modules/$kver/config"; do
		[ -f "$dir/x/$p" ] && { cp "$dir/x/$p" "$dir/config"; break; }
	done
	package_modules "$name" "$kver"
	rm -rf "$dir/x"
	echo "suite=$suite package=$real version=$ver release=$kver" >"$dir/package"
	echo "$want" >"$dir/stamp"
	say "$name: $(cat "$dir/package") unpacked ($img), modules: $(tr '\n' ' ' <"$dir/modules.load")"
}

# first_deb DIR PACKAGE VERSION: the downloaded .deb of PACKAGE=VERSION
first_deb() {
	local f
	for f in "$1/$2_"*.deb; do
		[ -e "$f" ] || continue
		[ "$(dpkg-deb -f "$f" Version)" = "$3" ] && { echo "$f"; return 0; }
	done
	return 0
}

# Copy the modules of the matrix line and what they depend on from the
# unpacked packages (pkgs/NAME/x) into root/; write modules.load (guest
# paths, dependencies first).
package_modules() {
	local name=$1 kver=$2 dir=$PKGS/$1 m builtin
	: >"$dir/modules.load"
	declare -A seen=()
	# (KVER is no regular expression: 7.3.4+deb13-amd64)
	awk -v a="lib/modules/$kver/" -v b="usr/lib/modules/$kver/" \
		'index($0, a) == 1 || index($0, b) == 1' "$dir/files.list" >"$dir/modules.list"
	# modules built into the kernel (modules.builtin: kernel/.../NAME.ko)
	builtin=$(grep -E '^(usr/)?lib/modules/[^/]+/modules\.builtin$' "$dir/files.list" |
		grep -F "/$kver/" | head -n1 || true)
	# depth-first, dependencies first
	visit() {
		local m=$1 f d
		m=$(echo "$m" | tr - _)
		[ -z "${seen[$m]:-}" ] || return 0
		seen[$m]=1
		f=$(module_file "$m" "$dir/modules.list")
		if [ -z "$f" ] && [ -n "$builtin" ] && [ -n "$(module_file "$m" "$dir/x/$builtin")" ]; then
			say "$name: $m is built into $kver"
			return 0
		fi
		[ -n "$f" ] || die "$name: no module '$m' in the packages of $kver"
		install -D -m 0644 "$dir/x/$f" "$dir/root/$f"
		case "$f" in
		*.xz) xz -d -f "$dir/root/$f"; f=${f%.xz} ;;
		*.zst) zstd -q -d --rm -f "$dir/root/$f"; f=${f%.zst} ;;
		*.gz) gzip -d -f "$dir/root/$f"; f=${f%.gz} ;;
		esac
		# the .modinfo section's depends= (no kmod needed on the host)
		for d in $(objcopy -O binary --only-section=.modinfo "$dir/root/$f" /dev/stdout |
			   tr '\0' '\n' | sed -n 's/^depends=//p' | tr , ' '); do
			visit "$d"
		done
		echo "/$f" >>"$dir/modules.load"
	}
	for m in $(opt "$name" modules | tr , ' '); do visit "$m"; done
}

# the package kernel's lines of /vm/kernel.env
package_env() {
	echo "PPVM_PACKAGE='$(cat "$PKGS/$1/package")'"
}

# the package kernel's modules into the overlay staged at $2
package_overlay() {
	local name=$1 st=$2 m
	: >"$st/vm/modules.load"
	while read -r m; do
		install -D -m 0644 "$PKGS/$name/root$m" "$st$m"
		echo "$m" >>"$st/vm/modules.load"
	done <"$PKGS/$name/modules.load"
}
