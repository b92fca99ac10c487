# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# 'ppwatch holders' while what holds the pages changes under the walk
# (issue 37, item 8): a veth pair with XDP on vb (hc-b), and while three
# walks run (450 s at most)
#   - TCP churn: ppkinds tcp-churn connects from hc-a to a listener in
#     hc-b as fast as it can, sends 3000 bytes and closes; hc-b accepts,
#     never reads, and keeps the 256 newest, closing the oldest as each
#     new one comes, journaling every accept and close (inode, fd,
#     CLOCK_BOOTTIME);
#   - qdisc churn: datagrams forwarded out of bq (to 198.51.100.2 in hc-c)
#     into a tbf that holds them, the tbf deleted and added again every
#     0.3 s, with its handle changed each time (tc's exit and the uptime
#     of each step journaled);
#   - a kernel TCP socket that holds pages all along, where the kernel has
#     NFS (not lacks=nfs): ppkinds nfs-mount, an NFSv4.1 mount in hc-b of
#     a server in hc-a that never answers, its segments out of order in
#     the client's socket behind one the gate (XDP on vb, in place of
#     xdp_pass) drops (t/52's nfs kind);
# and 'ppwatch holders -j' again and again meanwhile. Each walk against
# the journals, over the walk's own time (from before ppwatch started to
# after it ended, CLOCK_BOOTTIME via /proc/uptime):
#   - every socket named as a holder of vb's pool with an owner is a
#     socket hc-b's ppkinds had open then: its pid, and an (inode, fd)
#     the journal has open during the walk; one without an owner is in
#     the listener's accept queue (its local port) or an orphan;
#   - every qdisc named is bq's tbf (or the bfifo tbf keeps its packets
#     in) with a handle the journal had on bq during the walk;
#   - the pool's pages are the holders' plus the unattributed less the
#     pages the walk saw twice (moved: the pool lent them again while it
#     ran), which is the pool's inflight; the unattributed are counted in
#     a row of their own, not dropped;
#   - a socket without an owner is an orphan, in the accept queue, or
#     one ppkinds closed during the walk (its file without an fd), or the
#     NFS client's, named in every walk as a kernel socket read by
#     xs_data_ready with the inode /proc/net/tcp gave it.
# Nothing is timed: the churn's rates are printed (PPVM-VALUES), not
# asserted. Kernels whose veth has no page_pool (lacks=veth-pp) skip.
# Its hang guard is longer than run.sh's 240 s: on a 2-core TCG host of
# 2026-12-06 its three walks took 42-74 s each under the churn (the
# timewait sockets the clients leave are walked too) and the checks
# after (busybox awk over a journal of ~300,000 lines, once a walk)
# about as long again; 240 s cut deb13-bpo's run short twice. The churn's
# own bound (SECS) is only a guard: it stops when the third walk ends. At
# 200 s it ended first once: CI's patched run of 2026-12-06, its walks
# 69, 88 and 47 s with the host busy, so the third was not "during".
# ppvm-limit: 720
PPKINDS=/vm/bin/ppkinds
lacks veth-pp && { skip lacks=veth-pp "no veth page pools on $FLAVOR (lacks=veth-pp): no pool page reaches a socket or a qdisc in this guest"; return 0; }
lacks bpf-loop && { skip lacks=bpf-loop "no holder walk on $FLAVOR (lacks=bpf-loop)"; return 0; }
if [ "${PPVM_DEPTH:-matrix}" = test ] && [ "$PPVM_CHURN" != test ]; then
	skip depth=test,churn!=test "make test runs the churn on its churn=test line (kernel/matrix: the newest kernel), make test-matrix on every line with veth page pools"
	return 0
fi
[ -x $PPKINDS ] || { fail "ppkinds is not in the initramfs"; return 0; }
[ -x /sbin/tc ] || { fail "tc (iproute2) is not in the initramfs"; return 0; }
tc() { /sbin/tc "$@"; }
# uptime: CLOCK_BOOTTIME in ns, to 10 ms
uptime_ns() { awk '{ split($1, a, "."); printf "%d%02d0000000\n", a[1], a[2] }' /proc/uptime; }
hc_down() {
	[ -n "$HC_QPID" ] && kill "$HC_QPID" 2>/dev/null
	[ -n "$HC_KPID" ] && kill "$HC_KPID" 2>/dev/null
	[ -n "$HC_FPID" ] && kill "$HC_FPID" 2>/dev/null
	[ -n "$HC_NPID" ] && kill "$HC_NPID" 2>/dev/null
	ip netns del hc-a 2>/dev/null; ip netns del hc-b 2>/dev/null; ip netns del hc-c 2>/dev/null
	return 0
}
HC_QPID='' HC_KPID='' HC_FPID='' HC_NPID='' N_PORT=0 N_INO=0
veth_pair hc-a va hc-b vb || { fail "cannot create the veth pair"; return 0; }
ip -n hc-a link set lo up; ip -n hc-b link set lo up
ip netns exec hc-b "$TOOL" xdp-attach vb || { fail "XDP attach on vb"; hc_down; return 0; }
if ! { ip netns add hc-c &&
       ip link add bq netns hc-b type veth peer name cq netns hc-c &&
       ip -n hc-b addr add 198.51.100.1/24 dev bq && ip -n hc-c addr add 198.51.100.2/24 dev cq &&
       ip -n hc-b link set bq up && ip -n hc-c link set cq up &&
       ip netns exec hc-b sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward' &&
       ip -n hc-a route add 198.51.100.0/24 via 192.0.2.2 &&
       ip -n hc-c route add 192.0.2.0/24 via 198.51.100.1 &&
       ip -n hc-b neigh replace 198.51.100.2 dev bq nud permanent \
		lladdr "$(ip netns exec hc-c cat /sys/class/net/cq/address)"; }; then
	fail "cannot set up forwarding to hc-c"; hc_down; return 0
fi
# the churn runs until the walks are done (/tmp/hc.stop), SECS at most
SECS=450
# the NFS client's kernel socket, before the churn: "mount-pid inode port"
if ! lacks nfs; then
	rm -f /tmp/hc.nfs.ready
	$PPKINDS nfs-mount --netns hc-b --from hc-a --to 192.0.2.1:2049 --segments 40 --dev vb \
		--ready /tmp/hc.nfs.ready --lifetime "$SECS" </dev/null >/dev/null 2>/tmp/hcn.err &
	HC_NPID=$!
	wait_for 20 test -s /tmp/hc.nfs.ready ||
		{ fail "ppkinds nfs-mount did not set up: $(head -c 300 /tmp/hcn.err)"; hc_down; return 0; }
	read -r _ N_INO N_PORT _ </tmp/hc.nfs.ready
	log "ppkinds nfs-mount: $(cat /tmp/hc.nfs.ready)"
fi
rm -f /tmp/hc.stop
churning() { [ ! -e /tmp/hc.stop ] && [ "$(cut -d. -f1 /proc/uptime)" -lt "$1" ]; }
# the qdisc churn: a tbf that holds what it gets (12.5 bytes a second),
# a new handle each time; its journal: "add|del|deleted HANDLE RC UPTIME_NS"
(
	h=100 end=$(( $(cut -d. -f1 /proc/uptime) + SECS ))
	while churning "$end"; do
		h=$((h + 1))
		ip netns exec hc-b /sbin/tc qdisc add dev bq root handle "$h:" tbf rate 100bit burst 1600 limit 2mb
		echo "add $h: $? $(uptime_ns)"
		command sleep 0.3
		echo "del $h: - $(uptime_ns)"
		ip netns exec hc-b /sbin/tc qdisc del dev bq root
		echo "deleted $h: $? $(uptime_ns)"
	done
) >/tmp/hc.qdisc 2>/tmp/hc.qdisc.err &
HC_QPID=$!
# the datagrams the tbf holds: to hc-c, as long as the churn
(
	end=$(( $(cut -d. -f1 /proc/uptime) + SECS ))
	while churning "$end"; do
		ip netns exec hc-a "$TOOL" flood 198.51.100.2 9 200 1400 >/dev/null
	done
) 2>/dev/null &
HC_FPID=$!
rm -f /tmp/hc.ready /tmp/hc.journal
$PPKINDS tcp-churn --netns hc-b --from hc-a --bind 192.0.2.2:5201 --bytes 3000 \
	--journal /tmp/hc.journal --lifetime "$SECS" --ready /tmp/hc.ready </dev/null >/dev/null 2>/tmp/hck.err &
HC_KPID=$! CHURN_PID=$!
wait_for 20 test -s /tmp/hc.journal || { fail "ppkinds tcp-churn did not start: $(head -c 300 /tmp/hck.err)"; hc_down; return 0; }

# walk N: one 'holders -j' (/tmp/hcN.out) and its time (/tmp/hcN.win)
walk() {
	local t0 t1
	t0=$(uptime_ns)
	ppw "hc$1" holders -j
	t1=$(uptime_ns)
	echo "$t0 $t1 $PPW_RC" >"/tmp/hc$1.win"
}
# walk_check N: walk N's checks against the journals (after the churn:
# under it, busybox's awk over the journal would take longer than a walk)
WALKS=0 SOCKS=0 QDS=0 UNATT=0 MOVED=0
walk_check() {
	local t0 t1 rc p bad
	read -r t0 t1 rc <"/tmp/hc$1.win"
	[ "$rc" -eq 0 ] || { fail "walk $1: holders -j exit $rc: $(head -c 300 "/tmp/hc$1.err")"; return 1; }
	p=$(jq -c --arg ns "$HC_NS" '[.pools[] | select((.netns | tostring) == $ns and .device == "vb")] | max_by(.inflight) // empty' "/tmp/hc$1.out")
	[ -n "$p" ] || { fail "walk $1: no pool of vb in hc-b"; return 1; }
	WALKS=$((WALKS + 1))
	log "walk $1 [$t0, $t1]: $(echo "$p" | jq -c '{inflight, attributed, unattributed, moved, kinds: ([.holders[] | .kind] | group_by(.) | map({(.[0]): length}) | add)}')"
	check "walk $1: the pool's pages = its holders' - the moved + the unattributed" \
		"$(echo "$p" | jq '([.holders[] | select(.kind != "unattributed") | .pages] | add // 0) - .moved + .unattributed')" \
		-eq "$(echo "$p" | jq .inflight)"
	check "walk $1: attributed = the holders' pages" \
		"$(echo "$p" | jq '[.holders[] | select(.kind != "unattributed") | .pages] | add // 0')" -eq "$(echo "$p" | jq .attributed)"
	MOVED=$((MOVED + $(echo "$p" | jq .moved)))
	check "walk $1: the unattributed row has the pool's unattributed pages" \
		"$(echo "$p" | jq '[.holders[] | select(.kind == "unattributed") | .pages] | add // 0')" -eq "$(echo "$p" | jq .unattributed)"
	check "walk $1: the unattributed are counted (>= 0)" "$(echo "$p" | jq .unattributed)" -ge 0
	UNATT=$((UNATT + $(echo "$p" | jq .unattributed)))
	# sockets with an owner: ppkinds' pid, an (inode, fd) the journal had open during the walk
	bad=$(echo "$p" | jq -r '.holders[] | select(.kind == "socket" and (.owners | length) > 0) |
		"\(.inode) \(.owners[0].pid) \(.owners[0].fd) \(.local)"' |
		awk -v t0="$t0" -v t1="$t1" -v pid="$CHURN_PID" -v j=/tmp/hc.journal '
		BEGIN { while ((getline l < j) > 0) { split(l, f, " "); k = f[2] " " f[3]
			if (f[1] == "open") { n[k]++; o[k, n[k]] = f[4] } else c[k, n[k]] = f[4] } }
		{ ok = 0; k = $1 " " $3
		  if ($2 == pid) for (i = 1; i <= n[k]; i++)
			if (o[k, i] <= t1 + 10000000 && (!((k, i) in c) || c[k, i] >= t0 - 10000000)) ok = 1
		  if (!ok) print }')
	SOCKS=$((SOCKS + $(echo "$p" | jq '[.holders[] | select(.kind == "socket")] | length')))
	absent "walk $1: every socket owner named is one ppkinds had open during the walk (inode pid fd local)" "$bad"
	# one without: an orphan, one in the listener's accept queue, or one
	# with a file and no fd that ppkinds closed during the walk (the fd
	# walk runs after the protocol walks); never one still open at its end
	# the NFS client's kernel socket, named as one in every walk
	if [ "$N_PORT" -gt 0 ]; then
		check "walk $1: the NFS client's socket (ino $N_INO) named as a kernel socket read by xs_data_ready" \
			"$(echo "$p" | jq -r --arg l "192.0.2.2:$N_PORT" '[.holders[] | select(.kind == "socket" and .local == $l) |
			"\(.held_by) \(.kernel_reader) \(.inode) \(.owners | length)"] | first // "none"')" = "kernel xs_data_ready $N_INO 0"
	fi
	bad=$(echo "$p" | jq -r --arg l "192.0.2.2:$N_PORT" '.holders[] | select(.kind == "socket" and (.owners | length) == 0 and .orphan != true and .held_by != "accept_queue" and .local != $l) |
		"\(.inode) \(.held_by) \(.local) \(.state)"' |
		awk -v t0="$t0" -v t1="$t1" -v j=/tmp/hc.journal '
		BEGIN { while ((getline l < j) > 0) { split(l, f, " ")
			if (f[1] == "close") c[f[2]] = f[4]; else if (f[1] == "open") o[f[2]] = f[4] } }
		{ ok = ($2 == "no_fd" && ($1 in o) && ($1 in c) && c[$1] >= t0 - 10000000 && c[$1] <= t1 + 10000000)
		  if (!ok) print }')
	absent "walk $1: a socket without an owner is an orphan, in the accept queue, or was closed during the walk" "$bad"
	# qdiscs: bq's tbf, or the bfifo inside it (tbf's own child: handle 0,
	# parent TBF:1), by a tbf handle the journal had during the walk
	bad=$(echo "$p" | jq -r '.holders[] | select(.kind == "qdisc") | .qdisc |
		if .kind == "bfifo" and (.under // "" | startswith("tbf ")) and .parent == ((.under | ltrimstr("tbf ")) + "1")
		then "\(.dev) tbf \(.under | ltrimstr("tbf "))" else "\(.dev) \(.kind) \(.handle)" end' |
		awk -v t0="$t0" -v t1="$t1" -v j=/tmp/hc.qdisc '
		BEGIN { while ((getline l < j) > 0) { split(l, f, " ")
			if (f[1] == "add" && f[3] == 0) a[f[2]] = f[4]; else if (f[1] == "deleted") d[f[2]] = f[4] } }
		{ ok = ($1 == "bq" && $2 == "tbf" && ($3 in a) && a[$3] <= t1 + 10000000 &&
		       (!($3 in d) || d[$3] >= t0 - 10000000)); if (!ok) print }')
	QDS=$((QDS + $(echo "$p" | jq '[.holders[] | select(.kind == "qdisc")] | length')))
	absent "walk $1: every qdisc named is bq's tbf (or its bfifo) with a handle it had during the walk" "$bad"
}
# three walks, each one with the churn running from its start to its end
HC_NS=$(stat -L -c %i /run/netns/hc-b)
i=0 DURING=0
while [ $i -lt 3 ] && kill -0 "$HC_KPID" 2>/dev/null; do
	i=$((i + 1))
	walk $i
	kill -0 "$HC_KPID" 2>/dev/null && DURING=$((DURING + 1))
done
touch /tmp/hc.stop
kill "$HC_KPID" 2>/dev/null
wait "$HC_KPID"
wait "$HC_QPID" 2>/dev/null
wait "$HC_FPID" 2>/dev/null
HC_KPID='' HC_QPID='' HC_FPID=''
k=0
while [ $k -lt $i ]; do
	k=$((k + 1))
	walk_check $k
done
read -r _ _ _ CONNS </tmp/hc.ready 2>/dev/null
ADDS=$(grep -c '^add .* 0 ' /tmp/hc.qdisc)
echo "PPVM-VALUES: holders-churn walks=$WALKS connections=${CONNS:-?} qdisc-adds=$ADDS sockets-named=$SOCKS qdiscs-named=$QDS unattributed-sum=$UNATT moved-sum=$MOVED"
check "three walks, each during the churn" "$DURING" -eq 3
check "TCP connections churned (accepted by hc-b)" "${CONNS:-0}" -gt 100
check "qdiscs churned (tbf added)" "$ADDS" -ge 3
check "the walks named churning sockets" "$SOCKS" -gt 0
hc_down
