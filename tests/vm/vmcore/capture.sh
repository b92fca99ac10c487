# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; /init runs it in the crash kernel
# The crash kernel's half of the crash-dump test's kdump capture
# (kernel/rig-vmcore.sh, a line with kdump=): the first kernel loaded this
# kernel and its initrd with kexec_file_load (ppvm-tool kexec-crash) and
# panicked on the NMI the host sent; this kernel saves the first one's
# memory (/proc/vmcore) as kdump does: makedumpfile at dump level 31 (zero,
# cache, user and free pages left out), zlib-compressed, as a flattened
# stream (-F) onto the capture disk (/dev/vda, virtio-blk), which the host
# reassembles (makedumpfile -R) and gives to ppwatch. It prints:
#
#   PPVM-KDUMP-BEGIN: kernel=RELEASE vmcore_bytes=N
#   PPVM-KDUMP-LOG: ...            makedumpfile's own messages
#   PPVM-KDUMP-DONE: rc=RC seconds=S
#
# then /init powers off (qemu exits).
read -r _ _ rel _ </proc/version
i=0
while [ ! -b /dev/vda ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -b /dev/vda ]; then
	echo "PPVM-KDUMP-DONE: rc=no-disk seconds=0 (no /dev/vda: virtio_blk not loaded?)"
	exit 0
fi
echo "PPVM-KDUMP-BEGIN: kernel=$rel vmcore_bytes=$(stat -c %s /proc/vmcore)"
read -r t0 _ </proc/uptime
/vm/bin/makedumpfile -F -c -d 31 /proc/vmcore >/dev/vda 2>/tmp/makedumpfile.err
rc=$?
sync
read -r t1 _ </proc/uptime
sed 's/^/PPVM-KDUMP-LOG: /' /tmp/makedumpfile.err | tail -n 20
echo "PPVM-KDUMP-DONE: rc=$rc seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
