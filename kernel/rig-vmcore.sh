# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=bash # sourced by kernel/rig.sh
#
# The crash-dump test of a matrix line: 'ppwatch postmortem --vmcore' on a
# real dump of the line's kernel, against what that kernel said before
# the dump (issue 40).
#
#   kernel/rig.sh vmcore NAME
#
# A line with vmcore=matrix is dumped in 'make test-matrix' (KERNEL_SET=
# matrix), one with vmcore=test in 'make test' too; its verdict is part
# of the line's (boot_one). The guest needs the kernel's fw_cfg driver,
# which writes VMCOREINFO's address where QEMU's -device vmcoreinfo finds
# it for the dump: a package line's qemu_fw_cfg module (loaded after its
# modules=), built into the rig's own builds (kernel/config/
# 20-ppwatch-vm.config: FW_CFG_SYSFS, and PROC_KCORE for VMCOREINFO).
#
# The boot: the line's machine (vm_qemu_args) with -device vmcoreinfo and
# a QMP socket, the line's initrd and one more cpio: tests/vm/vmcore/
# 90-vmcore.sh as /vm/t/90-vmcore.sh (ppvm.only=90: the only test run) and
# (a package line's) qemu_fw_cfg.ko, taken from its packages, appended
# to its modules.load. The guest makes a destroyed pool that holds pages and
# prints its id and inflight (PPVM-VMCORE-TRUTH), every pool the live
# ppwatch lists (PPVM-VMCORE-POOL), then PPVM-VMCORE-READY and idles.
# The host then dumps it twice through QMP's dump-guest-memory (ELF, then
# kdump-zlib: the VM is stopped while each is written), quits QEMU, and
# runs the host's ppwatch on each dump as nobody (a dump is untrusted
# input, read with no privilege): 'postmortem --vmcore DUMP -j' must say
# "source": "vmcore", list the destroyed pool by the guest's id with its
# address and exact inflight (page_pool_release's), state zombie and a
# detach age from the dump's clock, and every pool the guest listed with
# pages out with its inflight, state and device; the text report must name it and
# the JSON be a postmortem.json document. The dumps live under
# $KERNEL_WORK/vmcore/NAME and are deleted after the check; their sizes
# and times, and ppwatch's time and peak RSS on each, go to
# $LOGS/vmcore-NAME.result (PPVM-VMCORE-TIME lines; VMC_KEEP=1 keeps the
# dumps, for working on the reader).
#
# A line with kdump= (test or matrix, as vmcore=) ends with a real kdump
# capture: its guest boots with crashkernel=256M and a capture disk
# (virtio-blk), and loads its own kernel with an initrd of the line's plus
# vmcore/capture.sh and makedumpfile as the crash kernel (kexec_file_load:
# ppvm-tool kexec-crash). After the QMP dumps the host lets the VM run on
# and sends it an NMI (unknown_nmi_panic: a panic, then the crash
# kernel); the crash kernel writes /proc/vmcore as kdump does
# (makedumpfile -F -c -d 31 onto the disk) and powers off; the host
# reassembles it (makedumpfile -R) and checks ppwatch's report of it as of
# the others (format kdump-d31: dump level 31).

VMC_FORMATS=${VMC_FORMATS:-"elf kdump-zlib"}

# does 'make test' (test) or 'make test-matrix' (matrix) dump line NAME?
vmcore_wanted() {
	case "$(opt "$1" vmcore)" in
	test) return 0 ;;
	matrix) [ "${KERNEL_SET:-test}" = matrix ] ;;
	*) return 1 ;;
	esac
}

# does line NAME's crash-dump test end with a real kdump capture?
kdump_wanted() {
	case "$(opt "$1" kdump)" in
	test) return 0 ;;
	matrix) [ "${KERNEL_SET:-test}" = matrix ] ;;
	*) return 1 ;;
	esac
}

# kdump_stage NAME IMG ST: the crash kernel (the line's own) and its initrd
# (the line's, with vmcore/capture.sh and makedumpfile) into ST/vm/kdump;
# the capture disk $W/capture.raw (sparse)
kdump_stage() {
	local name=$1 img=$2 st=$3 STAGE=$W/capture-st
	command -v makedumpfile >/dev/null || die "makedumpfile missing: run 'make deps'"
	rm -rf "$STAGE"
	mkdir -p "$STAGE/vm/bin" "$st/vm/kdump"
	copy_dyn "$(command -v makedumpfile)" "$STAGE/vm/bin/makedumpfile"
	install -m 0644 "$ROOT/tests/vm/vmcore/capture.sh" "$STAGE/vm/capture.sh"
	(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$W/capture.cpio.gz"
	cat "$IRD/initrd-$name.cpio.gz" "$W/capture.cpio.gz" >"$st/vm/kdump/initrd.cpio.gz"
	cp "$img" "$st/vm/kdump/vmlinuz"
	rm -rf "$STAGE" "$W/capture.cpio.gz" "$W/capture.raw"
	truncate -s 1G "$W/capture.raw"
}

# kdump_capture QPID: the running guest's kdump capture (the VM stopped
# after the QMP dumps), checked and read as the dumps were
kdump_capture() {
	local qpid=$1 i done_line t1
	if ! grep -q '^PPVM-VMCORE-KDUMP: loaded' "$LOG.txt"; then
		echo "PPVM-VMCORE: FAIL kdump: the guest did not load its crash kernel"
		VMC_FAIL=$((VMC_FAIL + 1))
		return 0
	fi
	# the log before the NMI: no splat; after it, the NMI's own panic only
	VMC_NMI_LINE=$(wc -l <"$LOG")
	t1=$(date +%s.%N)
	if ! python3 "$ROOT/kernel/qmp.py" "$W/qmp.sock" cont >/dev/null ||
		! python3 "$ROOT/kernel/qmp.py" "$W/qmp.sock" inject-nmi >/dev/null; then
		echo "PPVM-VMCORE: FAIL kdump: QMP cont, inject-nmi"
		VMC_FAIL=$((VMC_FAIL + 1))
		return 0
	fi
	for ((i = 0; i < ${KDUMP_TIMEOUT:-400}; i++)); do
		grep -q '^PPVM-KDUMP-DONE' "$LOG" && break
		kill -0 "$qpid" 2>/dev/null || break
		sleep 1
	done
	# the crash kernel powers off: qemu exits
	for ((i = 0; i < 30; i++)); do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 1
	done
	kill "$qpid" 2>/dev/null || true
	tr -d '\r' <"$LOG" >"$LOG.txt"
	grep '^PPVM-KDUMP-' "$LOG.txt"
	done_line=$(grep '^PPVM-KDUMP-DONE:' "$LOG.txt" | head -n1 || true)
	vmc_check "kdump: the crash kernel saved the first one's memory (makedumpfile -F -c -d 31: rc)" \
		"$(vmc_val "$done_line" rc)" 0
	[ "$(vmc_val "$done_line" rc)" = 0 ] || return 0
	echo "PPVM-VMCORE-TIME: kdump-d31 NMI to saved $(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, makedumpfile $(vmc_val "$done_line" seconds) s in the crash kernel"
	# the disk holds the flattened stream (-F): refused as one, then reassembled
	vmc_flattened kdump-d31 "$W/capture.raw" || return 0
	vmc_report kdump-d31 "$W/capture.raw.reassembled" "$LINE_NAME"
	vmc_cut kdump-d31 "$W/capture.raw.reassembled"
	[ -n "${VMC_KEEP:-}" ] || rm -f "$W/capture.raw.reassembled"
}

# vmcore_fw_cfg NAME DIR: qemu_fw_cfg.ko from line NAME's packages into
# DIR (uncompressed, at its guest path, which it prints); nothing printed
# when the kernel has it built in
vmcore_fw_cfg() {
	local name=$1 st=$2 f p
	for f in "$PKGS/$name"/*.deb; do
		[ -e "$f" ] || continue
		p=$(dpkg-deb -c "$f" | awk '{ print $NF }' | grep -E '/qemu_fw_cfg\.ko(\.xz|\.zst|\.gz)?$' | head -n1 || true)
		[ -n "$p" ] || continue
		dpkg-deb --fsys-tarfile "$f" | tar -x -C "$st" "$p"
		p=${p#./}
		case "$p" in
		*.xz) xz -d -f "$st/$p"; p=${p%.xz} ;;
		*.zst) zstd -q -d --rm -f "$st/$p"; p=${p%.zst} ;;
		*.gz) gzip -d -f "$st/$p"; p=${p%.gz} ;;
		esac
		echo "/$p"
		return 0
	done
	grep -rqs 'qemu_fw_cfg\.ko' "$PKGS/$name/root" 2>/dev/null && return 0
	say "$name: no qemu_fw_cfg module in its packages: taken as built in"
}

# vmc_val LINE KEY: KEY=VALUE's value in a PPVM-VMCORE line
vmc_val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# vmc_check WHAT GOT WANT: one result line, counted
vmc_check() {
	if [ "$2" = "$3" ]; then
		echo "PPVM-VMCORE: PASS $1 ($2)"; VMC_PASS=$((VMC_PASS + 1))
	else
		echo "PPVM-VMCORE: FAIL $1: got '$2', want '$3'"; VMC_FAIL=$((VMC_FAIL + 1))
	fi
}

# vmc_report FMT DUMP NAME: ppwatch's report of line NAME's DUMP as nobody, checked against
# the guest's lines
vmc_report() {
	local fmt=$1 dump=$2 line_name=$3 out=$W/pm-$1 truth holder id addr sel pname line paddr want rc secs kib blocks
	truth=$(grep '^PPVM-VMCORE-TRUTH:' "$LOG.txt" | head -n1)
	id=$(vmc_val "$truth" id)
	rc=0
	/usr/bin/time -f '%e %M' -o "$out.time" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$PPWATCH_BIN" postmortem --vmcore "$dump" -j >"$out.json" 2>"$out.err" || rc=$?
	# GNU time's last line: a non-zero exit adds "Command exited with ..." before it
	read -r secs kib < <(tail -n1 "$out.time")
	echo "PPVM-VMCORE-TIME: $fmt ppwatch $secs s peak-rss $(( ${kib:-0} / 1024 )) MiB exit $rc"
	[ -s "$out.err" ] && sed 's/^/  stderr: /' "$out.err"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$PPWATCH_BIN" postmortem --vmcore "$dump" >"$out.txt" 2>&1 || true
	sed 's/^/  | /' "$out.txt"
	# exit 1: the report names a stalled pool (the destroyed one, over a minute
	# old by the dump's clock, or not: its age decides)
	vmc_check "$fmt: ppwatch postmortem --vmcore ran (0: none stalled, 1: one named)" \
		"$([ $rc -le 1 ] && echo ok)" ok
	vmc_check "$fmt: .source" "$(jq -r .source "$out.json")" vmcore
	vmc_check "$fmt: .vmcore.format is libkdumpfile's" "$(jq -r '.vmcore.format != null and .vmcore.format != ""' "$out.json")" true
	vmc_check "$fmt: the kernel's release from VMCOREINFO" "$(jq -r .vmcore.osrelease "$out.json")" "$(sed -n 's/^PPVM-BEGIN: .* kernel=//p' "$LOG.txt" | head -n1)"
	vmc_check "$fmt: symbols from the dump's own kallsyms" "$(jq -r .vmcore.symbols "$out.json")" kallsyms
	vmc_check "$fmt: the dump's clock read" "$(jq -r .vmcore.clock "$out.json")" timekeeper
	vmc_check "$fmt: no pool unreadable" "$(jq -r .vmcore.unreadable "$out.json")" 0
	# QEMU's -z leaves zero pages out (makedumpfile's level 1); an ELF dump has every
	# page; the kdump capture's makedumpfile -d 31 zero, cache, user and free pages
	vmc_check "$fmt: the dump level its header says" "$(jq -r .vmcore.dump_level "$out.json")" \
		"$(case $fmt in elf) echo null ;; kdump-d31) echo 31 ;; *) echo 1 ;; esac)"
	[ "$fmt" != kdump-d31 ] ||
		vmc_check "$fmt: the text says which pages the level left out" \
			"$(grep -c 'user' "$out.txt" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
	# the destroyed pool by its address (every kernel's), and by its id where it has one
	addr=$(vmc_val "$truth" addr)
	sel='[.pools[] | select(.addr == $a)][0]'
	vmc_check "$fmt: the destroyed pool, by its address: state" \
		"$(jq -r --arg a "$addr" "$sel.state" "$out.json")" zombie
	vmc_check "$fmt: its id is the guest's (null before 6.8)" \
		"$(jq -r --arg a "$addr" "$sel.id // empty" "$out.json")" "$id"
	vmc_check "$fmt: its inflight = page_pool_release's" \
		"$(jq -r --arg a "$addr" "$sel.inflight" "$out.json")" "$(vmc_val "$truth" inflight)"
	vmc_check "$fmt: its verdict's inflight" \
		"$(jq -r --arg a "$addr" "$sel.verdict.inflight" "$out.json")" "$(vmc_val "$truth" inflight)"
	holder=$(grep '^PPVM-VMCORE-HOLDER:' "$LOG.txt" | head -n1)
	if [ -n "$(vmc_val "$holder" ring)" ]; then
		# a TX ring holds them (lacks=xdp-skb-recycle): none named, every page unattributed
		vmc_check "$fmt: held by $(vmc_val "$holder" ring)'s TX ring: no holder named, all unattributed" \
			"$(jq -r --arg a "$addr" "$sel.holders | \"\([.holders[] | select(.kind != \"unattributed\")] | length) \(.unattributed)\"" "$out.json")" "0 $(vmc_val "$truth" inflight)"
	else
		vmc_check "$fmt: its holder: the process /proc named" \
			"$(jq -r --arg a "$addr" "$sel.holders.holders[0].owners[0].pid" "$out.json")" "$(vmc_val "$holder" pid)"
		vmc_check "$fmt: its holder's socket: /proc/net/udp's inode" \
			"$(jq -r --arg a "$addr" "$sel.holders.holders[0].inode" "$out.json")" "$(vmc_val "$holder" ino)"
		vmc_check "$fmt: every page of it attributed (that socket holds them all)" \
			"$(jq -r --arg a "$addr" "$sel.holders | \"\(.holders[0].pages) \(.unattributed)\"" "$out.json")" "$(vmc_val "$truth" inflight) 0"
	fi
	# the item blocks: the live walk's counts on the series' kernels, none elsewhere
	blocks=$(grep '^PPVM-VMCORE-BLOCKS:' "$LOG.txt" | head -n1 || true)
	if [ "$(opt "$line_name" regime)" = item-blocks ]; then
		vmc_check "$fmt: the guest counted the destroyed pool's item blocks" "${blocks:+yes}" yes
		vmc_check "$fmt: its item blocks as the live walk counted them (per prealloc dynamic used used_dynamic unissued sparse)" \
			"$(jq -r --arg a "$addr" "$sel.block_occupancy | \"\(.items_per_block) \(.blocks_prealloc) \(.blocks_dynamic) \(.items_used) \(.items_used_dynamic) \(.items_unissued) \(.sparse_blocks)\"" "$out.json")" \
			"$(for k in per prealloc dynamic used used_dynamic unissued sparse; do vmc_val "$blocks" $k; done | paste -sd' ')"
		vmc_check "$fmt: vmcore.item_blocks: read, none unreadable" \
			"$(jq -r '.vmcore.item_blocks | "\(.pools > 0) \(.unreadable)"' "$out.json")" "true 0"
		vmc_check "$fmt: the text report has its item blocks" \
			"$(grep -c 'item blocks: ' "$out.txt" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
	else
		vmc_check "$fmt: no item blocks on a kernel without the series (vmcore.item_blocks, its block_occupancy)" \
			"$(jq -r --arg a "$addr" "\"\(.vmcore.item_blocks) \($sel.block_occupancy)\"" "$out.json")" "null null"
	fi
	vmc_check "$fmt: the dump's processes walked" "$(jq -r .vmcore.holders.walked "$out.json")" true
	vmc_check "$fmt: its detach age is known (the dump's clock)" \
		"$(jq -r --arg a "$addr" "$sel.detach_age_s | type" "$out.json")" number
	# where the pools came from: the page_pools xarray from 6.8, the struct pages before
	vmc_check "$fmt: the pools found by the kernel's list (lacks=pp-netlink: by their pages)" \
		"$(jq -r .vmcore.list "$out.json")" "$(case ",$(opt "$line_name" lacks)," in *,pp-netlink,*) echo "struct pages" ;; *) echo "page_pools xarray" ;; esac)"
	# a veth pool destroyed with pages out, its veth then deleted: its device not read
	line=$(grep '^PPVM-VMCORE-GONE:' "$LOG.txt" | head -n1 || true)
	case ",$(opt "$line_name" lacks)," in
	*,veth-pp,*) ;;
	*)
		paddr=$(vmc_val "$line" addr)
		vmc_check "$fmt: the pool whose device was deleted, as the kernel left it (state inflight device)" \
			"$(jq -r --arg a "$paddr" "$sel | \"\(.state) \(.inflight) \(.device)\"" "$out.json")" \
			"zombie $(vmc_val "$line" inflight) $(vmc_val "$line" device)"
		;;
	esac
	# every pool the guest listed with pages out, with its inflight and state
	while read -r line; do
		paddr=$(vmc_val "$line" addr)
		want="$(vmc_val "$line" state) $(vmc_val "$line" inflight) $(vmc_val "$line" device)"
		[ "$(vmc_val "$line" inflight)" -gt 0 ] || continue
		vmc_check "$fmt: pool $paddr as the guest listed it (state inflight device)" \
			"$(jq -r --arg a "$paddr" "$sel | \"\(.state) \(.inflight) \(.device)\"" "$out.json")" "$want"
	done < <(grep '^PPVM-VMCORE-POOL:' "$LOG.txt")
	# the name the text gives it (its id, else what the JSON's pool says)
	pname=$(jq -r --arg a "$addr" "$sel.pool" "$out.json")
	vmc_check "$fmt: the text report names the pool ($pname)" \
		"$(grep -cF -- "pool $pname " "$out.txt" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
	vmc_check "$fmt: the report is a postmortem.json document" \
		"$(python3 "$ROOT/tests/contract/validate.py" postmortem "$out.json" 2>&1 >/dev/null | head -n3 | tr '\n' ' ')" ""
}

# vmc_cut FMT DUMP: the dump cut in half, as a copy cut short is: refused as
# truncated, exit 2, before anything is read from it as memory
vmc_cut() {
	local fmt=$1 dump=$2 rc=0
	head -c $(( $(stat -c %s "$dump") / 2 )) "$dump" >"$dump.cut"
	chmod 0644 "$dump.cut"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$PPWATCH_BIN" postmortem --vmcore "$dump.cut" >"$W/cut.out" 2>&1 || rc=$?
	sed 's/^/  | /' "$W/cut.out"
	vmc_check "$fmt: cut in half: refused (exit 2)" "$rc" 2
	vmc_check "$fmt: cut in half: said to be truncated" \
		"$(grep -c 'truncated: ' "$W/cut.out" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
	rm -f "$dump.cut"
}

# vmc_flattened FMT DUMP: QEMU 7.2 writes -z dumps as makedumpfile's
# flattened stream; ppwatch must refuse it naming the way out, and that
# way (makedumpfile -R, what kdump's own tools do) gives DUMP.reassembled
vmc_flattened() {
	local fmt=$1 dump=$2 rc=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$PPWATCH_BIN" postmortem --vmcore "$dump" >"$W/flat.out" 2>&1 || rc=$?
	vmc_check "$fmt: a flattened stream refused (exit 2)" "$rc" 2
	vmc_check "$fmt: the message names makedumpfile -R" \
		"$(grep -c 'makedumpfile -R' "$W/flat.out" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
	if ! makedumpfile -R "$dump.reassembled" <"$dump" >"$W/reassemble.out" 2>&1; then
		echo "PPVM-VMCORE: FAIL makedumpfile -R: $(tail -n 2 "$W/reassemble.out" | tr '\n' ' ')"
		VMC_FAIL=$((VMC_FAIL + 1))
		return 1
	fi
	[ -n "${VMC_KEEP:-}" ] || rm -f "$dump"
	chmod 0644 "$dump.reassembled"
	echo "PPVM-VMCORE-TIME: $fmt reassembled $(( $(stat -c %s "$dump.reassembled") / 1048576 )) MiB"
}

vmcore_one() {
	local name=$1 img st fw t0 t1 qpid fmt ext dump rc=0 ready=0 i boot first
	need_flavor "$name"
	img=$(kernel_image "$name")
	[ -s "$img" ] || die "no $name kernel: rig.sh build $name"
	[ -x "$PPWATCH_BIN" ] || die "no $PPWATCH_BIN: make"
	[ -s "$IRD/initramfs.cpio.gz" ] || die "no initramfs: rig.sh initramfs"
	overlay "$name"
	W=$KERNEL_WORK/vmcore/$name
	rm -rf "$W"
	mkdir -p "$W/st/vm/t" "$LOGS"
	# the dumps are read as nobody
	chmod 0755 "$KERNEL_WORK/vmcore" "$W"
	install -m 0644 "$ROOT/tests/vm/vmcore/90-vmcore.sh" "$W/st/vm/t/90-vmcore.sh"
	if [ "${M_KIND[$name]}" = package ]; then
		fw=$(vmcore_fw_cfg "$name" "$W/st")
		cp "$PKGS/$name/modules.load" "$W/st/vm/modules.load"
		[ -z "$fw" ] || echo "$fw" >>"$W/st/vm/modules.load"
	fi
	local kd=0 kargs='' kcmd=''
	if kdump_wanted "$name"; then
		kd=1
		kdump_stage "$name" "$img" "$W/st"
		kargs="-drive file=$W/capture.raw,format=raw,if=virtio"
		kcmd=" crashkernel=256M ppvm.kdump=1"
	fi
	(cd "$W/st" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$W/extra.cpio.gz"
	cat "$IRD/initrd-$name.cpio.gz" "$W/extra.cpio.gz" >"$W/initrd.cpio.gz"
	LOG=$LOGS/vmcore-$name.log
	t0=$(date +%s)
	for boot in 1 2; do
		say "vmcore: booting $name (log: $LOG)"
		# the last run's log has its READY: gone before the wait below can see it
		rm -f "$W/qmp.sock" "$LOG"
		# shellcheck disable=SC2046 # the machine's arguments, one word each
		# shellcheck disable=SC2086 # kargs: the capture disk's words
		timeout --foreground -k 10 "$VM_TIMEOUT" qemu-system-x86_64 $(vm_qemu_args) \
			-device vmcoreinfo -qmp "unix:$W/qmp.sock,server=on,wait=off" $kargs \
			-kernel "$img" -initrd "$W/initrd.cpio.gz" \
			-append "console=ttyS0 panic=-1 no_hash_pointers ppvm.flavor=$name ppvm.only=90$kcmd" \
			</dev/null >"$LOG" 2>&1 &
		qpid=$!
		# a rig that stops on an error leaves no VM running (and holding its lock)
		# shellcheck disable=SC2064 # this qpid, now
		trap "kill $qpid 2>/dev/null || true" EXIT
		for ((i = 0; i < 600; i++)); do
			if grep -q '^PPVM-VMCORE-READY' "$LOG"; then ready=1; break; fi
			kill -0 $qpid 2>/dev/null || break
			grep -q '^PPVM-END' "$LOG" && break
			sleep 1
		done
		tr -d '\r' <"$LOG" >"$LOG.txt"
		# a kernel that died before the tests began is booted once more, as
		# boot_one does (Debian's 7.3.4 under TCG: an int3 while patching
		# its text at boot, once in a few boots)
		if [ $ready -eq 0 ] && [ $boot -eq 1 ] && first=$(vm_died_early "$LOG.txt"); then
			cp "$LOG.txt" "$LOG.first-boot"
			say "vmcore: $name died before the tests began ($first; log: $LOG.first-boot): booting it once more"
			kill $qpid 2>/dev/null || true
			wait $qpid 2>/dev/null || true
			continue
		fi
		break
	done
	VMC_PASS=0 VMC_FAIL=0 VMC_NMI_LINE=0 LINE_NAME=$name
	{
		echo "PPVM-VMCORE-TIME: boot to ready $(( $(date +%s) - t0 )) s"
		if [ $ready -eq 0 ]; then
			echo "PPVM-VMCORE: FAIL the guest never said PPVM-VMCORE-READY"
			grep -E '^PPVM: (FAIL|SKIP)|^  \[70' "$LOG.txt" | tail -n 20
			VMC_FAIL=1
		fi
		# the same state in every dump: the VM stays stopped from here
		[ $ready -eq 0 ] || python3 "$ROOT/kernel/qmp.py" "$W/qmp.sock" stop >/dev/null
		for fmt in $VMC_FORMATS; do
			[ $ready -eq 1 ] || break
			case $fmt in elf) ext=elf ;; *) ext=$fmt ;; esac
			dump=$W/vmcore.$ext
			t1=$(date +%s.%N)
			if ! python3 "$ROOT/kernel/qmp.py" "$W/qmp.sock" dump-guest-memory \
				"{\"paging\": false, \"protocol\": \"file:$dump\", \"format\": \"$fmt\"}" >/dev/null; then
				echo "PPVM-VMCORE: FAIL dump-guest-memory -f $fmt"; VMC_FAIL=$((VMC_FAIL + 1))
				continue
			fi
			chmod 0644 "$dump"
			echo "PPVM-VMCORE-TIME: $fmt dump $(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s $(( $(stat -c %s "$dump") / 1048576 )) MiB"
			if [ "$(head -c 12 "$dump")" = makedumpfile ]; then
				vmc_flattened "$fmt" "$dump" || continue
				dump=$dump.reassembled
			fi
			vmc_report "$fmt" "$dump" "$name"
			vmc_cut "$fmt" "$dump"
			[ -n "${VMC_KEEP:-}" ] || rm -f "$dump"
		done
		[ $kd -eq 0 ] || [ $ready -eq 0 ] || kdump_capture $qpid
		python3 "$ROOT/kernel/qmp.py" "$W/qmp.sock" quit >/dev/null 2>&1 || kill $qpid 2>/dev/null || true
		wait $qpid 2>/dev/null || true
		trap - EXIT
		tr -d '\r' <"$LOG" >"$LOG.txt"
		# after the kdump capture's NMI: its panic is the test's own
		if { if [ "$VMC_NMI_LINE" -gt 0 ]; then
			head -n "$VMC_NMI_LINE" "$LOG.txt"
			tail -n +"$((VMC_NMI_LINE + 1))" "$LOG.txt" | grep -v 'Kernel panic - not syncing: NMI'
		else cat "$LOG.txt"; fi; } |
			grep -E 'Kernel panic|BUG:|WARNING:|Oops|general protection fault|KASAN|UBSAN'; then
			echo "PPVM-VMCORE: FAIL a kernel splat in the guest's log"; VMC_FAIL=$((VMC_FAIL + 1))
		fi
		echo "PPVM-VMCORE-SUMMARY: $name pass=$VMC_PASS fail=$VMC_FAIL ($(( $(date +%s) - t0 )) s)"
	} 2>&1 | tee "$LOGS/vmcore-$name.result" >&2
	if [ -n "${VMC_KEEP:-}" ]; then say "VMC_KEEP: the dumps are kept in $W"; else rm -rf "$W"; fi
	grep -q "^PPVM-VMCORE-SUMMARY: $name pass=[1-9][0-9]* fail=0 " "$LOGS/vmcore-$name.result" ||
		die "$name: the vmcore test failed ($LOGS/vmcore-$name.result, guest log $LOG)"
	say "$name: the vmcore test passed"
}
