# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash: POSIX sh and local, as dash has
# Helpers for the VM tests (busybox ash). Sourced by run.sh and every t/*.sh.
#
# Result lines, parsed by kernel/rig.sh on the host (anything else is log):
#   PPVM: PASS <test>: <what>
#   PPVM: FAIL <test>: <what>
#   PPVM: SKIP <test>: <why> [declared: COND]
# A test that cannot run says SKIP with the reason and the matrix key that
# declares it (skip COND WHY); it never passes silently. kernel/rig.sh
# check_log holds each COND to the kernel's line of kernel/matrix; a SKIP
# without one, or with one the line does not declare, fails the line.

# busybox-static's ash runs its own applets before searching PATH: make 'ip'
# the iproute2 binary (netns, veth, -o), not busybox's applet
ip() { /sbin/ip "$@"; }

TRACE=/sys/kernel/tracing
NLBIN=/vm/bin/ppvm-nl
TOOL=/vm/bin/ppvm-tool
FLAVOR=${FLAVOR:-unknown}
# what the matrix line says about this kernel (kernel/rig.sh writes it):
# PPVM_KERNEL, PPVM_KIND, PPVM_SOURCE, PPVM_REGIME, PPVM_LACKS, PPVM_MODULES
# shellcheck source=/dev/null # written into the initramfs by kernel/rig.sh
[ -f /vm/kernel.env ] && . /vm/kernel.env
# lacks FEATURE: does the matrix say this kernel lacks FEATURE (kernel/matrix)?
lacks() { case " $PPVM_LACKS " in *" $1 "*) return 0 ;; esac; return 1; }

log() { echo "  [$T] $*"; }
pass() { echo "PPVM: PASS $T: $*"; }
fail() { echo "PPVM: FAIL $T: $*"; }
# skip COND WHY: a check (or a whole test) that cannot run on this kernel,
# with the condition of its kernel/matrix line that declares it; COND is
# one of (several joined by ',': all must hold):
#   lacks=F         the line lacks F
#   regime=R, regime!=R   the line's regime is (is not) R
#   selftests=none  the line names no selftests
#   kinds!=test     the line has no kinds=test (with depth=test: make test)
#   churn!=test     the line has no churn=test (with depth=test: make test)
#   depth=test      make test's depth (KERNEL_SET=test), not make test-matrix
#   skips=NAME      the line's skips= key names this test (NAME = $T)
#   ppvm.only       a ppvm.only= boot (VM_APPEND; never in make kernel-test)
# 'none': no key declares it (a SKIP the line fails on, said as such)
skip() {
	if [ "$1" = none ]; then
		echo "PPVM: SKIP $T: $2"
	else
		echo "PPVM: SKIP $T: $2 [declared: $1]"
	fi
}

# check "what" VALUE OP EXPECTED (OP: -eq -ne -gt -ge -lt -le, or = / != for strings)
check() {
	local what=$1 a=$2 op=$3 b=$4
	case "$a" in "") fail "$what: no value (expected $op $b)"; return 1 ;; esac
	# test, not [: shellcheck cannot parse [ with the operator in a variable
	if test "$a" "$op" "$b" 2>/dev/null; then
		pass "$what ($a $op $b)"
		return 0
	fi
	fail "$what: got '$a', expected $op '$b'"
	return 1
}

# absent "what" VALUE: passes if VALUE is empty (attribute not reported)
absent() {
	if [ -z "$2" ]; then pass "$1 (absent)"; return 0; fi
	fail "$1: expected absent, got '$2'"
	return 1
}

# --- the time budget ---------------------------------------------------------
# Where a test's time goes, appended to /tmp/ppvm.acct and summed by run.sh
# after each test (its PPVM-TIME line): "sleep SECONDS" (fixed sleeps),
# "wait START END" (waits on an event), "ppw NAME START END" (a ppwatch
# run), "attach NAME START END" (a ppwatch from its start to "loaded and
# attached": opening, verifying and attaching its BPF programs),
# "traffic NAME START END" (ppvm-tool's traffic). Times: /proc/uptime.
ACCT=/tmp/ppvm.acct
# now: NOW = seconds since boot (no process: /proc/uptime read by the shell)
now() { read -r NOW _ </proc/uptime; }
# a fixed sleep: counted
sleep() { echo "sleep $1" >>$ACCT; command sleep "$@"; }

# poll SECONDS CMD...: poll every 0.2 s until CMD succeeds (bounded)
poll() {
	local n=$(( $1 * 5 )); shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		command sleep 0.2
		n=$(( n - 1 ))
	done
	return 1
}
# wait_for SECONDS CMD...: poll, the time counted as a wait on an event
wait_for() {
	local t0 rc=0
	now; t0=$NOW
	poll "$@" || rc=1
	now; echo "wait $t0 $NOW" >>$ACCT
	return $rc
}

# --- netlink (ppvm-nl) -------------------------------------------------------
# nl_pools [NETNS]: "pool id=.. key=.." lines of page-pool-get
nl_pools() {
	if [ -n "${1:-}" ]; then ip netns exec "$1" $NLBIN pools; else $NLBIN pools; fi
}
nl_stats() {
	if [ -n "${1:-}" ]; then ip netns exec "$1" $NLBIN stats; else $NLBIN stats; fi
}
# field LINE KEY: value of key=value in LINE (empty if absent)
field() {
	echo " $1 " | sed -n "s/.* $2=\([^ ]*\) .*/\1/p"
}
# nl_line KIND(pools|stats) ID [NETNS]: the line of pool ID
nl_line() {
	if [ "$1" = pools ]; then nl_pools "${3:-}"; else nl_stats "${3:-}"; fi |
		grep " id=$2 " 2>/dev/null || true
}
# nl_get KIND ID KEY [NETNS]
nl_get() {
	field "$(nl_line "$1" "$2" "${4:-}" | head -n1) " "$3"
}
# pool ids of ifindex IFX in NETNS
nl_ids_of_ifindex() {
	nl_pools "${2:-}" | grep " ifindex=$1 " | sed -n 's/.* id=\([0-9]*\) .*/\1/p'
}

# --- tracefs -----------------------------------------------------------------
# series_event EVENT: an event of the item-block series (patches/), which
# kernels of regime=item-blocks have and every other kernel lacks
series_event() {
	case "$1" in page_pool_item_*|page_pool_destroy_unmap) return 0 ;; esac
	return 1
}
# trace_start EVENT...: trace these page_pool events from now, the buffer
# emptied. A check that counts events the trace does not record passes
# vacuously ("0 state_hold"), so each event must exist on this kernel and
# be enabled, or the test FAILS here (returns 1). The series' events are
# traced where the kernel has them (regime=item-blocks); elsewhere their
# absence is what the matrix says (t/05 asserts it) and the checks that
# count them run only where has_event says they exist.
trace_start() {
	local e rc=0
	echo 0 >$TRACE/tracing_on
	echo >$TRACE/trace
	echo 16384 >$TRACE/buffer_size_kb
	for e in "$@"; do
		if [ -e "$TRACE/events/page_pool/$e/enable" ]; then
			echo 1 >"$TRACE/events/page_pool/$e/enable"
			[ "$(cat "$TRACE/events/page_pool/$e/enable")" = 1 ] ||
				{ fail "tracepoint page_pool:$e did not enable"; rc=1; }
		elif series_event "$e" && [ "$PPVM_REGIME" != item-blocks ]; then
			log "no tracepoint page_pool:$e (the item-block series'; regime=$PPVM_REGIME)"
		else
			fail "no tracepoint page_pool:$e on this kernel: the checks on its events cannot run"
			rc=1
		fi
	done
	# page_pool_release alone, in a second buffer (a tracefs instance) as
	# well: a wait on a pool's destroy or free polls that (rel_snap), not
	# the whole trace of every page (200k events under TCG, read again
	# each poll)
	REL=
	case " $* " in
	*" page_pool_release "*)
		if [ -d $TRACE/instances/ppvm_rel ] || mkdir $TRACE/instances/ppvm_rel 2>/dev/null; then
			REL=$TRACE/instances/ppvm_rel
			echo 0 >$REL/tracing_on
			echo >$REL/trace
			if echo 1 >$REL/events/page_pool/page_pool_release/enable 2>/dev/null; then
				echo 1 >$REL/tracing_on
			else
				log "page_pool_release would not enable in a tracefs instance: waits read the whole trace"
				REL=
			fi
		fi
		;;
	esac
	echo 1 >$TRACE/tracing_on
	return $rc
}
trace_stop() {
	echo 0 >$TRACE/tracing_on
	echo 0 >$TRACE/events/page_pool/enable
	if [ -n "${REL:-}" ]; then
		echo 0 >"$REL"/tracing_on
		echo 0 >"$REL"/events/page_pool/enable
	fi
}
# trace_snap FILE: copy the buffer (not consuming it)
trace_snap() { cat $TRACE/trace >"$1"; }
# rel_snap FILE: the page_pool_release events traced since trace_start
# (its second buffer; the whole trace where there is none)
rel_snap() { if [ -n "${REL:-}" ]; then cat "$REL"/trace >"$1"; else trace_snap "$1"; fi; }
has_event() { [ -d "$TRACE/events/page_pool/$1" ]; }
# count EVENT lines in FILE matching the extra grep pattern (default: all)
tcount() {
	grep " $2: " "$1" | grep -c -- "${3:-.}" || true
}

# --- the kernel itself ---------------------------------------------------------
# kconfig OPTION: its value in the kernel's own configuration
# (/vm/kernel.config, kernel/rig.sh overlay: y, m, a string; empty if not
# set); KCONFIG_MISSING is set when there is no such file
kconfig() {
	# shellcheck disable=SC2034 # read by t/*.sh
	[ -f /vm/kernel.config ] || { KCONFIG_MISSING=1; return 0; }
	sed -n "s/^$1=//p" /vm/kernel.config
}
# btf_facts STRUCT[.MEMBER]...: does the kernel's BTF have each struct
# (member)? "STRUCT[.MEMBER]=yes|no ..." on one line (ppvm-bpf btf:
# libbpf's reading of /sys/kernel/btf/vmlinux, loaded once)
btf_facts() { /vm/bin/ppvm-bpf btf "$@"; }
# ksym NAME: is NAME a function of the kernel (/proc/kallsyms)?
ksym() { awk -v s="$1" '$3 == s { f = 1; exit } END { exit !f }' /proc/kallsyms; }
# yes_no CMD...: "yes" if CMD succeeds, else "no"
yes_no() { if "$@"; then echo yes; else echo no; fi; }
# fact LINE KEY: yes or no, KEY's in a "KEY=yes|no ..." line (btf_facts)
fact() { field "$1" "$2"; }

# --- misc --------------------------------------------------------------------
# first_name PATH...: the last component of the first PATH, if it exists:
# the first match of a glob, nothing if it matched nothing
first_name() { if [ -e "$1" ]; then echo "${1##*/}"; fi; }
ifindex_of() { cat "/sys/class/net/$1/ifindex" 2>/dev/null || ip -n "$2" -o link show "$1" | cut -d: -f1; }

# --- ppwatch cross-checks ----------------------------------------------------
# Every test has a block marked "ppwatch cross-check": ppwatch must report
# what netlink and the tracepoints reported. ppwatch not running on the
# guest kernel makes those checks FAIL with its error (PPVM_PPWATCH_STRICT=0
# turns that into an undeclared SKIP, which still fails the line).
PPWATCH=/vm/bin/ppwatch
# ppw_snap [ARGS]: ppwatch pools -j (observing 1.2 s) into /tmp/ppw.json
ppw_snap() {
	local t0 rc=0
	PPW_WHY=
	now; t0=$NOW
	[ -x $PPWATCH ] && { $PPWATCH pools -j --window 1.2 "$@" >/tmp/ppw.json 2>/tmp/ppw.err; rc=$?; }
	now; echo "ppw snap $t0 $NOW" >>$ACCT
	log "ppwatch pools -j --window 1.2 $* -> exit $rc ($(awk -v a="$t0" -v b="$NOW" 'BEGIN { printf "%.1f", b - a }') s)"
	if [ ! -x $PPWATCH ]; then
		PPW_WHY="ppwatch binary not in the initramfs"
	elif [ $rc -ne 0 ]; then
		PPW_WHY="'ppwatch pools -j' exited $rc: $(head -c 400 /tmp/ppw.err | tr '\n' ' ')"
	elif ! jq -e .pools /tmp/ppw.json >/dev/null 2>&1; then
		PPW_WHY="'ppwatch pools -j' printed no JSON with .pools: $(head -c 200 /tmp/ppw.json)"
	fi
	[ -z "$PPW_WHY" ] && return 0
	if [ "${PPVM_PPWATCH_STRICT:-1}" = 1 ]; then fail "ppwatch: $PPW_WHY"; else skip none "ppwatch cross-check: $PPW_WHY"; fi
	return 1
}
# ppw_start SECONDS: ppwatch pools -j observing SECONDS in the background,
# for events that happen once (page_pool_destroy_unmap); ppw_finish waits
# for it and validates /tmp/ppw.json like ppw_snap
ppw_start() {
	PPW_PID=
	[ -x $PPWATCH ] || return 0
	now; PPW_T0=$NOW
	# -v: its "loaded and attached" message says when it is watching
	$PPWATCH pools -j -a -v --window "$1" >/tmp/ppw.json 2>/tmp/ppw.err &
	PPW_PID=$!
	if poll 30 grep -q 'loaded and attached' /tmp/ppw.err; then
		now; echo "attach window $PPW_T0 $NOW" >>$ACCT
		log "ppwatch pools -j -a --window $1 attached after $(awk -v a="$PPW_T0" -v b="$NOW" 'BEGIN { printf "%.1f", b - a }') s"
	else
		log "ppwatch did not report 'loaded and attached' within 30 s"
	fi
}
ppw_finish() {
	local rc=0
	PPW_WHY=
	if [ -n "$PPW_PID" ]; then wait "$PPW_PID"; rc=$?; now; echo "ppw window $PPW_T0 $NOW" >>$ACCT; fi
	if [ -z "$PPW_PID" ]; then
		PPW_WHY="ppwatch binary not in the initramfs"
	elif [ $rc -ne 0 ]; then
		PPW_WHY="'ppwatch pools -j' exited non-zero: $(head -c 400 /tmp/ppw.err | tr '\n' ' ')"
	elif ! jq -e .pools /tmp/ppw.json >/dev/null 2>&1; then
		PPW_WHY="'ppwatch pools -j' printed no JSON with .pools: $(head -c 200 /tmp/ppw.json)"
	fi
	[ -z "$PPW_WHY" ] && return 0
	if [ "${PPVM_PPWATCH_STRICT:-1}" = 1 ]; then fail "ppwatch: $PPW_WHY"; else skip none "ppwatch cross-check: $PPW_WHY"; fi
	return 1
}
# ppw_pool ID FIELD (jq path below the pool object, e.g. "state", "inflight")
ppw_pool() {
	jq -r --argjson id "$1" "[.pools[] | select(.id == \$id)][0].$2 // empty" /tmp/ppw.json
}
# ppw_kernel FIELD
ppw_kernel() { jq -r ".kernel.$1 // empty" /tmp/ppw.json; }
# ppw_find JQ-FILTER FIELD: FIELD of the first pool matching a select() filter
ppw_find() { jq -r "[.pools[] | select($1)][0].$2 // empty" /tmp/ppw.json; }

# pointer token ("page_pool=XXXX", as the trace prints it) of pool ID, from
# its item block events (patched kernels)
trace_ptr_of_id() {
	sed -n "s/.* page_pool_item_block_alloc: page_pool=\([^ ]*\) id=$2 .*/\1/p" "$1" | head -n1
}
# last "inflight=" value of page_pool_release events of pool PTR
trace_release_inflight() {
	grep " page_pool_release: page_pool=$2 " "$1" | tail -n1 | sed -n 's/.* inflight=\([-0-9]*\) .*/\1/p'
}
# trace_release_field FILE PTR FIELD: FIELD (inflight, hold, release, cnt)
# of the last page_pool_release event of pool PTR: the kernel's own
# counters (pages_state_hold_cnt, pages_state_release_cnt)
trace_release_field() {
	grep " page_pool_release: page_pool=$2 " "$1" | tail -n1 | sed -n "s/.* $3=\([-0-9]*\).*/\1/p"
}
# trace_zombies FILE: pools whose last page_pool_release in FILE still had
# pages in flight (destroyed, not freed: their retries come every second)
trace_zombies() {
	grep ' page_pool_release: ' "$1" | awk '{
		p = ""; n = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^page_pool=/) p = $i
			if ($i ~ /^inflight=/) n = substr($i, 10) + 0
		}
		last[p] = n }
		END { for (p in last) if (last[p] != 0) z++; print z + 0 }'
}
# ppw_addr PTR: the trace's pool pointer as ppwatch writes .addr (the VM
# boots with no_hash_pointers: the trace prints the address itself)
ppw_addr() { echo "0x${1#0x}"; }
# delivered [NETNS]: IP datagrams delivered to the transport layer in
# NETNS (Ip InDelivers of /proc/net/snmp; a datagram a socket queues
# counts, read or not: Udp InDatagrams counts only what is read): what a
# test's traffic made arrive
delivered() {
	if [ -n "${1:-}" ]; then ip netns exec "$1" cat /proc/net/snmp; else cat /proc/net/snmp; fi |
		awk '$1 == "Ip:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "InDelivers") c = i; h = 1 } else print $c }'
}

# trace_destroys FILE: "PTR INFLIGHT" of each page_pool_release event from
# page_pool_destroy() itself (cnt=1: first scrub), in the trace's order
# (later retries of older zombies have cnt > 1)
trace_destroys() {
	grep ' page_pool_release: ' "$1" | awk '{
		p = ""; n = -1; c = -1
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^page_pool=/) p = substr($i, 11)
			if ($i ~ /^inflight=/) n = substr($i, 10) + 0
			if ($i ~ /^cnt=/) c = substr($i, 5) + 0
		}
		if (c == 1) print p, n }'
}
# pool pointer of the first pool destroyed with inflight >= MIN pages in
# flight (trace_destroys)
trace_release_ptr_min() {
	trace_destroys "$1" | awk -v min="$2" '$2 >= min { print $1; exit }'
}

# veth pair in two fresh netns: NSA/IFA 192.0.2.1 <-> NSB/IFB 192.0.2.2
veth_pair() {
	ip netns add "$1" && ip netns add "$3" &&
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" &&
	ip -n "$1" addr add 192.0.2.1/24 dev "$2" &&
	ip -n "$3" addr add 192.0.2.2/24 dev "$4" &&
	ip -n "$1" link set "$2" up && ip -n "$3" link set "$4" up
}
# start a non-reading UDP sink in NETNS on ADDR PORT; sets SINK (pid)
sink_start() {
	# not through the ip() function: '&' would fork a subshell and $! be its pid
	/sbin/ip netns exec "$1" $TOOL sink "$2" "$3" >"/tmp/sink.$3.log" 2>&1 &
	SINK=$!
	wait_for 5 grep -q ready "/tmp/sink.$3.log"
}
sink_stop() { [ -n "${SINK:-}" ] && kill "$SINK" 2>/dev/null; wait "$SINK" 2>/dev/null; SINK=; }
# regime_check FILE: the matrix line's regime= is what ppwatch reports in
# FILE's .kernel.unmap_regime: item-blocks, dma_mapped-xarray, or on-return
# for legacy (neither fix: a page stays mapped until it returns to its pool)
# (the kernel's own layout says which: t/05). On a kernel without page-pool
# stats (lacks=pp-stats, t/05 asserts it of the kernel), ppwatch must say it
# has none of what it reads from them: item and DMA failure counters
regime_check() {
	local want=$PPVM_REGIME
	[ "$want" = legacy ] && want=on-return
	check "ppwatch kernel.unmap_regime (kernel/matrix regime=$PPVM_REGIME)" "$(jq -r '.kernel.unmap_regime // empty' "$1")" = "$want"
	if lacks pp-stats; then
		check "ppwatch on a kernel without page-pool stats (lacks=pp-stats): .kernel item_stats, dma_index_stats, dma_map_stats" \
			"$(jq -r '.kernel | "\(.item_stats) \(.dma_index_stats) \(.dma_map_stats)"' "$1")" = "false false false"
		check "ppwatch on a kernel without page-pool stats: .kernel.unavailable names item_stats" \
			"$(jq -r '.kernel.unavailable | index("item_stats") != null' "$1")" = true
		check "ppwatch on a kernel without page-pool stats: no pool carries item or DMA failure counters" \
			"$(jq '[.pools[] | select(.items != null or .dma_map_failed != null or .dma_index_failed != null)] | length' "$1")" -eq 0
	fi
}
# ppw_has FIELD: does any pool in /tmp/ppw.json carry FIELD (even as null)?
# Used to switch on the item-stat cross-checks once ppwatch reports them.
ppw_has() { [ "$(jq -r "[.pools[] | has(\"$1\")] | any" /tmp/ppw.json 2>/dev/null)" = true ]; }

# --- every ppwatch command (t/50-*, t/55-*) --------------------------------------
# ppw NAME ARGS...: run 'ppwatch ARGS' into /tmp/NAME.out (stdout) and
# /tmp/NAME.err; PPW_RC is its exit status
ppw() {
	local name=$1 t0; shift
	now; t0=$NOW
	$PPWATCH "$@" >"/tmp/$name.out" 2>"/tmp/$name.err"
	PPW_RC=$?
	now; echo "ppw $name $t0 $NOW" >>$ACCT
	log "ppwatch $* -> exit $PPW_RC ($(awk -v a="$t0" -v b="$NOW" 'BEGIN { printf "%.1f", b - a }') s)"
	[ $PPW_RC -eq 0 ] || log "  stderr: $(head -c 300 "/tmp/$name.err" | tr '\n' ' ')"
	return 0
}
# ppw_ok NAME WHAT: PASS if the last ppw exited 0, else FAIL with its stderr
ppw_ok() {
	if [ "$PPW_RC" -eq 0 ]; then pass "$2: exit 0"; return 0; fi
	fail "$2: exit $PPW_RC: $(head -c 400 "/tmp/$1.err" | tr '\n' ' ')"
	return 1
}
# ppw_bg NAME ARGS...: 'ppwatch -v ARGS' in the background (stdout
# /tmp/NAME.out), waits until it has attached; ppw_bg_stop NAME: SIGINT, wait,
# PPW_RC = its exit status
ppw_bg() {
	ppw_bg_start "$@"
	ppw_bg_ready "$1"
}
# ppw_bg_start NAME ARGS...: the same without waiting; ppw_bg_ready NAME...
# waits until each has attached (several load at once, on both vCPUs)
ppw_bg_start() {
	local name=$1; shift
	now
	eval "PPW_T0_$name=\$NOW PPW_ARGS_$name=\"\$*\""
	$PPWATCH -v "$@" >"/tmp/$name.out" 2>"/tmp/$name.err" &
	eval "PPW_BG_$name=$!"
}
ppw_bg_ready() {
	local name t0 args
	for name in "$@"; do
		eval "t0=\$PPW_T0_$name args=\$PPW_ARGS_$name"
		if poll 60 grep -q 'loaded and attached' "/tmp/$name.err"; then
			now; echo "attach $name $t0 $NOW" >>$ACCT
			log "ppwatch $args attached after $(awk -v a="$t0" -v b="$NOW" 'BEGIN { printf "%.1f", b - a }') s"
		else
			log "ppwatch $args did not report 'loaded and attached' within 60 s: $(head -c 300 "/tmp/$name.err" | tr '\n' ' ')"
		fi
	done
}
# ppw_par NAME ARGS...: 'ppwatch ARGS' (outputs as ppw's) in the background,
# for runs that observe the same state independently; ppw_par_wait NAME...
# waits for them; ppw_rc NAME then sets PPW_RC to NAME's exit status (and
# logs it, as ppw does) for ppw_ok and the checks
ppw_par() {
	local name=$1; shift
	now
	eval "PPW_T0_$name=\$NOW PPW_ARGS_$name=\"\$*\""
	$PPWATCH "$@" >"/tmp/$name.out" 2>"/tmp/$name.err" &
	eval "PPW_PAR_$name=$!"
}
ppw_par_wait() {
	local name pid t0
	t0=$(cut -d' ' -f1 /proc/uptime)
	for name in "$@"; do
		eval "pid=\$PPW_PAR_$name"
		wait "$pid"
		eval "PPW_RC_$name=$?"
		now
		eval "echo \"ppw $name \$PPW_T0_$name $NOW\"" >>$ACCT
	done
	log "ppwatch runs $* in parallel: done $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime) s after the wait began"
}
ppw_rc() {
	local args
	eval "PPW_RC=\$PPW_RC_$1 args=\$PPW_ARGS_$1"
	log "ppwatch $args -> exit $PPW_RC"
	[ "$PPW_RC" -eq 0 ] || log "  stderr: $(head -c 300 "/tmp/$1.err" | tr '\n' ' ')"
	return 0
}
ppw_bg_stop() {
	local pid
	eval "pid=\$PPW_BG_$1"
	[ -n "$pid" ] || { PPW_RC=255; return 0; }
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	PPW_RC=$?
	now
	eval "echo \"ppw $1 \$PPW_T0_$1 $NOW\"" >>$ACCT
	log "ppwatch ($1) stopped -> exit $PPW_RC"
}
# ppw_sel ADDR FILE: what selects the pool at ADDR on a command line: its
# name (.pool: the id, or x<mem id>/@<addr> before pool->user.id existed);
# empty, with a FAIL, when the JSON gives it none
ppw_sel() {
	local sel
	sel=$(jq -r --arg a "$1" '[.pools[] | select(.addr == $a)][0].pool // empty' "$2")
	case "$sel" in
	""|null|-)
		fail "cli: the pool at $1 has no name in the JSON (.pool '$sel'): every pool needs one that every command selects" >&2
		return 1 ;;
	esac
	echo "$sel"
}
# jpool FILE ADDR FIELD: FIELD of the pool at ADDR in a JSON document with .pools[]
jpool() {
	jq -r --arg a "$2" "[.pools[] | select(.addr == \$a)][0].$3 | if . == null then empty else . end" "$1"
}

# virtio_xdp_setup NETNS: the virtio_net device, rebound with napi_tx=0 (its
# driver then reaps TX completions, XDP frames too, only when it transmits
# again), moved into NETNS with no stack traffic (no IPv6, no ARP, no
# address) and an XDP_PASS program (ndo_xdp_xmit needs one). Sets VD (the
# virtio device) and VIF (its interface). Undo: virtio_xdp_reset.
virtio_xdp_setup() {
	VD=$(first_name /sys/bus/virtio/drivers/virtio_net/virtio*)
	if [ -z "$VD" ]; then
		fail "no virtio_net device: kernel/matrix lacks=xdp-skb-recycle needs one to hold pages (modules=virtio_pci,virtio_net)"
		return 1
	fi
	echo 0 >/sys/module/virtio_net/parameters/napi_tx
	echo "$VD" >/sys/bus/virtio/drivers/virtio_net/unbind
	echo "$VD" >/sys/bus/virtio/drivers/virtio_net/bind
	VIF=$(first_name "/sys/bus/virtio/devices/$VD/net/"*)
	[ -n "$VIF" ] || { fail "virtio device $VD has no net device after rebind"; return 1; }
	ip link set "$VIF" netns "$1"
	ip netns exec "$1" sh -c "echo 1 >/proc/sys/net/ipv6/conf/$VIF/disable_ipv6" 2>/dev/null
	ip -n "$1" link set "$VIF" arp off up
	ip netns exec "$1" $TOOL xdp-attach "$VIF" || { fail "XDP on virtio_net $VIF"; return 1; }
	log "virtio_net $VD = $VIF (napi_tx=0, XDP) in netns $1"
}
# unbinding frees the TX ring's frames (free_unused_bufs); bind again
virtio_xdp_release() { echo "$VD" >/sys/bus/virtio/drivers/virtio_net/unbind; }
virtio_xdp_reset() { echo "$VD" >/sys/bus/virtio/drivers/virtio_net/bind 2>/dev/null; return 0; }

# --- page-pool notifications and the tp_btf helper --------------------------
BPFBIN=/vm/bin/ppvm-bpf
# nl_monitor_start FILE [NETNS]: page-pool notifications (ppvm-nl monitor)
# into FILE until nl_monitor_stop; sets NLMON (pid)
nl_monitor_start() {
	if [ -n "${2:-}" ]; then
		/sbin/ip netns exec "$2" $NLBIN monitor 600 >"$1" 2>&1 &
	else
		$NLBIN monitor 600 >"$1" 2>&1 &
	fi
	NLMON=$!
	wait_for 10 grep -q 'monitor ready' "$1" || log "ppvm-nl monitor not ready: $(cat "$1")"
}
nl_monitor_stop() { [ -n "${NLMON:-}" ] && kill "$NLMON" 2>/dev/null; wait "$NLMON" 2>/dev/null; NLMON=; }
# ntf_line FILE KIND(add|change|del) ID: the last notification of pool ID
ntf_line() { grep "^ntf $2 id=$3 " "$1" | tail -n1; }
# bpf_start FILE: ppvm-bpf's records into FILE until bpf_stop; sets BPFPID
bpf_start() {
	$BPFBIN 600 >"$1" 2>&1 &
	BPFPID=$!
	wait_for 30 grep -q 'ppvm-bpf ready' "$1" || log "ppvm-bpf not ready: $(cat "$1")"
	log "$(grep 'ppvm-bpf ready' "$1")"
}
bpf_stop() { [ -n "${BPFPID:-}" ] && kill "$BPFPID" 2>/dev/null; wait "$BPFPID" 2>/dev/null; BPFPID=; }
# bcount FILE KIND ID [PATTERN]: records of KIND for pool ID matching PATTERN
bcount() { grep "^$2 id=$3 " "$1" | grep -c -- "${4:-.}" || true; }
# the item block page: item-mem-* are multiples of it
# shellcheck disable=SC2034 # used by t/*.sh
ITEM_BLOCK_BYTES=4096
# items in one block: (PAGE_SIZE - 32-byte header) / 16-byte item, 64-bit
# shellcheck disable=SC2034 # used by t/*.sh
ITEMS_PER_BLOCK=254
