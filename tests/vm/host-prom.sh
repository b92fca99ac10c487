#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The host's half of t/70-pp-stats, run by the rig (kernel/rig.sh
# check_log) on a VM's log: a real Prometheus scrapes the exposition that
# 'ppwatch export --textfile --once' wrote in the VM, on a kernel with
# CONFIG_PAGE_POOL_STATS, through node_exporter's textfile collector (the
# way a host runs it, docs/ppwatch-export.rst TEXTFILE), and each
# allocation and recycling counter Prometheus then stores for the pool
# must equal what the kernel's own interfaces said, read by the VM before
# and after the export: page-pool-stats-get's for a pool netlink lists,
# ethtool -S's for a veth device's pools summed (PPVM-PROM-TRUTH: SELECTOR
# KEY=BEFORE:AFTER ..., SELECTOR a label matcher such as pool_id="3" or
# device="ppsb"; within them when the pools moved in between).
#
#   tests/vm/host-prom.sh LOG    prints "PPVM: PASS|FAIL 70-pp-stats: ..."
#                                lines (the rig adds them to the log);
#                                nothing when LOG has no PPVM-PROM-FILE.
# Needs Debian's prometheus and prometheus-node-exporter (make deps,
# deps/prometheus.txt); without them it fails, saying so.
set -u
LOG=$1
T=70-pp-stats
grep -q '^PPVM-PROM-FILE: ' "$LOG" || exit 0
TOP=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/ppwatch-host-prom.XXXXXX)
AT_EXIT=("rm -rf '$WORK'")
at_exit() { AT_EXIT=("$*" "${AT_EXIT[@]}"); }
_at_exit_run() { local c; for c in "${AT_EXIT[@]}"; do eval "$c"; done; }
trap _at_exit_run EXIT
# shellcheck source=../integration/prom_lib.sh
. "$TOP/tests/integration/prom_lib.sh"

fails=0
pass() { echo "PPVM: PASS $T: $*"; }
fail() { echo "PPVM: FAIL $T: $*"; fails=$((fails + 1)); }
W="host Prometheus through node_exporter's textfile collector"

for t in prometheus prometheus-node-exporter curl jq; do
	command -v "$t" >/dev/null || { fail "$W: $t is not installed (make deps: deps/prometheus.txt)"; exit 1; }
done
grep -q '^PPVM-PROM-TRUTH: ' "$LOG" || { fail "$W: the log has the file but no PPVM-PROM-TRUTH line"; exit 1; }
mkdir -p "$WORK/tf"
sed -n 's/^PPVM-PROM-FILE: //p' "$LOG" >"$WORK/tf/ppwatch.prom"

node_exporter_start "$WORK/tf" || { fail "$W: node_exporter does not start: $(tail -3 "$WORK/node_exporter.log" | tr '\n' ' ')"; exit 1; }
cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['$NE_ADDR']
EOF
prom_start "$WORK/prometheus.yml" "$WORK" || { fail "$W: prometheus does not start: $(tail -3 "$WORK/prometheus.log" | tr '\n' ' ')"; exit 1; }

# value EXPR: the one sample EXPR gives now (empty if none)
value() { prom_query "$1" | jq -r 'if (.data.result | length) == 1 then .data.result[0].value[1] else empty end' 2>/dev/null; }
# the first scrape stored (60 s: only a hang; a loaded host is slow)
end=$((SECONDS + 60))
while [ "$SECONDS" -lt "$end" ] && [ "$(value 'up{job="node"}')" != 1 ]; do
	sleep 0.5
done
up=$(value 'up{job="node"}')
if [ "$up" = 1 ]; then pass "$W: the target is up (up = 1)"; else fail "$W: the target is not up (up = '${up:-none}')"; fi
err=$(value 'node_textfile_scrape_error')
if [ "$err" = 0 ]; then
	pass "$W: node_exporter read ppwatch.prom without an error (node_textfile_scrape_error = 0)"
else
	fail "$W: node_exporter could not read the VM's ppwatch.prom (node_textfile_scrape_error = '${err:-none}'): $(tail -3 "$WORK/node_exporter.log" | tr '\n' ' ')"
fi
while read -r sel kvs; do
	for kv in $kvs; do
		k=${kv%%=*} range=${kv#*=}
		lo=${range%%:*} hi=${range#*:}
		fam=ppwatch_pool_${k%%_*}_total kind=${k#*_}
		expr="sum($fam{$sel,kind=\"$kind\"})"
		got=$(value "$expr")
		case $sel in
		pool_id=*) what="$W: $expr = page-pool-stats-get's $(tr _ - <<<"$k")" ;;
		*) what="$W: $expr = ethtool -S's $(sed -e 's/^/rx_pp_/' -e 's/slow_high_order$/slow_ho/' -e 's/released_refcnt$/released_ref/' <<<"$k")" ;;
		esac
		if [ -z "$got" ] || [ -z "$lo" ] || [ -z "$hi" ]; then
			fail "$what: no value (Prometheus '${got:-none}', the kernel's $lo..$hi)"
		elif awk -v g="$got" -v l="$lo" -v h="$hi" 'BEGIN { exit !(g + 0 >= l + 0 && g + 0 <= h + 0) }'; then
			pass "$what ($got, the kernel's $lo..$hi)"
		else
			fail "$what: Prometheus stored '$got', the kernel's was $lo..$hi"
		fi
	done
done < <(sed -n 's/^PPVM-PROM-TRUTH: //p' "$LOG")
[ "$fails" -eq 0 ]
