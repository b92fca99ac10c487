# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# Each attach mode loads on this kernel and sees the same traffic: tp_btf,
# raw_tp and the classic tracepoint programs are different code (the
# tracepoint ones read the trace record, with its own CO-RE shims), and
# 'auto' only ever loads the first that works. A live-frames run with
# traffic per mode; 'top -b -j' must report the mode it attached with and
# hold/release rates, and the holder scan (iterators, loaded in every mode)
# must run.
NS=am; PORT=5060
if ! ip netns add "$NS" || ! ip -n "$NS" link set lo up; then fail "netns $NS"; return 0; fi
for MODE in tp_btf raw_tp tracepoint; do
	ppw_bg top_$MODE --attach $MODE top -b -j -a 1 6
	ip netns exec $NS "$TOOL" live $PORT 512 0 50 2 >/tmp/am.log 2>&1 || log "ppvm-tool live: $(cat /tmp/am.log)"
	sleep 2
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
	ppw holders_$MODE --attach $MODE holders -j
	ppw_ok holders_$MODE "ppwatch --attach $MODE holders -j"
	PORT=$((PORT + 1))
done
ip netns del $NS
# auto: tp_btf, the first mode tried, loads on every kernel of the matrix;
# a fallback would say "tp_btf programs did not load (...)" (6.1's page
# argument once made the verifier refuse it, and auto hid it)
ppw auto -v top -b -j 0.5 1
check "ppwatch auto: attached with tp_btf programs" \
	"$(sed -n 's/.*loaded and attached with \([a-z_]*\) programs.*/\1/p' /tmp/auto.err | head -n1)" = tp_btf
check "ppwatch auto: no attach mode fell back" "$(grep -c 'did not load' /tmp/auto.err)" -eq 0
