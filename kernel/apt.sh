#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# apt for one Debian suite, privately: its own sources list, lists and
# package cache under $KERNEL_WORK/apt/SUITE, the mirror URIs taken from
# the machine's own apt sources. The host's sources, lists, cache and
# dpkg status are never read or written, so any suite from bullseye to
# experimental is reachable from a Debian 12 host without changing it.
#
#   kernel/apt.sh SUITE apt-get ARGS...    e.g. SUITE download linux-source-7.3
#   kernel/apt.sh SUITE apt-cache ARGS...  e.g. SUITE policy linux-image-amd64
#   kernel/apt.sh SUITE update             fetch the suite's lists again
#
# SUITE is what a fresh machine of that release follows:
#   bullseye bookworm trixie   the release with its -updates and -security
#   NAME-backports             that backports suite alone (its kernels depend
#                              only on packages of the same suite)
#   sid unstable experimental  one suite each
# The lists are fetched on first use and again when older than
# KERNEL_APT_MAX_AGE seconds (default 86400); KERNEL_APT_OFFLINE=1 never
# fetches (what was fetched before is used, or the command fails).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kernel/workdir.sh
. "$ROOT/kernel/workdir.sh"
MAX_AGE=${KERNEL_APT_MAX_AGE:-86400}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() { printf 'apt.sh: ERROR: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: kernel/apt.sh SUITE apt-get|apt-cache|update ARGS..."
suite=$1 tool=$2
shift 2
case "$suite" in
*[!a-z-]* | "") die "bad suite name '$suite'" ;;
esac
case "$tool" in
apt-get | apt-cache | update) ;;
*) die "'$tool': want apt-get, apt-cache or update" ;;
esac

# the machine's mirror URIs: deb822 (URIs:) or one-line sources; the
# security archive is the URI with 'security' in it
host_uris() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case "$f" in
		*.sources) sed -n 's/^URIs:[[:space:]]*//p' "$f" | tr ' ' '\n' ;;
		*) sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p' "$f" ;;
		esac
	done | sed 's|/*$||' | awk 'NF && !seen[$0]++'
}
mapfile -t uris < <(host_uris)
main_uri='' sec_uri=''
for u in "${uris[@]}"; do
	case "$u" in
	*security*) [ -n "$sec_uri" ] || sec_uri=$u ;;
	*) [ -n "$main_uri" ] || main_uri=$u ;;
	esac
done
main_uri=${main_uri:-http://deb.debian.org/debian}
sec_uri=${sec_uri:-${main_uri%/debian}/debian-security}

dir=$KERNEL_WORK/apt/$suite
list=$dir/sources.list
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/empty"
{
	line() { echo "deb [signed-by=$KEYRING] $1 $2 main"; }
	case "$suite" in
	*-backports | sid | unstable | experimental) line "$main_uri" "$suite" ;;
	*)
		line "$main_uri" "$suite"
		line "$main_uri" "$suite-updates"
		line "$sec_uri" "$suite-security"
		;;
	esac
} >"$list.new"
if ! cmp -s "$list.new" "$list" 2>/dev/null; then
	mv "$list.new" "$list"
	rm -f "$dir/stamp"
else
	rm -f "$list.new"
fi

# no host file: an empty folder stands for sources.list.d and preferences.d
opts=(-o "Dir::Etc::sourcelist=$list" -o "Dir::Etc::sourceparts=$dir/empty"
      -o "Dir::State::Lists=$dir/lists" -o Dir::State::status=/dev/null
      -o "Dir::Cache=$dir/cache" -o "Dir::Etc::preferencesparts=$dir/empty"
      -o "Dir::Etc::preferences=$dir/empty/none" -o APT::Get::AllowUnauthenticated=false)

update() {
	printf 'apt.sh: %s: apt-get update (%s)\n' "$suite" "$main_uri" >&2
	apt-get -q "${opts[@]}" update >"$dir/update.log" 2>&1 ||
		{ tail -5 "$dir/update.log" >&2; die "$suite: apt-get update failed ($dir/update.log)"; }
	# a suite the mirror does not have is an error, not an empty list
	grep -q '^\(Err\|E\):' "$dir/update.log" &&
		{ grep '^\(Err\|E\|W\):' "$dir/update.log" >&2; die "$suite: the mirror did not serve it"; }
	date +%s >"$dir/stamp"
}

if [ "$tool" = update ]; then
	update
	exit 0
fi
stamp=$(cat "$dir/stamp" 2>/dev/null || echo 0)
if [ $(($(date +%s) - stamp)) -gt "$MAX_AGE" ]; then
	if [ "${KERNEL_APT_OFFLINE:-0}" = 1 ]; then
		[ "$stamp" -gt 0 ] || die "$suite: no lists fetched yet and KERNEL_APT_OFFLINE=1"
	else
		update
	fi
fi
exec "$tool" "${opts[@]}" "$@"
