#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
#   bench/report.sh RESULTS.jsonl
#
# Turns bench/run.sh's results into RESULTS.md (the tables), RESULTS.svg
# (ns per event at each level, next to the counting-only baseline) and the
# results section of bench/README.md, between its 'bench:results' markers:
# the README's numbers are always these files', never typed.
set -eu
here=$(dirname "$(readlink -f "$0")")
in=${1:?usage: $0 RESULTS.jsonl}
base=${in%.jsonl}
md=$base.md
svg=$base.svg
command -v jq >/dev/null || { echo "report: jq missing (make deps)" >&2; exit 2; }

# median, min and max of a JSON array of numbers
stats='def stats: sort as $s | ($s | length) as $n |
	if $n == 0 then null else
	{med: (if $n % 2 == 1 then $s[($n - 1) / 2] else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end),
	 min: $s[0], max: $s[$n - 1], n: $n} end;
	def r1: . * 10 | round / 10; def r2: . * 100 | round / 100;
	# the yardstick: the counting probe alone (cost alone, no ppwatch: its
	# median over the run), else, in runs without it, each round'"'"'s own
	# counting probe attached beside ppwatch (which ppwatch'"'"'s programs slow)
	def yard($c): [$c[] | select(.label == "cost alone") | .baseline_ns] as $a |
		if ($a | length) > 0 then ($a | stats | .med) else null end;'

machine=$(jq -r 'select(.label == "machine") | "\(.cpus) CPUs, Linux \(.kernel), \(.rounds) rounds of \(.seconds) s, \(.time)"' "$in" | tail -n1)

# the levels a run measured, in order (all-base: BASE_PPW's all)
LEVEL_LIST='["counters", "sampled", "all", "all-base"]'

cost_table() {
	jq -rs "$stats"'
	[.[] | select(.label | startswith("cost "))] as $c |
	if ($c | length) == 0 then empty else
	yard($c) as $y |
	"| level | program | ns/event (median, min–max) | ratio to counting-only (median, min–max) |",
	"|---|---|---|---|",
	('"$LEVEL_LIST"'[] as $l |
	 ["hold_btf", "release_btf"][] as $p |
	 [$c[] | select(.label == "cost " + $l) | .programs[] | select(.name == $p)] as $v |
	 select($v | length > 0) |
	 ([$v[].ns_per_event] | stats) as $ns | ([$v[] | .ns_per_event / ($y // (.ns_per_event / .ratio))] | stats) as $r |
	 "| \($l) | `\($p)` | \($ns.med | r1) (\($ns.min | r1)–\($ns.max | r1)) | **\($r.med | r2)** (\($r.min | r2)–\($r.max | r2)) |"),
	([$c[] | select(.label == "cost alone") | .baseline_ns] | stats) as $a |
	([$c[] | select(.label != "cost alone") | .baseline_ns] | stats) as $b |
	(if $a then "| (baseline) | `count_hold`, `count_release` alone | \($a.med | r1) (\($a.min | r1)–\($a.max | r1)) | 1 |" else empty end),
	"| (beside ppwatch) | `count_hold`, `count_release` | \($b.med | r1) (\($b.min | r1)–\($b.max | r1)) | \(if $a then ($b.med / $a.med | r2) else 1 end) |"
	end' "$in"
}

# the books: per level, per round, the BPF ratio (events-weighted mean of
# hold and release), the ppwatch process's CPU per event (and the fold's
# share) as the same ratio, their sum, and the pps loss of the pps part
books_table() {
	jq -rs "$stats"'
	. as $all |
	[.[] | select(.label | startswith("cost "))] as $c |
	[.[] | select(.label | startswith("pps "))] as $p |
	if ($c | length) == 0 then empty else
	def evs($x): [$x.programs[] | select(.name == "hold_btf" or .name == "release_btf") | .events] | add // 0;
	def bpf($x): ([$x.programs[] | select(.name == "hold_btf" or .name == "release_btf") | .run_ns] | add // 0) / (evs($x) | if . == 0 then 1 else . end);
	def span(f): "\(.med | f) (\(.min | f)–\(.max | f))";
	yard($c) as $y |
	"| level | BPF ns/event (median, min–max) | BPF ratio | ppwatch CPU ns/event = ms per 1M events (median, min–max) | of it the fold | user ratio | **sum** (median, min–max) | pps lost (median, min–max) |",
	"|---|---|---|---|---|---|---|---|",
	('"$LEVEL_LIST"'[] as $l |
	 [$c[] | select(.label == "cost " + $l)] as $v | select($v | length > 0) |
	 [$v[] | {b: bpf(.), base: ($y // .baseline_ns), u: (.process_cpu_ns / (evs(.) | if . == 0 then 1 else . end)), e: evs(.)}] as $r |
	 [$all[] | select(.label == "fold " + $l)] as $f |
	 ([$r[].b] | stats) as $bns | ([$r[] | .b / .base] | stats) as $bq |
	 ([$r[].u] | stats) as $uns | ([$r[] | .u / .base] | stats) as $uq |
	 ([$r[] | (.b + .u) / .base] | stats) as $sum |
	 ([$f[] | select(.records > 0) | .cpu_ms * 1e6 / .records] | stats) as $fold |
	 ([$p[] | select(.label == "pps " + $l) | . as $x | ($p[] | select(.label == "pps none" and .round == $x.round) | .pps) as $n | (($n - $x.pps) / $n * 100)] | stats) as $loss |
	 "| \($l) | \($bns | span(r1)) | \($bq.med | r2) | \($uns | span(r1)) | \(if $fold then "\($fold.med | r1) ns/record" else "–" end) | \($uq.med | r2) | **\($sum.med | r2)** (\($sum.min | r2)–\($sum.max | r2)) | \(if $loss then "\($loss.med | r1) % (\($loss.min | r1)–\($loss.max | r1))" else "–" end) |"),
	([$c[] | select(.label == "cost alone") | .baseline_ns] | stats) as $a |
	([$c[] | select(.label != "cost alone") | .baseline_ns] | stats) as $b |
	(if $a then "| counting-only, alone (the yardstick) | \($a | span(r1)) | 1 | | | | | |" else empty end),
	"| counting-only, beside ppwatch | \($b | span(r1)) | \(if $a then ($b.med / $a.med | r2) else 1 end) | | | | | |"
	end' "$in"
}

# the floor of each way to keep the ledger, per operation
alt_table() {
	jq -rs "$stats"'
	[.[] | select(.label | startswith("alt "))] as $a |
	if ($a | length) == 0 then empty else
	"| alternative | hold ns/event (median, min–max) | release ns/event | ratio to counting-only (hold, release; median) |",
	"|---|---|---|---|",
	({log: "per-CPU log, no clock", jif: "per-CPU log + jiffies (ppwatch)", one: "a log per CPU and program + jiffies, no atomic", half: "8-byte records, the jiffies a record when they move (no pool generation)", fixed: "jif, every record in one slot (no new line)", read: "jif, its records read by a reader on the other CPU (as ppwatch does)", ktm: "per-CPU log + bpf_ktime_get_boot_ns", arr: "kernel table: 4-way bucket by page index, cmpxchg, exact clock (ppwatch before)", hash: "kernel hash map netmem -> entry, exact clock", ring: "BPF ring buffer, 16 B a record"} | to_entries[]) as $k |
	 ($k.key | if . == "read" then "jif" else . end) as $p |
	 [$a[] | select(.label == "alt " + $k.key) | .programs[] | select(.name == "a" + $p + "_hold")] as $h |
	 [$a[] | select(.label == "alt " + $k.key) | .programs[] | select(.name == "a" + $p + "_release")] as $r |
	 select($h | length > 0) |
	 ([$h[].ns_per_event] | stats) as $hs | ([$r[].ns_per_event] | stats) as $rs |
	 "| \($k.value) | \($hs.med | r1) (\($hs.min | r1)–\($hs.max | r1)) | \($rs.med | r1) (\($rs.min | r1)–\($rs.max | r1)) | \([$h[].ratio] | stats | .med | r2), \([$r[].ratio] | stats | .med | r2) |"
	end' "$in"
}

fold_table() {
	jq -rs "$stats"'
	[.[] | select(.label == "fold-model")] as $f |
	if ($f | length) == 0 then empty else
	"| pages inflight (random addresses) | fold ns/event (median, min–max) | a walk of the ledger, ns/page | memory |",
	"|---|---|---|---|",
	(([$f[].pages] | unique)[] as $n | [$f[] | select(.pages == $n)] as $v |
	 ([$v[].ns_per_event] | stats) as $e |
	 "| \($n) | \($e.med | r1) (\($e.min | r1)–\($e.max | r1)) | \([$v[].walk_ns_per_page] | stats | .med | r1) | \($v[0].bytes / 1048576 * 10 | round / 10) MiB (\($v[0].bytes / $n | round) B a page) |")
	end' "$in"
}

pps_table() {
	jq -rs "$stats"'
	[.[] | select(.label | startswith("pps "))] as $p |
	if ($p | length) == 0 then empty else
	"| ppwatch | datagrams/s (median, min–max) | loss against none in the same round (median, min–max) |",
	"|---|---|---|",
	(["none", "counters", "sampled", "all", "all-base"][] as $l |
	 [$p[] | select(.label == "pps " + $l)] as $v | select($v | length > 0) |
	 ([$v[].pps] | stats) as $s |
	 ([$v[] | . as $x | ($p[] | select(.label == "pps none" and .round == $x.round) | .pps) as $n |
	   (($n - $x.pps) / $n * 100)] | stats) as $loss |
	 "| \(if $l == "none" then "none" else "top --level " + $l end) | \($s.med | round) (\($s.min | round)–\($s.max | round)) | \(if $l == "none" then "–" else "**\($loss.med | r1) %** (\($loss.min | r1)–\($loss.max | r1) %)" end) |")
	end' "$in"
}

contention_table() {
	jq -rs "$stats"'
	[.[] | select(.label | startswith("contention "))] as $c |
	if ($c | length) == 0 then empty else
	"| CPUs flooding | bookkeeping | hold ns/event | release ns/event | ratio to counting-only (hold, release) |",
	"|---|---|---|---|---|",
	(["1cpu", "2cpu"][] as $k | ["shared", "pcpu"][] as $d |
	 [$c[] | select(.label == "contention " + $k) | .programs[] | select(.name == $d + "_hold")] as $h |
	 [$c[] | select(.label == "contention " + $k) | .programs[] | select(.name == $d + "_release")] as $r |
	 select($h | length > 0) |
	 "| \($k | sub("cpu"; "")) | \(if $d == "shared" then "one shared record, atomics" else "per-CPU slot, plain stores" end) | \([$h[].ns_per_event] | stats | .med | r1) | \([$r[].ns_per_event] | stats | .med | r1) | \([$h[].ratio] | stats | .med | r2), \([$r[].ratio] | stats | .med | r2) |")
	end' "$in"
}

memory_table() {
	jq -rs '
	[.[] | select(.label | startswith("memory "))] as $m |
	if ($m | length) == 0 then empty else
	"| level | pages the ledger holds | map memory (kernel fdinfo memlock) |",
	"|---|---|---|",
	($m[] | "| \(.label | sub("memory "; "")) | \(.max_pages) | \(.memory_bytes / 1048576 * 10 | round / 10) MiB |")
	end' "$in"
}

# scale: per command, the median over rounds at each pool count (and socket count)
scale_table() {
	jq -rs "$stats"'
	def ms: . * 1000 | round;
	def mib: . / 1024 * 10 | round / 10;
	[.[] | select(.label | startswith("scale "))] as $s |
	if ($s | length) == 0 then empty else
	([$s[] | select(.sockets == 0 and .pools != null) | .pools] | unique) as $sizes |
	def v($l; $p; f): [$s[] | select(.label == "scale " + $l and .pools == $p) | f] | stats | .med;
	def pct($l; $p): [$s[] | select(.label == "scale " + $l and .pools == $p) | .core_pct] | stats;
	def rcs($l; $p): [$s[] | select(.label == "scale " + $l and .pools == $p) | .rc] | unique |
		if . == [0] then "" else " (exit \(map(tostring) | join(",")))" end;
	"| command (idle pools) | " + ($sizes | map("\(.) pools") | join(" | ")) + " | goal |",
	"|---|" + ($sizes | map("---|") | join("")) + "---|",
	"| `top` on a terminal, 1 s refresh: % of a core (median, min–max) | " + ($sizes | map(. as $p | pct("top-tty"; $p) as $x | "**\($x.med | r2) %** (\($x.min | r2)–\($x.max | r2))") | join(" | ")) + " | ≤ 1 % at 10,000 |",
	"| `top -b` (every row), 1 s refresh: % of a core | " + ($sizes | map(. as $p | pct("top-b"; $p) as $x | "\($x.med | r2) % (\($x.min | r2)–\($x.max | r2))") | join(" | ")) + " | |",
	"| `top` start to first screen: wall, RSS | " + ($sizes | map(. as $p | "\(v("top-tty-1"; $p; .wall_s) | r2) s, \(v("top-tty-1"; $p; .rss_kib) | mib) MiB") | join(" | ")) + " | |",
	"| `pools` (1.2 s window): wall, CPU, RSS | " + ($sizes | map(. as $p | "\(v("pools"; $p; .wall_s) | r2) s, \(v("pools"; $p; .cpu_s) | ms) ms, \(v("pools"; $p; .rss_kib) | mib) MiB") | join(" | ")) + " | |",
	"| `pools --window 0`: wall, CPU | " + ($sizes | map(. as $p | "\(v("pools-window0"; $p; .wall_s) | r2) s, \(v("pools-window0"; $p; .cpu_s) | ms) ms") | join(" | ")) + " | ≤ 1 s at 10,000 |",
	"| `export --once --series pool`: series, bytes, CPU | " + ($sizes | map(. as $p | "\(v("series-pool"; $p; .series)), \(v("series-pool"; $p; .bytes) / 1024 | round) KiB, \(v("export-pool"; $p; .cpu_s) | ms) ms") | join(" | ")) + " | |",
	"| `export --once` (auto): series, bytes, CPU | " + ($sizes | map(. as $p | "\(v("series-auto"; $p; .series)), \(v("series-auto"; $p; .bytes) / 1024 | round) KiB, \(v("export-auto"; $p; .cpu_s) | ms) ms") | join(" | ")) + " | |",
	"| `holders`: wall, CPU, RSS | " + ($sizes | map(. as $p | "\(v("holders"; $p; .wall_s) | r2) s, \(v("holders"; $p; .cpu_s) | ms) ms, \(v("holders"; $p; .rss_kib) | mib) MiB\(rcs("holders"; $p))") | join(" | ")) + " | ≤ 2 s at 10,000 |",
	"| losses (every counter) | " + ($sizes | map(. as $p | [$s[] | select(.label == "scale losses" and .pools == $p) | .losses | to_entries[] | .value] | add // 0 | tostring) | join(" | ")) + " | 0 |",
	"",
	([$s[] | select(.label == "scale holders-sockets")] as $h | if ($h | length) == 0 then empty else
	 ([$h[].sockets] | unique) as $n |
	 "| `holders` among (UDP sockets, 2 pools) | " + ($n | map("\(.) sockets") | join(" | ")) + " | goal |",
	 "|---|" + ($n | map("---|") | join("")) + "---|",
	 "| wall, CPU, RSS | " + ($n | map(. as $k | ([$h[] | select(.sockets == $k)]) as $x | "\([$x[].wall_s] | stats | .med | r2) s, \([$x[].cpu_s] | stats | .med | ms) ms, \([$x[].rss_kib] | stats | .med | mib) MiB\(if ([$x[].rc] | unique) == [0] then "" else " (exit \([$x[].rc] | unique | map(tostring) | join(",")))" end)") | join(" | ")) + " | ≤ 2 s at 100,000 |" end)
	end' "$in"
}

{
	echo "Measured on $machine (\`make bench\`, \`$(basename "$in")\`)."
	echo
	echo "### On the books: BPF and user space, as ratios to the counting-only probe"
	echo
	books_table
	echo
	echo "### Per event, from bpf_stats"
	echo
	cost_table
	echo
	echo "### The floor of each alternative, per operation"
	echo
	alt_table
	echo
	echo "### The fold alone (user space), by pages inflight"
	echo
	fold_table
	echo
	echo "### End to end: the lab's flood with ppwatch top attached"
	echo
	pps_table
	echo
	echo "### One shared cache line against per-CPU slots"
	echo
	contention_table
	echo
	echo "### Ledger memory"
	echo
	memory_table
	echo
	echo "![per event at each level, BPF and user space, in counting probes](results/$(basename "$svg"))"
} >"$md.main"
# inputs: what the functional tests no longer time, as ratios in one round
inputs_table() {
	jq -rs "$stats"'
	[.[] | select(.label | startswith("inputs "))] as $i |
	def span(f): "\(.med | f) (\(.min | f)–\(.max | f))";
	def ms: . * 1000 | round;
	"| what | time (median, min–max) | its baseline in the same round | **ratio** (median, min–max) |",
	"|---|---|---|---|",
	(["deep", "alias", "many", "key"][] as $f |
	 [$i[] | select(.label == "inputs rules" and .file == $f)] as $v | select($v | length > 0) |
	 "| `check --validate` of \({deep: "200 KB of nesting", alias: "50,000 aliases", many: "40,000 rules, a duplicate", key: "a 1000-byte key"}[$f]) (\($v[0].bytes / 1024 | round) KiB) | \([$v[].cpu_s] | stats | span(ms)) ms CPU | a plain file of 40,000 rules (\($v[0].base_bytes / 1024 | round) KiB): \([$v[].base_cpu_s] | stats | .med | ms) ms | **\([$v[] | .cpu_s / (if .base_cpu_s > 0 then .base_cpu_s else 0.01 end)] | stats | span(r2))** |"),
	([$i[] | select(.label == "inputs slow")] as $v | select($v | length > 0) |
	 "| the slowest scrape among 50 slow clients (--max-clients 16) | \([$v[].max_s] | stats | span(ms)) ms | a scrape alone: \([$v[].quiet_s] | stats | .med | ms) ms | **\([$v[] | .max_s / .quiet_s] | stats | span(r1))** |"),
	([$i[] | select(.label == "inputs guess")] as $v | select($v | length > 0) |
	 "| a scrape (basic auth, a password not checked yet) while another address guesses 20/s | \([$v[].s] | stats | span(ms)) ms | the same alone: \([$v[].quiet_s] | stats | .med | ms) ms | **\([$v[] | .s / .quiet_s] | stats | span(r1))** |"),
	([$i[] | select(.label == "inputs reload")] as $v | select($v | length > 0) |
	 "| SIGHUP to the new password served (sampling once an hour) | \([$v[].s] | stats | span(ms)) ms | a first scrape with the old one: \([$v[].quiet_s] | stats | .med | ms) ms | **\([$v[] | .s / .quiet_s] | stats | span(r1))** |"),
	([$i[] | select(.label == "inputs sigterm")] as $v | select($v | length > 0) |
	 "| SIGTERM to the exit of a postmortem reading | \([$v[].s] | stats | span(ms)) ms | reading its first MB: \([$v[].read_1mb_s] | stats | .med | ms) ms | **\([$v[] | .s / .read_1mb_s] | stats | span(r2))** |")
	' "$in"
}

# vmcore: postmortem --vmcore by guest memory and dump format
vmcore_table() {
	jq -rs "$stats"'
	[.[] | select(.label | startswith("vmcore "))] as $v |
	if ($v | length) == 0 then empty else
	"| guest memory | dump format | dump size | wall (median, min–max) | CPU (median) | peak RSS (median) | exit | goal |",
	"|---|---|---|---|---|---|---|---|",
	(([$v[].mem_mib] | unique)[] as $m | ["elf", "kdump-zlib"][] as $f |
	 [$v[] | select(.mem_mib == $m and .label == "vmcore " + $f)] as $r | select($r | length > 0) |
	 ([$r[].wall_s] | stats) as $w |
	 "| \($m) MiB | \($f) | \($r[0].dump_bytes / 1048576 | round) MiB | **\($w.med | r2) s** (\($w.min | r2)–\($w.max | r2)) | \([$r[].cpu_s] | stats | .med | r2) s | \([$r[].rss_kib] | stats | .med / 1024 | r1) MiB | \([$r[].rc] | unique | map(tostring) | join(", ")) | \(if $m == 1024 then "≤ 10 s, ≤ 256 MiB" else "" end) |")
	end' "$in"
}

has() { jq -se --arg p "$1" 'any(.[]; .label | startswith($p))' "$in" >/dev/null 2>&1; }
if has "inputs "; then
	{
		echo "Measured on $(jq -r 'select(.label == "machine") | "\(.cpus) CPUs, Linux \(.kernel), \(.rounds) rounds, \(.time), load \(.load)"' "$in" | tail -n1) (\`bench/run.sh inputs\`, \`$(basename "$in")\`)."
		echo
		inputs_table
	} >"$md.inputs"
fi
if has "scale "; then
	{
		echo "Measured on $machine (\`bench/run.sh scale\`, \`$(basename "$in")\`)."
		echo
		scale_table
		echo
		echo "![CPU per top refresh and per pools run against the pool count](results/$(basename "$base")-scale.svg)"
	} >"$md.scale"
fi
if has "vmcore "; then
	{
		echo "Measured on $machine (\`bench/run.sh vmcore\`, \`$(basename "$in")\`): the dumps of kernel/matrix line $(jq -rs '[.[] | select(.label == "machine")][0].vmcore_line // "?"' "$in"), read as nobody."
		echo
		vmcore_table
	} >"$md.vmcore"
fi
# the run's report: the parts it ran
{
	if has "cost " || has "pps " || has "alt " || has "fold" || has "contention " || has "memory "; then
		cat "$md.main"
	fi
	[ ! -f "$md.scale" ] || { echo; echo "### Scale"; echo; cat "$md.scale"; }
	[ ! -f "$md.inputs" ] || { echo; echo "### What the tests do not time"; echo; cat "$md.inputs"; }
	[ ! -f "$md.vmcore" ] || { echo; echo "### Reading a crash dump"; echo; cat "$md.vmcore"; }
} >"$md"

# the chart: per level, the median BPF ratio and the ppwatch process's CPU
# ratio stacked, against the 2x goal
if command -v gnuplot >/dev/null; then
	dat=$(mktemp)
	jq -rs "$stats"'
	[.[] | select(.label | startswith("cost "))] as $c |
	def evs($x): [$x.programs[] | select(.name == "hold_btf" or .name == "release_btf") | .events] | add // 0;
	def bpf($x): ([$x.programs[] | select(.name == "hold_btf" or .name == "release_btf") | .run_ns] | add // 0) / (evs($x) | if . == 0 then 1 else . end);
	yard($c) as $y |
	'"$LEVEL_LIST"'[] as $l |
	[$c[] | select(.label == "cost " + $l)] as $v | select($v | length > 0) |
	"\($l) \([$v[] | bpf(.) / ($y // .baseline_ns)] | stats | .med) \([$v[] | .process_cpu_ns / (evs(.) | if . == 0 then 1 else . end) / ($y // .baseline_ns)] | stats | .med)"' "$in" >"$dat"
	if [ -s "$dat" ]; then
		gnuplot <<EOF
set terminal svg size 640,400 dynamic font "sans,11"
set output "$svg"
set title "ppwatch per event, in counting probes (median of $(jq -rs '[.[] | select(.label == "machine")][0].rounds' "$in") rounds)"
set ylabel "x counting-only probe"
set style data histogram
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set yrange [0:*]
set key top left
set grid ytics
plot "$dat" using 2:xtic(1) title "BPF (bpf_stats)" noenhanced, "" using 3 title "ppwatch process CPU (fold, refreshes)", 2 with lines dt 2 lw 2 title "goal: 2x"
EOF
	fi
	rm -f "$dat"
	# the scale chart: CPU (ms) per top refresh and per pools/export run, against pools
	dat=$(mktemp)
	jq -rs "$stats"'
	[.[] | select(.label | startswith("scale "))] as $s |
	def med($l; $p; f): [$s[] | select(.label == "scale " + $l and .pools == $p) | f] | stats | .med;
	([$s[] | select(.sockets == 0 and .pools != null) | .pools] | unique)[] as $p |
	"\($p) \(med("top-tty"; $p; .core_pct) * 10) \(med("top-b"; $p; .core_pct) * 10) \(med("pools-window0"; $p; .cpu_s) * 1000) \(med("export-auto"; $p; .cpu_s) * 1000)"' "$in" >"$dat" 2>/dev/null || true
	if [ -s "$dat" ]; then
		gnuplot <<EOF
set terminal svg size 640,400 dynamic font "sans,11"
set output "$base-scale.svg"
set title "ppwatch CPU against idle pools (median of $(jq -rs '[.[] | select(.label == "machine")][0].rounds' "$in") rounds)"
set xlabel "idle page pools"
set ylabel "CPU ms"
set logscale xy
set key top left
set grid
plot "$dat" using 1:2 with linespoints lw 2 title "top, 1 s refresh (terminal): CPU ms a second", "" using 1:3 with linespoints title "top -b (every row): CPU ms a second", "" using 1:4 with linespoints title "pools --window 0 (whole run)", "" using 1:5 with linespoints title "export --once (whole run)", 10 with lines dt 2 title "1 % of a core at 1 s"
EOF
	fi
	rm -f "$dat"
else
	echo "report: gnuplot missing (make deps): no chart" >&2
fi

# the README's results sections, each from a run that measured it
readme=$here/README.md
splice() {	# marker file
	grep -q "<!-- bench:$1:begin -->" "$readme" || return 0
	awk -v md="$2" -v b="<!-- bench:$1:begin -->" -v e="<!-- bench:$1:end -->" '
	$0 == b { print; while ((getline l < md) > 0) print l; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$readme" >"$readme.new" && mv "$readme.new" "$readme"
}
if has "cost " || has "pps " || has "alt " || has "fold" || has "contention " || has "memory "; then
	splice results "$md.main"
fi
[ ! -f "$md.scale" ] || splice scale "$md.scale"
[ ! -f "$md.inputs" ] || splice inputs "$md.inputs"
[ ! -f "$md.vmcore" ] || splice vmcore "$md.vmcore"
rm -f "$md.main" "$md.scale" "$md.inputs" "$md.vmcore"
echo "report: $md${svg:+, $svg}, bench/README.md"
