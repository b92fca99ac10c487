#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make deb: lay out ppwatch's Debian package and build it with dpkg-deb,
# then hold it to lintian. What debhelper would do, by hand and in one
# place: strip, compress man pages and changelog (gzip -n), md5sums,
# Depends from dpkg-shlibdeps, root-owned files, reproducible times
# (SOURCE_DATE_EPOCH: the last commit's).
#
#   scripts/mkdeb.sh BINARY MANDIR VERSION DEB
#
# BINARY is built with dpkg-buildflags (the Makefile's deb target), MANDIR
# holds the .8 pages, DEB is the package to write; the tree is laid out
# beside it (DEB without .deb). LINTIAN= skips the lintian run.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -eq 4 ] || { echo "usage: $0 BINARY MANDIR VERSION DEB" >&2; exit 2; }
bin=$1 mandir=$2 version=$3 deb=$4
stage=${deb%.deb}
pkg=ppwatch
arch=$(dpkg --print-architecture)
maint=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null ||
	echo 'ppwatch maintainers <maintainers@users.noreply.a-seed-220e7f50.example>')}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
doc=$stage/usr/share/doc/$pkg

rm -rf "$stage" "$deb"
install -d -m 0755 "$stage/DEBIAN" "$stage/usr/sbin" "$stage/usr/share/man/man8" \
	"$stage/usr/share/bash-completion/completions" "$doc/examples" \
	"$stage/usr/share/$pkg/dashboards" "$stage/usr/share/$pkg/schema/recording" \
	"$stage/lib/systemd/system" "$stage/etc/default" \
	"$stage/usr/lib/sysusers.d" "$stage/etc/init.d"

# the binary, stripped as dh_strip does
install -m 0755 "$bin" "$stage/usr/sbin/$pkg"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/usr/sbin/$pkg"

for m in "$mandir"/*.8; do
	gz=$stage/usr/share/man/man8/${m##*/}.gz
	gzip -9n <"$m" >"$gz"
done
install -m 0644 bash-completion/ppwatch "$stage/usr/share/bash-completion/completions/$pkg"
install -m 0644 examples/*.yaml examples/web-config.yml "$doc/examples/"
# the services (systemd/): the exporter enabled, the recorder not (postinst)
for u in ppwatch-export ppwatch-record; do
	sed 's|@SBINDIR@|/usr/sbin|g' "systemd/$u.service" >"$stage/lib/systemd/system/$u.service"
	sed 's|@SBINDIR@|/usr/sbin|g' "systemd/$u.init" >"$stage/etc/init.d/$u"
done
# the exporter's listening socket (socket activation: --systemd-socket)
install -m 0644 systemd/ppwatch-export.socket "$stage/lib/systemd/system/"
install -m 0644 systemd/ppwatch.default "$stage/etc/default/$pkg"
install -m 0644 systemd/ppwatch.sysusers "$stage/usr/lib/sysusers.d/$pkg.conf"
install -m 0755 systemd/postinst systemd/prerm systemd/postrm "$stage/DEBIAN/"
printf '%s\n' "/etc/default/$pkg" /etc/init.d/ppwatch-export /etc/init.d/ppwatch-record \
	>"$stage/DEBIAN/conffiles"
install -m 0644 dashboards/ppwatch.json dashboards/ppwatch-alerts.yml \
	"$stage/usr/share/$pkg/dashboards/"
# the JSON contract: the schemas of -j and of the recording (docs/schema/README.md)
install -m 0644 docs/schema/*.json "$stage/usr/share/$pkg/schema/"
install -m 0644 docs/schema/recording/*.json "$stage/usr/share/$pkg/schema/recording/"
gzip -9n <README.md >"$doc/README.md.gz"
gzip -9n <dashboards/README.md >"$doc/README.dashboards.md.gz"
gzip -9n <docs/schema/README.md >"$doc/README.schema.md.gz"

date_r=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
{
	echo "$pkg ($version) unstable; urgency=medium"
	echo
	echo "  * Built from the ppwatch tree$(git describe --always --dirty 2>/dev/null |
		sed 's/^/ at /')."
	echo
	echo " -- $maint  $date_r"
} | gzip -9n >"$doc/changelog.gz"

cat >"$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ppwatch
Upstream-Contact: $maint
Comment: /usr/sbin/ppwatch also contains the kernel's YNL netlink library
 (tools/net/ynl/lib) and code generated from the kernel's netdev netlink
 spec (Documentation/netlink/specs/netdev.yaml), both taken from Debian's
 linux-source-6.12 at build time; see the last two paragraphs.

Files: *
Copyright: 2026 $maint
License: LGPL-2.1 or BSD-2-Clause

Files: linux/tools/net/ynl/lib/*
Copyright: the Linux kernel's YNL authors
License: GPL-2.0 or BSD-3-Clause

Files: linux/Documentation/netlink/specs/netdev.yaml
Copyright: the Linux kernel's netdev netlink spec authors
License: GPL-2.0 with Linux-syscall-note exception or BSD-3-Clause
Comment: the generated netdev-user.c carries the spec's licence.

License: LGPL-2.1
 On Debian systems, the complete text of the GNU Lesser General Public
 License version 2.1 is in /usr/share/common-licenses/LGPL-2.1.

License: GPL-2.0
 On Debian systems, the complete text of the GNU General Public License
 version 2 is in /usr/share/common-licenses/GPL-2.

License: GPL-2.0 with Linux-syscall-note exception
 NOTE! This copyright does *not* cover user programs that use kernel
 services by normal system calls - this is merely considered normal use
 of the kernel, and does *not* fall under the heading of "derived work".
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 is in /usr/share/common-licenses/GPL-2.

License: BSD-2-Clause
$(sed 's/^/ /; s/^ $/ ./' <<'LICENSE'
Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice,
   this list of conditions and the following disclaimer.
2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
POSSIBILITY OF SUCH DAMAGE.
LICENSE
)

License: BSD-3-Clause
$(sed 's/^/ /; s/^ $/ ./' <<'LICENSE'
Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice,
   this list of conditions and the following disclaimer.
2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.
3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
POSSIBILITY OF SUCH DAMAGE.
LICENSE
)
EOF

# Depends: the shared libraries the binary links, as dpkg-shlibdeps finds
# them (it wants a debian/control; a minimal one in a scratch directory)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' $pkg $pkg >"$scratch/debian/control"
abs=$(readlink -f "$stage/usr/sbin/$pkg")
depends=$(cd "$scratch" && dpkg-shlibdeps -O -e"$abs" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "mkdeb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat >"$stage/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Pre-Depends: init-system-helpers (>= 1.54~)
Depends: $depends, adduser
Section: net
Priority: optional
Description: page_pool inflight pages of the Linux kernel, live
 ppwatch shows the kernel's page_pool "inflight" state as it happens: every
 pool's inflight pages and bytes, the age of each inflight page, which pools
 are zombies (destroyed by their driver while pages are still out), who
 holds their pages, and when such a pool is finally freed.
 .
 It is a libbpf CO-RE tool built on tracepoints and BPF iterators, in the
 style of bpftool: pools, top, holders, pages, stacks, watch, record,
 postmortem, check (CI assertions) and export (a Prometheus endpoint, with
 a Grafana dashboard and alert rules in /usr/share/ppwatch/dashboards).
 .
 Two services: ppwatch-export (enabled: metrics on 127.0.0.1:9478, TLS and
 basic auth by an exporter-toolkit web config) and ppwatch-record (not
 enabled: a bounded flight recorder into /var/lib/ppwatch for postmortem).
EOF

find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f ! -path "$stage/usr/sbin/*" ! -path "$stage/DEBIAN/*" -exec chmod 0644 {} +
# conffiles are not in md5sums (dpkg keeps their sums itself)
(cd "$stage" && find usr lib -type f | LC_ALL=C sort | xargs md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums" "$stage/DEBIAN/conffiles"
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm" \
	"$stage"/etc/init.d/*
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "  DEB      $deb"

if [ -n "${LINTIAN-lintian}" ]; then
	# lintian-clean: no error, warning or info tag, overrides none
	out=$(${LINTIAN:-lintian} --display-info --fail-on error,warning,info "$deb" 2>&1 |
		grep -v '^running with root privileges is not recommended!$'; exit "${PIPESTATUS[0]}") || {
		printf '%s\n' "$out" >&2
		echo "mkdeb: lintian is not clean on $deb" >&2
		exit 1
	}
	[ -z "$out" ] || printf '%s\n' "$out"
	echo "  LINTIAN  clean"
fi
