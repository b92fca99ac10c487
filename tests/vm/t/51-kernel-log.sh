# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# The kernel's own "stalled pool shutdown" line in the form without an id
# (kernels before 6.8: deb12's 6.1 in 'make test') linked to its pool and
# what holds it.
#
# No zombie of its own (a minute of TCG each): on these kernels only,
# 50-live-zombie keeps its zombie (a live-frames run's pool, its pages in
# the virtio TX ring) past the kernel's first warning, a minute after the
# destroy, and sources this with KLOG_PHASE=live while it is alive:
#  - the line, "stalled pool shutdown 200 inflight 60 sec", is in dmesg;
#  - live 'postmortem' reads /dev/kmsg and links the line to the zombie,
#    with no id, by its destroy time and age, and says what holds its
#    pages: nothing ppwatch walks (the TX ring): leaked.
# Run on its own after 50 (the pool freed since): the log saved by dmesg
# with 50's recording links the line to the recorded pool, its destroy
# time and inflight agreeing; the log alone names a pool without an id.
if [ "${KLOG_PHASE:-}" = live ]; then
	line() { dmesg | grep "stalled pool shutdown $N inflight" | tail -n1; }
	if ! wait_for 80 sh -c "dmesg | grep -q 'stalled pool shutdown $N inflight'"; then
		fail "no 'stalled pool shutdown $N inflight' line 80 s into the zombie: $(dmesg | grep 'stalled pool' | tail -n2)"
		return 0
	fi
	log "kernel: $(line)"
	check "the kernel's line has no id (before 6.8)" "$(line | grep -c 'shutdown: id ')" -eq 0
	ppw klog_live postmortem -j
	# its words, from the same report: the text renderer of the JSON's tree is the same code
	jq -r --arg a "$ZADDR" '.pools[] | select(.addr == $a) | "  | verdict: \(.verdict.summary)", "  | kernel log: \(.kernel_log.lines) line(s), last: \(.kernel_log.last.text)", "  | linked by \(.kernel_log.match.by | join(", ")): \(.kernel_log.match.confidence)"' /tmp/klog_live.out 2>/dev/null
	if ppw_pm_ok klog_live "ppwatch postmortem -j (live, /dev/kmsg)"; then
		P=$(jq -c --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0]' /tmp/klog_live.out)
		log "$(echo "$P" | jq -c '{state, kl: .kernel_log | {lines, grouped_by, m: .match}, v: .verdict | {verdict, unattributed, summary}}')"
		check "postmortem: /dev/kmsg read" "$(jq -r .kernel_log.source /tmp/klog_live.out)" = /dev/kmsg
		check "postmortem: the line linked to the zombie" "$(echo "$P" | jq '.kernel_log.lines // 0')" -ge 1
		check "postmortem: its text, the form without an id" \
			"$(echo "$P" | jq -r '.kernel_log.last.text' | grep -c "stalled pool shutdown $N inflight")" -eq 1
		check "postmortem: linked by its destroy time" \
			"$(echo "$P" | jq 'any(.kernel_log.match.by[]?; . == "destroy_time")')" = true
		check "postmortem: the link's confidence" \
			"$(echo "$P" | jq -r '.kernel_log.match.confidence == "high" or .kernel_log.match.confidence == "medium"')" = true
		if [ "$MODE" = tx ]; then
			check "postmortem: verdict leaked (the TX ring: nothing ppwatch walks)" \
				"$(echo "$P" | jq -r .verdict.verdict)" = leaked
			check "postmortem: the pages nothing walks" "$(echo "$P" | jq '.verdict.unattributed // 0')" -eq "$N"
		else
			check "postmortem: verdict held (the socket)" "$(echo "$P" | jq -r .verdict.verdict)" = held
		fi
	fi
	dmesg >/tmp/klog.dmesg
	echo "$ZADDR" >/tmp/klog.addr
	return 0
fi
if [ ! -s /tmp/klog.addr ]; then
	if lacks pp-netlink && ! lacks live-frames; then
		fail "50-live-zombie did not hand its zombie over (no /tmp/klog.addr)"
	else
		skip "the kernel's line without an id: kernels before 6.8 with live frames only (deb12); this one $(lacks pp-netlink && echo 'has no live frames' || echo 'prints ids')"
	fi
	return 0
fi
ZADDR=$(cat /tmp/klog.addr)
ppw klog_rec postmortem --dmesg /tmp/klog.dmesg /tmp/rec.jsonl -j
if ppw_pm_ok klog_rec "ppwatch postmortem --dmesg LOG RECORDING -j"; then
	P=$(jq -c --arg a "$ZADDR" '[.pools[] | select(.addr == $a)][0]' /tmp/klog_rec.out)
	log "$(echo "$P" | jq -c '{state, m: .kernel_log.match, v: .verdict.verdict, h: .holders.unattributed}')"
	check "--dmesg + recording: the line linked to the recorded pool" \
		"$(echo "$P" | jq '.kernel_log.lines // 0')" -ge 1
	check "--dmesg + recording: by destroy time and inflight (high)" \
		"$(echo "$P" | jq -r '.kernel_log.match.confidence')" = high
	check "--dmesg + recording: freed, as the recording saw" "$(echo "$P" | jq -r .verdict.verdict)" = freed
fi
# the words, for the troubleshooting page's 6.1 example (no BPF: cheap under TCG)
$PPWATCH postmortem --dmesg /tmp/klog.dmesg /tmp/rec.jsonl 2>&1 | sed 's/^/  | /'
ppw klog_alone postmortem --dmesg /tmp/klog.dmesg -j
if ppw_pm_ok klog_alone "ppwatch postmortem --dmesg LOG -j"; then
	check "--dmesg alone: a pool of the log's, no id, grouped by destroy time" \
		"$(jq -r '[.pools[] | select(.from == "kernel_log" and .id == null and .kernel_log.grouped_by == "destroy time")] | length' /tmp/klog_alone.out)" -ge 1
	check "--dmesg alone: what to run on the host" \
		"$(jq -r '[.pools[].verdict.next[]? | select(test("ppwatch postmortem"))] | length' /tmp/klog_alone.out)" -ge 1
fi
return 0
