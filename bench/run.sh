#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What ppwatch costs, measured (make bench; root):
#
#   bench/run.sh [PARTS...]      PARTS: cost pps alt fold contention memory scale
#                                inputs (default: all of them)
#
#   cost        per-event run time of ppwatch's hot-path programs at each
#               --level, from the kernel's bpf_stats, as a ratio to a
#               counting-only program on the same tracepoints, measured alone
#               in a round of its own in the same run (and beside ppwatch);
#               and the CPU the ppwatch process took meanwhile (the fold of the
#               page logs, the refreshes: /proc/PID/schedstat) per event, as
#               the same ratio, and the fold's own share (its -v line)
#   alt         the floor per operation of each way to keep the ledger
#               (bench/alt.bpf.c: the log, its clocks, a kernel table, a hash
#               map, a ring buffer), each next to the counting program
#   fold        the user-space fold alone (ppbench --fold) at FOLD_PAGES
#               inflight pages: ns per event, memory per page
#   pps         the lab's page-churning flood in datagrams/s with no ppwatch
#               and with ppwatch top at each level, in interleaved rounds
#               (none, counters, sampled, all, none, ...) so drift cancels
#   contention  per-pool bookkeeping on one shared cache line (atomics) and
#               in per-CPU slots, with one CPU and with both CPUs flooding
#   memory      the ledger's map memory at each level for the default
#               --max-pages (1M pages), from the kernel's fdinfo
#   scale       CPU, wall and RSS of top (steady % of a core, on a
#               terminal and -b), pools, export (series, bytes) and holders with
#               SCALE_SIZES idle pools (tests/lab/scale.sh), and of
#               holders with HOLDER_SOCKETS sockets (ppgen crowd)
#   vmcore      'postmortem --vmcore' against the dump's size: the kernel
#               rig's crash-dump test (kernel/rig.sh vmcore VMCORE_LINE,
#               default deb13-bpo) with guests of VMCORE_MEMS MiB (default
#               1024 2048 4096), its dumps kept, each read ROUNDS times as
#               nobody: wall time and peak RSS by format and size. Boots
#               VMs (the rig's lock, ~2 min a size under TCG): not in the
#               default set
#   inputs      what the functional tests assert without timing it: hostile
#               rules files, scrapes among slow clients and password
#               guessers, a reload, a SIGTERM mid-read, each as a ratio to
#               its baseline in the same round (bench/inputs.sh)
#
# Knobs: SECONDS_PER_ROUND (default 3), ROUNDS (default 3). BASE_PPW=PATH
# also runs the cost and pps parts with that ppwatch binary at --level all,
# labelled "all-base" (another build: the design before, in the same run).
# Results: bench/results/<time>.jsonl (one JSON line per measurement),
# then bench/report.sh turns them into <time>.md, a chart <time>.svg and
# the table in bench/README.md.
set -eu
here=$(dirname "$(readlink -f "$0")")
export OUTPUT=${OUTPUT:-$here/../.output}
SECONDS_PER_ROUND=${SECONDS_PER_ROUND:-3}
ROUNDS=${ROUNDS:-3}
PARTS=${*:-cost pps alt fold contention memory scale inputs}
BASE_PPW=${BASE_PPW:-}
FOLD_PAGES=${FOLD_PAGES:-1000 100000 1000000}
ALTS="log jif read one half fixed ktm arr hash ring"
VMCORE_LINE=${VMCORE_LINE:-deb13-bpo}
VMCORE_MEMS=${VMCORE_MEMS:-1024 2048 4096}
# pools as veth pairs x queues: 10x10, 20x50, 40x250
SCALE_SIZES=${SCALE_SIZES:-10x10 20x50 40x250}
HOLDER_SOCKETS=${HOLDER_SOCKETS:-1000 10000 100000}
LEVELS="counters sampled all"
export LAB=ppwbench LAB_QUIET=1
# shellcheck source=../tests/lab/lab.sh
. "$here/../tests/lab/lab.sh"
# shellcheck source=../tests/lab/scale.sh
. "$here/../tests/lab/scale.sh"
export SCALE_NS=ppwbench-s
results=$here/results
mkdir -p "$results"
stamp=$(date +%Y%m%d-%H%M%S)
out=$results/$stamp.jsonl
PPW=$OUTPUT/ppwatch
BENCH=$OUTPUT/bench/ppbench

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root" >&2; exit 2; }
if [ ! -x "$PPW" ] || [ ! -x "$BENCH" ]; then
	echo "bench: run 'make bench' (builds ppwatch and ppbench)" >&2
	exit 2
fi
if [ -n "$BASE_PPW" ] && [ ! -x "$BASE_PPW" ]; then
	echo "bench: BASE_PPW=$BASE_PPW is not an executable" >&2
	exit 2
fi
ppw=
cleanup() {
	if [ -n "$ppw" ]; then kill "$ppw" 2>/dev/null || true; wait "$ppw" 2>/dev/null || true; fi
	lab2 lab_down 2>/dev/null || true
	scale_down 2>/dev/null || true
	[ -z "${crowd:-}" ] || kill "$crowd" 2>/dev/null || true
	lab_down
}

# the second lab of the contention part
lab2() { LAB=ppwbench2 LAB_A=ppwbench2-a LAB_B=ppwbench2-b LAB_DIR=/run/ppwatch-lab/ppwbench2 "$@"; }
trap cleanup EXIT

# a JSON line into the results
put() { printf '%s\n' "$1" >>"$out"; }

flood() {	# [taskset CPU] : the lab's fill-and-close flood for SECONDS_PER_ROUND
	"$PPGEN" flood --from "$LAB_A" --netns "$LAB_B" --to "$LAB_IP_B:5400" \
		--seconds "$SECONDS_PER_ROUND" --count 2000 --size 1500
}

ppw_err=/tmp/ppwbench.$$.err
ppwatch_start() {	# LEVEL: top -b holds the programs attached; wait until they are
	local bin=$PPW level=$1
	if [ "$level" = all-base ]; then
		bin=$BASE_PPW level=all
	fi
	"$bin" -v -d --level "$level" top -b 1 >/dev/null 2>"$ppw_err" &
	ppw=$!
	for _ in $(seq 100); do
		grep -q "loaded and attached" "$ppw_err" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "loaded and attached" "$ppw_err" || { cat "$ppw_err" >&2; exit 1; }
	# and its page log's clock set up (a design that measures it: a second
	# of it), outside the measurement, whichever binary it is: a flood while
	# it calibrates fills its logs, and events dropped cost less
	for _ in $(seq 50); do
		[ "$level" = counters ] || grep -qE "page log: (HZ|a tick is)" "$ppw_err" && break
		sleep 0.1
	done
}

# [LABEL ROUND]: stop it; with a label, its page log's line (records
# folded, the fold's CPU) into the results
ppwatch_stop() {
	local line
	[ -n "$ppw" ] || return 0
	kill "$ppw"
	wait "$ppw" 2>/dev/null || true
	ppw=
	line=$(grep -o 'debug: page log: [0-9]* records folded in [0-9]* passes, [0-9.]* ms of CPU' "$ppw_err" || true)
	if [ -n "${1:-}" ] && [ -n "$line" ]; then
		put "$(awk -v l="$1" -v r="$2" '{ printf "{\"label\":\"fold %s\",\"round\":%d,\"records\":%d,\"passes\":%d,\"cpu_ms\":%s}", l, r, $4, $8, $10 }' <<<"$line")"
	fi
	rm -f "$ppw_err"
}

fresh_lab() {
	lab_down
	lab_up >/dev/null
}

cost() {
	local r level
	for r in $(seq "$ROUNDS"); do
		# alone: the counting probe with no ppwatch, the yardstick (beside
		# ppwatch's programs on the same tracepoints it runs slower: its
		# shared counter's line and its code leave the cache between runs)
		for level in alone $LEVELS ${BASE_PPW:+all-base}; do
			fresh_lab
			[ "$level" = alone ] || ppwatch_start "$level"
			echo "-- cost: round $r, ${ppw:+--level }$level"
			"$BENCH" --label "cost $level" ${ppw:+--pid "$ppw"} -- "$PPGEN" flood \
				--from "$LAB_A" --netns "$LAB_B" --to "$LAB_IP_B:5400" \
				--seconds "$SECONDS_PER_ROUND" --count 2000 --size 1500 3>>"$out"
			ppwatch_stop "$level" "$r"
		done
	done
}

# each alternative of bench/alt.bpf.c alone next to the counting program
alt() {
	local r a
	for r in $(seq "$ROUNDS"); do
		for a in $ALTS; do
			fresh_lab
			echo "-- alt: round $r, $a"
			"$BENCH" --alt "$a" --label "alt $a" -- "$PPGEN" flood --from "$LAB_A" \
				--netns "$LAB_B" --to "$LAB_IP_B:5400" --seconds "$SECONDS_PER_ROUND" \
				--count 2000 --size 1500 3>>"$out"
		done
	done
}

fold() {
	local r n
	for r in $(seq "$ROUNDS"); do
		for n in $FOLD_PAGES; do
			echo "-- fold: round $r, $n pages"
			"$BENCH" --label "fold-model" --fold "$n" 3>>"$out"
		done
	done
}

pps() {
	local r cfg line n
	for r in $(seq "$ROUNDS"); do
		for cfg in none $LEVELS ${BASE_PPW:+all-base}; do
			fresh_lab
			[ "$cfg" = none ] || ppwatch_start "$cfg"
			line=$(flood)
			n=$(awk '{ print $3 }' <<<"$line")
			echo "-- pps: round $r, $cfg: $line"
			put "{\"label\":\"pps $cfg\",\"round\":$r,\"datagrams\":$n,\"seconds\":$SECONDS_PER_ROUND,\"pps\":$(awk -v n="$n" -v s="$SECONDS_PER_ROUND" 'BEGIN { printf "%.1f", n / s }')}"
			ppwatch_stop
		done
	done
}

contention() {
	local r cpus
	for r in $(seq "$ROUNDS"); do
		for cpus in 1 2; do
			fresh_lab
			echo "-- contention: round $r, $cpus CPU(s) flooding"
			if [ "$cpus" = 1 ]; then
				"$BENCH" --contention --label "contention 1cpu" -- \
					taskset -c 0 "$PPGEN" flood --from "$LAB_A" --netns "$LAB_B" \
					--to "$LAB_IP_B:5400" --seconds "$SECONDS_PER_ROUND" --count 2000 \
					--size 1500 3>>"$out"
			else
				lab2 lab_down 2>/dev/null || true
				lab2 lab_up >/dev/null
				"$BENCH" --contention --label "contention 2cpu" -- sh -c "
					taskset -c 0 '$PPGEN' flood --from '$LAB_A' --netns '$LAB_B' \
						--to '$LAB_IP_B:5400' --seconds $SECONDS_PER_ROUND --count 2000 --size 1500 &
					taskset -c 1 '$PPGEN' flood --from ppwbench2-a --netns ppwbench2-b \
						--to '$LAB_IP_B:5400' --seconds $SECONDS_PER_ROUND --count 2000 --size 1500
					wait" 3>>"$out"
				lab2 lab_down
			fi
		done
	done
}

memory() {
	local level doc
	for level in $LEVELS; do
		doc=$("$PPW" -j --level "$level" pools --window 0.1)
		echo "-- memory: --level $level: $(jq -c .ledger <<<"$doc")"
		put "$(jq -c --arg l "memory $level" '{label: $l, max_pages: .ledger.max_pages, sample_rate: .ledger.sample_rate, memory_bytes: .ledger.memory_bytes}' <<<"$doc")"
	done
}

# time_json FIELDS CMD...: CPU, wall and RSS of CMD (its output to /dev/null,
# stderr to a file) as a JSON line of FIELDS (JSON members) and its exit
# status; WALL and RSS (KiB) are left set for the caller
time_json() {
	local fields=$1 t=/tmp/ppwbench.$$.time rc=0 user sys
	shift
	/usr/bin/time -o "$t" -f '%e %U %S %M' "$@" >/dev/null 2>/tmp/ppwbench.$$.err || rc=$?
	# GNU time puts "Command exited with non-zero status N" first then
	read -r WALL user sys RSS < <(tail -n 1 "$t")
	put "{$fields,\"wall_s\":$WALL,\"cpu_s\":$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }'),\"rss_kib\":$RSS,\"rc\":$rc}"
	[ "$rc" -eq 0 ] || echo "   $*: exit $rc: $(head -c 300 /tmp/ppwbench.$$.err)"
	rm -f "$t" /tmp/ppwbench.$$.err
}

# timed LABEL POOLS SOCKETS CMD...: time_json of CMD for the scale part
timed() {
	local label=$1 pools=$2 socks=$3
	shift 3
	time_json "\"label\":\"scale $label\",\"pools\":$pools,\"sockets\":$socks" "$@"
}

# steady LABEL POOLS TTY: CPU of a running 'top 1' from its 3rd to its 13th
# second (/proc/PID/stat, clock ticks), as % of a core: startup left out.
# TTY=1: on a 50-row terminal (script(1)); 0: -b, every row.
steady() {
	local label=$1 pools=$2 tty=$3 runner pid a b hz t0
	hz=$(getconf CLK_TCK)
	if [ "$tty" = 1 ]; then
		script -qec "stty rows 50 cols 160; exec $PPW top 1" /dev/null </dev/null >/dev/null 2>&1 &
	else
		"$PPW" top -b 1 >/dev/null 2>&1 &
	fi
	runner=$!
	pid=
	# script(1)'s child is the shell that execs ppwatch
	for _ in $(seq 50); do
		pid=$runner
		[ "$tty" = 0 ] || pid=$(pgrep -P "$runner" 2>/dev/null | head -1)
		[ -n "$pid" ] && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$PPW")" ] && break
		pid=
		sleep 0.1
	done
	[ -n "$pid" ] || { echo "   $label: no ppwatch process under $runner"; kill "$runner"; return 0; }
	sleep 3
	a=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	t0=$(date +%s.%N)
	sleep 10
	b=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	put "{\"label\":\"scale $label\",\"pools\":$pools,\"sockets\":0,\"core_pct\":$(awk -v a="$a" -v b="$b" -v hz="$hz" -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.2f", (b - a) / hz / (t1 - t0) * 100 }'),\"rss_kib\":$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")}"
	kill "$pid" 2>/dev/null || true
	kill "$runner" 2>/dev/null || true
	wait "$runner" 2>/dev/null || true
}

scale() {
	local r size pools doc n s f
	for r in $(seq "$ROUNDS"); do
		for size in $SCALE_SIZES; do
			SCALE_DEVS=${size%x*} SCALE_QUEUES=${size#*x}
			export SCALE_DEVS SCALE_QUEUES
			pools=$((SCALE_DEVS * SCALE_QUEUES))
			scale_down 2>/dev/null
			sleep 5 # the kernel frees the last size's pools in the background
			LAB_QUIET=1 scale_up || exit 1
			sleep 2
			echo "-- scale: round $r, $pools idle pools"
			# start to the first screen; then the steady CPU on a terminal of 50
			# rows (the screenful) and with -b (every row)
			timed "top-tty-1" "$pools" 0 script -qec "stty rows 50 cols 160; $PPW top 1 1" /dev/null
			steady "top-tty" "$pools" 1
			steady "top-b" "$pools" 0
			timed "pools" "$pools" 0 "$PPW" -j pools
			timed "pools-window0" "$pools" 0 "$PPW" -j pools --window 0
			timed "holders" "$pools" 0 "$PPW" -j holders
			for s in pool auto; do
				f=/tmp/ppwbench.$$.prom
				timed "export-$s" "$pools" 0 sh -c "'$PPW' export --once --series $s >$f"
				n=$(grep -vc '^#' "$f" || true)
				put "{\"label\":\"scale series-$s\",\"pools\":$pools,\"series\":$n,\"bytes\":$(wc -c <"$f")}"
				rm -f "$f"
			done
			doc=$("$PPW" -j pools --window 0)
			put "$(jq -c --argjson p "$pools" '{label: "scale losses", pools: $p, listed: (.pools | length), losses: .losses}' <<<"$doc")"
		done
		scale_down
		sleep 5
		# the holder scan among many sockets, 100 pools (tests/lab/lab.sh's lab + ppgen crowd)
		for n in $HOLDER_SOCKETS; do
			fresh_lab
			rm -f "$LAB_DIR/crowd"
			"$PPGEN" crowd --netns "$LAB_B" --count "$n" --ready "$LAB_DIR/crowd" --lifetime 300 \
				</dev/null >/dev/null 2>&1 &
			crowd=$!
			for _ in $(seq 600); do [ -s "$LAB_DIR/crowd" ] && break; sleep 0.05; done
			lab_hold 100 3000 >/dev/null
			echo "-- scale: round $r, holders among $n sockets"
			timed "holders-sockets" 2 "$n" "$PPW" -j holders
			kill "$crowd"
			wait "$crowd" 2>/dev/null || true
			crowd=
		done
	done
}

# each guest size: the rig's crash-dump test, its dumps kept and read ROUNDS times
vmcore() {
	local mb dir dump fmt r bytes log=/tmp/ppwbench.$$.vmcore
	dir=$("$here/../kernel/rig.sh" workdir)/vmcore/$VMCORE_LINE
	# the line's kernel and the initramfs, as make kernel-test has them
	make --no-print-directory -C "$here/.." kernel-initramfs KERNEL_FLAVORS="$VMCORE_LINE" \
		>"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }
	for mb in $VMCORE_MEMS; do
		echo "-- vmcore: $VMCORE_LINE with $mb MiB"
		if ! VM_MEM_MB=$mb VMC_KEEP=1 PPWATCH_BIN="$PPW" "$here/../kernel/rig.sh" vmcore \
			"$VMCORE_LINE" >"$log" 2>&1; then
			tail -n 20 "$log" >&2
			echo "bench: the crash-dump test of $VMCORE_LINE ($mb MiB) failed" >&2
			exit 1
		fi
		for dump in "$dir/vmcore.elf" "$dir/vmcore.kdump-zlib.reassembled"; do
			[ -s "$dump" ] || continue
			case $dump in *.elf) fmt=elf ;; *) fmt=kdump-zlib ;; esac
			bytes=$(stat -c %s "$dump")
			for r in $(seq "$ROUNDS"); do
				time_json "\"label\":\"vmcore $fmt\",\"mem_mib\":$mb,\"dump_bytes\":$bytes,\"round\":$r" \
					runuser -u nobody -- "$PPW" postmortem --vmcore "$dump" -j
			done
			echo "   $fmt: $((bytes / 1048576)) MiB, last read $WALL s, $((RSS / 1024)) MiB RSS"
		done
		rm -rf "$dir"
	done
	rm -f "$log"
}

echo "kernel $(uname -r), $(nproc) CPUs, ${SECONDS_PER_ROUND}s x $ROUNDS rounds: $PARTS"
put "{\"label\":\"machine\",\"kernel\":\"$(uname -r)\",\"cpus\":$(nproc),\"seconds\":$SECONDS_PER_ROUND,\"rounds\":$ROUNDS,\"time\":\"$(date -u +%FT%TZ)\",\"load\":\"$(cut -d' ' -f1-3 /proc/loadavg)\",\"base\":\"$BASE_PPW\",\"vmcore_line\":\"$VMCORE_LINE\"}"
for part in $PARTS; do
	case $part in
	cost|pps|alt|fold|contention|memory|scale|vmcore) $part ;;
	inputs) "$here/inputs.sh" "$out" "$ROUNDS" ;;
	*) echo "bench: unknown part '$part' (cost pps alt fold contention memory scale inputs vmcore)" >&2; exit 2 ;;
	esac
done
echo "results: $out"
"$here/report.sh" "$out"
