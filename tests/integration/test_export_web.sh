#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# export --web-config and --textfile, as a fleet deploys them: TLS (a
# throwaway CA made with openssl), client certificates and bcrypt basic
# auth (htpasswd -B) checked with curl, plain HTTP refused, the file
# re-read on SIGHUP, what cannot be honoured refused; the static binary
# without TLS; the textfile through promtool and a real node_exporter; and
# one real Prometheus scraping ppwatch over TLS with basic auth (job
# "ppwatch") and node_exporter's textfile (job "node"), answering the
# dashboard's queries and the alert rules on either path. About 60 s.

ALL_TESTS="
	tls_and_basic_auth_with_curl
	the_example_web_config
	client_certificates
	web_config_reload_and_errors
	static_binary_without_tls
	textfile_promtool_and_node_exporter
	prometheus_over_tls_and_through_node_exporter
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=prom_lib.sh
. "$(dirname "$0")/prom_lib.sh"

WORK=/tmp/ppwt$$.web
PASS_WORD=ppwatch-test-password # a test secret, nothing else

need_tools() {
	local t
	for t in openssl curl "$@"; do
		command -v "$t" >/dev/null || skip "$t not installed (make deps: deps/prometheus.txt)"
	done
	mkdir -p "$WORK"
	at_exit "rm -rf $WORK"
}

# a CA, a server certificate for 127.0.0.1, a client certificate it signed,
# and one it did not; a bcrypt hash of the test password, as htpasswd makes it
make_pki() {
	local d=$WORK
	if ! { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
		-subj "/CN=ppwatch test CA" -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
		-keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$d/san" &&
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
		-days 1 -extfile "$d/san" -out "$d/server.crt" 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=prometheus" \
		-keyout "$d/client.key" -out "$d/client.csr" 2>/dev/null &&
	openssl x509 -req -in "$d/client.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
		-days 1 -out "$d/client.crt" 2>/dev/null &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
		-subj "/CN=stranger" -keyout "$d/stranger.key" -out "$d/stranger.crt" 2>/dev/null; }; then
		fail "openssl could not make the test certificates"
	fi
	HASH=$(htpasswd -nbBC 10 prometheus "$PASS_WORD" | cut -d: -f2) || fail "htpasswd -B"
	[ -n "$HASH" ] || fail "no bcrypt hash from htpasswd"
}

# HTTP status of a request to the exporter (curl args); 000: no answer (30 s: a hang)
code() {
	curl -s -m 30 -o /dev/null -w '%{http_code}' "$@"
}

tls_and_basic_auth_with_curl() {
	require_kernel
	need_tools htpasswd
	make_pki
	local url r i busy=0 ok=0
	cat >"$WORK/web.yml" <<-EOF
	tls_server_config:
	  cert_file: server.crt
	  key_file: server.key
	  min_version: TLS13
	basic_auth_users:
	  prometheus: $HASH
	EOF
	export_start --interval 0.5 --web-config "$WORK/web.yml"
	check "it says https" grep -q "listening on https://$EXP_ADDR/metrics" "$EXP_ERR"
	url=https://$EXP_ADDR/metrics
	r=$(curl -s -m 30 -D - -o /dev/null --cacert "$WORK/ca.crt" "$url")
	check "no credentials: 401" grep -q '^HTTP/1.1 401' <<<"$r"
	check "with WWW-Authenticate: Basic" grep -qi '^WWW-Authenticate: Basic realm="ppwatch"' <<<"$r"
	# each wrong password makes its address wait: 0.5 s, then 1 s
	# (lib/basic_auth.h): two wrong ones on one connection, the second
	# right after the first's answer (no new process, no handshake between
	# them: a loaded machine's delay is not the half second)
	r=$(curl -s -m 30 --cacert "$WORK/ca.crt" -o /dev/null -w '%{http_code} ' -u prometheus:nope "$url" \
		--next -s -m 30 --cacert "$WORK/ca.crt" -o /dev/null -w '%{http_code}' -u prometheus:nope2 "$url")
	check "a wrong password: 401 ($r)" [ "${r% *}" = 401 ]
	check "at once another: 429 ($r)" [ "${r#* }" = 429 ]
	# the scenario: the waits run out (a loaded machine only makes them
	# longer; nothing is asserted of the time)
	sleep 0.6
	check "an unknown user: 401" [ "$(code --cacert "$WORK/ca.crt" -u nobody:"$PASS_WORD" "$url")" = 401 ]
	sleep 1.1
	r=$(curl -sf -m 30 --cacert "$WORK/ca.crt" -u prometheus:"$PASS_WORD" "$url") || fail "the right password"
	check "the right password: the metrics" grep -q '^ppwatch_build_info' <<<"$r"
	# plain HTTP to the TLS port: 400 with the hint Go's servers give, said
	# on stderr once for two (not per request: any client can send them)
	r=$(curl -s -m 30 -w '\n%{http_code}' "http://$EXP_ADDR/metrics")
	log "plain HTTP: $(tr '\n' ' ' <<<"$r")"
	check "plain HTTP to the TLS port: 400" [ "$(tail -n1 <<<"$r")" = 400 ]
	check "saying HTTPS is spoken here" grep -q '^Client sent an HTTP request to an HTTPS server.$' <<<"$r"
	check "a second one: 400" [ "$(code "http://$EXP_ADDR/metrics")" = 400 ]
	wait_until 60 "the exporter to say plain HTTP came" grep -q 'sent plain HTTP to this TLS port' "$EXP_ERR"
	check "said once, naming the fix" [ "$(grep -c 'sent plain HTTP to this TLS port (1 so far).*scrape https://' "$EXP_ERR")" = 1 ]
	check "and TLS still served" [ "$(code --cacert "$WORK/ca.crt" -u prometheus:"$PASS_WORD" "$url")" = 200 ]
	check "below min_version: refused" [ "$(code --cacert "$WORK/ca.crt" --tls-max 1.2 -u prometheus:"$PASS_WORD" "$url")" = 000 ]
	# guessing: bcrypt checks are rationed (429), the password that checked out is not
	for i in $(seq 12); do
		r=$(code --cacert "$WORK/ca.crt" -u "prometheus:guess$i" "$url")
		[ "$r" = 429 ] && busy=$((busy + 1))
		[ "$(code --cacert "$WORK/ca.crt" -u prometheus:"$PASS_WORD" "$url")" = 200 ] && ok=$((ok + 1))
	done
	log "12 guesses in a row: $busy answered 429; the right password $ok times 200 meanwhile"
	check "guesses rationed" [ "$busy" -gt 0 ]
	check "the right password served throughout" [ "$ok" -eq 12 ]
	check "401 and 429 counted" bash -c "curl -s -m 30 --cacert '$WORK/ca.crt' -u 'prometheus:$PASS_WORD' '$url' | grep -q 'ppwatch_http_responses_total{code=\"429\"}'"
}

# examples/web-config.yml, the file the .deb and make install ship (test_package
# checks they ship this one): with its /etc/ppwatch/tls files where the
# test's are, it is taken, serves HTTPS to a client with a certificate of
# its CA, and warns of the placeholder hash it carries until replaced
the_example_web_config() {
	require_kernel
	need_tools htpasswd
	make_pki
	local url
	sed -e "s|/etc/ppwatch/tls/server.crt|$WORK/server.crt|" \
		-e "s|/etc/ppwatch/tls/server.key|$WORK/server.key|" \
		-e "s|/etc/ppwatch/tls/clients-ca.crt|$WORK/ca.crt|" \
		"$TOP/examples/web-config.yml" >"$WORK/example.yml"
	check "only its paths changed" [ "$(diff "$TOP/examples/web-config.yml" "$WORK/example.yml" | grep -c '^>')" = 3 ]
	export_start --interval 0.5 --web-config "$WORK/example.yml"
	check "taken: HTTPS" grep -q "listening on https://$EXP_ADDR/metrics" "$EXP_ERR"
	check "the placeholder said" grep -q "example.yml:[0-9]*:[0-9]*: warning: basic_auth_users: user 'prometheus': the hash is the example's placeholder" "$EXP_ERR"
	url=https://$EXP_ADDR/metrics
	check "no client certificate: 403" [ "$(code --cacert "$WORK/ca.crt" "$url")" = 403 ]
	check "with one, the placeholder's user: 401" [ "$(code --cacert "$WORK/ca.crt" --cert "$WORK/client.crt" --key "$WORK/client.key" -u prometheus:x "$url")" = 401 ]
}

client_certificates() {
	require_kernel
	need_tools
	make_pki
	local url auth none good stranger
	url=
	for auth in RequireAndVerifyClientCert VerifyClientCertIfGiven RequireAnyClientCert; do
		cat >"$WORK/$auth.yml" <<-EOF
		tls_server_config:
		  cert_file: $WORK/server.crt
		  key_file: $WORK/server.key
		  client_ca_file: $WORK/ca.crt
		  client_auth_type: $auth
		EOF
		export_start --interval 1 --web-config "$WORK/$auth.yml"
		url=https://$EXP_ADDR/metrics
		none=$(code --cacert "$WORK/ca.crt" "$url")
		good=$(code --cacert "$WORK/ca.crt" --cert "$WORK/client.crt" --key "$WORK/client.key" "$url")
		stranger=$(code --cacert "$WORK/ca.crt" --cert "$WORK/stranger.crt" --key "$WORK/stranger.key" "$url")
		log "$auth: no certificate $none, the CA's $good, a stranger's $stranger"
		case $auth in
		RequireAndVerifyClientCert) check "$auth" [ "$none $good $stranger" = "403 200 403" ] ;;
		VerifyClientCertIfGiven) check "$auth" [ "$none $good $stranger" = "200 200 403" ] ;;
		RequireAnyClientCert) check "$auth" [ "$none $good $stranger" = "403 200 200" ] ;;
		esac
		kill "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
	done
}

web_config_reload_and_errors() {
	require_kernel
	need_tools htpasswd
	make_pki
	local url err rc h2
	h2=$(htpasswd -nbBC 5 prometheus other-test-password | cut -d: -f2)
	printf 'basic_auth_users:\n  prometheus: %s\n' "$HASH" >"$WORK/live.yml"
	# at the default log level: a reload is said, taken or not
	export_start --interval 0.5 --web-config "$WORK/live.yml"
	url=http://$EXP_ADDR/metrics
	check "before: the first password" [ "$(code -u prometheus:"$PASS_WORD" "$url")" = 200 ]
	printf 'basic_auth_users:\n  prometheus: %s\n' "$h2" >"$WORK/live.yml"
	hup_reread
	check "SIGHUP: the new password" [ "$(code -u prometheus:other-test-password "$url")" = 200 ]
	check "SIGHUP: the old one no more" [ "$(code -u prometheus:"$PASS_WORD" "$url")" = 401 ]
	printf 'tls_server_config:\n  cert_fil: x\n' >"$WORK/live.yml"
	hup_reread
	check "a broken file: still served as before" [ "$(code -u prometheus:other-test-password "$url")" = 200 ]
	check "says where and keeps the old one" grep -q "live.yml:2:3: error: unknown key 'cert_fil' in tls_server_config; did you mean 'cert_file'?" "$EXP_ERR"
	# fixed and re-read: the last word is that it was taken
	printf 'basic_auth_users:\n  prometheus: %s\n' "$h2" >"$WORK/live.yml"
	kill -HUP "$EXP_PID"
	wait_until 60 "the second reload to be said" bash -c "[ \$(grep -c 'SIGHUP: .*live.yml taken' '$EXP_ERR') -eq 2 ]"
	check "the last SIGHUP line says taken" bash -c "grep 'SIGHUP:' '$EXP_ERR' | tail -n1 | grep -q 'live.yml taken'"
	# errors at the start: exit 2, before anything is loaded
	for cfg in 'tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n' \
		"tls_server_config:\n  cert_file: $WORK/server.crt\n  key_file: $WORK/server.key\n  client_auth_type: RequestClientCert\n" \
		'basic_auth_users:\n  prometheus: secret\n'; do
		# shellcheck disable=SC2059 # the configs are formats
		printf "$cfg" >"$WORK/bad.yml"
		err=$("$PPWATCH" export --listen 127.0.0.1:0 --web-config "$WORK/bad.yml" 2>&1 >/dev/null)
		rc=$?
		log "exit $rc: $(head -1 <<<"$err")"
		check "refused, exit 2" [ $rc -eq 2 ]
		check "FILE:LINE:COL" grep -q "bad.yml:[0-9]*:[0-9]*: error: " <<<"$err"
	done
	# a key that is no key pair for its certificate: said at the key, exit 2
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$WORK/server.crt" "$WORK/client.key" >"$WORK/bad.yml"
	err=$("$PPWATCH" export --listen 127.0.0.1:0 --web-config "$WORK/bad.yml" 2>&1 >/dev/null)
	check "a mismatched key: exit 2 ($err)" [ $? -eq 2 ]
	check "says the key is not the certificate's" grep -q "bad.yml:3:3: error: key_file $WORK/client.key is not the key of cert_file $WORK/server.crt" <<<"$err"
}

static_binary_without_tls() {
	require_kernel
	need_tools htpasswd
	make_pki
	local static=$OUTPUT/static/ppwatch err rc
	[ -x "$static" ] || fail "$static missing: run make static"
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$WORK/tls.yml"
	err=$("$static" export --listen 127.0.0.1:0 --web-config "$WORK/tls.yml" 2>&1 >/dev/null)
	rc=$?
	log "exit $rc: $err"
	check "TLS refused, exit 2" [ $rc -eq 2 ]
	check "in one line, naming why" [ "$(wc -l <<<"$err")" -eq 1 ]
	check "says it is built without TLS" grep -q 'tls.yml:1:1: error: tls_server_config: this ppwatch is built without TLS' <<<"$err"
	printf 'basic_auth_users:\n  prometheus: %s\n' "$HASH" >"$WORK/auth.yml"
	PPWATCH=$static export_start --interval 1 --web-config "$WORK/auth.yml"
	check "static: basic auth checks (401)" [ "$(code "http://$EXP_ADDR/metrics")" = 401 ]
	check "static: and lets the password in (200)" [ "$(code -u prometheus:"$PASS_WORD" "http://$EXP_ADDR/metrics")" = 200 ]
}

textfile_promtool_and_node_exporter() {
	require_kernel
	need_tools promtool prometheus-node-exporter
	local dir=$WORK/textfile f m pid
	mkdir -p "$dir"
	lab_begin
	lab_hold 200 >/dev/null || fail "holder"
	# --once, for a timer
	"$PPWATCH" export --textfile "$dir/ppwatch.prom" --once --interval 0.2 2>"$WORK/once.err" ||
		fail "export --textfile --once: $(cat "$WORK/once.err")"
	check "--once: promtool check metrics" promtool check metrics <"$dir/ppwatch.prom"
	check "the lab's pool in it" grep -q '^ppwatch_pool_inflight_pages{.*device="vb"' "$dir/ppwatch.prom"
	check "no process_* (node_exporter has its own)" bash -c "! grep -q '^process_' '$dir/ppwatch.prom'"
	check "no temporary file left" [ "$(find "$dir" -type f | wc -l)" -eq 1 ]
	# every --interval, replaced whole each time
	"$PPWATCH" export --textfile "$dir/ppwatch.prom" --interval 0.2 2>"$WORK/tf.err" &
	pid=$!
	at_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
	f=$(stat -c %Y.%i "$dir/ppwatch.prom")
	_rewritten() { [ "$(stat -c %Y.%i "$dir/ppwatch.prom")" != "$f" ]; }
	wait_until 60 "the textfile rewritten (a new inode: renamed over)" _rewritten
	check "promtool check metrics" promtool check metrics <"$dir/ppwatch.prom"
	node_exporter_start "$dir" || fail "node_exporter does not start: $(tail -3 "$WORK/node_exporter.log")"
	m=$(curl -sf -m 30 "http://$NE_ADDR/metrics") || fail "scraping node_exporter"
	check "node_exporter reads it" grep -q '^ppwatch_pool_inflight_pages{.*device="vb"' <<<"$m"
	check "without an error" grep -q '^node_textfile_scrape_error 0' <<<"$m"
	check "--textfile with --listen: refused" bash -c "! '$PPWATCH' export --textfile '$dir/x.prom' --listen 127.0.0.1:0 2>/dev/null"
	check "a directory that is not there: exit 2" bash -c "'$PPWATCH' export --textfile /nonexistent/ppwatch.prom --interval 0.2 2>/dev/null; [ \$? -eq 2 ]"
}

prometheus_over_tls_and_through_node_exporter() {
	require_kernel
	need_tools htpasswd prometheus promtool prometheus-node-exporter
	make_pki
	local dir=$WORK/prom tf=$WORK/textfile q e n bad='' direct_only tpid
	mkdir -p "$dir" "$tf"
	lab_begin
	lab_hold 400 1000 5001 >/dev/null || fail "holder"
	lab_xdp_off
	printf '%s\n' "$PASS_WORD" >"$dir/password"
	cat >"$WORK/web.yml" <<-EOF
	tls_server_config:
	  cert_file: server.crt
	  key_file: server.key
	  client_ca_file: ca.crt
	  client_auth_type: RequireAndVerifyClientCert
	basic_auth_users:
	  prometheus: $HASH
	EOF
	# --level all: the untracked-pages panel needs the full ledger (dashboards/README.md)
	export_start --level all --interval 0.5 --web-config "$WORK/web.yml" -v -v
	"$PPWATCH" export --level all --textfile "$tf/ppwatch.prom" --interval 0.5 2>"$WORK/tf.err" &
	tpid=$!
	at_exit "kill $tpid 2>/dev/null; wait $tpid 2>/dev/null"
	node_exporter_start "$tf" || fail "node_exporter does not start"
	cat >"$dir/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 900ms
	  evaluation_interval: 1s
	rule_files:
	  - $ALERTS
	scrape_configs:
	  - job_name: ppwatch
	    scheme: https
	    tls_config:
	      ca_file: $WORK/ca.crt
	      cert_file: $WORK/client.crt
	      key_file: $WORK/client.key
	    basic_auth:
	      username: prometheus
	      password_file: $dir/password
	    static_configs:
	      - targets: ['$EXP_ADDR']
	  - job_name: node
	    static_configs:
	      - targets: ['$NE_ADDR']
	EOF
	check "promtool accepts the scrape config" promtool check config "$dir/prometheus.yml" >/dev/null
	prom_start "$dir/prometheus.yml" "$dir" ||
		skip "prometheus cannot run here: $(tail -3 "$dir/prometheus.log" | tr '\n' ' ')"
	_both_up() {
		q=$(prom_api /api/v1/targets | jq -c '[.data.activeTargets[] | {job: .labels.job, health, lastError}]')
		[ "$(jq '[.[] | select(.health == "up")] | length' <<<"$q" 2>/dev/null)" = 2 ]
	}
	wait_until 120 "Prometheus to scrape both targets" _both_up
	log "targets: $q"
	check "both targets up, scraped without error" jq -e 'length == 2 and all(.[]; .health == "up" and .lastError == "")' <<<"$q" >/dev/null
	check "the TLS scrape was authenticated (a 200 after the password)" grep -q ' 200 [0-9]* bytes' "$EXP_ERR"
	# samples for rate() over 10s: five of each target
	_samples() {
		[ "$(prom_query 'min(count_over_time(up[10s]))' | jq -r '.data.result[0].value[1] // 0')" -ge 5 ] 2>/dev/null
	}
	wait_until 120 "five samples of each target in Prometheus" _samples
	# the dashboard on each path: every query has data, but for what only a
	# direct scrape has (ppwatch's own process CPU, scrape and HTTP metrics)
	direct_only='process_cpu_seconds_total|ppwatch_scrape_duration_seconds|ppwatch_http_responses_total'
	# the item families have data only where the kernel reports item stats,
	# the allocation and recycling ones where it has CONFIG_PAGE_POOL_STATS
	# (the VM tests check them there: tests/vm/t/70-pp-stats.sh)
	local no_items no_ppstats kun
	kun=$("$PPWATCH" -j pools | jq -c '.kernel.unavailable // []')
	no_items=$(jq '[.[] | select(. == "item_stats")] | length' <<<"$kun")
	no_ppstats=$(jq '[.[] | select(. == "pp_stats")] | length' <<<"$kun")
	[ "$no_items" -eq 0 ] || skip_note "the ppwatch_{pool,device}_item_* queries: this kernel reports no page-pool item stats"
	[ "$no_ppstats" -eq 0 ] || skip_note "the ppwatch_pool_{alloc,recycle,recycling}_* queries: this kernel has no CONFIG_PAGE_POOL_STATS"
	for inst in "$EXP_ADDR" "$NE_ADDR"; do
		while IFS= read -r e; do
			[ -n "$e" ] || continue
			[ "$no_items" -eq 0 ] || ! grep -Eq 'ppwatch_(pool|device)_item_' <<<"$e" || continue
			[ "$no_ppstats" -eq 0 ] || ! grep -Eq 'ppwatch_pool_(alloc|recycle|recycling)_' <<<"$e" || continue
			[ "$inst" = "$NE_ADDR" ] && grep -qE "$direct_only" <<<"$e" && continue
			q=$(prom_query "$e") || { bad="$bad
      query failed: $e"; continue; }
			[ "$(jq '.data.result | length' <<<"$q")" -gt 0 ] || bad="$bad
      no data for $inst: $e"
		done < <(dashboard_exprs "$inst")
	done
	log "dashboard: $(dashboard_exprs | grep -c .) expressions on each path"
	[ -z "$bad" ] || fail "dashboard queries without data:$bad"
	# the alert rules: valid, and the stalled-pool one fires on both paths once the lab's zombie is 60 s old
	while IFS= read -r e; do
		q=$(prom_query "$e") || { bad="$bad $e"; continue; }
		[ "$(jq -r .status <<<"$q")" = success ] || bad="$bad $e"
	done < <(alert_exprs)
	[ -z "$bad" ] || fail "alert expressions not valid:$bad"
	q=$(prom_query 'count by (job) (ppwatch_pool_zombie == 1)' | jq -c '[.data.result[] | {(.metric.job): .value[1]}] | add')
	log "the lab's zombie, by job: $q"
	check "seen as a zombie on both paths" jq -e '.ppwatch >= "1" and .node >= "1"' <<<"$q" >/dev/null
	check "prometheus logged no errors" [ -z "$(grep -i 'level=error' "$dir/prometheus.log")" ]
}

run_tests
