#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Names from the kernel are untrusted: any process may rename itself
# (prctl PR_SET_NAME) and any user namespace may name an interface, with
# bytes that are not UTF-8 and control characters. Every format shows
# them through the one escape (lib/escape.c), the same way: text, JSON,
# YAML, TAP, JUnit XML, Prometheus text and OpenMetrics, live and from a
# recording.

ALL_TESTS="
	process_name_every_format
	interface_name_every_format
	destroyed_pool_of_a_deleted_device
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# not UTF-8 (\xff), a terminal escape (ESC [31m), a C1 control (U+0085)
RAW=$'pp\xff\x1b[31m\xc2\x85'
ESCAPED='pp\xff\x1b[31m\xc2\x85'

# no byte of the raw name, no control character but newline and tab
clean() {	# what file
	local bad
	bad=$(tr -d '\n\t' <"$2" | LC_ALL=C tr -d '\040-\176\200-\377' | wc -c)
	[ "$bad" -eq 0 ] || fail "$1: $bad control characters"
	grep -q $'\xff\x1b' "$2" && fail "$1: the raw name"
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$2" 2>/dev/null ||
		fail "$1: not UTF-8"
	return 0
}

process_name_every_format() {
	require_kernel
	local d=/tmp/ppwt$BASHPID.names ns rec
	mkdir -p "$d"
	at_exit "rm -rf $d"
	lab_begin
	ns=$(lab_netns_ino)
	lab_hold_with "$LAB_DIR/holder.$LAB_PORT" "$LAB_IP_B:$LAB_PORT" 200 1000 \
		--bind "$LAB_IP_B:$LAB_PORT" --name "$RAW" >/dev/null || fail "holder"
	check "the holder renamed itself" grep -qF "$RAW" "/proc/$(cut -d' ' -f1 "$LAB_DIR/holder.$LAB_PORT")/comm"

	# live: holders in text and JSON
	"$PPWATCH" holders vb >"$d/holders.txt" 2>&1 || fail "holders: $(cat "$d/holders.txt")"
	clean "holders text" "$d/holders.txt"
	check "holders text: escaped" grep -qF "$ESCAPED fd " "$d/holders.txt"
	"$PPWATCH" -j holders vb >"$d/holders.json" 2>&1 || fail "holders -j"
	clean "holders JSON" "$d/holders.json"
	check "holders JSON: the same escape" jq -e --arg n "$ESCAPED" --argjson ns "$ns" \
		'[.pools[] | select(.netns == $ns) | .holders[].owners[]?.comm] | index($n) != null' \
		"$d/holders.json" >/dev/null

	# a recording of the pool going zombie with those pages, then postmortem
	rec=$d/rec.jsonl
	"$PPWATCH" -v record -o "$rec" --scan-every 1 2>"$d/record.err" &
	local rp=$!
	wait_attached "$d/record.err" $rp
	lab_xdp_off
	# the destroy's holder scan names the holder: recorded, then ended
	_named() { grep -q '"event":"destroy"' "$rec" && grep '"type":"holders"' "$rec" | grep -qF "${ESCAPED//\\/\\\\}"; }
	wait_until 120 "the destroy and a holder scan naming the holder in the recording" _named
	kill -INT $rp
	wait $rp || fail "record: $(cat "$d/record.err")"
	clean "the recording" "$rec"
	check "the recording: escaped" grep -qF "${ESCAPED//\\/\\\\}" "$rec"
	"$PPWATCH" postmortem "$rec" >"$d/pm.txt" 2>&1 || fail "postmortem: $(cat "$d/pm.txt")"
	clean "postmortem text" "$d/pm.txt"
	check "postmortem text: escaped" grep -qF "$ESCAPED" "$d/pm.txt"
	"$PPWATCH" -j postmortem "$rec" >"$d/pm.json" 2>&1 || fail "postmortem -j"
	clean "postmortem JSON" "$d/pm.json"
	check "postmortem JSON: the same escape" jq -e --arg n "$ESCAPED" \
		'[.. | strings | select(contains($n))] | length > 0' "$d/pm.json" >/dev/null
	"$PPWATCH" postmortem --yaml "$rec" >"$d/pm.yaml" 2>"$d/pm.err" || fail "postmortem --yaml: $(cat "$d/pm.err")"
	clean "postmortem YAML" "$d/pm.yaml"
	check "postmortem YAML: the same escape" python3 - "$d/pm.yaml" "$ESCAPED" <<-'EOF'
	import sys, yaml
	def walk(v):
	    if isinstance(v, dict):
	        for x in v.values():
	            yield from walk(x)
	    elif isinstance(v, list):
	        for x in v:
	            yield from walk(x)
	    elif isinstance(v, str):
	        yield v
	doc = yaml.safe_load(open(sys.argv[1]))
	sys.exit(0 if any(sys.argv[2] in s for s in walk(doc)) else 1)
	EOF
}

interface_name_every_format() {
	require_kernel
	command -v promtool >/dev/null || skip "promtool not installed (deps/prometheus.txt)"
	local d=/tmp/ppwt$BASHPID.ifnames dev=$'vb\xff\x01' esc='vb\xff\x01' ns
	mkdir -p "$d"
	at_exit "rm -rf $d"
	lab_begin
	ns=$(lab_netns_ino)
	# an interface name any user namespace could choose; up again, veth
	# makes a new pool under that name
	{ ip -n "$LAB_B" link set vb down &&
		ip -n "$LAB_B" link set vb name "$dev" &&
		ip -n "$LAB_B" link set "$dev" up; } || skip "cannot rename the lab's interface"
	lab_hold 200 >/dev/null || fail "holder"

	"$PPWATCH" pools >"$d/pools.txt" 2>&1 || fail "pools"
	clean "pools text" "$d/pools.txt"
	check "pools text: escaped" grep -qF "$esc" "$d/pools.txt"
	"$PPWATCH" -j pools >"$d/pools.json" 2>&1 || fail "pools -j"
	clean "pools JSON" "$d/pools.json"
	check "pools JSON: the same escape" jq -e --arg n "$esc" --argjson ns "$ns" \
		'[.pools[] | select(.netns == $ns) | .device] | index($n) != null' "$d/pools.json" >/dev/null

	# the exposition: before, a label value that is not UTF-8 made
	# Prometheus reject the whole scrape
	"$PPWATCH" export --once >"$d/metrics.prom" 2>"$d/export.err" || fail "export --once: $(cat "$d/export.err")"
	clean "Prometheus text" "$d/metrics.prom"
	check "Prometheus text: escaped" grep -qF "device=\"${esc//\\/\\\\}\"" "$d/metrics.prom"
	check "promtool accepts the text format" promtool check metrics <"$d/metrics.prom"
	"$PPWATCH" export --once --openmetrics >"$d/metrics.om" 2>"$d/export.err" || fail "export --once --openmetrics"
	clean "OpenMetrics" "$d/metrics.om"
	check "OpenMetrics: escaped" grep -qF "device=\"${esc//\\/\\\\}\"" "$d/metrics.om"

	# check's four formats name the device in a failing rule
	printf 'rules:\n  - name: lab\n    match: { netns: %s }\n    max_inflight: 0\n' "$ns" >"$d/rules.yaml"
	local f
	for f in text tap junit json; do
		"$PPWATCH" check -f "$d/rules.yaml" --format "$f" >"$d/check.$f" 2>&1
		[ $? -eq 1 ] || fail "check --format $f: $(head -c 300 "$d/check.$f")"
		clean "check $f" "$d/check.$f"
		# TAP's YAML block and JSON quote the escape's backslash once more
		case $f in
		tap | json) check "check $f: escaped" grep -qF "${esc//\\/\\\\}" "$d/check.$f" ;;
		*) check "check $f: escaped" grep -qF "$esc" "$d/check.$f" ;;
		esac
	done
	check "JUnit XML well-formed" xmllint --noout "$d/check.junit"
	check "check JSON: the same escape" jq -e --arg n "$esc" \
		'[.checks[].findings[].device] | index($n) != null' "$d/check.json" >/dev/null
}

# A pool destroyed before ppwatch first saw it keeps no reference to its
# device (page_pool takes none): once the device is deleted, p.dev is freed
# memory, and a name read there is a guess. The lab's pool is destroyed
# with pages out (XDP off), then its veth deleted; a ppwatch started after
# must call its device unknown ("<gone>"), not name it.
destroyed_pool_of_a_deleted_device() {
	require_kernel
	local doc p id ifindex line
	lab_begin
	lab_hold 200 >/dev/null || fail "holder"
	# the lab's pool by its id, while vb (whose ifindex ip link gives) is its device
	ifindex=$(ip -n "$LAB_B" -o link show vb | cut -d: -f1)
	doc=$("$PPWATCH" -j pools) || fail "pools"
	p=$(vb_pool "$doc") || fail "no vb pool: $(head -c 400 <<<"$doc")"
	check "the live pool: vb's ifindex" jget "$p" ".ifindex == $ifindex" >/dev/null
	id=$(jq -r '.id // empty' <<<"$p")
	[ -n "$id" ] || skip "no pool ids on this kernel (before 6.8): the pool cannot be named once its device is gone"
	lab_xdp_off # destroyed, its held pages out
	ip -n "$LAB_B" link del vb || fail "deleting vb"
	check "vb is gone (ip link)" bash -c "! ip -n $LAB_B link show vb >/dev/null 2>&1"
	doc=$("$PPWATCH" -j pools "$id") || fail "pools $id"
	p=$(jq -c --argjson id "$id" '[.pools[] | select(.id == $id)] | first' <<<"$doc")
	log "after: $(jq -c '{id, device, ifname, ifindex, driver, dev_name, state, inflight}' <<<"$p")"
	check "the pool is still listed, a zombie with pages out" \
		jget "$p" '.state == "zombie" and .inflight > 0' >/dev/null
	check "its device is unknown: <gone>, no interface, driver or device name" \
		jget "$p" '.device == "<gone>" and .ifname == null and .driver == null and .dev_name == null' >/dev/null
	line=$("$PPWATCH" pools "$id" | awk -v id="$id" '$1 == id')
	log "text: $line"
	check "text: DEVICE <gone>" grep -q '<gone>' <<<"$line"
}

run_tests
