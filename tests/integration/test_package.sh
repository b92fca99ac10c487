#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The artifacts that leave the build host: 'make static' (one file, no
# shared library, runs where there are none) and 'make deb' (installs,
# ppwatch runs from it, removes cleanly), and the bash completion's pool ids
# and device names on the running kernel.

ALL_TESTS="
	static_has_no_dynamic_dependencies
	static_runs_with_no_libraries_beside_it
	static_sees_the_lab
	deb_installs_runs_and_removes
	completion_names_pools_and_devices
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

STATIC=$OUTPUT/static/ppwatch

require_static() {
	[ -x "$STATIC" ] || fail "$STATIC missing: run make static"
}

static_has_no_dynamic_dependencies() {
	require_static
	local f
	f=$(file -L "$STATIC")
	log "$f"
	check "file(1) says statically linked" grep -q 'statically linked' <<<"$f"
	check "ldd finds nothing to load" bash -c "! ldd '$STATIC' >/dev/null 2>&1"
	check "no ELF interpreter" bash -c "! readelf -l '$STATIC' | grep -q 'INTERP'"
	check "ppwatch help runs" "$STATIC" help >/dev/null
	log "size $(stat -c %s "$STATIC") bytes"
}

# a root with nothing in it but the binary: what an initramfs without shared
# libraries gives it
static_runs_with_no_libraries_beside_it() {
	require_root
	require_static
	local root
	root=$(mktemp -d /tmp/ppwt-static.XXXXXX)
	at_exit "rm -rf '$root'"
	cp "$STATIC" "$root/ppwatch"
	check "help runs in an empty root" chroot "$root" /ppwatch help >/dev/null
	check "version runs in an empty root" chroot "$root" /ppwatch --version >/dev/null
	check "the completion words come out" \
		bash -c "chroot '$root' /ppwatch __complete commands | grep -qx pools"
}

static_sees_the_lab() {
	require_kernel
	require_static
	lab_begin
	local doc pool
	doc=$("$STATIC" pools -j) || fail "static ppwatch pools -j failed"
	pool=$(vb_pool "$doc") || fail "the static binary does not list the lab's pool: $doc"
	log "$(jq -c '{id, device, inflight, state}' <<<"$pool")"
	check "the lab's pool is live" jq -e '.state == "live"' <<<"$pool" >/dev/null
	check "it has inflight pages" num "$(jget "$pool" .inflight) > 0"
}

deb_installs_runs_and_removes() {
	require_kernel
	local debs deb files doc
	debs=("$OUTPUT"/deb/ppwatch_*.deb)
	deb=${debs[0]}
	[ -f "$deb" ] || fail "no package in $OUTPUT/deb: run make deb"
	dpkg-query -W -f='${Status}' ppwatch 2>/dev/null | grep -q 'ok installed' &&
		skip "a ppwatch package is installed on this machine already: not touching it"
	at_exit "dpkg -r ppwatch >/dev/null 2>&1"
	dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb"
	files=$(dpkg -L ppwatch)
	for f in /usr/sbin/ppwatch /usr/share/man/man8/ppwatch.8.gz \
		/usr/share/man/man8/ppwatch-pools.8.gz \
		/usr/share/bash-completion/completions/ppwatch \
		/usr/share/doc/ppwatch/copyright /usr/share/doc/ppwatch/examples/fleet.yaml \
		/usr/share/ppwatch/dashboards/ppwatch.json \
		/usr/share/ppwatch/dashboards/ppwatch-alerts.yml; do
		grep -qx "$f" <<<"$files" || fail "the package has no $f"
		[ -e "$f" ] || fail "$f not installed"
	done
	lab_begin
	doc=$(/usr/sbin/ppwatch pools -j) || fail "the installed ppwatch pools -j failed"
	vb_pool "$doc" >/dev/null || fail "the installed ppwatch does not list the lab's pool"
	/usr/sbin/ppwatch pools >/dev/null || fail "the installed ppwatch pools failed"
	log "installed: $(/usr/sbin/ppwatch --version), $(wc -l <<<"$files") paths"
	dpkg -r ppwatch >/dev/null || fail "dpkg -r ppwatch"
	for f in /usr/sbin/ppwatch /usr/share/bash-completion/completions/ppwatch \
		/usr/share/doc/ppwatch /usr/share/ppwatch; do
		[ ! -e "$f" ] || fail "$f left behind by dpkg -r"
	done
	dpkg-query -W -f='${Status}' ppwatch 2>/dev/null | grep -q 'ok installed\|config-files' &&
		fail "dpkg still lists ppwatch: $(dpkg-query -W -f='${Status}' ppwatch)"
	return 0
}

# "WORDS..." -> what bash completion offers for the last (empty) word
complete_line() {
	read -ra COMP_WORDS <<<"$1"
	COMP_WORDS+=('')
	COMP_WORDS[0]=$PPWATCH
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ppwatch
	echo "${COMPREPLY[*]}"
}

completion_names_pools_and_devices() {
	require_kernel
	lab_begin
	local doc id ids devs t0
	# shellcheck source=../../bash-completion/ppwatch
	. "$TOP/bash-completion/ppwatch"
	doc=$("$PPWATCH" pools -j) || fail "pools -j"
	id=$(vb_pool "$doc" | jq -r .id) || fail "no lab pool"
	t0=$(date +%s%N)
	ids=" $(complete_line "ppwatch pools pool") "
	log "pool ids offered in $((($(date +%s%N) - t0) / 1000000)) ms:$ids"
	[[ $ids == *" $id "* ]] || fail "the lab's pool $id is not offered after 'pool'"
	devs=" $(complete_line "ppwatch holders dev") "
	log "devices offered:$devs"
	[[ $devs == *" vb "* ]] || fail "the lab's device vb is not offered after 'dev'"
	# positional: keywords, ids and devices together (cached lookup)
	local all
	all=" $(complete_line "ppwatch -j pools") "
	[[ $all == *" group-by "* && $all == *" $id "* && $all == *" vb "* ]] ||
		fail "pools <TAB> should offer keywords, ids and devices: $all"
	# a ppwatch that hangs costs the user PPWATCH_COMPLETE_TIMEOUT, no more
	local slow
	slow=$(mktemp /tmp/ppwt-slow.XXXXXX)
	at_exit "rm -f '$slow'"
	printf '#!/bin/sh\n[ "$1" = __complete ] && exec %s "$@"\nsleep 30\n' "$PPWATCH" >"$slow"
	chmod +x "$slow"
	unset _ppwatch_pools_at
	t0=$SECONDS
	PPWATCH=$slow PPWATCH_COMPLETE_TIMEOUT=1 complete_line "ppwatch pools pool" >/dev/null
	((SECONDS - t0 <= 3)) || fail "a hanging ppwatch held completion for $((SECONDS - t0))s"
}

run_tests
