#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The error rule (ppwatch(8) EXIT STATUS): a failure is reported once, by
# the code that failed, naming the object and the errno; with -j the run
# also ends standard output with {"error": ...}. Each case makes a real
# failure: a bad option, the classic tracepoints without tracefs, a
# recording onto a full file system (a flight recorder says it once and
# goes on: a service that exited would be restarted and rotate its
# history away). Files that are no crash dump 'postmortem --vmcore' reads:
# each refused for what it is, read with no privilege.

ALL_TESTS="
	json_error_object_on_a_usage_error
	json_error_object_when_loading_fails
	record_onto_a_full_disk_says_so_once_and_goes_on
	vmcore_bad_inputs_each_named_for_what_they_are
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=/tmp/ppwt$$.errors

work() {
	mkdir -p "$WORK"
	at_exit "rm -rf $WORK"
}

# lines of $1 that are ppwatch error lines
errors() { grep -c '^Error: ' "$1"; }

json_error_object_on_a_usage_error() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	work
	"$PPWATCH" -j pools --max-pages 0 >"$WORK/out" 2>"$WORK/err"
	local rc=$? why
	log "exit $rc, stdout $(cat "$WORK/out")"
	check "exit 2" [ "$rc" -eq 2 ]
	check "stdout is one JSON object" [ "$(jq -c . "$WORK/out" | wc -l)" -eq 1 ]
	why=$(jq -er .error "$WORK/out") || fail "no .error on stdout"
	check "the error names the option" grep -q -- "--max-pages '0'" <<<"$why"
	check "stderr says it too" grep -q -- "--max-pages '0'" "$WORK/err"
	# without -j stdout stays empty
	"$PPWATCH" pools --max-pages 0 >"$WORK/out2" 2>/dev/null
	check "no JSON without -j" [ ! -s "$WORK/out2" ]
}

# 'ip netns exec' mounts a fresh /sys without tracefs: the classic
# tracepoint programs cannot attach (lib/README: attach in the root netns)
json_error_object_when_loading_fails() {
	require_kernel
	work
	local ns=ppwt$BASHPID-e why rc
	ip netns add "$ns" || fail "ip netns add"
	at_exit "ip netns del $ns"
	ip netns exec "$ns" "$PPWATCH" -j pools --attach tracepoint --no-netlink \
		>"$WORK/out" 2>"$WORK/err"
	rc=$?
	log "exit $rc; stderr: $(head -c 300 "$WORK/err" | tr '\n' ' ')"
	check "exit 2" [ "$rc" -eq 2 ]
	why=$(jq -er .error "$WORK/out") || fail "no .error on stdout: $(cat "$WORK/out")"
	log "error object: $why"
	check "it says what failed: attaching the tracepoint programs" grep -qi "attach" <<<"$why"
	check "and what to do: mount tracefs" grep -q "tracefs" <<<"$why"
	check "stdout holds nothing else" [ "$(jq -c . "$WORK/out" | wc -l)" -eq 1 ]
}

# A recorder whose disk fills: one message, naming the file and the errno
# (it used to say only "record: No space left on device"); it goes on,
# keeps whole records only, and counts what it lost.
record_onto_a_full_disk_says_so_once_and_goes_on() {
	require_kernel
	work
	local mnt=$WORK/full rc
	mkdir -p "$mnt"
	mount -t tmpfs -o size=16k,mode=0700 ppwt-full "$mnt" || skip "cannot mount a tmpfs here"
	at_exit "umount $mnt"
	timeout -s KILL 60 "$PPWATCH" -v record -o "$mnt/rec.jsonl" --snapshot-every 0.05 \
		--scan-every 0.2 3 >/dev/null 2>"$WORK/err"
	rc=$?
	log "exit $rc after $(stat -c %s "$mnt/rec.jsonl") bytes; stderr: $(grep -v '^  ' "$WORK/err" | tr '\n' ' ' | head -c 400)"
	check "exit 0: it went on" [ "$rc" -eq 0 ]
	check "no error line" [ "$(errors "$WORK/err")" -eq 0 ]
	check "one warning, naming the file and the errno" [ "$(grep -c \
		"^Warning: record: writing $mnt/rec.jsonl: No space left on device: records are lost until there is room" \
		"$WORK/err")" -eq 1 ]
	check "the losses counted" grep -q 'record: [0-9]* records, [0-9]* rotations, [1-9][0-9]* records lost' "$WORK/err"
	check "whole records only" jq -e -s 'all(.[]; has("type"))' "$mnt/rec.jsonl" >/dev/null
}

# 'postmortem --vmcore' on files that are no dump ppwatch reads, as nobody
# (a dump is untrusted input, read without privilege): each is refused
# with exit 2, naming the file and saying what it is and what to do. The
# real dumps are read in the VMs (kernel/rig-vmcore.sh).
vmcore_bad_inputs_each_named_for_what_they_are() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	work
	chmod 0755 "$WORK"
	: >"$WORK/empty"
	head -c 5000 /dev/urandom >"$WORK/random"
	{
		printf 'makedumpfile\0\0\0\0'
		head -c 8192 /dev/zero
	} >"$WORK/flattened"
	python3 - "$WORK" <<'PY' || fail "python3 could not write the ELF cores"
import struct, sys
def core(endian, machine):
    e = "<" if endian == 1 else ">"
    note = struct.pack(e + "III", 5, 4, 0x1234) + b"XXXX\0\0\0\0abcd"  # no VMCOREINFO
    ph = struct.pack(e + "IIQQQQQQ", 4, 0, 176, 0, 0, len(note), len(note), 0) + \
        struct.pack(e + "IIQQQQQQ", 1, 7, 4096, 0, 0, 4096, 4096, 0)
    h = b"\x7fELF" + bytes([2, endian, 1, 0]) + bytes(8) + \
        struct.pack(e + "HHIQQQIHHHHHH", 4, machine, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0)
    d = h + ph + note
    return d + bytes(4096 - len(d)) + bytes(4096)
open(sys.argv[1] + "/s390x", "wb").write(core(2, 22))         # big-endian s390x
open(sys.argv[1] + "/no-vmcoreinfo", "wb").write(core(1, 62))  # x86_64, no VMCOREINFO
open(sys.argv[1] + "/truncated", "wb").write(core(1, 62)[:4096 + 100])  # its PT_LOAD cut short
# a kdump-compressed header (block 4096, 1 block of sub-header, 2 of bitmaps) and nothing after it
kd = bytearray(4096 * 2)
kd[0:8] = b"KDUMP   "
struct.pack_into("<i", kd, 8, 6)
struct.pack_into("<iiI", kd, 428, 4096, 1, 2)
open(sys.argv[1] + "/truncated-kdump", "wb").write(bytes(kd))
PY
	chmod 0644 "$WORK"/*
	local f want rc
	while IFS='|' read -r f want; do
		setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
			"$PPWATCH" postmortem --vmcore "$WORK/$f" >"$WORK/out" 2>"$WORK/err"
		rc=$?
		log "$f: exit $rc: $(head -c 300 "$WORK/err")"
		check "$f: exit 2" [ "$rc" -eq 2 ]
		check "$f: one error line" [ "$(errors "$WORK/err")" -eq 1 ]
		check "$f: naming the file" grep -qF "$WORK/$f" "$WORK/err"
		check "$f: it says $want" grep -qF -- "$want" "$WORK/err"
		check "$f: nothing on stdout" [ ! -s "$WORK/out" ]
	done <<-'END'
		empty|not a dump libkdumpfile reads
		random|not a dump libkdumpfile reads
		flattened|makedumpfile -R NEWFILE
		s390x|a dump of s390x, not of a 64-bit little-endian kernel
		no-vmcoreinfo|the dump has no VMCOREINFO
		truncated|truncated: 4196 bytes, where its ELF headers place memory and notes up to byte 8192
		truncated-kdump|truncated: 8192 bytes, where its header and page descriptors place its data up to byte 16384
		missing|cannot open it
	END
}

run_tests
