#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the exporter's tests share (test_export.sh, test_export_web.sh, and
# the host's half of the VMs' t/70, tests/vm/host-prom.sh): the dashboard's
# and the alert rules' expressions and the metrics they use, and a real
# Prometheus and node_exporter (Debian's, deps/prometheus.txt) on free
# ports. Sourced after lib.sh (or anything that gives TOP, WORK, at_exit).

DASHBOARD=$TOP/dashboards/ppwatch.json
ALERTS=$TOP/dashboards/ppwatch-alerts.yml

# metric names the exporter can produce, from 'ppwatch export help'
known_metrics() {
	"$PPWATCH" export help | awk '/^  (ppwatch|process)_[a-z_]+ (gauge|counter|info) /{ print $1 }'
}

# every metric name used by a PromQL expression on stdin
used_metrics() {
	grep -oE '\b(ppwatch|process)_[a-z_]+\b' | sort -u
}

# every expression of the dashboard, with Grafana's variables filled in
# ($instance: the regex given, else any)
dashboard_exprs() {	# [instance-regex]
	local inst=${1:-.*}
	jq -r '(.panels[] | .targets[]?.expr),
	       (.templating.list[] | select(.type == "query") | .definition)' "$DASHBOARD" |
		sed -E -e 's/^label_values\((.*), *[a-z_]+\)$/\1/' \
		       -e 's/^label_values\(([a-z_]+)\)$/\1/' \
		       -e "s/\\\$instance/$inst/g" -e 's/\$(netns|device)/.*/g' \
		       -e 's/\$__rate_interval/10s/g' -e 's/\$__interval/5s/g' -e 's/\$__range/1m/g'
}

alert_exprs() {
	sed -n 's/^ *expr: *//p' "$ALERTS"
}

prom_api() {	# prom_api PATH [curl args]: JSON from Prometheus' HTTP API
	local path=$1
	shift
	curl -sf -m 10 "$@" "http://127.0.0.1:$PROM_PORT$path"
}

prom_query() {	# prom_query EXPR: the /api/v1/query JSON
	prom_api /api/v1/query -G --data-urlencode "query=$1"
}

# on_free_port LOG READY CMD...: CMD in the background (its output to LOG),
# each @PORT@ in its words a free port's number (five tried), until
# 'READY PORT' succeeds or CMD exits (120 s: a hang; a loaded machine starts
# it slowly); sets SERVE_PORT and SERVE_PID (killed at exit)
on_free_port() {
	local log=$1 ready=$2 port end
	shift 2
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 30000))
		ss -ltn "sport = :$port" | grep -q LISTEN && continue
		"${@//@PORT@/$port}" >"$log" 2>&1 &
		SERVE_PID=$!
		at_exit "kill $SERVE_PID 2>/dev/null; wait $SERVE_PID 2>/dev/null"
		end=$((SECONDS + 120))
		while [ "$SECONDS" -lt "$end" ]; do
			"$ready" "$port" && { SERVE_PORT=$port; return 0; }
			kill -0 "$SERVE_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$SERVE_PID" 2>/dev/null
		wait "$SERVE_PID" 2>/dev/null
	done
	return 1
}

prom_ready() { PROM_PORT=$1 prom_api /-/ready >/dev/null 2>&1; }

prom_start() {	# prom_start CONFIG DIR: sets PROM_PORT
	on_free_port "$2/prometheus.log" prom_ready \
		prometheus --config.file="$1" --storage.tsdb.path="$2/data" \
		--web.listen-address=127.0.0.1:@PORT@ \
		--storage.tsdb.retention.time=1h --log.level=warn || return 1
	PROM_PORT=$SERVE_PORT
}

ne_ready() { curl -sf -m 30 -o /dev/null "http://127.0.0.1:$1/metrics"; }

# node_exporter with only its textfile collector, on DIR: sets NE_ADDR
node_exporter_start() {	# dir
	on_free_port "$WORK/node_exporter.log" ne_ready \
		prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$1" --web.listen-address=127.0.0.1:@PORT@ || return 1
	# shellcheck disable=SC2034 # NE_ADDR: the caller's
	NE_ADDR=127.0.0.1:$SERVE_PORT
}
