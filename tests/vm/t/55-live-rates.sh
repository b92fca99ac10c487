# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# A live pool with traffic, on every kernel of the matrix: the live-frames
# test run keeps running (SIGALRM ends it) while a child drains the socket
# every 50 ms, so pages keep entering (page_pool_state_hold) and leaving
# (page_pool_state_release) the pool. 'top -b' must see the pool live with
# hold and release rates that match the tracepoints' counts, 'stacks' the
# test run's allocation path, and 'check --run' must tell a pool its
# command let go (freed) from one that stays a zombie. top runs with
# 'auto', which must load tp_btf and fall back nowhere.
PORT=5055; NS=lr; SECS=4
lacks live-frames && { skip lacks=live-frames "no live frames on $FLAVOR (BPF_F_TEST_XDP_LIVE_FRAMES, v5.18): no pool to make traffic in; t/50 runs every command on none"; return 0; }
if ! ip netns add "$NS" || ! ip -n "$NS" link set lo up; then fail "netns $NS"; return 0; fi
trace_start page_pool_state_hold page_pool_state_release page_pool_release
# top runs until stopped below (SIGINT ends it with 0): it must still be
# watching when the pool goes, however slow the VM
ppw_bg top top -b -j -a 1 $((SECS + 30))
ppw_bg stacks stacks -e 1 -j $((SECS + 4))
ip netns exec $NS "$TOOL" live $PORT 512 0 50 $SECS >/tmp/lr.log 2>&1 || fail "ppvm-tool live (pool with traffic): $(cat /tmp/lr.log)"
log "$(tr '\n' ' ' </tmp/lr.log)"
trace_snap /tmp/lr.trace
NH=$(tcount /tmp/lr.trace page_pool_state_hold); NR=$(tcount /tmp/lr.trace page_pool_state_release)
echo "PPVM-VALUES: live-rates secs=$SECS trace-holds=$NH trace-releases=$NR"
check "tracepoints: pages entered the live pool (holds)" "$NH" -gt 100
check "tracepoints: pages left the live pool (releases)" "$NR" -gt 100
sleep 4
ppw_bg_stop top
check "ppwatch top -b: exit" "$PPW_RC" -eq 0
# auto: tp_btf, the first mode tried, loads on every kernel of the matrix;
# a fallback would say "tp_btf programs did not load (...)" (6.1's page
# argument once made the verifier refuse it, and auto hid it)
check "ppwatch auto: attached with tp_btf programs" \
	"$(sed -n 's/.*loaded and attached with \([a-z_]*\) programs.*/\1/p' /tmp/top.err | head -n1)" = tp_btf
check "ppwatch auto: no attach mode fell back" "$(grep -c 'did not load' /tmp/top.err)" -eq 0
# the busiest live snapshot of any pool
jq -c '.pools[]? | select(.state == "live" and .hold_per_s != null)' /tmp/top.out >/tmp/top.live
log "top: $(wc -l </tmp/top.live) live pool rows"
HPS=$(jq -s 'map(.hold_per_s) | max // 0 | floor' /tmp/top.live)
RPS=$(jq -s 'map(.release_per_s) | max // 0 | floor' /tmp/top.live)
echo "PPVM-VALUES: top hold_per_s=$HPS release_per_s=$RPS (trace: $NH holds, $NR releases in ${SECS}s)"
check "ppwatch top: hold rate of the live pool (/s)" "$HPS" -gt 10
check "ppwatch top: release rate of the live pool (/s)" "$RPS" -gt 10
# rates are per second over 1 s intervals: the peak is at least the mean
check "ppwatch top: peak hold rate >= tracepoint mean over the run" "$HPS" -ge $((NH / (SECS + 2)))
check "ppwatch top: the pool is a zombie or freed once the run ended" \
	"$(jq -r 'select(.pools != null) | .pools[] | select(.state == "zombie" or .state == "freed") | .state' /tmp/top.out | head -n1)" != "" ||
	log "top snapshots: $(jq -c '[.pools[]? | [.addr, .state, .inflight]]' /tmp/top.out | tail -n 4 | tr '\n' ' ')"
ppw_bg_stop stacks
check "ppwatch stacks: exit" "$PPW_RC" -eq 0
# every hold of the run sampled (-e 1), in stacks that start in the test
# run's bpf() syscall (6.1's stacks from tp_btf stop there: the frames
# between the tracepoint and __sys_bpf are not unwound; 6.12+ show
# page_pool_alloc_pages <- xdp_test_run_batch <- bpf_prog_test_run_xdp)
check "ppwatch stacks: hold events in hold stacks = tracepoint holds" \
	"$(jq '[.pools[].stacks[] | select(.kind == "hold") | .count] | add // 0' /tmp/stacks.out)" -eq "$NH" ||
	log "hold stacks: $(jq -c '[.pools[].stacks[] | select(.kind == "hold")] | .[0:2]' /tmp/stacks.out | head -c 1500)"
check "ppwatch stacks: hold stacks through the test run's bpf() syscall" \
	"$(jq '[.pools[].stacks[] | select(.kind == "hold") | select(any(.frames[]; test("__sys_bpf|bpf_prog_test_run"))) | .count] | add // 0' /tmp/stacks.out)" -eq "$NH"
check "ppwatch stacks: release stacks" "$(jq '[.pools[].stacks[] | select(.kind == "release" or .kind == "zombie_release")] | length' /tmp/stacks.out)" -ge 1
check "ppwatch stacks: no stack lost" "$(jq .sampling.stacks_lost /tmp/stacks.out)" -eq 0

# check --run, once, with a command that makes two pools: the first is
# freed before the command ends, the second stays a zombie past the
# deadline: a socket keeps its pages, or (no xdp-skb-recycle, see
# 50-live-zombie) a virtio TX ring does. One run shows both verdicts (the
# holder scan it loads is the longest load under TCG).
# (/sbin/ip: the shell of --run is busybox's, whose own 'ip' has no netns)
FREED="$TOOL live $((PORT + 1)) 100 1"
if lacks xdp-skb-recycle; then
	virtio_xdp_setup $NS || { ip netns del $NS; return 0; }
	RUN="/sbin/ip netns exec $NS sh -c '$FREED; $TOOL live-tx $VIF 100'"
else
	RUN="/sbin/ip netns exec $NS sh -c '$FREED; $TOOL live $((PORT + 2)) 100 30 >/tmp/stuck.log 2>&1 & echo \$! >/tmp/stuck.pid; sleep 2'"
fi
ppw check_run check --run "$RUN" --deadline 2 -j
check "ppwatch check --run (a pool still a zombie at the deadline): exit 1" "$PPW_RC" -eq 1
check "ppwatch check --run: pools the command destroyed" "$(jq .run.destroyed /tmp/check_run.out)" -ge 2
check "ppwatch check --run: freed (the first)" "$(jq .run.freed /tmp/check_run.out)" -ge 1
check "ppwatch check --run: a destroyed pool freed, not stuck" \
	"$(jq '[.run.pools[] | select(.stuck | not)] | length' /tmp/check_run.out)" -ge 1
check "ppwatch check --run: stuck pools (the second)" "$(jq .run.stuck /tmp/check_run.out)" -ge 1
check "ppwatch check --run: the stuck pool's inflight" \
	"$(jq '[.run.pools[] | select(.stuck) | .pool.inflight][0] // empty' /tmp/check_run.out)" -eq 100
if lacks xdp-skb-recycle; then
	virtio_xdp_release; sleep 2; virtio_xdp_reset
else
	[ -s /tmp/stuck.pid ] && kill "$(cat /tmp/stuck.pid)" 2>/dev/null
fi
trace_stop
sleep 1
ip netns del $NS
