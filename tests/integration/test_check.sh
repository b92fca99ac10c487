#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch check on the running kernel, in the veth lab: a passing and a
# failing run of each rule kind, --run with a command that leaves a socket
# holding pages (fails, with the post-mortem) and with one that does not
# (passes), commands that fail, and the output formats. Every rule is
# scoped to the case's own lab namespace, so labs running next to it do
# not matter.

ALL_TESTS="
	rules_files_validate
	rule_max_inflight
	rule_max_inflight_bytes
	rule_max_oldest_age
	rule_max_zombie_age
	rule_max_item_slow_failed
	rule_max_losses
	rule_min_pools
	run_socket_holds_pages_fails
	run_holder_released_passes
	run_creates_pools
	run_command_fails
	output_formats
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# ---- helpers -----------------------------------------------------------------

# rules_file NAME LIMITS...: a rules file with one rule on the lab's vb;
# its path in RULES. Each LIMIT is "key: value".
rules_file() {
	local name=$1 l
	RULES=/tmp/ppwt$BASHPID.$1.yaml
	shift
	{
		echo "rules:"
		echo "  - name: $name"
		echo "    match: { netns: $LAB_B, device: vb }"
		for l in "$@"; do
			echo "    $l"
		done
	} >"$RULES"
	at_exit "rm -f $RULES"
}

# run_check RC ARGS...: run ppwatch check, keep stdout in OUT, stderr in
# ERR; fail unless it exits with RC
run_check() {
	local want=$1 rc err=/tmp/ppwt$BASHPID.err
	shift
	OUT=$("$PPWATCH" check "$@" 2>"$err")
	rc=$?
	ERR=$(cat "$err")
	rm -f "$err"
	[ "$rc" -eq "$want" ] || fail "check $*: exit $rc, want $want
$OUT
$ERR"
}

# ---- cases ---------------------------------------------------------------------

rules_files_validate() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	local f n=0 bad=/tmp/ppwt$BASHPID.bad.yaml
	for f in "$TOP"/examples/*.yaml; do
		run_check 0 --validate -f "$f"
		check "$(basename "$f") is valid" grep -q ': [0-9]* rules\?, valid$' <<<"$OUT"
		n=$((n + 1))
	done
	log "$n example rule files valid"
	check "at least the three examples" [ "$n" -ge 3 ]
	printf 'rules:\n  - name: a\n    max_infligth: 3\n    max_zombie_age: soon\n' >"$bad"
	at_exit "rm -f $bad"
	run_check 2 --validate -f "$bad"
	log "$(head -2 <<<"$ERR")"
	check "unknown key at 3:5, with a suggestion" grep -q "^$bad:3:5: error: unknown key 'max_infligth' in a rule; did you mean 'max_inflight'?" <<<"$ERR"
	check "bad value at 4:21, what is expected" grep -q "^$bad:4:21: error: max_zombie_age: expected a duration such as 30s, 500ms or 2m, got 'soon'" <<<"$ERR"
	check "nothing on stdout" [ -z "$OUT" ]
	run_check 0 -j --validate -f "$TOP/examples/fleet.yaml"
	check "JSON" jq -e '.valid and .rules == 4' <<<"$OUT" >/dev/null
	run_check 2
	check "nothing to check: says what to give" grep -q 'nothing to check: give -f RULES.yaml, --run CMD, or both' <<<"$ERR"
}

rule_max_inflight() {
	require_kernel
	lab_begin
	lab_hold 300 >/dev/null || fail "holder"
	rules_file roomy 'max_inflight: 100000'
	run_check 0 --window 0.3 -f "$RULES"
	log "$OUT"
	check "passes: says the highest" grep -q '^PASS  roomy: max_inflight <= 100000: 1 pool, highest [0-9]* pages, pool [0-9]* (vb)$' <<<"$OUT"
	rules_file tight 'max_inflight: 10'
	run_check 1 --window 0.3 -f "$RULES"
	log "$OUT"
	check "fails: names the pool and the count" grep -qE '^FAIL  tight: max_inflight <= 10: pool [0-9]+ \(vb\): [0-9]+ pages > 10$' <<<"$OUT"
}

rule_max_inflight_bytes() {
	require_kernel
	lab_begin
	lab_hold 300 >/dev/null || fail "holder"
	rules_file roomy 'max_inflight_bytes: 1G'
	run_check 0 --window 0.3 -f "$RULES"
	log "$OUT"
	check "passes" grep -q '^PASS  roomy: max_inflight_bytes <= 1.0GiB' <<<"$OUT"
	rules_file tight 'max_inflight_bytes: 64k'
	run_check 1 --window 0.3 -j -f "$RULES"
	check "fails with the pool's bytes" jq -e \
		'.checks[0] | .result == "fail" and .findings[0].device == "vb" and .findings[0].value > 65536 and .limit == 65536' \
		<<<"$OUT" >/dev/null
	log "$(jq -r '.checks[0].message' <<<"$OUT")"
}

rule_max_oldest_age() {
	require_kernel
	lab_begin
	local out=/tmp/ppwt$BASHPID.out pid
	at_exit "rm -f $out"
	# a pool created while ppwatch watches: every page of it is in the
	# ledger, so its ages are exact (an older pool's pages from before
	# ppwatch started make its oldest age a lower bound)
	lab_xdp_off
	rules_file hasty 'max_oldest_age: 500ms'
	# (a window that the holds, a loaded machine's slow start included,
	# fall well inside: pages older than 500 ms at its end)
	"$PPWATCH" -v -j check --window 5 -f "$RULES" >"$out" 2>"$out.err" &
	pid=$!
	wait_attached "$out.err" $pid
	lab_xdp_on || fail "XDP on"
	lab_hold 300 >/dev/null || fail "holder"
	wait $pid
	check "exact ages over the limit: exit 1" [ $? -eq 1 ]
	log "$(jq -r '.checks[0].message' "$out")"
	check "exact age, not a bound" jq -e \
		'.checks[0].findings[0] | (.at_least | not) and .value > 0.5' "$out" >/dev/null
	rules_file patient 'max_oldest_age: 1h'
	run_check 0 --window 0.3 -f "$RULES"
	log "$OUT"
	check "passes a patient rule" grep -q '^PASS  patient: max_oldest_age <= 1h00m: 1 pool, highest >' <<<"$OUT"
	# pages held since before ppwatch started: their age is a lower bound,
	# and a lower bound over the limit fails
	rules_file hasty2 'max_oldest_age: 100ms'
	run_check 1 --window 0.3 -f "$RULES"
	log "$OUT"
	check "a lower bound over the limit fails" grep -qE '^FAIL  hasty2: max_oldest_age <= 100ms: pool [0-9]+ \(vb\): oldest page >[0-9.]+m?s > 100ms$' <<<"$OUT"
}

rule_max_zombie_age() {
	require_kernel
	lab_begin
	lab_hold 300 >/dev/null || fail "holder"
	local f
	rules_file none-yet 'max_zombie_age: 0'
	f=$RULES
	run_check 0 --window 0.3 -f "$f"
	check "no zombie: passes" grep -q '^PASS  none-yet: max_zombie_age <= 0ms: 1 pool, no zombies$' <<<"$OUT"
	lab_xdp_off
	# the scenario: a zombie older than the strict rule's second (a loaded
	# machine only makes it older; nothing is asserted of the time)
	sleep 1.5
	# no netdev: the zombie is found at a retry in the window; three of them
	rules_file lenient 'max_zombie_age: 1h'
	run_check 0 --window 3 -f "$RULES"
	log "$OUT"
	check "a young zombie passes a lenient rule" grep -qE '^PASS  lenient: max_zombie_age <= 1h00m: 1 zombie, longest [0-9.]+s, pool [0-9]+ \(vb\)$' <<<"$OUT"
	rules_file strict 'max_zombie_age: 1s'
	run_check 1 --window 3 -f "$RULES"
	log "$OUT"
	check "fails: names the pool and how long" grep -qE '^FAIL  strict: max_zombie_age <= 1.0s: pool [0-9]+ \(vb\): zombie for [0-9.]+s > 1.0s$' <<<"$OUT"
}

rule_max_item_slow_failed() {
	require_kernel
	lab_begin
	lab_hold 100 >/dev/null || fail "holder"
	local f
	rules_file items 'max_item_slow_failed: 0'
	f=$RULES
	OUT=$("$PPWATCH" -j check --window 0.3 -f "$f" 2>/dev/null)
	case $(jq -r '.checks[0].result' <<<"$OUT") in
	error)
		log "$(jq -r '.checks[0].message' <<<"$OUT")"
		check "exit status 2: could not check" jq -e '.exit_status == 2' <<<"$OUT" >/dev/null
		check "says why" jq -e '.checks[0].message | test("item stats not available on this kernel")' \
			<<<"$OUT" >/dev/null
		skip "no page-pool item stats on this kernel: the pass and fail runs need a kernel with them (patches/, tests/vm)"
		;;
	pass)
		log "$(jq -r '.checks[0].message' <<<"$OUT")"
		rules_file some 'max_item_slow_failed: 1000000'
		f=$RULES
		run_check 0 --window 0.3 -f "$f"
		skip "item stats present and 0 here; a failing run needs item allocation failures, which the lab cannot cause"
		;;
	fail)
		log "$(jq -r '.checks[0].message' <<<"$OUT")"
		check "fails with exit 1" jq -e '.exit_status == 1' <<<"$OUT" >/dev/null
		;;
	*)
		fail "unexpected: $OUT"
		;;
	esac
}

rule_max_losses() {
	require_kernel
	lab_begin
	local rules=/tmp/ppwt$BASHPID.losses.yaml out=/tmp/ppwt$BASHPID.out pid
	printf 'rules:\n  - name: complete\n    max_losses: 0\n' >"$rules"
	at_exit "rm -f $rules $out"
	lab_hold 200 >/dev/null || fail "holder"
	run_check 0 --window 0.3 -f "$rules"
	check "no losses: passes" grep -q '^PASS  complete: max_losses <= 0: 0 lost$' <<<"$OUT"
	# a 16-page ledger with 300 pages arriving while ppwatch watches
	"$PPWATCH" -v check --level all --max-pages 16 --window 5 -f "$rules" >"$out" 2>&1 &
	pid=$!
	wait_attached "$out" $pid
	lab_hold 300 1000 5002 >/dev/null || fail "holder 2"
	wait $pid
	check "ledger full: exit 1" [ $? -eq 1 ]
	log "$(head -1 "$out")"
	check "names the loss and the remedy" grep -qE '^FAIL  complete: max_losses <= 0: [0-9]+ lost \(ledger_full=[0-9]+\) > 0; raise --max-pages$' "$out"
}

rule_min_pools() {
	require_kernel
	lab_begin
	rules_file present 'min_pools: 1'
	run_check 0 --window 0.3 -f "$RULES"
	check "the lab's pool is there" grep -q '^PASS  present: min_pools >= 1: 1 matching pool$' <<<"$OUT"
	local f=/tmp/ppwt$BASHPID.absent.yaml
	printf 'rules:\n  - name: absent\n    match: { netns: %s, device: "eth*" }\n    min_pools: 1\n' "$LAB_B" >"$f"
	at_exit "rm -f $f"
	run_check 1 --window 0.3 -f "$f"
	check "no such device: fails" grep -q '^FAIL  absent: min_pools >= 1: 0 matching pools, fewer than required$' <<<"$OUT"
	# a namespace that does not exist is an error in the file, with its position
	printf 'rules:\n  - name: x\n    match: { netns: %s-nosuch }\n    min_pools: 1\n' "$LAB" >"$f"
	run_check 2 --window 0.3 -f "$f"
	check "unknown netns: file:line:column" grep -q "^$f:3:21: error: netns '$LAB-nosuch': No such file or directory" <<<"$ERR"
}

run_socket_holds_pages_fails() {
	require_kernel
	lab_begin
	local pid doc id cmd
	read -r pid _ < <(lab_hold 400) || fail "holder"
	cmd="ip -n $LAB_B link set dev vb xdpdrv off"
	run_check 1 --run "$cmd" --deadline 2s
	# shellcheck disable=SC2001 # a prefix on every line: sed's ^, not ${OUT//...}
	echo "$OUT" | sed 's/^/    | /'
	doc=$("$PPWATCH" -j pools) || fail "pools"
	id=$(vb_pool "$doc" | jq -r .id)
	check "fails: the first line names the stuck pool" grep -qE "^FAIL  run: destroyed pools freed within 2.0s: 1 of 1 destroyed pool not freed within 2.0s of the command's end; first: pool $id \(vb\), [0-9]+ pages inflight$" <<<"$OUT"
	check "the command and its exit status" grep -qF "command: $cmd" <<<"$OUT"
	check "post-mortem: the stuck pool" grep -qE "^      stuck: pool $id \(vb\): zombie, [0-9]+ pages \([0-9.]+[KM]iB\) inflight$" <<<"$OUT"
	check "post-mortem: where" grep -qE "^        device vb, ifindex [0-9]+, netns $(lab_netns_ino), " <<<"$OUT"
	check "post-mortem: destroyed when, retries" grep -qE '^        destroyed [0-9.]+m?s after the command started, [0-9.]+s ago; [0-9]+ retr' <<<"$OUT"
	check "post-mortem: oldest page and the ledger split" grep -qE '^        oldest page >?[0-9.]+m?s; [0-9]+ in the ledger \(ages known\), [0-9]+ held before ppwatch started, [0-9]+ untracked$' <<<"$OUT"
	check "names the holder: the socket's process" grep -qE "^        holder: udp 192.0.2.2:[0-9]+ .*pid $pid\b.*, [0-9]+ pages$" <<<"$OUT"
	check "and what to do about it" grep -qE "^          what to do: pid $pid \(ppgen\) fd [0-9]+ .*read from it or close it$" <<<"$OUT"
	check "still a zombie afterwards" jget "$(vb_pool "$doc")" '.state == "zombie"' >/dev/null
}

run_holder_released_passes() {
	require_kernel
	lab_begin
	local pid
	read -r pid _ < <(lab_hold 400) || fail "holder"
	# the command detaches XDP and closes the socket: the pages come back,
	# and the pool is freed at the kernel's next retry (a deadline that only
	# catches a pool never freed: check ends once it is)
	run_check 0 -j --run "ip -n $LAB_B link set dev vb xdpdrv off && kill $pid" --deadline 60s
	log "$(jq -c '.checks[0].message, (.run | {destroyed, freed, stuck, created, preexisting_zombies})' <<<"$OUT" | tr '\n' ' ')"
	check "one pool destroyed, freed, none stuck" jq -e \
		'.result == "pass" and .run.destroyed == 1 and .run.freed == 1 and .run.stuck == 0' <<<"$OUT" >/dev/null
	check "freed within the deadline after the command" jq -e \
		'.run.deadline_s as $d | .run.pools[0] | .destroyed and (.stuck | not) and .freed_after_end_s <= $d and .pool.state == "freed" and .pool.device == "vb"' \
		<<<"$OUT" >/dev/null
	check "the freed pool is the lab's" jq -e --arg ns "$(lab_netns_ino)" \
		'.run.pools[0].pool.netns | tostring == $ns' <<<"$OUT" >/dev/null
}

run_creates_pools() {
	require_kernel
	lab_begin
	lab_xdp_off
	run_check 0 -j --run "ip -n $LAB_B link set dev vb xdpdrv obj $OUTPUT/lab/xdp_pass.bpf.o sec xdp"
	log "$(jq -c '.checks[0].message, (.run | {created, destroyed})' <<<"$OUT" | tr '\n' ' ')"
	check "the new pool is recorded as created" jq -e --arg ns "$(lab_netns_ino)" \
		'any(.run.pools[]; .created and (.destroyed | not) and .pool.device == "vb" and (.pool.netns | tostring) == $ns)' \
		<<<"$OUT" >/dev/null
	check "nothing destroyed: passes, and says so" jq -e \
		'.result == "pass" and (.checks[0].message | startswith("the command destroyed no pools"))' <<<"$OUT" >/dev/null
}

run_command_fails() {
	require_kernel
	run_check 2 --window 0.1 --run 'exit 3'
	check "failed command: could not check" grep -q '^ERROR run: .*: the command failed with exit status 3$' <<<"$OUT"
	run_check 2 --window 0.1 --run '/nonexistent/command'
	check "missing command: 127" grep -q 'the command failed with exit status 127 (command not found?)$' <<<"$OUT"
	check "the shell's message on stderr" grep -q 'nonexistent' <<<"$ERR"
	run_check 0 -j --window 0.1 --run 'echo hello from the command'
	check "-j: stdout is one JSON document" jq -e '.run.exit_status == 0' <<<"$OUT" >/dev/null
	check "the command's stdout went to stderr" grep -q '^hello from the command$' <<<"$ERR"
	run_check 2 --run 'true' --deadline soon
	check "bad --deadline" grep -q -- "--deadline 'soon': expected a duration" <<<"$ERR"
}

output_formats() {
	require_kernel
	lab_begin
	lab_hold 300 >/dev/null || fail "holder"
	local f=/tmp/ppwt$BASHPID.two.yaml
	cat >"$f" <<-EOF
	rules:
	  - name: roomy
	    match: { netns: $LAB_B, device: vb }
	    max_inflight: 100000
	  - name: "tight <&> #1"
	    match: { netns: $LAB_B, device: vb }
	    max_inflight: 10
	EOF
	at_exit "rm -f $f"
	run_check 1 --window 0.3 --format tap -f "$f"
	check "TAP: version and plan" [ "$(head -2 <<<"$OUT" | tr '\n' ' ')" = "TAP version 13 1..2 " ]
	check "TAP: ok 1" grep -q '^ok 1 - roomy: max_inflight <= 100000$' <<<"$OUT"
	check "TAP: not ok 2, '#' escaped" grep -q '^not ok 2 - tight <&> \\#1: max_inflight <= 10$' <<<"$OUT"
	check "TAP: YAML diagnostics" grep -q '^  severity: fail$' <<<"$OUT"
	run_check 1 --window 0.3 --format junit -f "$f"
	if command -v xmllint >/dev/null; then
		check "JUnit: well-formed XML" xmllint --noout - <<<"$OUT"
	else
		skip_note "xmllint not installed (deps/prometheus.txt): JUnit well-formedness not checked"
	fi
	check "JUnit: counts" grep -q '<testsuite name="ppwatch check" tests="2" failures="1" errors="0"' <<<"$OUT"
	check "JUnit: escaped names, the failure" grep -q '<testcase classname="ppwatch.check.tight &lt;&amp;&gt; #1" name="max_inflight &lt;= 10" time="0.000">' <<<"$OUT"
	check "JUnit: failure element" grep -q '<failure message="pool [0-9]* (vb): [0-9]* pages &gt; 10" type="max_inflight">' <<<"$OUT"
	run_check 1 --window 0.3 -j -f "$f"
	check "JSON" jq -e '.result == "fail" and .exit_status == 1 and .summary == {"checks": 2, "passed": 1, "failed": 1, "errors": 0}' \
		<<<"$OUT" >/dev/null
	run_check 2 -j --format tap -f "$f"
	check "-j with --format tap: a usage error" grep -q -- '-j and --format tap disagree' <<<"$ERR"
}

run_tests
