#!/bin/busybox sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash, which shellcheck checks as dash
# /init of the ppwatch VM test initramfs: mount what the tests need, load
# the package kernel's modules (/vm/modules.load, from the per-kernel part of
# the initramfs), run /vm/run.sh (or, booted as a crash kernel with
# ppvm.capture=1, /vm/capture.sh), power off (qemu runs with -no-reboot, so
# it exits).
/bin/busybox --install -s /bin
export PATH=/vm/bin:/sbin:/usr/sbin:/usr/bin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /run/netns /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf
if [ -f /vm/modules.load ]; then
	read -r t0 _ </proc/uptime
	while read -r m; do
		insmod "$m" >>/tmp/modules.log 2>&1 || echo "insmod $m failed" >>/tmp/modules.log
	done </vm/modules.load
	read -r t1 _ </proc/uptime
	# the time it took (run.sh prints it: PPVM-TIME: modules)
	echo "$t0 $t1" >/tmp/modules.time
fi
ip link set lo up
flavor=$(sed -n 's/.*ppvm\.flavor=\([a-z0-9_-]*\).*/\1/p' /proc/cmdline)
if grep -q 'ppvm\.capture=1' /proc/cmdline && [ -f /vm/capture.sh ]; then
	# the crash kernel of the crash-dump test's kdump capture (kernel/rig-vmcore.sh)
	sh /vm/capture.sh
else
	sh /vm/run.sh "${flavor:-unknown}"
fi
sync
poweroff -f
reboot -f
