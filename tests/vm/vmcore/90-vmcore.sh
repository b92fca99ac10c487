# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; run.sh sources it after lib.sh
# The guest half of the crash-dump test (kernel/rig-vmcore.sh): only in the
# initrd of 'kernel/rig.sh vmcore NAME' (ppvm.only=90), never in a normal
# VM run. It makes a destroyed pool that holds pages (t/50-live-zombie's
# way: a live-frames run whose XDP_PASS skbs a UDP socket never reads),
# prints what the kernel says of it and of every other pool, then waits:
# the host stops the VM, dumps its memory (QEMU dump-guest-memory, ELF and
# kdump-zlib) and compares 'ppwatch postmortem --vmcore' with these lines:
#
#   PPVM-VMCORE-TRUTH: id=ID addr=ADDR inflight=N hold=H release=R
#       the destroyed pool: inflight, hold and release from the kernel's
#       page_pool_release tracepoint, its id from the live ppwatch
#       (pool->user.id: a pool with no netdev is in no netlink dump; none
#       before 6.8, lacks=pp-netlink: id= empty, the address names it)
#   PPVM-VMCORE-HOLDER: pid=PID ino=INO
#       who holds its pages, from /proc, not from ppwatch: the UDP socket
#       on the test's port in its namespace (/proc/net/udp's inode) and the
#       process with an fd for that inode; or ring=IFNAME: the TX ring of
#       that virtio_net device (no socket and no process hold them)
#   PPVM-VMCORE-BLOCKS: addr=ADDR per=N prealloc=N dynamic=N used=N
#       used_dynamic=N unissued=N sparse=N
#       the destroyed pool's item blocks as the live 'ppwatch blocks -j'
#       counts them (regime=item-blocks only: the series' kernels)
#   PPVM-VMCORE-GONE: addr=ADDR inflight=N device=DEV
#       a veth pool destroyed with pages out and its veth deleted (lines
#       with veth page pools): its device as neither ppwatch may read it,
#       <gone> (<orphan> where veth's pools have a netdev: the series)
#   PPVM-VMCORE-POOL: addr=ADDR id=ID state=STATE inflight=N device=DEV (ID 0: none)
#       every pool the live ppwatch lists (the guest is idle: none moves)
#   PPVM-VMCORE-KDUMP: loaded crash_size=N
#       (ppvm.kdump=1: a line with kdump=) the crash kernel is loaded: after
#       its dumps the host sends an NMI, the panic boots it, and it saves
#       this kernel's memory as kdump does (vmcore/capture.sh)
#   PPVM-VMCORE-READY
#       the state holds from here until the host quits the VM (or the NMI)
N=${PPVM_VMCORE_FRAMES:-300}; PORT=5070; NS=vc
if ! ip netns add "$NS" || ! ip -n "$NS" link set lo up; then fail "netns $NS"; return 0; fi
if [ ! -e /sys/firmware/qemu_fw_cfg/by_name/etc/vmcoreinfo ]; then
	log "no /sys/firmware/qemu_fw_cfg/by_name/etc/vmcoreinfo: the dump will have no VMCOREINFO"
fi
trace_start page_pool_release
if lacks xdp-skb-recycle; then
	# an skb built from an XDP frame gives its page up at once (before 6.4):
	# the frames go to a virtio_net TX ring that keeps them (t/50's tx mode)
	# (200 frames, as t/50: the ring has room for 256)
	MODE=tx N=${PPVM_VMCORE_FRAMES:-200}
	virtio_xdp_setup $NS || return 0
	ip netns exec $NS "$TOOL" live-tx "$VIF" "$N" >/tmp/live.log 2>&1 ||
		{ fail "ppvm-tool live-tx: $(cat /tmp/live.log)"; return 0; }
else
	MODE=socket
	/sbin/ip netns exec $NS "$TOOL" live $PORT "$N" 900 >/tmp/live.log 2>&1 &
	wait_for 60 grep -q 'frames run' /tmp/live.log ||
		{ fail "ppvm-tool live: no live-frames run: $(cat /tmp/live.log)"; return 0; }
fi
destroyed() { trace_snap /tmp/vc.trace; [ -n "$(trace_release_ptr_min /tmp/vc.trace "$N")" ]; }
wait_for 10 destroyed
PTR=$(trace_release_ptr_min /tmp/vc.trace "$N")
check "page_pool_release: the live-frames pool destroyed with $N pages in flight" "${PTR:+1}" = 1 ||
	return 0
RINFL=$(trace_release_inflight /tmp/vc.trace "$PTR")
HOLDK=$(trace_release_field /tmp/vc.trace "$PTR" hold)
RELK=$(trace_release_field /tmp/vc.trace "$PTR" release)
ZADDR=$(ppw_addr "$PTR")
# A second zombie whose device is then deleted (lines with veth page pools):
# veth's pool destroyed with pages out (XDP off), then the veth pair
# deleted. page_pool keeps no reference to p.dev, so neither the live
# ppwatch nor the dump may read that freed device (bpf/pool.bpf.h): its
# device is <gone>, or <orphan> where the series links veth's pools to their
# netdev (moved to loopback when it goes).
GADDR=
if ! lacks veth-pp; then
	GN=40
	veth_pair vgA ga vgB gb || { fail "cannot create the veth pair vgA/vgB"; return 0; }
	ip netns exec vgB "$TOOL" xdp-attach gb || { fail "XDP attach on gb"; return 0; }
	sink_start vgB 192.0.2.2 5072 || { fail "UDP sink in vgB did not start"; return 0; }
	G0=$(delivered vgB)
	ip netns exec vgA "$TOOL" send 192.0.2.2 5072 $GN 1000
	garrived() { [ "$(($(delivered vgB) - G0))" -ge "$GN" ]; }
	wait_for 10 garrived
	ip netns exec vgB "$TOOL" xdp-detach gb
	ip -n vgB link del gb
	# its destroy with pages in flight: the other pool than the live-frames one
	gone_ptr() {
		trace_destroys /tmp/vc.trace |
			awk -v skip="$PTR" '$2 > 0 && $1 != skip { g = $1 } END { print g }'
	}
	gdestroyed() { trace_snap /tmp/vc.trace; [ -n "$(gone_ptr)" ]; }
	wait_for 10 gdestroyed
	GPTR=$(gone_ptr)
	check "page_pool_release: gb's pool destroyed with pages in flight" "${GPTR:+1}" = 1 || return 0
	check "ip link: gb is gone" "$(yes_no ip -n vgB link show gb)" = no
	GADDR=$(ppw_addr "$GPTR")
	GINFL=$(trace_release_inflight /tmp/vc.trace "$GPTR")
	GDEV='<gone>'
	lacks veth-pp-netdev || GDEV='<orphan>'
fi
ppw pools pools -j
ppw_ok pools "ppwatch pools -j" || return 0
if [ -n "$GADDR" ]; then
	check "ppwatch pools: gb's destroyed pool, its device deleted: $GDEV" \
		"$(jpool /tmp/pools.out "$GADDR" device)" = "$GDEV"
	echo "PPVM-VMCORE-GONE: addr=$GADDR inflight=$GINFL device=$GDEV"
fi
ID=$(jpool /tmp/pools.out "$ZADDR" id)
if lacks pp-netlink; then
	# before 6.8 a pool has no id (pool->user.id): named by its address here and in the dump
	check "ppwatch pools: the destroyed pool listed (no pool ids on $FLAVOR: lacks=pp-netlink)" \
		"$(jq -r --arg a "$ZADDR" '[.pools[] | select(.addr == $a)] | length' /tmp/pools.out)" -eq 1 || return 0
else
	check "ppwatch pools: the destroyed pool has the kernel's id" "${ID:-0}" -gt 0 || return 0
fi
check "ppwatch pools: its inflight is page_pool_release's" "$(jpool /tmp/pools.out "$ZADDR" inflight)" -eq "$RINFL"
echo "PPVM-VMCORE-TRUTH: id=$ID addr=$ZADDR inflight=$RINFL hold=$HOLDK release=$RELK"
if [ $MODE = tx ]; then
	# a driver's TX ring: no socket, no process (the dump walks no driver ring)
	echo "PPVM-VMCORE-HOLDER: ring=$VIF"
else
	HEXPORT=$(printf '%04X' $PORT)
	INO=$(/sbin/ip netns exec $NS cat /proc/net/udp | awk -v p=":$HEXPORT" '$2 ~ p"$" { print $10; exit }')
	HPID=
	for f in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "socket:[$INO]" ] || continue
		HPID=${f#/proc/}
		HPID=${HPID%%/*}
		break
	done
	check "/proc: the process with an fd for the UDP socket on port $PORT (inode $INO)" "${HPID:-0}" -gt 0
	echo "PPVM-VMCORE-HOLDER: pid=$HPID ino=$INO"
fi
if [ "$PPVM_REGIME" = item-blocks ]; then
	# its item blocks, as the live walk counts them (bpf/blocks.bpf.c)
	ppw blocks blocks -j
	ppw_ok blocks "ppwatch blocks -j" &&
		jq -r --arg a "$ZADDR" '.pools[] | select(.addr == $a) | "PPVM-VMCORE-BLOCKS: addr=\(.addr) per=\(.items_per_block) prealloc=\(.blocks_prealloc) dynamic=\(.blocks_dynamic) used=\(.items_used) used_dynamic=\(.items_used_dynamic) unissued=\(.items_unissued) sparse=\(.sparse_blocks)"' /tmp/blocks.out
fi
jq -r '.pools[] | select(.addr != null) | "PPVM-VMCORE-POOL: addr=\(.addr) id=\(.id // 0) state=\(.state) inflight=\(.inflight) device=\(.device)"' /tmp/pools.out
if grep -q 'ppvm\.kdump=1' /proc/cmdline; then
	# the kdump capture after the host's dumps: this kernel and the capture
	# initrd (vmcore/capture.sh) loaded as the crash kernel, and an NMI (the
	# host's inject-nmi) made a panic that boots it
	echo 1 >/proc/sys/kernel/unknown_nmi_panic
	if "$TOOL" kexec-crash /vm/kdump/vmlinuz /vm/kdump/initrd.cpio.gz \
		"console=ttyS0 panic=-1 irqpoll nr_cpus=1 reset_devices ppvm.capture=1 ppvm.flavor=$FLAVOR" \
		>/tmp/kexec.log 2>&1 && [ "$(cat /sys/kernel/kexec_crash_loaded)" = 1 ]; then
		echo "PPVM-VMCORE-KDUMP: loaded crash_size=$(cat /sys/kernel/kexec_crash_size)"
	else
		fail "the crash kernel not loaded (crashkernel= reserved $(cat /sys/kernel/kexec_crash_size) bytes): $(cat /tmp/kexec.log)"
	fi
fi
echo "PPVM-VMCORE-READY"
# the host dumps and quits; a host that never does ends the test at run.sh's limit
command sleep 900
