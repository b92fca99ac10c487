#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch export on the running kernel, in the veth lab: the metrics follow
# a pool through live, zombie and freed; both exposition formats, checked by
# promtool; the HTTP server against malformed, slow and too many clients;
# the dashboard's structure; and a real Prometheus scraping the exporter,
# answering every query of the dashboard and the alert rules, and firing
# the stalled-pool alert.

ALL_TESTS="
	dashboard_structure
	metrics_follow_the_lab
	formats_and_promtool
	http_robustness
	export_errors
	device_filters
	prometheus_end_to_end
	prometheus_series_device
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=prom_lib.sh
. "$(dirname "$0")/prom_lib.sh"


# ---- helpers -----------------------------------------------------------------

# value of NAME for the pool whose labels contain every MATCH (label="v")
metric() {
	local name=$1
	shift
	awk -v n="$name" -v m="$*" '
		index($0, n "{") == 1 {
			k = split(m, want, " ")
			for (i = 1; i <= k; i++) if (!index($0, want[i])) next
			print $NF; exit
		}'
}

# One raw HTTP exchange over bash's /dev/tcp: prints the response.
http_raw() {
	local req=$1 t=${2:-5} fd
	exec {fd}<>"/dev/tcp/$EXP_HOST/$EXP_PORT" || return 1
	printf '%s' "$req" 1>&"$fd" 2>/dev/null
	timeout "$t" cat <&"$fd"
	exec {fd}>&-
}

status_of() { head -1 | tr -d '\r'; }

# ---- cases ------------------------------------------------------------------------

dashboard_structure() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	check "dashboard is JSON" jq -e . "$DASHBOARD" >/dev/null
	check "Grafana schema: title, uid, schemaVersion, panels" jq -e \
		'(.title | length > 0) and (.uid | length > 0) and .schemaVersion >= 36 and (.panels | length > 0)' \
		"$DASHBOARD" >/dev/null
	check "a Prometheus datasource variable" jq -e \
		'any(.templating.list[]; .name == "datasource" and .type == "datasource" and .query == "prometheus")' \
		"$DASHBOARD" >/dev/null
	check "templating for instance, netns, device" jq -e \
		'[.templating.list[].name] | contains(["instance", "netns", "device"])' "$DASHBOARD" >/dev/null
	check "panel ids unique" jq -e '[.panels[].id] | length == (unique | length)' "$DASHBOARD" >/dev/null
	check "every panel placed on the 24-column grid" jq -e \
		'all(.panels[]; .gridPos.w > 0 and .gridPos.h > 0 and .gridPos.x >= 0 and .gridPos.x + .gridPos.w <= 24 and .gridPos.y >= 0)' \
		"$DASHBOARD" >/dev/null
	check "every non-row panel queries the datasource variable" jq -e \
		'all(.panels[] | select(.type != "row"); .datasource.uid == "${datasource}" and (.targets | length > 0) and all(.targets[]; (.expr | length > 0) and .datasource.uid == "${datasource}" and (.refId | length > 0)))' \
		"$DASHBOARD" >/dev/null
	check "refIds unique within a panel" jq -e \
		'all(.panels[] | select(.targets); [.targets[].refId] | length == (unique | length))' "$DASHBOARD" >/dev/null
	local t
	for t in "Fleet overview" "Per device" "Zombie pools" "Item stats"; do
		check "a '$t' row" jq -e --arg t "$t" \
			'any(.panels[]; .type == "row" and (.title | startswith($t)))' "$DASHBOARD" >/dev/null
	done
	# panels do not overlap: no two share a grid cell
	check "panels do not overlap" jq -e '
		[.panels[] | .gridPos as $g | range($g.y; $g.y + $g.h) as $y | range($g.x; $g.x + $g.w) as $x | "\($x),\($y)"]
		| length == (unique | length)' "$DASHBOARD" >/dev/null
	local known used m bad=
	known=$(known_metrics)
	[ "$(wc -l <<<"$known")" -ge 30 ] || fail "ppwatch export help lists too few metrics: $known"
	used=$( { dashboard_exprs; alert_exprs; } | used_metrics)
	for m in $used; do
		grep -qx "$m" <<<"$known" || bad="$bad $m"
	done
	log "$(wc -l <<<"$used") metrics used by the dashboard and the alerts, $(wc -l <<<"$known") exported"
	[ -z "$bad" ] || fail "dashboard or alerts use metrics the exporter does not produce:$bad"
	if command -v promtool >/dev/null; then
		check "promtool accepts the alert rules" promtool check rules "$ALERTS" >/dev/null
		# the rules on made-up series: PagePoolNotRecycling fires on the pool
		# that allocates and recycles nothing, and only on it
		check "promtool test rules: tests/integration/alerts_test.yml" \
			promtool test rules "$TOP/tests/integration/alerts_test.yml" >/dev/null
	else
		skip_note "promtool not installed (deps/prometheus.txt): alert rules not checked here"
	fi
}

metrics_follow_the_lab() {
	require_kernel
	lab_begin
	lab_hold 400 1000 >/dev/null || fail "holder"
	local ns m id inflight held rel z age t0 t1 tc
	export_start --interval 0.3
	ns="netns=\"$(lab_netns_ino)\""
	# the lab's pool, named by its device once the exporter follows the
	# lab's namespace (not in its first sample on a loaded machine; a pool
	# never listed fails after 120 s)
	_listed() {
		m=$(scrape) || return 1
		id=$(grep '^ppwatch_pool_inflight_pages{' <<<"$m" | grep -F "$ns" | grep -F 'device="vb"' |
			sed -n 's/.*pool_id="\([^"]*\)".*/\1/p' | head -1)
		[ -n "$id" ]
	}
	wait_until 120 "the lab's vb pool in a scrape" _listed
	inflight=$(metric ppwatch_pool_inflight_pages "pool_id=\"$id\"" <<<"$m")
	held=$(metric ppwatch_pool_pages_held_total "pool_id=\"$id\"" <<<"$m")
	rel=$(metric ppwatch_pool_pages_released_total "pool_id=\"$id\"" <<<"$m")
	log "pool $id: inflight $inflight, held $held, released $rel"
	check "pages held show up" num "$inflight >= 100"
	check "inflight = held - released" num "$held - $rel == $inflight"
	check "live pool is no zombie" num "$(metric ppwatch_pool_zombie "pool_id=\"$id\"" <<<"$m") == 0"
	check "no detach age for a live pool" [ -z "$(metric ppwatch_pool_detach_age_seconds "pool_id=\"$id\"" <<<"$m")" ]
	check "oldest page age" num "$(metric ppwatch_pool_oldest_page_age_seconds "pool_id=\"$id\"" <<<"$m") > 0"
	check "labels: ifindex of vb" grep -qF "pool_id=\"$id\",device=\"vb\",ifindex=\"$(ip -n "$LAB_B" -o link show vb | cut -d: -f1)\"" <<<"$m"

	t0=$(date +%s.%N)
	lab_xdp_off
	t1=$(date +%s.%N)
	m=$(scrape_after "$t1") || fail "no sample after the destroy"
	z=$(metric ppwatch_pool_zombie "pool_id=\"$id\"" <<<"$m")
	age=$(metric ppwatch_pool_detach_age_seconds "pool_id=\"$id\"" <<<"$m")
	tc=$(awk '$1 == "ppwatch_last_collect_timestamp_seconds" { print $2 }' <<<"$m")
	log "after XDP off (between $t0 and $t1): zombie=$z detach_age=$age at $tc retries=$(metric ppwatch_pool_release_retries_total "pool_id=\"$id\"" <<<"$m")"
	check "zombie" num "$z == 1"
	# the time since the destroy, as the test's clock brackets it (to the
	# exposition's millisecond)
	check "detach age" num "$age >= $tc - $t1 - 0.002 and $age <= $tc - $t0 + 0.002"
	check "counted as a zombie" num "$(metric ppwatch_pools 'state="zombie"' <<<"$m") >= 1"

	lab_release
	# freed at the kernel's next retry: waited for (a pool never dropped
	# from the output fails after 60 s)
	_gone() { m=$(scrape) && ! grep -qF "pool_id=\"$id\"" <<<"$m"; }
	wait_until 60 "the freed pool to leave the output" _gone
	check "stderr is quiet" [ "$(grep -vc "^ppwatch export: listening" "$EXP_ERR")" -eq 0 ]
}

formats_and_promtool() {
	require_kernel
	lab_begin
	lab_hold 200 >/dev/null || fail "holder"
	local h body om=/tmp/ppwt$BASHPID.om txt=/tmp/ppwt$BASHPID.txt t0
	t0=$(date +%s.%N)
	export_start --interval 0.5
	at_exit "rm -f $om $txt"
	scrape_after "$t0" >/dev/null || fail "no sample"
	h=$(curl -sf -m 30 -D - -o "$om" \
		-H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' \
		"http://$EXP_ADDR/metrics") || fail "OpenMetrics scrape failed"
	check "OpenMetrics content type" grep -qi '^content-type: application/openmetrics-text; version=1.0.0' <<<"$h"
	check "OpenMetrics ends with # EOF" [ "$(tail -1 "$om")" = "# EOF" ]
	check "OpenMetrics counter families drop _total" grep -q '^# TYPE ppwatch_pool_pages_held counter$' "$om"
	h=$(curl -sf -m 30 -D - -o "$txt" "http://$EXP_ADDR/metrics") || fail "text scrape failed"
	check "text 0.0.4 content type" grep -qi '^content-type: text/plain; version=0.0.4' <<<"$h"
	check "no # EOF in text 0.0.4" [ -z "$(grep '^# EOF' "$txt")" ]
	check "HEAD: headers only" [ -z "$(curl -sf -m 30 -I "http://$EXP_ADDR/metrics" | sed '1,/^\r$/d')" ]
	body=$("$PPWATCH" export --once --interval 0.2) || fail "--once failed"
	check "--once prints the metrics" grep -q '^ppwatch_pools{state="live"}' <<<"$body"
	command -v promtool >/dev/null ||
		skip "promtool not installed (deps/prometheus.txt); formats checked, not linted"
	check "promtool accepts a scrape" promtool check metrics <"$txt"
	check "promtool accepts --once" promtool check metrics <<<"$body"
}

http_robustness() {
	require_kernel
	export_start --interval 0.5 --timeout 1s --max-clients 4
	local r big i t0 t1 ok=0 dir=/tmp/ppwt$BASHPID.slow
	CRLF=$'\r\n'
	# libmicrohttpd answers what it cannot parse itself; garbage is closed
	r=$(http_raw "garbage$CRLF$CRLF" | status_of)
	check "garbage: closed or 400 ($r)" [ -z "$r" -o "$r" = "HTTP/1.1 400 Bad Request" ]
	r=$(http_raw "POST /metrics HTTP/1.1${CRLF}Host: x${CRLF}Content-Length: 3${CRLF}Connection: close$CRLF${CRLF}abc")
	check "POST: 405" [ "$(status_of <<<"$r")" = "HTTP/1.1 405 Method Not Allowed" ]
	check "405 says what is allowed" grep -q '^Allow: GET, HEAD' <<<"$r"
	r=$(http_raw "GET /nope HTTP/1.0$CRLF$CRLF" | status_of)
	check "other path: 404 ($r)" [ "$r" = "HTTP/1.1 404 Not Found" ]
	r=$(http_raw "PRI * HTTP/2.0$CRLF${CRLF}SM$CRLF$CRLF" | status_of)
	check "HTTP/2 preface: 505 ($r)" [ "$r" = "HTTP/1.1 505 HTTP Version Not Supported" ]
	r=$(http_raw "GET /metrics HTTP/1.1$CRLF$CRLF" | status_of)
	check "HTTP/1.1 without Host: 400 ($r)" [ "$r" = "HTTP/1.1 400 Bad Request" ]
	big=$(head -c 10000 /dev/zero | tr '\0' a)
	# libmicrohttpd answers 431 and closes with the rest of the head unread:
	# the client may see the reset before the answer
	r=$(http_raw "GET /metrics HTTP/1.1${CRLF}Host: x${CRLF}X-Big: $big$CRLF$CRLF" | status_of)
	check "10 KB of headers: 431 or reset (${r:-reset})" [ -z "$r" -o "$r" = "HTTP/1.1 431 Request Header Fields Too Large" ]
	r=$(head -c 20000 /dev/urandom | tr -d '\0' | { exec {fd}<>"/dev/tcp/$EXP_HOST/$EXP_PORT"; cat >&"$fd"; timeout 5 cat <&"$fd"; } 2>/dev/null | status_of)
	log "20 KB of random bytes: ${r:-closed}"
	{ [ -z "$r" ] || grep -qE '^HTTP/1.1 (400|431|408|505) ' <<<"$r"; } ||
		fail "random bytes: an error or closed ($r)"
	# connect and hang up at once, half a request and hang up
	for i in 1 2 3; do
		{ exec {fd}<>"/dev/tcp/$EXP_HOST/$EXP_PORT"; exec {fd}>&-; } 2>/dev/null
		{ exec {fd}<>"/dev/tcp/$EXP_HOST/$EXP_PORT"; printf 'GET /met' >&"$fd"; exec {fd}>&-; } 2>/dev/null
	done

	# slowloris: three clients sending a byte every 300 ms; the request
	# never completes within --timeout 1s, so each gets 408, while normal
	# scrapes in the meantime are served
	mkdir -p "$dir"
	local -a slow
	for i in 1 2 3; do
		(
			exec {fd}<>"/dev/tcp/$EXP_HOST/$EXP_PORT" || exit 1
			req="GET /metrics HTTP/1.1${CRLF}Host: slow${CRLF}User-Agent: slowloris$CRLF"
			( for ((k = 0; k < ${#req}; k++)); do
				printf '%s' "${req:k:1}" 1>&"$fd" 2>/dev/null || break
				sleep 0.3
			  done ) &
			timeout 10 cat <&"$fd" >"$dir/$i"
			kill $! 2>/dev/null
		) &
		slow+=($!)
	done
	# the slow clients connected (the scenario; nothing is timed)
	_slow_in() { [ "$(ss -Htn state established "( sport = :$EXP_PORT )" 2>/dev/null | wc -l)" -ge 3 ]; }
	wait_until 60 "the three slow clients to connect" _slow_in
	for i in 1 2 3 4 5; do
		t0=$(date +%s.%N)
		if scrape >/dev/null; then
			ok=$((ok + 1))
		fi
		t1=$(date +%s.%N)
		log "scrape $i during slowloris: $(jq -n "($t1 - $t0) * 1000 | floor") ms"
		sleep 0.1
	done
	wait "${slow[@]}"	# not a bare wait: the exporter is a child too
	check "scrapes served while slow clients hang on" [ $ok -eq 5 ]
	for i in 1 2 3; do
		r=$(status_of <"$dir/$i")
		check "slow client $i: 408 ($r)" [ "$r" = "HTTP/1.1 408 Request Timeout" ]
	done
	rm -rf "$dir"

	# at --max-clients with idle connections, a scrape is served anyway: the
	# connection that waited longest for a request makes room
	local -a idle
	local lsock l
	l=$(cat "/proc/$EXP_PID/task/$EXP_PID/children")
	lsock=$(find "/proc/${l%% *}/fd" -mindepth 1 -maxdepth 1 -lname 'socket:*' | wc -l)
	for i in 1 2 3 4; do
		exec {fd}<>"/dev/tcp/$EXP_HOST/$EXP_PORT"
		idle+=("$fd")
	done
	# the listener has taken them: four connections it holds
	_idle_taken() {
		local l
		l=$(cat "/proc/$EXP_PID/task/$EXP_PID/children" 2>/dev/null)
		[ "$(find "/proc/${l%% *}/fd" -mindepth 1 -maxdepth 1 -lname 'socket:*' 2>/dev/null | wc -l)" -ge $((lsock + 4)) ]
	}
	wait_until 60 "the listener to take the four idle connections" _idle_taken
	r=$(curl -s -m 30 -o /dev/null -w '%{http_code} %{time_total}' "http://$EXP_ADDR/metrics")
	log "a scrape at --max-clients 4 with 4 idle connections: $r"
	check "served at --max-clients ($r)" [ "${r% *}" = 200 ]
	for fd in "${idle[@]}"; do exec {fd}>&-; done
	check "served again afterwards" scrape >/dev/null
	check "still running" kill -0 "$EXP_PID"
	r=$(scrape | grep '^ppwatch_http_responses_total')
	log "$(tr '\n' ' ' <<<"$r")"
	for i in 200 400 404 405 408 505; do
		check "response $i counted" grep -q "code=\"$i\"" <<<"$r"
	done
}

export_errors() {
	require_kernel
	local err rc
	export_start --interval 1
	err=$("$PPWATCH" export --listen "$EXP_ADDR" 2>&1 >/dev/null)
	rc=$?
	log "port in use: rc=$rc: $err"
	check "port in use: exit 2" [ $rc -eq 2 ]
	check "names the address and the reason" grep -q "cannot listen on $EXP_ADDR: Address already in use" <<<"$err"
	err=$("$PPWATCH" export --listen nonsense 2>&1 >/dev/null)
	check "bad --listen: exit 2" [ $? -eq 2 ]
	check "says what is expected" grep -q 'expected ADDR:PORT' <<<"$err"
	err=$("$PPWATCH" export --listen 192.0.2.77:9478 2>&1 >/dev/null)
	check "address not local: exit 2" [ $? -eq 2 ]
	check "says so" grep -q 'no such local address' <<<"$err"
	"$PPWATCH" -j export >/dev/null 2>&1
	check "-j: exit 2" [ $? -eq 2 ]
	"$PPWATCH" export --interval 1ms >/dev/null 2>&1
	check "too short an interval: exit 2" [ $? -eq 2 ]
}

# no line of TEXT matches the basic regular expression RE
none() {	# re text
	! grep -q -- "$1" <<<"$2"
}

# --device-include / --device-exclude, node_exporter's: the lab's vb in or out, whole
device_filters() {
	require_kernel
	local out rc
	lab_begin
	lab_hold 200 >/dev/null || fail "holder"
	out=$("$PPWATCH" export --once --interval 0.2 --device-exclude '^vb$' 2>/dev/null) || fail "--device-exclude"
	check "excluded: no pool series of vb" none '^ppwatch_pool_[a-z_]*{.*device="vb"' "$out"
	check "excluded: no device series of vb" none '^ppwatch_device_[a-z_]*{device="vb"' "$out"
	check "excluded: still a valid exposition" promtool check metrics <<<"$out"
	out=$("$PPWATCH" export --once --interval 0.2 --device-include '^vb$' 2>/dev/null) || fail "--device-include"
	check "included: vb's pool" grep -q '^ppwatch_pool_inflight_pages{.*device="vb"' <<<"$out"
	check "included: vb's sums" grep -q '^ppwatch_device_inflight_pages{device="vb"' <<<"$out"
	check "included: no other device" none '^ppwatch_\(pool\|device\)_inflight_pages{.*device="[^v]' "$out"
	check "included: the pools exported are vb's" grep -q '^ppwatch_pools_exported [1-9]' <<<"$out"
	out=$("$PPWATCH" export --once --device-include '(' 2>&1 >/dev/null)
	rc=$?
	check "a bad expression: exit 2" [ $rc -eq 2 ]
	check "says why and what is expected" grep -q "device-include '(': .*expected a POSIX extended regular expression" <<<"$out"
}

# ---- a real Prometheus (prom_lib.sh starts and queries it) ------------------------

# the dashboard and the rules, read the same with either --series (docs/ppwatch-export.rst)
prometheus_end_to_end() {
	prometheus_with --series pool
}

# per device, and no top pools: only the lab's zombie keeps series of its own
prometheus_series_device() {
	prometheus_with --series device --top-pools 0
}

prometheus_with() {
	require_kernel
	if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
		skip "prometheus/promtool not installed (make deps installs deps/prometheus.txt)"
	fi
	local dir=/tmp/ppwt$BASHPID.prom e q n m id bad='' skipped='' noitems='' known items ppstats
	mkdir -p "$dir"
	at_exit "rm -rf $dir"
	prometheus --version >/dev/null 2>&1 || skip "prometheus does not run here: $(prometheus --version 2>&1 | head -1)"
	log "$(prometheus --version 2>&1 | head -1)"

	# the lab: a zombie pool (its pages held by a socket that never reads)
	# and a live pool with pages out
	lab_begin
	lab_hold 400 1000 5001 >/dev/null || fail "holder 1"
	lab_xdp_off
	lab_xdp_on || fail "XDP back on"
	lab_hold 300 1000 5002 >/dev/null || fail "holder 2"
	# --level all: the untracked-pages panel needs the full ledger (dashboards/README.md)
	export_start --level all --interval 0.5 -v -v "$@" # -v -v logs each request's format

	# the alert rules under test: the real ones, with the stalled-pool
	# alert's threshold and 'for' cut so it fires within seconds
	sed -E -e '/alert: PagePoolStalled$/,/for:/{s/(ppwatch_pool_detach_age_seconds) > [0-9]+/\1 > 2/;s/for: .*/for: 1s/}' \
		"$ALERTS" >"$dir/alerts-test.yml"
	check "test rules differ from the real ones only in PagePoolStalled" \
		[ "$(diff "$ALERTS" "$dir/alerts-test.yml" | grep -c '^>')" -eq 2 ]
	check "promtool accepts the real alert rules" promtool check rules "$ALERTS" >/dev/null
	check "promtool accepts the test alert rules" promtool check rules "$dir/alerts-test.yml" >/dev/null
	check "promtool accepts a scrape" promtool check metrics < <(scrape)

	cat >"$dir/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 900ms
	  evaluation_interval: 1s
	rule_files:
	  - $dir/alerts-test.yml
	scrape_configs:
	  - job_name: ppwatch
	    static_configs:
	      - targets: ['$EXP_ADDR']
	EOF
	prom_start "$dir/prometheus.yml" "$dir" ||
		skip "prometheus cannot run here: $(tail -3 "$dir/prometheus.log" | tr '\n' ' ')"
	log "prometheus on 127.0.0.1:$PROM_PORT scraping $EXP_ADDR"

	# the target comes up (Prometheus asks for OpenMetrics: this parses it)
	_up() {
		q=$(prom_api /api/v1/targets | jq -c '.data.activeTargets[0] | {health, lastError}')
		[ "$(jq -r .health <<<"$q" 2>/dev/null)" = up ]
	}
	wait_until 120 "Prometheus to scrape the target" _up
	log "target: $q"
	check "target up, scraped without error" jq -e '.health == "up" and .lastError == ""' <<<"$q" >/dev/null
	check "Prometheus asked for and got OpenMetrics" grep -q ' 200 [0-9]* bytes (openmetrics)$' "$EXP_ERR"
	# enough samples for rate() over 10s: five of them
	_samples() {
		[ "$(prom_query 'count_over_time(up{job="ppwatch"}[10s])' | jq -r '.data.result[0].value[1] // 0')" -ge 5 ] 2>/dev/null
	}
	wait_until 120 "five samples in Prometheus" _samples

	known=$(known_metrics)
	items=$(scrape | grep -c '^ppwatch_\(pool\|device\)_item_')
	# allocation and recycling: CONFIG_PAGE_POOL_STATS kernels only
	ppstats=$(scrape | grep -c '^ppwatch_pool_\(alloc\|recycle\)_total{')
	log "$* : $(scrape | grep -c '^ppwatch_pool_inflight_pages{') pools with series of their own"
	# every query of the dashboard returns data
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		if { [ "$items" -eq 0 ] && grep -Eq 'ppwatch_(pool|device)_item_' <<<"$e"; } ||
			{ [ "$ppstats" -eq 0 ] && grep -Eq 'ppwatch_pool_(alloc|recycle|recycling)_' <<<"$e"; }; then
			skipped="$skipped
      $e"
			continue
		fi
		q=$(prom_query "$e") || { bad="$bad
      query failed: $e"; continue; }
		n=$(jq '.data.result | length' <<<"$q")
		[ "$(jq -r .status <<<"$q")" = success ] && [ "$n" -gt 0 ] || bad="$bad
      no data: $e"
	done < <(dashboard_exprs)
	log "dashboard: $(dashboard_exprs | grep -c .) expressions"
	[ -z "$skipped" ] || skip_note "no pool reports item stats (or allocation and recycling stats) on this kernel: $(grep -c . <<<"$skipped") dashboard queries of those families not checked"
	[ -z "$bad" ] || fail "dashboard queries without data:$bad"

	# every alert expression is valid, and each metric it reads has data
	while IFS= read -r e; do
		q=$(prom_query "$e") || { bad="$bad
      query failed: $e"; continue; }
		[ "$(jq -r .status <<<"$q")" = success ] || bad="$bad
      not valid: $e"
		for m in $(used_metrics <<<"$e") up; do
			grep -q "\b$m\b" <<<"$e" || continue
			if { [ "$items" -eq 0 ] && [[ $m == ppwatch_pool_item_* || $m == ppwatch_device_item_* ]]; } ||
				{ [ "$ppstats" -eq 0 ] && [[ $m == ppwatch_pool_alloc_* || $m == ppwatch_pool_recycle* ]]; }; then
				[[ " $noitems " == *" $m "* ]] || noitems="$noitems $m"
				continue
			fi
			[ "$m" = up ] && m='up{job="ppwatch"}'
			n=$(prom_query "$m" | jq '.data.result | length')
			[ "${n:-0}" -gt 0 ] || bad="$bad
      $m (in: $e) has no data"
		done
	done < <(alert_exprs)
	[ -z "$noitems" ] || skip_note "no pool reports item stats (or allocation and recycling stats) on this kernel: alert inputs not checked:$noitems"
	log "alerts: $(alert_exprs | grep -c .) expressions"
	[ -z "$bad" ] || fail "alert rules:$bad"

	# the stalled-pool alert fires, for the lab's zombie
	id=$(scrape | grep '^ppwatch_pool_zombie{' | grep -F "netns=\"$(lab_netns_ino)\"" |
		awk '$NF == 1' | sed -n 's/.*pool_id="\([^"]*\)".*/\1/p' | head -1)
	[ -n "$id" ] || fail "no zombie pool of the lab in the scrape"
	_firing() {
		q=$(prom_api /api/v1/alerts | jq -c --arg id "$id" \
			'[.data.alerts[] | select(.labels.alertname == "PagePoolStalled" and .labels.pool_id == $id)] | first')
		[ "$(jq -r '.state // empty' <<<"$q" 2>/dev/null)" = firing ]
	}
	wait_until 120 "PagePoolStalled to fire for pool $id" _firing
	log "alert: $(jq -c '{state, labels: {alertname: .labels.alertname, pool_id: .labels.pool_id, device: .labels.device, severity: .labels.severity}, summary: .annotations.summary}' <<<"$q")"
	check "PagePoolStalled fires for zombie pool $id" jq -e '.state == "firing" and .labels.device == "vb"' <<<"$q" >/dev/null
	check "prometheus logged no errors" [ -z "$(grep -i 'level=error' "$dir/prometheus.log")" ]
}

run_tests
