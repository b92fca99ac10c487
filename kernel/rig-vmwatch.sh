# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=bash # sourced by kernel/rig.sh (and tests/check-rig.sh)
#
# vm_livelocked LOG: true when the guest whose serial log is LOG is stuck
# for good though it keeps printing: RCU's stall reports for one and the
# same grace period, VM_STALL_REPORTS (4) of them after the last PPVM
# line. A kernel reprints a stall with the same g=N only while no grace
# period completes; a transient stall on a busy host ends with the next
# one. Seen on 2026-12-06 (deb12, 6.1 under QEMU 7.2's TCG): CPU 0 in an
# int3 of text patching inside __schedule, g=953 stalled from 21 s to the
# VM's 1800 s timeout, the log growing all the while so the silence check
# never fired.
VM_STALL_REPORTS=${VM_STALL_REPORTS:-4}

# vm_died_early LOG: the kernel panicked before the tests began (no
# PPVM-BEGIN: the initramfs not even run); it prints the first splat line.
# Debian's 7.3.4 dies so under TCG once in a few boots (an int3 while
# patching its text); boot_one and vmcore_one boot such a kernel once more.
vm_died_early() {
	! grep -q 'PPVM-BEGIN' "$1" && grep -q 'Kernel panic' "$1" &&
		grep -m1 -E 'Oops|BUG|Kernel panic' "$1" | tr -d '\r' | cut -c1-160
}

vm_livelocked() {
	tr -d '\r' <"$1" | awk -v need="$VM_STALL_REPORTS" '
		/PPVM/ { n = 0; g = ""; next }
		match($0, /jiffies g=[0-9]+/) {
			cur = substr($0, RSTART + 10, RLENGTH - 10)
			if (cur == g) n++; else { g = cur; n = 1 }
		}
		END { exit !(n >= need) }'
}
