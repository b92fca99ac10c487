#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The fuzz targets (tests/fuzz/fuzz_*.c: libFuzzer with ASan and UBSan),
# which 'make fuzz-bins' builds into $OUTPUT/fuzz:
#
#   run.sh --brief     'make test': each target replays its checked-in corpus
#                      (tests/fuzz/corpus/TARGET) and seeds, then fuzzes for
#                      FUZZ_BRIEF_SECONDS (5); new inputs go to a scratch
#                      directory, so the tree is left as it is
#   run.sh [SECONDS]   'make fuzz': FUZZ_SECONDS (default 60) per target, one
#                      after the other; new inputs are kept in
#                      $OUTPUT/fuzz/corpus/TARGET for the next run
#   FUZZ_RUNS=N        stop a target after N inputs as well (libFuzzer -runs)
#   run.sh --merge     fold $OUTPUT/fuzz/corpus/TARGET into the checked-in
#                      corpus, minimized (libFuzzer -merge=1), inputs cut at
#                      8 KiB to keep the tree small
#   TARGETS="rules http"   only these
#
# A crash, a leak, a sanitizer report, a failed check or an input slower
# than 10 s fails the run; the input is kept in $OUTPUT/fuzz/artifacts/. One
# line per target says how many inputs ran, for how long, and the corpus
# size. Exit 4 (skip) when the targets are not built: clang without
# libFuzzer (Debian: libclang-rt-14-dev).
set -u
cd "$(dirname "$0")/../.." || exit
OUTPUT=${OUTPUT:-$PWD/.output}
FZ=$OUTPUT/fuzz
mode=long
seconds=${FUZZ_SECONDS:-60}
case ${1:-} in
--brief) mode=brief; seconds=${FUZZ_BRIEF_SECONDS:-5} ;;
--merge) mode=merge ;;
'') ;;
*) seconds=$1 ;;
esac

all=$(for f in "$FZ"/fuzz_*; do [ -e "$f" ] && echo "${f##*/fuzz_}"; done)
if [ -z "$all" ]; then
	echo "SKIP fuzz: no fuzz targets built (clang with libFuzzer: libclang-rt-14-dev; make fuzz-bins)"
	exit 4
fi
targets=${TARGETS:-$all}

# the longest input each target takes, and its dictionary
max_len() {
	case $1 in
	http) echo 4096 ;;
	parsers) echo 256 ;;
	kernel_log) echo 8192 ;;
	*) echo 65536 ;;
	esac
}
dict() {
	case $1 in
	recording | postmortem) echo tests/fuzz/records.dict ;;
	*) echo "tests/fuzz/$1.dict" ;;
	esac
}

# seeds from the tree: examples/, tests/unit/golden/, values the docs use
seeds() {
	local t=$1 d=$2 f i=0
	mkdir -p "$d"
	case $t in
	rules)
		cp examples/*.yaml "$d/"
		;;
	recording | postmortem)
		for f in tests/unit/golden/*.json; do cp "$f" "$d/golden-$(basename "$f")"; done
		;;
	kernel_log)
		# the saved logs of every form; the first byte picks live, clocks, zone
		for f in tests/unit/klog/*.log; do
			for i in 000 003 011 016; do
				{ printf '%b' "\\0$i"; cat "$f"; } >"$d/$(basename "$f").$i"
			done
		done
		;;
	http)
		for f in 'GET' 'HEAD' 'POST' 'get'; do
			for p in /metrics / /metrics/ '/%6detrics' ''; do
				printf '%s\0%s\0%s' "$f" "$p" \
					'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' \
					>"$d/seed-$i"
				i=$((i + 1))
			done
		done
		printf 'GET\0/metrics\0text/plain;q=0.999, application/openmetrics-text;q=1.000' >"$d/seed-q"
		;;
	parsers)
		for f in 30s 500ms 1.5 2m 1h 1d 3650d 64k 16M 1GiB 010 0x10 ' -1' 1e300 inf \
			18446744073709551615 4096B $'\xc3\xa9\xff\x1b'; do
			printf '%s' "$f" >"$d/seed-$i"
			i=$((i + 1))
		done
		;;
	esac
}

fail=0
for t in $targets; do
	bin=$FZ/fuzz_$t
	[ -x "$bin" ] || { echo "FAIL fuzz/$t: $bin missing"; fail=1; continue; }
	checked=tests/fuzz/corpus/$t
	mkdir -p "$checked" "$FZ/artifacts"
	scratch=$(mktemp -d "/tmp/ppwatch-fuzz-$t.XXXXXX")
	seeds "$t" "$scratch/seeds"
	if [ "$mode" = merge ]; then
		[ -d "$FZ/corpus/$t" ] || continue
		"$bin" -merge=1 -max_len=8192 "$checked" "$FZ/corpus/$t" >"$scratch/log" 2>&1 ||
			{ echo "FAIL fuzz/$t: merge"; tail -5 "$scratch/log"; fail=1; }
		echo "merged fuzz/$t: $(find "$checked" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l) inputs in $checked"
		rm -rf "$scratch"
		continue
	fi
	if [ "$mode" = brief ]; then
		work=$scratch/new
	else
		work=$FZ/corpus/$t
	fi
	mkdir -p "$work"
	opts=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")"
	      -artifact_prefix="$FZ/artifacts/$t-" -print_final_stats=1 -close_fd_mask=1)
	[ -f "$(dict "$t")" ] && opts+=(-dict="$(dict "$t")")
	[ -n "${FUZZ_RUNS:-}" ] && opts+=(-runs="$FUZZ_RUNS")
	t0=$(date +%s)
	"$bin" "${opts[@]}" "$work" "$checked" "$scratch/seeds" >"$scratch/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/log")
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$scratch/log")
	corpus=$(sed -n 's/.*DONE *cov: [0-9]* ft: [0-9]* corp: \([0-9]*\).*/\1/p' "$scratch/log" | tail -1)
	line="fuzz/$t: ${execs:-?} inputs in $(($(date +%s) - t0)) s, corpus ${corpus:-?}, peak RSS ${rss:-?} MB"
	if [ $rc -ne 0 ]; then
		echo "FAIL $line"
		grep -E 'ERROR: |SUMMARY: |check failed|Test unit written' "$scratch/log" | head -8 | sed 's/^/    /'
		fail=1
	else
		echo "PASS $line"
	fi
	rm -rf "$scratch"
done
exit $fail
