# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash (sh /vm/run.sh)
# Runs every /vm/t/NN-*.sh (sorted) with a time limit, then prints the
# summary and the end marker the host side (kernel/rig.sh) looks for:
#   PPVM-TIME: boot SECONDS s        kernel start to here (init, modules)
#   PPVM-TIME: modules SECONDS s     the package kernel's insmods (init.sh)
#   PPVM-TIME: NN-name SECONDS s ppwatch=N/S attach=N/S/MAX sleep=S wait=S traffic=S
#                                    one per test: its wall time; its ppwatch
#                                    runs (count/seconds), their BPF loads
#                                    (those timed: count/seconds/longest),
#                                    fixed sleeps, waits on events, traffic
#                                    (lib.sh's time budget); 'total': since boot
#   PPVM-TEST: NN-name pass=N fail=N skip=N verdict=asserted|partial|skipped|failed|empty
#                                    asserted: every check it has ran and
#                                    passed (pass > 0, fail = 0, skip = 0);
#                                    partial: some passed, some skipped (one
#                                    PASS hides no SKIP); skipped: it only
#                                    skipped; one that said nothing fails.
#                                    Each SKIP names the matrix key that
#                                    declares it (lib.sh skip), which
#                                    kernel/rig.sh check_log holds to the line
#   PPVM-STACK: PROG: stack FUNC=N ... (N functions, sum N), processed N insns
#                                    each program's verified stack, per function
#   PPVM-SUMMARY: flavor=F pass=N fail=N skip=N asserted=N partial=N skipped=N
#   PPVM-END
export FLAVOR=$1
# shellcheck source=lib.sh
. /vm/lib.sh
T=run
echo "PPVM-BEGIN: flavor=$FLAVOR kernel=$(uname -r)"
now
echo "PPVM-TIME: boot $NOW s"
if [ -s /tmp/modules.time ]; then
	echo "PPVM-TIME: modules $(awk '{ printf "%.1f", $2 - $1 }' /tmp/modules.time) s"
fi

# verdict NAME: the test's PPVM-TEST line from its output (/tmp/t.out); a
# test that printed no result at all fails
verdict() {
	local p f k v
	p=$(grep -c "^PPVM: PASS " /tmp/t.out)
	f=$(grep -c "^PPVM: FAIL " /tmp/t.out)
	k=$(grep -c "^PPVM: SKIP " /tmp/t.out)
	if [ "$f" -gt 0 ]; then v=failed
	elif [ "$p" -gt 0 ] && [ "$k" -gt 0 ]; then v=partial
	elif [ "$p" -gt 0 ]; then v=asserted
	elif [ "$k" -gt 0 ]; then v=skipped
	else
		v=empty
		echo "PPVM: FAIL $1: asserted nothing (no PASS, FAIL or SKIP line)"
		f=1
	fi
	echo "PPVM-TEST: $1 pass=$p fail=$f skip=$k verdict=$v"
}

# run_test NAME FILE: the test in a session of its own with its time limit
# (PPVM_TEST_TIMEOUT, else the test's own '# ppvm-limit: SECONDS' line,
# else 240 s: a hang guard, never a measure; the watchdog ends the whole
# session: whatever the test started), then
# whatever it left running is stopped (a holder, a sink or a ppwatch left
# by an early return would hold the log's pipe, and the run, open); its
# budget (PPVM-TIME) and its verdict (PPVM-TEST) from its output, the
# lines of /tmp/results.log between its markers
run_test() {
	local name=$1 t=$2 t0 pid dog rc limit
	limit=$(sed -n 's/^# ppvm-limit: \([0-9][0-9]*\)$/\1/p' "$t" | head -n1)
	limit=${PPVM_TEST_TIMEOUT:-${limit:-240}}
	echo "PPVM-TEST-BEGIN: $name"
	: >$ACCT
	now; t0=$NOW
	setsid sh -c ". /vm/lib.sh; T=$name; . $t" &
	pid=$!
	setsid sh -c "command sleep $limit; kill -TERM -$pid" >/dev/null 2>&1 &
	dog=$!
	wait $pid
	rc=$?
	kill -TERM -$dog 2>/dev/null
	[ $rc -eq 0 ] || echo "PPVM: FAIL $name: test script exited $rc (143: killed at its limit of $limit s)"
	if kill -0 -$pid 2>/dev/null; then
		log "stopping what $name left running: $(ps -o pid,pgid,args 2>/dev/null | awk -v g="$pid" '$2 == g { $2 = ""; print }' | tr '\n' ';')"
		kill -TERM -$pid 2>/dev/null
		poll 5 sh -c "! kill -0 -$pid 2>/dev/null" || kill -KILL -$pid 2>/dev/null
	fi
	now
	# the wall time and where it went (the host tabulates them: the VM budget)
	awk -v name="$name" -v a="$t0" -v b="$NOW" '
		$1 == "sleep" { sl += $2 }
		$1 == "wait" { wt += $3 - $2 }
		$1 == "ppw" { pn++; ps += $4 - $3 }
		$1 == "attach" { an++; d = $4 - $3; as += d; if (d > am) am = d }
		$1 == "traffic" { tr += $4 - $3 }
		END { printf "PPVM-TIME: %s %.1f s ppwatch=%d/%.1f attach=%d/%.1f/%.1f sleep=%.1f wait=%.1f traffic=%.1f\n",
			name, b - a, pn, ps, an, as, am, sl, wt, tr }' $ACCT
	echo "PPVM-TEST-END: $name"
	poll 10 grep -qx "PPVM-TEST-END: $name" /tmp/results.log
	sed -n "/^PPVM-TEST-BEGIN: $name\$/,/^PPVM-TEST-END: $name\$/p" /tmp/results.log >/tmp/t.out
	verdict "$name"
}
{
	# /vm/kernel.env (the matrix line) must be this kernel's
	if [ "$PPVM_KERNEL" != "$FLAVOR" ]; then
		fail "kernel.env is for '$PPVM_KERNEL', the kernel command line says '$FLAVOR'"
	fi
	log "kind=$PPVM_KIND source=$PPVM_SOURCE regime=$PPVM_REGIME lacks=$PPVM_LACKS ${PPVM_PACKAGE:+package=$PPVM_PACKAGE}"
	# the kernel must be the one we were told: the series adds item events
	if [ "$FLAVOR" = patched ] && ! has_event page_pool_item_block_alloc; then
		fail "flavor=patched but the kernel has no page_pool_item_* tracepoints"
	fi
	if [ "$FLAVOR" != patched ] && has_event page_pool_item_block_alloc; then
		fail "flavor=$FLAVOR but the kernel has the series' tracepoints"
	fi
	# ... and the xarray series its counters (struct page_pool_alloc_stats'
	# dma_map_failed, dma_index_failed: names in the kernel's BTF)
	btf_name() { tr '\0' '\n' </sys/kernel/btf/vmlinux 2>/dev/null | grep -qx "$1"; }
	if [ "$FLAVOR" = xarray ] && ! btf_name dma_index_failed; then
		fail "flavor=xarray but the kernel has no alloc_stats.dma_index_failed (BTF)"
	fi
	if [ "$FLAVOR" != xarray ] && btf_name dma_index_failed; then
		fail "flavor=$FLAVOR but the kernel has the xarray series' counters (BTF)"
	fi
	# (set-up, not an assertion of a test: a module loaded is no PASS)
	for m in $PPVM_MODULES; do
		if [ -d "/sys/module/$(echo "$m" | tr - _)" ]; then
			log "module $m loaded"
		else
			fail "module $m not loaded: $(tr '\n' ' ' 2>/dev/null </tmp/modules.log)"
		fi
	done
	# each program's stack as this kernel's verifier measured it
	# (PPWATCH_VERIFIER_STATS; tests/check-bpf.sh holds them to 6.1's
	# budget): the holder scan's programs, or where it cannot run the others
	if [ -x $PPWATCH ]; then
		for c in holders "pools --window 0.1"; do
			# shellcheck disable=SC2086 # the command and its options
			PPWATCH_VERIFIER_STATS=1 $PPWATCH -v $c 2>&1 >/dev/null | grep '^verifier: ' >/tmp/stack.log
			[ -s /tmp/stack.log ] && break
		done
		sed "s/^verifier: /PPVM-STACK: /" /tmp/stack.log
	fi
	# ppvm.only=NN[,NN...] on the kernel command line (VM_APPEND): only those
	# tests, for a quick turn on one kernel; make kernel-test never sets it
	only=$(sed -n 's/.*ppvm\.only=\([0-9,]*\).*/\1/p' /proc/cmdline)
	for t in /vm/t/[0-9]*.sh; do
		name=$(basename "$t" .sh)
		if [ -n "$only" ] && ! echo ",$only," | grep -q ",${name%%-*},"; then
			T=$name; skip ppvm.only "not selected by ppvm.only=$only"; T=run
			continue
		fi
		run_test "$name" "$t"
	done
	T=dmesg
	echo "PPVM-TEST-BEGIN: dmesg"
	# DMA-API debugging turns itself off for good when its own bookkeeping
	# cannot allocate ("DMA-API: ... disabled"), as failslab makes it do in
	# page_pool_dma.py (t/35): after that, no report proves nothing
	DMA_OFF=$(dmesg | grep -m1 'DMA-API: .*disabled')
	if lacks dma-api-debug || lacks vmxnet3-xdp; then
		skip "$(lacks dma-api-debug && echo lacks=dma-api-debug || echo lacks=vmxnet3-xdp)" \
			"DMA-API debug report at unbind: this kernel lacks$(lacks dma-api-debug && echo ' CONFIG_DMA_API_DEBUG')$(lacks vmxnet3-xdp && echo ' vmxnet3 XDP')"
	elif [ -n "$DMA_OFF" ]; then
		skip skips=dmesg "DMA-API debug report at unbind: DMA-API debugging turned itself off during the run (${DMA_OFF#*] }): its silence at unbind is no evidence"
	elif [ "$PPVM_REGIME" = legacy ]; then
		# the legacy regime: nothing unmaps the pages in flight at unbind
		if dmesg | grep -q 'pending DMA allocations while released'; then
			# every page in flight at the destroy (t/40's page_pool_release)
			# is still mapped
			check "legacy regime: DMA-API debug's count of the mappings left at unbind = the pages in flight at destroy" \
				"$(dmesg | grep 'pending DMA allocations while released' | grep -o 'count=[0-9]*' | head -n1 | cut -d= -f2)" -eq \
				"$(cat /tmp/vmx.inflight-at-destroy 2>/dev/null)"
		else
			fail "legacy regime: expected DMA-API 'pending DMA allocations' at vmxnet3 unbind"
		fi
	elif dmesg | grep -q 'pending DMA allocations while released'; then
		fail "DMA-API debug reports pending DMA allocations at driver unbind"
	else
		pass "no DMA-API 'pending DMA allocations' report"
	fi
	echo "PPVM-TEST-END: dmesg"
	poll 10 grep -qx "PPVM-TEST-END: dmesg" /tmp/results.log
	sed -n '/^PPVM-TEST-BEGIN: dmesg$/,/^PPVM-TEST-END: dmesg$/p' /tmp/results.log >/tmp/t.out
	verdict dmesg
} 2>&1 | tee /tmp/results.log
pass_n=$(grep -c '^PPVM: PASS ' /tmp/results.log)
fail_n=$(grep -c '^PPVM: FAIL ' /tmp/results.log)
skip_n=$(grep -c '^PPVM: SKIP ' /tmp/results.log)
asserted=$(grep -c '^PPVM-TEST: .* verdict=asserted$' /tmp/results.log)
partial=$(grep -c '^PPVM-TEST: .* verdict=partial$' /tmp/results.log)
skipped=$(grep -c '^PPVM-TEST: .* verdict=skipped$' /tmp/results.log)
now
echo "PPVM-TIME: total $NOW s"
echo "PPVM-SUMMARY: flavor=$FLAVOR pass=$pass_n fail=$fail_n skip=$skip_n asserted=$asserted partial=$partial skipped=$skipped"
echo "PPVM-END"
