# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# Each attach mode loads on this kernel and sees the same traffic: tp_btf,
# raw_tp and the classic tracepoint programs are different code (the
# tracepoint ones read the trace record, with its own CO-RE shims). One
# live-frames run with traffic, watched by a 'top -b -j' of each mode at
# once: each must report the mode it attached with and hold/release rates.
# The holder scan with each mode's programs: t/50 (holders tp_btf, pages
# raw_tp, postmortem tracepoint); 'auto': t/55.
NS=am; PORT=5060
if lacks live-frames; then
	# no pool to make traffic in (t/lib-floor.sh): each mode must still load
	for MODE in tp_btf raw_tp tracepoint; do
		ppw top_$MODE --attach $MODE -v top -b -j 0.5 1
		ppw_ok top_$MODE "ppwatch --attach $MODE top -b" || continue
		check "ppwatch --attach $MODE: attached with $MODE programs (-v)" \
			"$(sed -n 's/.*loaded and attached with \([a-z_]*\) programs.*/\1/p' /tmp/top_$MODE.err | head -n1)" = $MODE
		# (bpf-atomics, bpf-loop: the programs' counters-only build)
		check "ppwatch --attach $MODE: their counters-only build" \
			"$(grep -c "attached with $MODE programs, counters-only build" /tmp/top_$MODE.err)" -eq 1
	done
	return 0
fi
if ! ip netns add "$NS" || ! ip -n "$NS" link set lo up; then fail "netns $NS"; return 0; fi
# the three modes watch one live-frames run with traffic, side by side
# (each runs until stopped below: however long the three loads take)
for MODE in tp_btf raw_tp tracepoint; do ppw_bg_start top_$MODE --attach $MODE top -b -j -a 1 60; done
ppw_bg_ready top_tp_btf top_raw_tp top_tracepoint
ip netns exec $NS "$TOOL" live $PORT 512 0 50 2 >/tmp/am.log 2>&1 || log "ppvm-tool live: $(cat /tmp/am.log)"
sleep 2
for MODE in tp_btf raw_tp tracepoint; do
	ppw_bg_stop top_$MODE
	if [ "$PPW_RC" -ne 0 ]; then
		fail "ppwatch --attach $MODE top: exit $PPW_RC: $(head -c 600 /tmp/top_$MODE.err | tr '\n' ' ')"
		continue
	fi
	check "ppwatch --attach $MODE: attached with $MODE programs (-v)" \
		"$(sed -n 's/.*loaded and attached with \([a-z_]*\) programs.*/\1/p' /tmp/top_$MODE.err | head -n1)" = $MODE
	check "ppwatch --attach $MODE: hold rate of the live pool (/s)" \
		"$(jq -s '[.[].pools[]? | .hold_per_s // 0] | max // 0 | floor' /tmp/top_$MODE.out)" -gt 10
	check "ppwatch --attach $MODE: release rate (/s)" \
		"$(jq -s '[.[].pools[]? | .release_per_s // 0] | max // 0 | floor' /tmp/top_$MODE.out)" -gt 10
done
ip netns del $NS
