#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The artifacts that leave the build host: 'make static' (one file, no
# shared library, runs where there are none), 'make deb' (installs with its
# services, ppwatch runs from it, removes and purges cleanly) and 'make
# install' (the same files under a DESTDIR), the systemd units (verified,
# their security exposure measured, the exporter run with the unit's
# capabilities), and the bash completion's pool ids and device names on
# the running kernel.

ALL_TESTS="
	static_has_no_dynamic_dependencies
	static_runs_with_no_libraries_beside_it
	static_sees_the_lab
	deb_installs_runs_and_removes
	make_install_installs_the_services
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
	# pages out only because the test holds them (the lab sends nothing
	# else; the socket's receive buffer keeps as many as it has room for)
	lab_hold 300 1000 >/dev/null || fail "holder"
	doc=$("$STATIC" pools -j) || fail "static ppwatch pools -j failed"
	pool=$(vb_pool "$doc") || fail "the static binary does not list the lab's pool: $doc"
	log "$(jq -c '{id, device, inflight, state}' <<<"$pool")"
	check "the lab's pool is live" jq -e '.state == "live"' <<<"$pool" >/dev/null
	check "it has the held pages out" num "$(jget "$pool" .inflight) > 0"
}

# systemd-analyze verify, and security's exposure (offline: systemd need not
# be PID 1) of the units in DIR; EXPOSURE_ppwatch_export etc. are set
verify_units() {	# dir [systemd-analyze verify options]
	local dir=$1 u out
	shift
	command -v systemd-analyze >/dev/null || { skip_note "no systemd-analyze: the units not verified"; return 0; }
	out=$(cd "$dir" && systemd-analyze verify "$@" ppwatch-export.socket ppwatch-export.service \
		ppwatch-record.service 2>&1)
	check "systemd-analyze verify: clean ($out)" [ -z "$out" ]
	for u in ppwatch-export ppwatch-record; do
		out=$(cd "$dir" && systemd-analyze security --offline=true "$u.service" 2>&1 | tail -1)
		log "$u.service: ${out#→ }"
		out=$(sed -n 's/.*exposure level for [^:]*: \([0-9.]*\) .*/\1/p' <<<"$out")
		check "$u.service: an exposure figure" [ -n "$out" ]
		# 'OK' is below 4.5 in systemd's own scale; these are hardened to under
		# 3.5, the exporter (which serves the network) to 2.0 at most
		check "$u.service: exposure $out under 3.5" num "$out < 3.5"
		if [ $u = ppwatch-export ]; then
			check "$u.service: exposure $out at most 2.0" num "$out <= 2.0"
		fi
	done
}

# 'ExecStart=' of a unit, its options file's variables filled in by ARGS
unit_cmd() {	# unit-file args
	sed -n 's/^ExecStart=//p' "$1" | sed "s|\$[A-Z_]*ARGS|$2|"
}

# the unit's CapabilityBoundingSet, as setpriv takes it (+cap_bpf,...)
unit_caps() {
	sed -n 's/^CapabilityBoundingSet=//p' "$1" | tr ' ' '\n' | tr '[:upper:]' '[:lower:]' |
		sed 's/^cap_/+/' | paste -sd,
}

deb_installs_runs_and_removes() {
	require_kernel
	local debs deb files doc f cmd pid st caps port uerr
	debs=("$OUTPUT"/deb/ppwatch_*.deb)
	deb=${debs[0]}
	uerr=/tmp/ppwt$BASHPID.unit.err
	[ -f "$deb" ] || fail "no package in $OUTPUT/deb: run make deb"
	dpkg-query -W -f='${Status}' ppwatch 2>/dev/null | grep -q 'ok installed' &&
		skip "a ppwatch package is installed on this machine already: not touching it"
	# no daemon starts while the package installs here, as in a chroot
	# (invoke-rc.d asks policy-rc.d); the init.d script is run below by hand
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 0755 /usr/sbin/policy-rc.d
		at_exit "rm -f /usr/sbin/policy-rc.d"
	fi
	at_exit "dpkg -P ppwatch >/dev/null 2>&1"
	dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb"
	files=$(dpkg -L ppwatch)
	for f in /usr/sbin/ppwatch /usr/share/man/man8/ppwatch.8.gz \
		/usr/share/man/man8/ppwatch-pools.8.gz \
		/usr/share/bash-completion/completions/ppwatch \
		/usr/share/doc/ppwatch/copyright /usr/share/doc/ppwatch/examples/fleet.yaml \
		/usr/share/doc/ppwatch/examples/web-config.yml \
		/usr/share/ppwatch/dashboards/ppwatch.json \
		/usr/share/ppwatch/dashboards/ppwatch-alerts.yml \
		/lib/systemd/system/ppwatch-export.service /lib/systemd/system/ppwatch-export.socket \
		/lib/systemd/system/ppwatch-record.service \
		/etc/default/ppwatch /etc/init.d/ppwatch-export /etc/init.d/ppwatch-record \
		/usr/lib/sysusers.d/ppwatch.conf; do
		grep -qx "$f" <<<"$files" || fail "the package has no $f"
		[ -e "$f" ] || fail "$f not installed"
	done
	check "the .deb ships examples/web-config.yml (the one test_export_web runs)" \
		cmp -s "$TOP/examples/web-config.yml" /usr/share/doc/ppwatch/examples/web-config.yml
	check "the ppwatch user exists" getent passwd ppwatch >/dev/null
	check "ExecStart is the installed binary" grep -q '^ExecStart=/usr/sbin/ppwatch export --systemd-socket \$EXPORT_ARGS$' \
		/lib/systemd/system/ppwatch-export.service
	verify_units /lib/systemd/system
	if [ -d /run/systemd/system ]; then
		check "ppwatch-export enabled" systemctl -q is-enabled ppwatch-export.service
		check "ppwatch-record not enabled" bash -c '! systemctl -q is-enabled ppwatch-record.service'
	else
		# no systemd running: what deb-systemd-helper recorded
		check "ppwatch-export enabled (symlink)" \
			[ -L /etc/systemd/system/multi-user.target.wants/ppwatch-export.service ]
		check "ppwatch-record not enabled" \
			[ ! -e /etc/systemd/system/multi-user.target.wants/ppwatch-record.service ]
		log "systemd is not PID 1 here: the units are verified, not started"
	fi
	lab_begin
	doc=$(/usr/sbin/ppwatch pools -j) || fail "the installed ppwatch pools -j failed"
	vb_pool "$doc" >/dev/null || fail "the installed ppwatch does not list the lab's pool"
	/usr/sbin/ppwatch pools >/dev/null || fail "the installed ppwatch pools failed"
	# the exporter's ExecStart as its unit runs it (setpriv and
	# systemd-socket-activate stand in for systemd): as ppwatch, with the
	# unit's capabilities as ambient ones and its bounding set, no_new_privs,
	# on the socket ppwatch-export.socket would pass
	if command -v setpriv >/dev/null && command -v systemd-socket-activate >/dev/null; then
		cmd=$(unit_cmd /lib/systemd/system/ppwatch-export.service "")
		caps=$(unit_caps /lib/systemd/system/ppwatch-export.service)
		port=$((20000 + RANDOM % 30000))
		log "setpriv --reuid ppwatch --ambient-caps $caps ... systemd-socket-activate -l 127.0.0.1:$port $cmd"
		# shellcheck disable=SC2086 # the unit's words
		setpriv --reuid ppwatch --regid ppwatch --clear-groups --inh-caps "$caps" \
			--ambient-caps "$caps" --bounding-set -all,"$caps" --no-new-privs \
			systemd-socket-activate -l "127.0.0.1:$port" $cmd 2>$uerr &
		pid=$!
		at_exit "kill $pid 2>/dev/null; rm -f $uerr"
		# socket activation: the first connection starts it (a loaded machine
		# may take its time to load the programs); the listener, forked,
		# says "listening on" once it is sandboxed: wait for that line and
		# for the child it names to be there (not for a time). The
		# connection only once systemd-socket-activate listens: one refused
		# before starts nothing
		_bound() { [ -n "$(ss -Hltn "sport = :$port")" ]; }
		wait_until 120 "systemd-socket-activate to listen on port $port" _bound
		curl -s -m 120 -o /dev/null "http://127.0.0.1:$port/metrics"
		listener_up() {
			kill -0 "$pid" 2>/dev/null || fail "the unit's exporter exited: $(head -c 300 "$uerr")"
			grep -q '^ppwatch export: listening on ' "$uerr" &&
				[ -n "$(cat "/proc/$pid/task/$pid/children" 2>/dev/null)" ]
		}
		wait_until 300 "the unit's exporter to fork its listener (curl's connection started it)" listener_up
		st=$(cat /proc/$pid/status 2>/dev/null)
		log "the sampler: $(grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs)' <<<"$st" | tr -s '\t\n' ' ')"
		check "the unit's exporter runs: $(head -c 300 $uerr)" kill -0 $pid
		check "as ppwatch" [ "$(awk '/^Uid:/ { print $2 }' <<<"$st")" = "$(id -u ppwatch)" ]
		check "no_new_privs" grep -q '^NoNewPrivs:[[:space:]]*1' <<<"$st"
		check "the sampler kept CAP_BPF, CAP_SYS_ADMIN, CAP_SYS_PTRACE only" \
			grep -q '^CapEff:[[:space:]]*0000008000280000$' <<<"$st"
		f=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null)
		st=$(cat "/proc/${f%% *}/status" 2>/dev/null)
		log "the listener: $(grep -E '^(Uid|CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp)' <<<"$st" | tr -s '\t\n' ' ')"
		check "the listener runs as ppwatch" [ "$(awk '/^Uid:/ { print $2 }' <<<"$st")" = "$(id -u ppwatch)" ]
		check "with no capability" grep -q '^CapEff:[[:space:]]*0000000000000000$' <<<"$st"
		check "none permitted" grep -q '^CapPrm:[[:space:]]*0000000000000000$' <<<"$st"
		check "under seccomp" grep -q '^Seccomp:[[:space:]]*2$' <<<"$st"
		check "and serves the lab's pool" bash -c "curl -sf -m 30 http://127.0.0.1:$port/metrics | grep -q 'device=\"vb\"'"
		kill $pid
		wait $pid 2>/dev/null
	else
		skip_note "no setpriv or systemd-socket-activate: the exporter not run as its unit runs it"
	fi
	# without systemd, the init.d script: start, status, reload, stop
	port=$((20000 + RANDOM % 30000))
	# -v: the listener says when it has taken a SIGHUP
	echo "EXPORT_ARGS=\"-v --listen 127.0.0.1:$port\"" >>/etc/default/ppwatch
	/etc/init.d/ppwatch-export start >/dev/null 2>&1 || fail "/etc/init.d/ppwatch-export start"
	at_exit "/etc/init.d/ppwatch-export stop >/dev/null 2>&1"
	wait_until 120 "the init.d exporter to serve" curl -sf -m 30 -o /dev/null "http://127.0.0.1:$port/metrics"
	check "init.d: serves on the EXPORT_ARGS port" bash -c "curl -sf -m 30 http://127.0.0.1:$port/metrics | grep -q '^ppwatch_build_info'"
	check "init.d: status" /etc/init.d/ppwatch-export status >/dev/null
	local hups
	hups=$(grep -c 'export: SIGHUP: no --web-config to re-read' /var/log/ppwatch-export.log)
	check "init.d: reload (SIGHUP) keeps it serving" /etc/init.d/ppwatch-export reload >/dev/null
	_hup_taken() { [ "$(grep -c 'export: SIGHUP: no --web-config to re-read' /var/log/ppwatch-export.log)" -gt "$hups" ]; }
	wait_until 60 "the listener to take the reload's SIGHUP" _hup_taken
	check "init.d: still serving" curl -sf -m 30 -o /dev/null "http://127.0.0.1:$port/metrics"
	check "init.d: stop" /etc/init.d/ppwatch-export stop >/dev/null
	check "init.d: stopped" bash -c "! curl -sf -m 2 -o /dev/null http://127.0.0.1:$port/metrics"
	# --textfile in EXPORT_ARGS: ready once its first file is written (it
	# says so, as the listener says it listens), as --user ppwatch, into a
	# directory that user owns (node_exporter's, on a real host)
	local tfd=/var/tmp/ppwt$BASHPID.textfile
	install -d -m 0755 -o ppwatch "$tfd"
	at_exit "rm -rf $tfd"
	echo "EXPORT_ARGS=\"--textfile $tfd/ppwatch.prom --interval 1\"" >>/etc/default/ppwatch
	st=$(/etc/init.d/ppwatch-export start 2>&1)
	f=$?
	log "init.d start with --textfile: exit $f: $(tr '\n' ' ' <<<"$st")"
	check "init.d: --textfile starts" [ "$f" -eq 0 ]
	check "init.d: --textfile: ready, it said" grep -q "^ppwatch export: writing $tfd/ppwatch.prom every 1s\$" /var/log/ppwatch-export.log
	check "init.d: --textfile: the file is there, the ppwatch user's" [ "$(stat -c %U "$tfd/ppwatch.prom" 2>/dev/null)" = ppwatch ]
	check "init.d: --textfile: stop" /etc/init.d/ppwatch-export stop >/dev/null
	# a start whose exporter exits at once fails, and says why
	echo 'EXPORT_ARGS="--user no-such-user-here"' >>/etc/default/ppwatch
	st=$(/etc/init.d/ppwatch-export start 2>&1)
	f=$?
	log "init.d start with a wrong --user: exit $f: $(tr '\n' ' ' <<<"$st")"
	check "init.d: a start whose exporter exits at once fails" [ "$f" -ne 0 ]
	check "init.d: with the exporter's message" grep -q "no such user" <<<"$st"
	check "init.d: kept in its log" grep -q "no such user" /var/log/ppwatch-export.log
	log "installed: $(/usr/sbin/ppwatch --version), $(wc -l <<<"$files") paths"
	dpkg -r ppwatch >"$uerr.dpkg" 2>&1 || fail "dpkg -r ppwatch: $(cat "$uerr.dpkg")"
	for f in /usr/sbin/ppwatch /usr/share/bash-completion/completions/ppwatch \
		/usr/share/doc/ppwatch /usr/share/ppwatch /lib/systemd/system/ppwatch-export.service; do
		[ ! -e "$f" ] || fail "$f left behind by dpkg -r"
	done
	check "dpkg -r keeps the conffiles" [ -e /etc/default/ppwatch ]
	dpkg -P ppwatch >"$uerr.dpkg" 2>&1 || fail "dpkg -P ppwatch: $(cat "$uerr.dpkg")"
	rm -f "$uerr.dpkg"
	for f in /etc/default/ppwatch /etc/init.d/ppwatch-export /var/lib/ppwatch \
		/etc/systemd/system/multi-user.target.wants/ppwatch-export.service; do
		[ ! -e "$f" ] || fail "$f left behind by dpkg -P"
	done
	dpkg-query -W -f='${Status}' ppwatch 2>/dev/null | grep -q 'ok installed\|config-files' &&
		fail "dpkg still lists ppwatch: $(dpkg-query -W -f='${Status}' ppwatch)"
	return 0
}

make_install_installs_the_services() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	local d f
	d=$(mktemp -d /tmp/ppwt-install.XXXXXX)
	at_exit "rm -rf '$d'"
	echo 'EXPORT_ARGS="--listen 127.0.0.1:9999"' >"$d/mine"
	mkdir -p "$d/root/etc/default"
	cp "$d/mine" "$d/root/etc/default/ppwatch"
	make -s -C "$TOP" install OUTPUT="$OUTPUT" DESTDIR="$d/root" prefix=/usr/local >"$d/log" 2>&1 ||
		fail "make install: $(tail -5 "$d/log")"
	for f in /usr/local/sbin/ppwatch /usr/local/lib/systemd/system/ppwatch-export.service \
		/usr/local/lib/systemd/system/ppwatch-record.service \
		/usr/local/lib/sysusers.d/ppwatch.conf /usr/local/share/man/man8/ppwatch-export.8 \
		/usr/local/share/doc/ppwatch/examples/web-config.yml; do
		[ -f "$d/root$f" ] || fail "make install: no $f"
	done
	# the example test_export_web.sh the_example_web_config runs
	check "make install ships examples/web-config.yml" \
		cmp -s "$TOP/examples/web-config.yml" "$d/root/usr/local/share/doc/ppwatch/examples/web-config.yml"
	check "ExecStart under the prefix" grep -q '^ExecStart=/usr/local/sbin/ppwatch record ' \
		"$d/root/usr/local/lib/systemd/system/ppwatch-record.service"
	check "the admin's options file left as it was" cmp -s "$d/mine" "$d/root/etc/default/ppwatch"
	# the units need their binary where ExecStart says: verify against the tree's
	mkdir -p "$d/units"
	for f in ppwatch-export ppwatch-record; do
		sed "s|/usr/local/sbin/ppwatch|$PPWATCH|" "$d/root/usr/local/lib/systemd/system/$f.service" \
			>"$d/units/$f.service"
	done
	cp "$d/root/usr/local/lib/systemd/system/ppwatch-export.socket" "$d/units/"
	verify_units "$d/units" --man=no
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
	# a ppwatch that hangs (for an hour) costs the user
	# PPWATCH_COMPLETE_TIMEOUT, not the hang: the completion returns (120 s
	# catches one that waits for it; how soon is the timeout's, not a test's)
	local slow cpid
	slow=$(mktemp /tmp/ppwt-slow.XXXXXX)
	at_exit "rm -f '$slow'"
	printf '#!/bin/sh\n[ "$1" = __complete ] && exec %s "$@"\nexec sleep 3600\n' "$PPWATCH" >"$slow"
	chmod +x "$slow"
	unset _ppwatch_pools_at
	PPWATCH=$slow PPWATCH_COMPLETE_TIMEOUT=1 complete_line "ppwatch pools pool" >/dev/null &
	cpid=$!
	at_exit "pkill -P $cpid 2>/dev/null; kill $cpid 2>/dev/null"
	_returned() { ! kill -0 "$cpid" 2>/dev/null; }
	wait_until 120 "the completion to return from a hanging ppwatch" _returned
}

run_tests
