#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the functional tests no longer time (tests/integration: test_inputs,
# test_export_abuse, test_export_privsep), measured here as ratios to a
# baseline taken in the same round, so that a slower or busier machine moves
# both sides:
#
#   rules       CPU of 'check --validate' on each hostile rules file (200 KB
#               of nesting, 50,000 aliases, 40,000 rules with a duplicate, a
#               1000-byte key) against a plain file of 40,000 rules
#   slow        scrape latency among 50 slow clients (--max-clients 16,
#               --timeout 10m: only the room made for new connections lets
#               a scrape in) against a scrape of the same exporter alone
#   guess       an authenticated scrape while another address guesses
#               passwords at 20 a second, against one alone (each the
#               first check of the password: a bcrypt)
#   reload      SIGHUP to the first scrape with the new password (the
#               exporter sampling once an hour), against a first scrape
#               with the old one
#   sigterm     SIGTERM to the exit of a postmortem reading an endless
#               recording, against the time it took to read its first MB
#
#   bench/inputs.sh RESULTS.jsonl ROUNDS     (root; bench/run.sh inputs)
#
# Appends one JSON line per measurement (label "inputs ...") to RESULTS.
set -eu
here=$(dirname "$(readlink -f "$0")")
out=${1:?usage: $0 RESULTS.jsonl ROUNDS}
rounds=${2:-3}
OUTPUT=${OUTPUT:-$here/../.output}
PPW=$OUTPUT/ppwatch
ABUSE="python3 $here/../tests/integration/http_abuse.py"
work=$(mktemp -d /tmp/ppwbench-inputs.XXXXXX)
chmod 0755 "$work"
exp=
cleanup() {
	[ -z "$exp" ] || { kill "$exp" 2>/dev/null || true; wait "$exp" 2>/dev/null || true; }
	rm -rf "$work"
}
trap cleanup EXIT

put() { printf '%s\n' "$1" >>"$out"; }
now() { date +%s.%N; }
# user + system CPU seconds of CMD (its output discarded; time(1) puts a
# line before them when CMD exits non-zero, as the hostile files do)
cpu_of() {
	/usr/bin/time -o "$work/time" -f '%U %S' "$@" >/dev/null 2>&1 || true
	tail -n 1 "$work/time" | awk '{ print $1 + $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# the exporter on a free port, extra args passed on: sets exp, addr
export_up() {
	: >"$work/exp.err"
	"$PPW" export --listen 127.0.0.1:0 --no-netlink "$@" 2>"$work/exp.err" &
	exp=$!
	for _ in $(seq 1200); do
		addr=$(sed -n 's|^ppwatch export: listening on http://\(.*\)/metrics$|\1|p' "$work/exp.err")
		[ -n "$addr" ] && return 0
		kill -0 "$exp" 2>/dev/null || break
		sleep 0.1
	done
	echo "bench: export did not start: $(cat "$work/exp.err")" >&2
	exit 1
}
export_down() { kill "$exp" 2>/dev/null || true; wait "$exp" 2>/dev/null || true; exp=; }

# seconds of one scrape (curl args passed on)
scrape_s() { curl -s -m 60 -o /dev/null -w '%{time_total}\n' "$@" "http://$addr/metrics"; }
# median seconds of N scrapes
scrapes_med() {
	local n=$1
	shift
	for _ in $(seq "$n"); do scrape_s "$@"; done | median
}

rules_files() {
	python3 - "$work" <<-'EOF'
	import sys
	d = sys.argv[1]
	open(d + '/deep.yaml', 'w').write('rules: ' + '[' * 100000 + ']' * 100000 + '\n')
	open(d + '/alias.yaml', 'w').write('x: &a {' + ', '.join('k%d: 1' % i for i in range(2000))
	                                   + '}\nrules: [' + ', '.join(['*a'] * 50000) + ']\n')
	for name, dup in (('many', True), ('plain', False)):
	    with open(d + '/' + name + '.yaml', 'w') as f:
	        f.write('rules:\n')
	        for i in range(40000):
	            f.write('  - name: r%d\n    min_pools: 0\n' % (7 if dup and i >= 39998 else i))
	open(d + '/key.yaml', 'w').write('rules:\n  - name: a\n    "\\e[31m' + 'k' * 1000 + '": 1\n')
	EOF
}

rules() {	# round
	local f base c
	base=$(cpu_of "$PPW" check --validate -f "$work/plain.yaml")
	for f in deep alias many key; do
		c=$(cpu_of "$PPW" check --validate -f "$work/$f.yaml")
		put "{\"label\":\"inputs rules\",\"round\":$1,\"file\":\"$f\",\"bytes\":$(stat -c %s "$work/$f.yaml"),\"cpu_s\":$c,\"base_cpu_s\":$base,\"base_bytes\":$(stat -c %s "$work/plain.yaml")}"
	done
}

slow() {	# round
	local q r
	export_up --interval 0.5 --max-clients 16 --timeout 10m
	q=$(scrapes_med 10)
	r=$($ABUSE "$addr" slow 50 8)
	put "$(jq -c --argjson r "$1" --argjson q "$q" \
		'{label: "inputs slow", round: $r, quiet_s: $q, scrapes: (.latency_s | length),
		  med_s: (.latency_s | sort | .[length / 2 | floor]), max_s: .max_latency_s}' <<<"$r")"
	export_down
}

guess() {	# round
	local q r pw=bench-password hash
	hash=$(htpasswd -nbBC 10 prometheus "$pw" | cut -d: -f2)
	printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >"$work/web.yml"
	# the baseline: a fresh exporter's first scrape, its password checked
	# (bcrypt) for the first time, as the guessed-at scrape's is
	export_up --interval 0.5 --web-config "$work/web.yml"
	q=$(scrape_s -u "prometheus:$pw")
	export_down
	# a new exporter: the password not remembered yet, as in the test
	export_up --interval 0.5 --web-config "$work/web.yml"
	r=$($ABUSE "$addr" guess 127.0.0.2 4 20 "prometheus:x" 1 127.0.0.1 "prometheus:$pw")
	put "$(jq -c --argjson r "$1" --argjson q "$q" \
		'{label: "inputs guess", round: $r, quiet_s: $q, status: .scrape.status, s: .scrape.seconds}' <<<"$r")"
	export_down
}

reload() {	# round
	local q t0 t1 pw=bench-password h1 h2
	h1=$(htpasswd -nbBC 10 prometheus "$pw" | cut -d: -f2)
	h2=$(htpasswd -nbBC 10 prometheus "$pw-2" | cut -d: -f2)
	printf 'basic_auth_users:\n  prometheus: %s\n' "$h1" >"$work/live.yml"
	export_up --interval 1h --web-config "$work/live.yml"
	# the baseline: its first scrape, the password checked for the first
	# time, as the new one's is after the reload
	q=$(scrape_s -u "prometheus:$pw")
	printf 'basic_auth_users:\n  prometheus: %s\n' "$h2" >"$work/live.yml"
	t0=$(now)
	kill -HUP "$exp"
	until [ "$(curl -s -m 60 -o /dev/null -w '%{http_code}' -u "prometheus:$pw-2" "http://$addr/metrics")" = 200 ]; do
		kill -0 "$exp" || exit 1
	done
	t1=$(now)
	put "{\"label\":\"inputs reload\",\"round\":$1,\"quiet_s\":$q,\"s\":$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')}"
	export_down
}

sigterm() {	# round
	local pid t0 t1 tr header
	header='{"type":"header","time":1000,"format":1,"hostname":"h","stall_after_s":60}'
	"$PPW" postmortem - >/dev/null 2>&1 < <(
		echo "$header"
		exec awk 'BEGIN { for (i = 0; ; i++)
			printf "{\"type\":\"event\",\"event\":{\"time\":%d,\"event\":\"retry\",\"retry\":%d,\"addr\":\"0x%x\",\"gen\":1,\"id\":%d,\"inflight\":%d}}\n", i, i, i % 1000, i % 1000, i }' 2>/dev/null
	) &
	pid=$!
	t0=$(now)
	until [ "$(awk '/^rchar:/ { print $2 }' "/proc/$pid/io" 2>/dev/null || echo 0)" -gt 1048576 ]; do
		sleep 0.001
	done
	tr=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')
	t0=$(now)
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.001; done
	t1=$(now)
	wait "$pid" 2>/dev/null || true
	put "{\"label\":\"inputs sigterm\",\"round\":$1,\"read_1mb_s\":$tr,\"s\":$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')}"
}

command -v htpasswd >/dev/null || { echo "bench: inputs needs htpasswd (apache2-utils)" >&2; exit 2; }
rules_files
for r in $(seq "$rounds"); do
	echo "-- inputs: round $r"
	rules "$r"
	slow "$r"
	guess "$r"
	reload "$r"
	sigterm "$r"
done
