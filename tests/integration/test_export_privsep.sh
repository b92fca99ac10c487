#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch export's privilege separation and its web config as
# exporter-toolkit's: the listener (the process that reads what clients
# send) holds no capability, runs under no_new_privs and seccomp, owns no
# BPF object, and the sampler reads nothing from it; client certificates
# need the clientAuth purpose, expired ones are said to be; what is wrong
# with the server's certificate, key or hashes is said at start and at
# SIGHUP; a reload that weakens what clients must show warns; SIGHUP
# takes effect at once and drops no scrape; a password guesser holds off
# only itself. Every case as root and with --user nobody. About 90 s.

ALL_TESTS="
	listener_holds_no_privileges
	sampler_reads_nothing_from_the_listener
	listener_failures_are_said
	client_certificate_purpose_and_dates
	tls_files_and_hashes_said
	reload_weakening_is_warned
	reload_at_once_drops_no_scrape
	guessing_holds_off_only_the_guesser
	the_units_filter_allows_what_the_exporter_calls
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=/tmp/ppwt$$.privsep
PASS_WORD=ppwatch-test-password # a test secret, nothing else
USERS=("" "--user nobody")

need_tools() {
	local t
	for t in openssl curl htpasswd "$@"; do
		command -v "$t" >/dev/null || skip "$t not installed (make deps: deps/prometheus.txt)"
	done
	mkdir -p "$WORK"
	chmod 0755 "$WORK"
	at_exit "rm -rf $WORK"
}

# a certificate for CN from the CA, with openssl x509's extra options
# (extensions in an -extfile): name.crt, name.key
issue() {	# name cn [x509 options...]
	local n=$1 cn=$2
	shift 2
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$cn" \
		-keyout "$WORK/$n.key" -out "$WORK/$n.csr" 2>/dev/null &&
		openssl x509 -req -in "$WORK/$n.csr" -CA "$WORK/ca.crt" -CAkey "$WORK/ca.key" \
			-CAcreateserial "$@" -out "$WORK/$n.crt" 2>/dev/null
}

# the CA; the server's certificate for 127.0.0.1; client certificates:
# for clientAuth, without extended key usage, for serverAuth only (as
# every exporter host's own is), expired; the server's certificate
# expired; a bcrypt hash of the test password
make_pki() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=ppwatch test CA" -keyout "$WORK/ca.key" -out "$WORK/ca.crt" 2>/dev/null ||
		fail "openssl: the CA"
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$WORK/server.ext"
	printf 'extendedKeyUsage=clientAuth\n' >"$WORK/client.ext"
	printf 'extendedKeyUsage=serverAuth\n' >"$WORK/serveronly.ext"
	if ! { issue server 127.0.0.1 -days 1 -extfile "$WORK/server.ext" &&
		issue client prometheus -days 1 -extfile "$WORK/client.ext" &&
		issue noeku prometheus -days 1 &&
		issue serveronly other-exporter -days 1 -extfile "$WORK/serveronly.ext" &&
		issue expired prometheus -days -1 -extfile "$WORK/client.ext" &&
		issue oldserver 127.0.0.1 -days -1 -extfile "$WORK/server.ext"; }; then
		fail "openssl could not make the test certificates"
	fi
	chmod 0644 "$WORK"/*.key # --user nobody reads them
	HASH=$(htpasswd -nbBC 10 prometheus "$PASS_WORD" | cut -d: -f2) || fail "htpasswd -B"
	[ -n "$HASH" ] || fail "no bcrypt hash from htpasswd"
}

# HTTP status of a request (curl args); 000: no answer (30 s: a hang)
code() {
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}

# the listener: the exporter's one child
listener_pid() {
	local c
	_forked() { c=$(cat "/proc/$EXP_PID/task/$EXP_PID/children" 2>/dev/null); [ -n "$c" ]; }
	wait_until 60 "the exporter $EXP_PID to fork its listener" _forked
	echo "${c%% *}"
}

# said "WHAT" PATTERN [FILE]: the exporter says it (a grep -q PATTERN of
# FILE, its stderr by default), waited for: what a SIGHUP makes it say is
# said once the listener has re-read the file, however long a loaded
# machine takes (60 s: a hang); a check that fails naming WHAT
said() {
	wait_until 60 "$1" grep -q -e "$2" "${3:-$EXP_ERR}"
}

# one field of /proc/PID/status
status_of() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

web_yml() {	# file, then the YAML lines
	local f=$1
	shift
	printf '%s\n' "$@" >"$f"
}

tls_lines() {	# [client_auth_type]
	echo "tls_server_config:"
	echo "  cert_file: $WORK/server.crt"
	echo "  key_file: $WORK/server.key"
	if [ -n "${1:-}" ]; then
		echo "  client_ca_file: $WORK/ca.crt"
		echo "  client_auth_type: $1"
	fi
}

listener_holds_no_privileges() {
	require_kernel
	need_tools
	make_pki
	local u l bit caps fds
	web_yml "$WORK/web.yml" "$(tls_lines)" "basic_auth_users:" "  prometheus: $HASH"
	for u in "${USERS[@]}"; do
		# shellcheck disable=SC2086 # the option and its value
		export_start --interval 0.5 --web-config "$WORK/web.yml" $u -v
		l=$(listener_pid) || fail "no listener process"
		check "$u: served over TLS by it" [ "$(code --cacert "$WORK/ca.crt" -u prometheus:"$PASS_WORD" "https://$EXP_ADDR/metrics")" = 200 ]
		caps="$(status_of "$l" CapInh) $(status_of "$l" CapPrm) $(status_of "$l" CapEff) $(status_of "$l" CapAmb)"
		log "${u:-root}: listener $l uid $(status_of "$l" Uid) Cap{Inh,Prm,Eff,Amb} $caps CapBnd $(status_of "$l" CapBnd) NoNewPrivs $(status_of "$l" NoNewPrivs) Seccomp $(status_of "$l" Seccomp); sampler $EXP_PID CapEff $(status_of "$EXP_PID" CapEff)"
		check "${u:-root}: CapEff 0000000000000000" [ "$(status_of "$l" CapEff)" = 0000000000000000 ]
		check "${u:-root}: no capability in any set" \
			[ "$caps" = "0000000000000000 0000000000000000 0000000000000000 0000000000000000" ]
		check "${u:-root}: an empty bounding set" [ "$(status_of "$l" CapBnd)" = 0000000000000000 ]
		check "${u:-root}: no_new_privs" [ "$(status_of "$l" NoNewPrivs)" = 1 ]
		check "${u:-root}: a seccomp filter" [ "$(status_of "$l" Seccomp)" = 2 ]
		fds=$(find "/proc/$l/fd" -mindepth 1 -maxdepth 1 -printf '%l\n')
		check "${u:-root}: no BPF object among its descriptors" bash -c "! grep -q 'bpf' <<<'$fds'"
		check "${u:-root}: no netlink socket of the sampler's" [ "$(grep -c '^socket:' <<<"$fds")" -le 4 ]
		check "${u:-root}: says how it runs" grep -q 'the listener (pid [0-9]*) runs as uid [0-9]* with no capabilities, no_new_privs and a seccomp filter' "$EXP_ERR"
		if [ -n "$u" ]; then
			check "--user nobody: the listener is nobody" [ "$(status_of "$l" Uid)" = 65534 ]
			check "--user nobody: and so is the sampler" [ "$(status_of "$EXP_PID" Uid)" = 65534 ]
		fi
		# what only the sampler may keep: CAP_BPF 39, CAP_SYS_ADMIN 21, CAP_SYS_PTRACE 19
		for bit in $(seq 0 40); do
			case $bit in 19 | 21 | 39) continue ;; esac
			(((0x$(status_of "$EXP_PID" CapEff) >> bit) & 1)) && fail "the sampler kept capability $bit"
		done
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
		check "${u:-root}: the listener ends with the sampler" bash -c "! kill -0 $l 2>/dev/null"
	done
}

# the sampler's end of the socketpair, by ss: its fd number
feed_fd_of() {
	ss -xpH 2>/dev/null | grep -o "pid=$1,fd=[0-9]*" | head -1 | sed 's/.*fd=//'
}

sampler_reads_nothing_from_the_listener() {
	require_kernel
	need_tools strace ss
	make_pki
	local u fd out n i
	web_yml "$WORK/web.yml" "basic_auth_users:" "  prometheus: $HASH"
	for u in "${USERS[@]}"; do
		# shellcheck disable=SC2086
		export_start --interval 0.2 --web-config "$WORK/web.yml" $u -v
		fd=$(feed_fd_of "$EXP_PID")
		[ -n "$fd" ] || fail "no socketpair of the sampler's in ss -xp"
		out=$WORK/strace.$$
		strace -q -p "$EXP_PID" -e trace=read,readv,recvfrom,recvmsg,pread64 -o "$out" &
		n=$!
		# strace has attached: the sampler's tracer is it
		_traced() { [ "$(status_of "$EXP_PID" TracerPid)" = "$n" ]; }
		wait_until 60 "strace to attach to the sampler" _traced
		# scrapes, wrong passwords, garbage: whatever a client sends
		for i in $(seq 10); do
			code -u prometheus:"$PASS_WORD" "http://$EXP_ADDR/metrics" >/dev/null
			code -u "prometheus:wrong$i" "http://$EXP_ADDR/metrics" >/dev/null
			printf 'GARBAGE %s\r\n\r\n' "$i" | timeout 1 bash -c "cat >/dev/tcp/${EXP_ADDR%:*}/${EXP_ADDR##*:}" 2>/dev/null
		done
		hup_reread
		kill "$n"
		wait "$n" 2>/dev/null
		log "${u:-root}: the sampler's feed is fd $fd; $(wc -l <"$out") reads traced, $(grep -c "^[a-z0-9]*($fd," "$out") on it"
		check "${u:-root}: the sampler was traced" [ -s "$out" ]
		check "${u:-root}: it never read its end of the socketpair" bash -c "! grep -q '^[a-z0-9]*($fd,' '$out'"
		check "${u:-root}: and its end has nothing waiting (the listener shut its side)" \
			bash -c "ss -xpH | grep 'pid=$EXP_PID,fd=$fd)' | awk '{ exit \$3 != 0 }'"
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
	done
}

listener_failures_are_said() {
	require_kernel
	need_tools
	make_pki
	local u l rc err
	for u in "${USERS[@]}"; do
		# shellcheck disable=SC2086
		export_start --interval 0.5 $u
		l=$(listener_pid) || fail "no listener process"
		kill -SEGV "$l"
		_stopped() { ! kill -0 "$EXP_PID" 2>/dev/null; }
		wait_until 60 "the exporter to stop" _stopped
		wait "$EXP_PID"
		rc=$?
		log "${u:-root}: the listener killed by SIGSEGV: exit $rc, '$(grep -o 'the listener was killed.*' "$EXP_ERR")'"
		check "${u:-root}: the exporter stops, exit 2" [ "$rc" -eq 2 ]
		check "${u:-root}: and says why" grep -q 'the listener was killed by signal 11' "$EXP_ERR"
		# the listener reads the web config: what is wrong with it is said
		# before the sampler loads anything
		web_yml "$WORK/bad.yml" "tls_server_config:" "  cert_fil: x"
		# shellcheck disable=SC2086
		err=$("$PPWATCH" export --listen 127.0.0.1:0 --web-config "$WORK/bad.yml" $u -v 2>&1 >/dev/null)
		rc=$?
		check "${u:-root}: a wrong web config: exit 2" [ "$rc" -eq 2 ]
		check "${u:-root}: at FILE:LINE:COL" grep -q "bad.yml:2:3: error: unknown key 'cert_fil' in tls_server_config; did you mean 'cert_file'?" <<<"$err"
		check "${u:-root}: before anything is loaded" bash -c "! grep -q 'loaded and attached' <<<'$err'"
		# shellcheck disable=SC2086
		err=$("$PPWATCH" export --listen 127.0.0.1:0 --web-config "$WORK/none.yml" $u 2>&1 >/dev/null)
		check "${u:-root}: a web config that is not there" grep -q "none.yml: error: cannot read the web config: No such file or directory" <<<"$err"
		# a key only root reads: with --user, the error names who read it
		if [ -n "$u" ]; then
			install -m 0600 "$WORK/server.key" "$WORK/rootonly.key"
			web_yml "$WORK/ro.yml" "tls_server_config:" "  cert_file: server.crt" "  key_file: rootonly.key"
			# shellcheck disable=SC2086
			err=$("$PPWATCH" export --listen 127.0.0.1:0 --web-config "$WORK/ro.yml" $u 2>&1 >/dev/null)
			check "${u}: a key it cannot read: the user named" grep -q "ro.yml:3:13: error: key_file 'rootonly.key': cannot read $WORK/rootonly.key: Permission denied (read as user nobody (uid $(id -u nobody)): let that user read it" <<<"$err"
		fi
	done
}

client_certificate_purpose_and_dates() {
	require_kernel
	need_tools
	make_pki
	local u url c r
	web_yml "$WORK/mtls.yml" "$(tls_lines RequireAndVerifyClientCert)"
	for u in "${USERS[@]}"; do
		# shellcheck disable=SC2086
		export_start --interval 0.5 --web-config "$WORK/mtls.yml" $u -v -v
		url=https://$EXP_ADDR/metrics
		for c in client noeku serveronly expired; do
			r=$(curl -s -m 30 --cacert "$WORK/ca.crt" --cert "$WORK/$c.crt" --key "$WORK/$c.key" -w ' %{http_code}' "$url" | grep -v '^ppwatch_\|^#\|^process_' | tr -d '\n')
			log "${u:-root}: $c: ${r##* } ${r% *}"
			case $c in
			client | noeku) check "${u:-root}: $c: 200" [ "${r##* }" = 200 ] ;;
			serveronly)
				check "${u:-root}: a serverAuth-only certificate: 403" [ "${r##* }" = 403 ]
				check "${u:-root}: not for client authentication" grep -q 'not for client authentication' <<<"$r"
				;;
			expired)
				check "${u:-root}: an expired certificate: 403" [ "${r##* }" = 403 ]
				check "${u:-root}: said to have expired" grep -q 'the client certificate expired at 20' <<<"$r"
				;;
			esac
		done
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
	done
}

tls_files_and_hashes_said() {
	require_kernel
	need_tools
	make_pki
	local u err rc placeholder bad
	placeholder='$2y$10$REPLACE.THIS.WITH.A.REAL.BCRYPT.HASH.OF.53.CHARACTERS'
	bad=${HASH:0:28}f${HASH:29} # the salt's last character with bits bcrypt never sets
	[ "${HASH:28:1}" = f ] && bad=${HASH:0:28}g${HASH:29}
	for u in "${USERS[@]}"; do
		# a key that is not the certificate's: refused (as exporter-toolkit does)
		web_yml "$WORK/mismatch.yml" "tls_server_config:" "  cert_file: $WORK/server.crt" "  key_file: $WORK/client.key"
		# shellcheck disable=SC2086
		err=$("$PPWATCH" export --listen 127.0.0.1:0 --web-config "$WORK/mismatch.yml" $u 2>&1 >/dev/null)
		rc=$?
		log "${u:-root}: exit $rc: $err"
		check "${u:-root}: a mismatched key: exit 2" [ "$rc" -eq 2 ]
		check "${u:-root}: said so, at the key" grep -q "mismatch.yml:3:3: error: key_file $WORK/client.key is not the key of cert_file $WORK/server.crt" <<<"$err"
		# an expired certificate of its own, a placeholder and a hash that
		# can match nothing: served (exporter-toolkit accepts them), each said
		web_yml "$WORK/warn.yml" "tls_server_config:" "  cert_file: $WORK/oldserver.crt" "  key_file: $WORK/oldserver.key" \
			"basic_auth_users:" "  prometheus: $placeholder" "  other: $bad" "  good: $HASH"
		# shellcheck disable=SC2086
		export_start --interval 0.5 --web-config "$WORK/warn.yml" $u
		check "${u:-root}: the expired certificate said" grep -q "warn.yml:2:3: warning: cert_file $WORK/oldserver.crt: the server's certificate expired at 20" "$EXP_ERR"
		check "${u:-root}: the placeholder said" grep -q "warn.yml:5:15: warning: basic_auth_users: user 'prometheus': the hash is the example's placeholder" "$EXP_ERR"
		check "${u:-root}: the hash that matches nothing said" grep -q "warn.yml:6:10: warning: basic_auth_users: user 'other': the hash can match no password" "$EXP_ERR"
		check "${u:-root}: served all the same (curl -k)" [ "$(code -k -u good:"$PASS_WORD" "https://$EXP_ADDR/metrics")" = 200 ]
		check "${u:-root}: a verifying client refuses it" [ "$(code --cacert "$WORK/ca.crt" -u good:"$PASS_WORD" "https://$EXP_ADDR/metrics")" = 000 ]
		# the same at SIGHUP: warned again; a mismatched key not taken
		: >"$EXP_ERR"
		kill -HUP "$EXP_PID"
		said "${u:-root}: SIGHUP: the expired certificate said again" "the server's certificate expired at"
		said "${u:-root}: SIGHUP: the placeholder said again" "the example's placeholder"
		cp "$WORK/mismatch.yml" "$WORK/warn.yml"
		kill -HUP "$EXP_PID"
		said "${u:-root}: SIGHUP: a mismatched key said" "warn.yml:3:3: error: key_file $WORK/client.key is not the key of cert_file"
		said "${u:-root}: and not taken" "SIGHUP: $WORK/warn.yml not taken; serving as before"
		check "${u:-root}: still served as before" [ "$(code -k -u good:"$PASS_WORD" "https://$EXP_ADDR/metrics")" = 200 ]
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
	done
}

reload_weakening_is_warned() {
	require_kernel
	need_tools
	make_pki
	local u live=$WORK/live.yml
	for u in "${USERS[@]}"; do
		web_yml "$live" "$(tls_lines RequireAndVerifyClientCert)" "  min_version: TLS13" "basic_auth_users:" "  prometheus: $HASH"
		# shellcheck disable=SC2086
		export_start --interval 0.5 --web-config "$live" --listen 0.0.0.0:0 $u
		check "${u:-root}: no warning at start: TLS and auth" bash -c "! grep -q 'beyond loopback' '$EXP_ERR'"
		: >"$EXP_ERR"
		web_yml "$live" "$(tls_lines VerifyClientCertIfGiven)" "  min_version: TLS12" "basic_auth_users:" "  prometheus: $HASH"
		kill -HUP "$EXP_PID"
		said "${u:-root}: client certificates made optional: warned" 'Warning: export: SIGHUP: client_auth_type VerifyClientCertIfGiven, was RequireAndVerifyClientCert: client certificates are optional from now on'
		said "${u:-root}: an older TLS version allowed: warned" 'Warning: export: SIGHUP: min_version TLS12, was TLS13'
		: >"$EXP_ERR"
		web_yml "$live" "basic_auth_users:" "  prometheus: $HASH"
		kill -HUP "$EXP_PID"
		said "${u:-root}: TLS dropped: warned" "Warning: export: SIGHUP: $live has no tls_server_config any more: serving plain HTTP on 0.0.0.0:[0-9]* from now on"
		said "${u:-root}: and as loudly as a start: passwords in the clear" 'Warning: export: SIGHUP: listening on 0.0.0.0:[0-9]*, beyond loopback, without TLS'
		: >"$EXP_ERR"
		: >"$live"
		kill -HUP "$EXP_PID"
		said "${u:-root}: basic auth dropped: warned" "Warning: export: SIGHUP: $live has no basic_auth_users any more"
		said "${u:-root}: and as a start would: no authentication or TLS" 'Warning: export: SIGHUP: listening on 0.0.0.0:[0-9]*, beyond loopback: whoever reaches this host'
		check "${u:-root}: and it is served so" [ "$(code "http://127.0.0.1:${EXP_ADDR##*:}/metrics")" = 200 ]
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
	done
}

reload_at_once_drops_no_scrape() {
	require_kernel
	need_tools
	make_pki
	local u live=$WORK/live.yml h2 codes bad
	h2=$(htpasswd -nbBC 10 prometheus other-test-password | cut -d: -f2)
	for u in "${USERS[@]}"; do
		web_yml "$live" "$(tls_lines)" "basic_auth_users:" "  prometheus: $HASH"
		# an interval longer than the case: a reload that waited for a
		# sample would never be taken
		# shellcheck disable=SC2086
		export_start --interval 1h --web-config "$live" $u
		# 10 scrapes a second for 4 s, a SIGHUP every 0.7 s meanwhile (the
		# scenario's pace: what is asserted is every answer, not a time)
		codes=$WORK/codes
		: >"$codes"
		(for _ in $(seq 40); do
			code --cacert "$WORK/ca.crt" -u prometheus:"$PASS_WORD" "https://$EXP_ADDR/metrics" >>"$codes"
			echo >>"$codes"
			sleep 0.1
		done) &
		local scraper=$!
		for _ in 1 2 3 4 5; do
			sleep 0.7
			kill -HUP "$EXP_PID"
		done
		wait "$scraper"
		bad=$(grep -vc '^200$' "$codes")
		log "${u:-root}: $(grep -c . "$codes") scrapes across 5 reloads: $(sort "$codes" | uniq -c | tr -s ' \n' ' ')"
		check "${u:-root}: every scrape answered 200 across the reloads" [ "$bad" -eq 0 ]
		check "${u:-root}: 40 of them" [ "$(grep -c '^200$' "$codes")" -eq 40 ]
		# at once: a new password is taken after the signal without a sample
		# (--interval 1h), however long a loaded machine takes (how long is
		# bench/'s, BENCH_ARGS=inputs)
		web_yml "$live" "$(tls_lines)" "basic_auth_users:" "  prometheus: $h2"
		kill -HUP "$EXP_PID"
		_new_password() { [ "$(code --cacert "$WORK/ca.crt" -u prometheus:other-test-password "https://$EXP_ADDR/metrics")" = 200 ]; }
		wait_until 60 "${u:-root}: the new password taken without a sample (--interval 1h)" _new_password
		check "${u:-root}: the old password refused" [ "$(code --cacert "$WORK/ca.crt" -u prometheus:"$PASS_WORD" "https://$EXP_ADDR/metrics")" = 401 ]
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
	done
}

ABUSE="python3 $TOP/tests/integration/http_abuse.py"

guessing_holds_off_only_the_guesser() {
	require_kernel
	need_tools python3
	make_pki
	local u live=$WORK/live.yml r
	for u in "${USERS[@]}"; do
		web_yml "$live" "basic_auth_users:" "  prometheus: $HASH"
		# shellcheck disable=SC2086
		export_start --interval 0.5 --web-config "$live" $u -v
		# a guesser at 20 a second from 127.0.0.2 for 4 s; after 1 s the
		# scraper, whose password was never checked yet, from 127.0.0.1
		r=$($ABUSE "$EXP_ADDR" guess 127.0.0.2 4 20 "prometheus:x" 1 127.0.0.1 "prometheus:$PASS_WORD") ||
			fail "clients: $r"
		log "${u:-root}: $r"
		check "${u:-root}: the scrape served" jget "$r" '.scrape.status == 200' >/dev/null
		check "${u:-root}: the guesser held off (429)" jq -e '.answers["429"] > 60' <<<"$r" >/dev/null
		check "${u:-root}: a few guesses checked only (401)" jq -e '.answers["401"] <= 6' <<<"$r" >/dev/null
		# a reload that keeps the hash keeps what was remembered: then the
		# right password is served at once even from the guessing address
		printf '# a comment: the same hash\n' >>"$live"
		hup_reread
		check "${u:-root}: the reload kept what was remembered" grep -q 'passwords of unchanged hashes still remembered' "$EXP_ERR"
		r=$($ABUSE "$EXP_ADDR" guess 127.0.0.2 3 20 "prometheus:x" 1 127.0.0.2 "prometheus:$PASS_WORD") ||
			fail "clients: $r"
		log "${u:-root}: after SIGHUP, from the guessing address itself: $r"
		check "${u:-root}: remembered: served, guesses or not" jget "$r" '.scrape.status == 200' >/dev/null
		# and after it, a new user's password from another address, checked anew
		web_yml "$live" "basic_auth_users:" "  prometheus: $HASH" "  grafana: $HASH"
		hup_reread
		r=$($ABUSE "$EXP_ADDR" guess 127.0.0.2 3 20 "grafana:x" 1 127.0.0.4 "grafana:$PASS_WORD") ||
			fail "clients: $r"
		log "${u:-root}: after SIGHUP, a password not checked yet from 127.0.0.4: $r"
		check "${u:-root}: served" jget "$r" '.scrape.status == 200' >/dev/null
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
	done
}

# the system calls a group of systemd's SystemCallFilter= names, nested groups expanded
expand_filter() {	# @group or call ...
	local w
	for w in "$@"; do
		case $w in
		@*) systemd-analyze syscall-filter "$w" 2>/dev/null | sed -n '2,$p' | grep -v '^ *#' |
			awk 'NF { print $1 }' | while read -r x; do expand_filter "$x"; done ;;
		*) echo "$w" ;;
		esac
	done
}

# what the unit's SystemCallFilter= lines allow, as systemd reads them: the
# first an allow list, later ones adding to it, '~' ones taking away
unit_allowed() {	# unit file
	local line allowed='' words
	while IFS= read -r line; do
		words=${line#SystemCallFilter=}
		if [ "${words:0:1}" = '~' ]; then
			# shellcheck disable=SC2086 # the words
			allowed=$(comm -23 <(sort -u <<<"$allowed") <(expand_filter ${words#\~} | sort -u))
		else
			# shellcheck disable=SC2086
			allowed=$(printf '%s\n%s\n' "$allowed" "$(expand_filter $words)" | sort -u)
		fi
	done < <(grep '^SystemCallFilter=' "$1")
	grep . <<<"$allowed"
}

# the unit runs the exporter as ppwatch with its own seccomp filter: every
# call the exporter makes (both processes, from the start to the end, TLS,
# basic auth, a reload) must be in it, or systemd would fail it with EPERM
the_units_filter_allows_what_the_exporter_calls() {
	require_kernel
	need_tools strace systemd-analyze
	make_pki
	local unit=$TOP/systemd/ppwatch-export.service allowed used missing out=$WORK/strace.all pid i
	allowed=$(unit_allowed "$unit")
	[ "$(wc -l <<<"$allowed")" -gt 200 ] || fail "the unit's filter did not expand: $(head -3 <<<"$allowed")"
	web_yml "$WORK/web.yml" "$(tls_lines RequireAndVerifyClientCert)" "basic_auth_users:" "  prometheus: $HASH"
	strace -f -qq -o "$out" "$PPWATCH" export -v --listen 127.0.0.1:0 --interval 0.3 \
		--web-config "$WORK/web.yml" 2>"$WORK/st.err" &
	pid=$!
	at_exit "kill $pid 2>/dev/null"
	_listening() { grep -q 'listening on' "$WORK/st.err" || { kill -0 "$pid" 2>/dev/null || return 0; false; }; }
	wait_until 120 "the exporter under strace to listen" _listening
	EXP_ADDR=$(sed -n 's|^ppwatch export: listening on https://\(.*\)/metrics$|\1|p' "$WORK/st.err")
	[ -n "$EXP_ADDR" ] || fail "export under strace did not start: $(cat "$WORK/st.err")"
	for i in 1 2 3; do
		code --cacert "$WORK/ca.crt" --cert "$WORK/client.crt" --key "$WORK/client.key" \
			-u prometheus:"$PASS_WORD" "https://$EXP_ADDR/metrics" >/dev/null
		code --cacert "$WORK/ca.crt" -u prometheus:nope "https://$EXP_ADDR/metrics" >/dev/null
	done
	# the exporter under strace: strace's child
	EXP_PID=$(cat "/proc/$pid/task/$pid/children")
	EXP_PID=${EXP_PID%% *}
	EXP_ERR=$WORK/st.err hup_reread
	code --cacert "$WORK/ca.crt" --cert "$WORK/client.crt" --key "$WORK/client.key" \
		-u prometheus:"$PASS_WORD" "https://$EXP_ADDR/metrics" >/dev/null
	kill "$EXP_PID"
	wait "$pid"
	# the exporter's calls; as the unit's ppwatch it makes no setuid family call
	used=$(sed -nE 's/^[0-9]+ +([a-z0-9_]+)\(.*/\1/p' "$out" | sort -u)
	missing=$(comm -23 <(grep -v '^execve$' <<<"$used") <(sort -u <<<"$allowed") | tr '\n' ' ')
	log "the exporter made $(wc -l <<<"$used") different calls; the unit allows $(wc -l <<<"$allowed")"
	check "every one is in the unit's SystemCallFilter= (missing: $missing)" [ -z "$missing" ]
}

run_tests
