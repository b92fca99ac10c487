#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The flight recorder survives what it records, and postmortem reads what
# it leaves: its files only root reads; rotation holds its bounds under a
# fast snapshot rate, every file starts with a header and holds whole
# records valid against docs/schema/recording/; 'record' SIGKILLed during
# an incident leaves files whose postmortem still names the zombie pool
# and its holder's pid, and SIGKILLed during rotations a set that is
# whole; a restarted recorder keeps the recording before it; transient
# errors (a holder scan that fails, injected from outside) and a disk
# that fills during a holder scan are gap records and the recording goes
# on; zero intervals are refused; a recording cut at every byte of its
# last record or in the middle, with damaged and non-UTF-8 lines, is read
# as far as it goes, said so and exit by its report; a big recording is
# read in bounded memory; what matters is synced (strace). About 90 s.

ALL_TESTS="
	files_only_root_reads
	rotation_bounds_under_fast_snapshots
	sigkill_during_rotations
	incident_kept_past_rotation
	sigkill_during_an_incident
	what_matters_is_synced
	restart_keeps_the_last_recording
	full_disk_loses_records_and_says
	full_disk_during_a_holder_scan
	transient_errors_are_gaps
	zero_intervals_refused
	cut_and_damaged_recordings
	big_recording_bounded_memory
"

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../lab/scale.sh
. "$TOP/tests/lab/scale.sh"

WORK=/tmp/ppwt$$.record

workdir() {
	mkdir -p "$WORK" "$WORK/mnt"
	at_exit "rm -rf $WORK"
}

# every line of each file is a record, and each file starts with a header
whole_records() {	# files...
	local f
	for f in "$@"; do
		jq -e -s 'length > 0 and (.[0].type == "header") and all(.[]; has("type"))' "$f" >/dev/null ||
			fail "$f: not whole records with a header first: $(head -c 200 "$f")"
	done
}

# and each one valid against its schema (docs/schema/recording/): what ppwatch wrote
valid_records() {	# files...
	whole_records "$@"
	python3 "$TOP/tests/contract/validate.py" --recording "$@" >/dev/null 2>"$WORK/v.err" ||
		fail "records not valid against docs/schema/recording/: $(head -c 800 "$WORK/v.err")"
}

# the recordings and export's textfile: 0600 (0640 with --group) whatever
# the umask; a directory others may write, a symlink, a non-file refused
files_only_root_reads() {
	require_kernel
	workdir
	local m f
	chmod 0700 "$WORK"
	(umask 0 && "$PPWATCH" record -o "$WORK/rec" --max-size 16k --max-files 3 \
		--snapshot-every 0.01 1.5 2>"$WORK/err") || fail "record: $(cat "$WORK/err")"
	for f in "$WORK"/rec*; do
		m=$(stat -c %a "$f")
		check "$(basename "$f"): 0600 under umask 0 ($m)" [ "$m" = 600 ]
	done
	check "rotated: FILE.1 made too" [ -e "$WORK/rec.1" ]
	(umask 0077 && "$PPWATCH" record -o "$WORK/grp" --group adm 0.3 2>"$WORK/err") ||
		fail "record --group: $(cat "$WORK/err")"
	check "--group adm: 0640 under umask 0077" [ "$(stat -c %a:%G "$WORK/grp")" = 640:adm ]
	"$PPWATCH" record -o "$WORK/x" --group no-such-group 1 2>"$WORK/err"
	check "--group of no group: exit 2" [ $? -eq 2 ]
	check "says so" grep -q "no such group 'no-such-group'" "$WORK/err"
	# a directory that is not there yet: made, 0700 as the files are, and said
	(umask 0 && "$PPWATCH" record -o "$WORK/new/sub/rec" 0.3 2>"$WORK/err") ||
		fail "record into a new directory: $(cat "$WORK/err")"
	check "a missing directory: made 0700" [ "$(stat -c %a "$WORK/new"):$(stat -c %a "$WORK/new/sub")" = 700:700 ]
	check "and the file in it" [ -s "$WORK/new/sub/rec" ]
	check "said" grep -qx "ppwatch record: made the directory $WORK/new (0700)" "$WORK/err"
	# a directory others may write (/tmp's mode, sticky or not), and one of a group's
	mkdir -m 1777 "$WORK/tmp"
	chmod 1777 "$WORK/tmp"
	"$PPWATCH" record -o "$WORK/tmp/rec" 1 2>"$WORK/err"
	check "a world-writable directory: exit 2" [ $? -eq 2 ]
	log "$(cat "$WORK/err")"
	check "says why and what to do" grep -q "tmp is writable by every user (mode 1777).*mkdir -m 0700" "$WORK/err"
	check "nothing made there" [ -z "$(ls -A "$WORK/tmp")" ]
	chmod 0770 "$WORK/tmp" && chgrp adm "$WORK/tmp"
	"$PPWATCH" record -o "$WORK/tmp/rec" 1 2>"$WORK/err"
	check "a directory group adm writes: exit 2" [ $? -eq 2 ]
	check "says why" grep -q "tmp is writable by group adm" "$WORK/err"
	# export --textfile through the same rules
	(umask 0 && "$PPWATCH" export --textfile "$WORK/pp.prom" --once --interval 0.2 2>"$WORK/err") ||
		fail "export --textfile: $(cat "$WORK/err")"
	check "export --textfile: 0600 under umask 0" [ "$(stat -c %a "$WORK/pp.prom")" = 600 ]
	check "no temporary file left" [ -z "$(find "$WORK" -name 'pp.prom.*')" ]
	(umask 0077 && "$PPWATCH" export --textfile "$WORK/pp.prom" --group adm --once --interval 0.2 2>"$WORK/err") ||
		fail "export --textfile --group: $(cat "$WORK/err")"
	check "export --textfile --group adm: 0640 under umask 0077" [ "$(stat -c %a:%G "$WORK/pp.prom")" = 640:adm ]
	echo "keep me" >"$WORK/victim"
	ln -s "$WORK/victim" "$WORK/link.prom"
	"$PPWATCH" export --textfile "$WORK/link.prom" --once --interval 0.2 2>"$WORK/err"
	check "export --textfile on a symlink: exit 2" [ $? -eq 2 ]
	check "says so" grep -q "link.prom is a symlink, not a regular file: not replaced" "$WORK/err"
	check "the symlink and its target untouched" [ -L "$WORK/link.prom" ] && [ "$(cat "$WORK/victim")" = "keep me" ]
	"$PPWATCH" export --textfile "$WORK/tmp/pp.prom" --once --interval 0.2 2>"$WORK/err"
	check "export --textfile in a directory others write: exit 2" [ $? -eq 2 ]
	check "says why" grep -q "is writable by group adm" "$WORK/err"
}

rotation_bounds_under_fast_snapshots() {
	require_kernel
	workdir
	local max=65536 files=3 f n total=0 big biggest rpid ino seen=0
	LAB_QUEUES=4 lab_begin
	lab_hold 200 1000 >/dev/null || fail "holder"
	# a snapshot every 10 ms and a holder scan every 100 ms: a file fills in
	# a second; recorded until FILE was started anew (a new inode) more
	# often than the set keeps files, not for 6 s a loaded machine fills less in
	"$PPWATCH" -v record -o "$WORK/rec" --max-size "$max" --max-files $files \
		--snapshot-every 0.01 --scan-every 0.1 2>"$WORK/err" &
	rpid=$!
	at_exit "kill $rpid 2>/dev/null"
	wait_attached "$WORK/err" $rpid
	ino=$(stat -c %i "$WORK/rec" 2>/dev/null)
	_rotated() {
		local i
		i=$(stat -c %i "$WORK/rec" 2>/dev/null)
		[ -n "$i" ] && [ "$i" != "$ino" ] && { ino=$i; seen=$((seen + 1)); }
		[ "$seen" -gt $((files + 1)) ]
	}
	wait_until 120 "FILE rotated $((files + 2)) times" _rotated
	kill -INT $rpid
	wait $rpid || fail "record: $(cat "$WORK/err")"
	log "$(grep 'rotations' "$WORK/err")"
	check "rotated more often than it keeps files" \
		[ "$(sed -n 's/.* \([0-9]*\) rotations.*/\1/p' "$WORK/err")" -gt $files ]
	# FILE.incidents too, if an incident (another lab's) was seen: at most --max-size
	n=$(find "$WORK" -name 'rec*' ! -name '*.err' ! -name rec.incidents | wc -l)
	biggest=0
	for f in "$WORK"/rec*; do
		total=$((total + $(stat -c %s "$f")))
		big=$(awk '{ if (length($0) + 1 > m) m = length($0) + 1 } END { print m + 0 }' "$f")
		[ "$big" -gt "$biggest" ] && biggest=$big
	done
	log "$n files, $total bytes in all, the biggest record $biggest bytes; $(grep -c '"type":"snapshot"' "$WORK"/rec* | tr '\n' ' ')"
	check "rotated: $files files" [ "$n" -eq $files ]
	check "no FILE.$files" [ ! -e "$WORK/rec.$files" ]
	for f in "$WORK"/rec*; do
		check "$(basename "$f"): at most --max-size" [ "$(stat -c %s "$f")" -le $max ]
	done
	check "the set: at most N x SIZE, and its incident file SIZE" [ "$total" -le $(((files + 1) * max)) ]
	check "no record past the bound the header states" \
		[ "$biggest" -le "$(head -1 "$WORK/rec" | jq .max_record_bytes)" ]
	valid_records "$WORK"/rec*
	# read oldest first, each record's seq is above the one before (a
	# split record's later parts share their first part's): a rotated
	# file's header comes before its first record in seq as in place
	check "seq rises through the set, headers included" python3 - "$WORK/rec.2" "$WORK/rec.1" "$WORK/rec" <<-'PY'
	import json, sys
	last = 0
	for f in sys.argv[1:]:
	    for line in open(f):
	        r = json.loads(line)
	        if r.get("part", 1) > 1:
	            continue
	        if r["seq"] <= last:
	            sys.exit("%s: %s seq %d after seq %d" % (f, r["type"], r["seq"], last))
	        last = r["seq"]
	PY
	"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pm.json"
	check "postmortem: exit 0" [ $? -eq 0 ]
	check "postmortem: read the 3 files, oldest first, nothing damaged" jq -e \
		'(.input.files | map(.name | sub(".*/"; "")) | map(select(. != "rec.incidents"))) == ["rec.2", "rec.1", "rec"] and
		 .input.damaged_lines == 0 and .input.cut_files == 0' "$WORK/pm.json" >/dev/null
}

# The issue's case: a 3 x 64 KiB set on a host with 200 idle pools, a
# pool destroyed with 300 pages held by a socket; 600 snapshots later (10
# minutes at --snapshot-every 1s; here 0.05s) the set has rotated the
# destroy, its scans and every record naming the holder away many times
# over, and the recorder is killed (no last scan); postmortem still names
# the holder, the destroy and the stall, from FILE.incidents, and the disk
# holds at most (3 + 1) x 64 KiB.
incident_kept_past_rotation() {
	require_kernel
	workdir
	local pid rpid total=0 f seq sseq
	lab_begin
	export SCALE_NS=$LAB-scale SCALE_DEVS=4 SCALE_QUEUES=50
	at_exit scale_down
	scale_up >/dev/null 2>&1 || fail "200 idle pools (tests/lab/scale.sh)"
	read -r pid _ < <(lab_hold 300 1000) || fail "holder"
	"$PPWATCH" -v record -o "$WORK/rec" --max-size 64k --max-files 3 --snapshot-every 0.05 \
		--stall-after 2s 2>"$WORK/err" &
	rpid=$!
	wait_attached "$WORK/err" $rpid
	# recording: its first snapshot is in the set
	wait_until 120 "a snapshot recorded" bash -c "cat '$WORK'/rec* 2>/dev/null | grep -q '\"type\":\"snapshot\"'"
	lab_xdp_off
	# counted from the stall's own seq (snapshots of 200 pools in parts
	# count fast: a count from the start can pass before the destroy is even
	# written); the stall (--stall-after 2s) starts the last scan naming the holder
	_stall_kept() {
		sseq=$(jq -r 'select(.type == "event" and .event.event == "stalled") | .seq' \
			"$WORK"/rec.incidents 2>/dev/null | head -n 1)
		[ -n "$sseq" ]
	}
	wait_until 120 "a stall kept in rec.incidents" _stall_kept
	# 600 records past the stall
	_past_the_stall() {
		seq=$(tail -n 1 "$WORK/rec" 2>/dev/null | jq -r '.seq // 0' 2>/dev/null)
		[ "${seq:-0}" -ge $((sseq + 600)) ]
	}
	wait_until 300 "600 records past the stall" _past_the_stall
	kill -KILL $rpid
	wait $rpid 2>/dev/null
	log "killed at record $seq after $(grep -c . "$WORK/rec") lines in rec; $(cd "$WORK" && echo rec*)"
	check "600 records past the stall (its seq $sseq, the last $seq)" [ "${seq:-0}" -ge $((sseq + 600)) ]
	check "the set no longer has the destroy" bash -c "! grep -q '\"event\":\"destroy\"' '$WORK'/rec '$WORK'/rec.1 '$WORK'/rec.2"
	check "nor a record naming the holder" bash -c "! grep -q 'pid $pid ppgen' '$WORK'/rec '$WORK'/rec.1 '$WORK'/rec.2"
	for f in "$WORK"/rec*; do
		total=$((total + $(stat -c %s "$f")))
	done
	check "the disk bound: (3 + 1) x 64 KiB ($total bytes)" [ "$total" -le $((4 * 65536)) ]
	valid_records "$WORK"/rec.incidents
	"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pm.json" 2>/dev/null
	check "postmortem: a stalled pool, exit 1 ($?)" [ $? -eq 1 ]
	f=$(jq -c --arg ns "$(lab_netns_ino)" '[.pools[] | select((.netns | tostring) == $ns)] | first' "$WORK/pm.json")
	log "$(jq -c '{id, state, stalled, inflight, t: [.timeline[].event], h: [.holders.holders[]?.holder]}' <<<"$f")"
	check "names the zombie pool" jq -e '.state == "zombie" and .stalled and .inflight > 0' <<<"$f" >/dev/null
	check "and its holder's pid, once" jq -e --arg p "pid $pid ppgen" '[.holders.holders[] | select(.holder | contains($p))] | length == 1' <<<"$f" >/dev/null
	check "the destroy and the stall, as recorded" \
		jq -e '[.timeline[] | select(.derived | not) | .event] | index("destroy") and index("stalled")' <<<"$f" >/dev/null
	check "its oldest pages" jq -e '.oldest_pages | length > 0' <<<"$f" >/dev/null
	check "read from FILE.incidents" jq -e 'any(.input.files[]; .incidents)' "$WORK/pm.json" >/dev/null
	check "and says the recorder did not end" jq -e 'any(.runs[]; .end == "killed")' "$WORK/pm.json" >/dev/null
}

sigkill_during_an_incident() {
	require_kernel
	workdir
	local pid rpid pm
	lab_begin
	"$PPWATCH" -v record -o "$WORK/rec" --max-size 256k --max-files 4 --stall-after 1s \
		--snapshot-every 0.2 2>"$WORK/err" &
	rpid=$!
	wait_attached "$WORK/err" $rpid
	read -r pid _ _ < <(lab_hold 250 3000) || fail "holder"
	lab_xdp_off
	# the destroy starts a holder scan at once: wait until it is in the
	# file, and the stall (--stall-after 1s), then kill
	_scanned_and_stalled() {
		grep -q "\"type\":\"holders\".*pid $pid ppgen" "$WORK"/rec* 2>/dev/null &&
			grep -q '"event":"stalled"' "$WORK"/rec* 2>/dev/null
	}
	wait_until 120 "the destroy's holder scan and the stall in the recording" _scanned_and_stalled
	kill -KILL $rpid
	wait $rpid 2>/dev/null
	log "killed after $(cat "$WORK"/rec* | wc -l) records in $(find "$WORK" -name 'rec*' ! -name err | wc -l) files"
	check "no end record: it was killed" [ -z "$(grep -h '"type":"end"' "$WORK"/rec*)" ]
	"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pm.json" 2>"$WORK/pm.err"
	check "postmortem: a stalled pool, exit 1 ($?)" [ $? -eq 1 ]
	pm=$(jq -c --arg ns "$(lab_netns_ino)" '[.pools[] | select((.netns | tostring) == $ns)] | first' "$WORK/pm.json")
	log "$(jq -c '{id, state, stalled, inflight, h: [.holders.holders[]?.holder]}' <<<"$pm")"
	check "names the zombie pool" jq -e '.state == "zombie" and .stalled and .inflight == 250' <<<"$pm" >/dev/null
	check "and its holder's pid" jq -e --arg p "pid $pid ppgen" 'any(.holders.holders[]; .holder | contains($p))' <<<"$pm" >/dev/null
	check "the destroy recorded" jq -e 'any(.timeline[]; .event == "destroy" and (.derived | not))' <<<"$pm" >/dev/null
}

# the destroy event, and the holder scan it starts, are on disk before the
# recorder goes on: an fdatasync right after each (strace(1) sees the calls)
what_matters_is_synced() {
	require_kernel
	workdir
	command -v strace >/dev/null || skip "no strace (deps/debian.txt)"
	local rpid ppid log=$WORK/strace d h
	lab_begin
	lab_hold 100 1000 >/dev/null || fail "holder"
	strace -f -qq -s 256 -e trace=write,fdatasync -o "$log" \
		"$PPWATCH" -v record -o "$WORK/rec" --snapshot-every 0.5 2>"$WORK/err" &
	rpid=$!
	_attached_traced() { grep -q 'loaded and attached' "$WORK/err" || { kill -0 "$rpid" 2>/dev/null || return 0; false; }; }
	wait_until 120 "record under strace to attach" _attached_traced
	# ppwatch's own pid: strace does not pass SIGINT on to the program it runs
	ppid=$(sed -n 's/.*loaded and attached .*(pid \([0-9]*\)).*/\1/p' "$WORK/err")
	[ -n "$ppid" ] || { kill $rpid; fail "record did not start: $(cat "$WORK/err")"; }
	at_exit "kill $ppid 2>/dev/null"
	lab_xdp_off
	_written() { grep -q '"type":"holders"' "$WORK/rec" && grep -q '"event":"destroy"' "$WORK/rec"; }
	wait_until 120 "the destroy and its holder scan in the recording" _written
	# and strace has seen the sync after the scan (its pages records with it)
	_synced() { awk '/type\\":\\"holders/ { h = 1 } h && /fdatasync\(/ { s = 1 } END { exit !s }' "$log"; }
	wait_until 120 "the sync after the holder scan" _synced
	kill -INT "$ppid"
	wait $rpid
	# the writes to the recording and the syncs, in order
	grep -E 'write\([0-9]+, "\{\\"type|fdatasync' "$log" | sed -E 's/^[0-9]+ +//' >"$log.seq"
	d=$(grep -n '\\"event\\":\\"destroy\\"' "$log.seq" | head -1 | cut -d: -f1)
	[ -n "$d" ] || fail "no destroy record written: $(head -c 300 "$log.seq")"
	log "after the destroy record: $(sed -n "$((d + 1)),$((d + 3))p" "$log.seq" | cut -c1-60 | tr '\n' '|')"
	check "an fdatasync right after the destroy record" sed -n "$((d + 1))p" "$log.seq" | grep -q '^fdatasync('
	h=$(tail -n +"$d" "$log.seq" | grep -n 'type\\":\\"holders' | head -1 | cut -d: -f1)
	[ -n "$h" ] || fail "no holder scan after the destroy"
	check "and after the holder scan it started (with its pages records)" \
		bash -c "tail -n +$((d + h)) '$log.seq' | grep -m1 -v 'type\\\\\":\\\\\"pages' | grep -q '^fdatasync('"
	check "snapshots are not synced" [ "$(awk 'prev && /^fdatasync/ { n++ } { prev = /type\\":\\"snapshot/ } END { print n + 0 }' "$log.seq")" -eq 0 ]
}

restart_keeps_the_last_recording() {
	require_kernel
	workdir
	"$PPWATCH" record -o "$WORK/rec" 0.3 2>"$WORK/err" || fail "record: $(cat "$WORK/err")"
	echo '{"type":"event","event":{"event":"marker"}}' >>"$WORK/rec"
	"$PPWATCH" record -o "$WORK/rec" 0.3 2>"$WORK/err" || fail "record again: $(cat "$WORK/err")"
	check "the first recording is rec.1 now" grep -q '"marker"' "$WORK/rec.1"
	check "rec is the new one" bash -c "! grep -q marker '$WORK/rec'"
	whole_records "$WORK/rec" "$WORK/rec.1"
	# no limit: one file, started over
	"$PPWATCH" record -o "$WORK/one" --max-size 0 0.3 2>/dev/null || fail "record --max-size 0"
	"$PPWATCH" record -o "$WORK/one" --max-size 0 0.3 2>/dev/null || fail "record --max-size 0"
	check "--max-size 0: no rotation" [ ! -e "$WORK/one.1" ]
	"$PPWATCH" record -o - --max-files 2 1 >/dev/null 2>"$WORK/err"
	check "rotation of stdout refused, exit 2" [ $? -eq 2 ]
	check "says why" grep -q 'standard output is not one' "$WORK/err"
}

full_disk_loses_records_and_says() {
	require_kernel
	workdir
	command -v unshare >/dev/null || skip "no unshare(1) for a private tmpfs"
	lab_begin # a pool, so that snapshots are not tiny
	# a private 256 KiB tmpfs with 8 KiB free; room comes back once records
	# are lost, and the recording ends once it has said so in a gap record:
	# each step waits for its event (600 s in all: a hang), none for a time
	unshare -m bash -c '
		mount -t tmpfs -o size=256k,mode=0700 ppwatch-full "$1" || exit 4
		head -c 253952 /dev/zero >"$1/filler"
		"$2" -v record -o "$1/rec" --max-size 0 --snapshot-every 0.01 2>"$1/err" &
		rpid=$!
		end=$((SECONDS + 600))
		until grep -q "records are lost" "$1/err"; do
			[ $SECONDS -lt $end ] && kill -0 $rpid || { cat "$1/err"; exit 1; }
			sleep 0.05
		done
		rm "$1/filler"
		until grep -q "\"type\":\"gap\"" "$1/rec"; do
			[ $SECONDS -lt $end ] && kill -0 $rpid || { cat "$1/err"; exit 1; }
			sleep 0.05
		done
		kill -INT $rpid
		wait $rpid || { cat "$1/err"; exit 1; }
		cp "$1/rec" "$1/err" "$3/"
	' _ "$WORK/mnt" "$PPWATCH" "$WORK" 2>&1
	case $? in
	0) ;;
	4) skip "cannot mount a tmpfs here" ;;
	*) fail "a recording on a full tmpfs" ;;
	esac
	log "$(grep -E 'lost|rotations' "$WORK/err" | tr '\n' ' ')"
	check "warned that records are lost" grep -q 'records are lost until there is room' "$WORK/err"
	check "a gap record" grep -q '"type":"gap".*"what":"writing","errno":28,"error":"No space left on device"' "$WORK/rec"
	valid_records "$WORK/rec"
	pm "$WORK/rec"
	check "postmortem says so" grep -q '^the recorder could not write [0-9]* records\? (No space left on device): the recording has gaps$' <<<"$OUT"
}

# The disk fills while the holder scan a destroy starts is written (its
# oldest pages, in parts): the parts that do not fit are lost and counted,
# the gap is said when there is room again, every line is a whole record,
# and postmortem still names the zombie and its holder.
full_disk_during_a_holder_scan() {
	require_kernel
	workdir
	command -v unshare >/dev/null || skip "no unshare(1) for a private tmpfs"
	local pid
	lab_begin
	read -r pid _ < <(lab_hold 300 1000) || fail "holder"
	# 40 KiB free once the recording has begun (the host's other pools, each
	# a "new" event at the start, may take any room): the destroy, the scan's
	# pool; not 300 oldest pages too
	# Each step waits for its event (600 s in all: a hang); the recording
	# ends once a snapshot follows the gap, not after a duration the steps
	# had to fit in.
	unshare -m bash -c '
		mount -t tmpfs -o size=8m,mode=0700 ppwatch-full "$1" || exit 4
		"$2" -v record -o "$1/rec" --max-size 0 --snapshot-every 5 --oldest-pages 300 \
			--stall-after 1s 2>"$1/err" &
		rpid=$!
		end=$((SECONDS + 600))
		alive() { [ $SECONDS -lt $end ] && kill -0 $rpid || { cat "$1/err"; exit 1; }; }
		until grep -q "loaded and attached" "$1/err"; do alive "$1"; sleep 0.05; done
		# the start'"'"'s burst written (a quiet tenth of a second)
		n=-1
		for _ in $(seq 50); do
			[ "$(stat -c %s "$1/rec" 2>/dev/null)" = "$n" ] && break
			n=$(stat -c %s "$1/rec" 2>/dev/null); sleep 0.1
		done
		head -c $(($(df -B1 --output=avail "$1" | tail -n 1) - 40960)) /dev/zero >"$1/filler" 2>/dev/null
		$4
		until grep -q "records are lost" "$1/err"; do alive "$1"; sleep 0.05; done
		# the scenario: the disk stays full a moment longer (nothing is
		# asserted of the time)
		sleep 0.5
		rm "$1/filler"
		until jq -e -s "(map(.type) | index(\"gap\")) as \$g | \$g != null and (map(.type) | rindex(\"snapshot\")) > \$g" "$1/rec" >/dev/null 2>&1; do
			alive "$1"; sleep 0.05
		done
		kill -INT $rpid
		wait $rpid || { cat "$1/err"; exit 1; }
		cp "$1/rec" "$1/err" "$3/"
	' _ "$WORK/mnt" "$PPWATCH" "$WORK" "bash $TOP/tests/lab/lab.sh xdp-off" 2>&1
	case $? in
	0) ;;
	4) skip "cannot mount a tmpfs here" ;;
	*) fail "a recording on a full tmpfs" ;;
	esac
	log "$(grep -E 'lost|rotations' "$WORK/err" | tr '\n' ' ')"
	check "the destroy got in" grep -q '"event":"destroy"' "$WORK/rec"
	check "records lost: said on stderr" grep -q 'records are lost until there is room' "$WORK/err"
	check "a gap record with what was lost" \
		jq -e -s 'any(.[]; .type == "gap" and .what == "writing" and .lost_records > 0 and .until)' "$WORK/rec" >/dev/null
	check "the recording went on after it: the freed pool's end" \
		jq -e -s '(map(.type) | index("gap")) < (map(.type) | rindex("snapshot")) and .[-1].type == "end"' "$WORK/rec" >/dev/null
	valid_records "$WORK/rec"
	"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pm.json" 2>/dev/null
	check "postmortem: the lost records counted" jq -e '.lost_records > 0' "$WORK/pm.json" >/dev/null
	check "postmortem: the zombie and its holder" jq -e --arg p "pid $pid ppgen" \
		'any(.pools[]; .state == "zombie" and any(.holders.holders[]?; .holder | contains($p)))' "$WORK/pm.json" >/dev/null
}

# A holder scan that fails (injected from outside: reads of the BPF
# iterators fail with EIO for a second, as a walk that made no progress
# does) is a gap,
# begun and ended, and the recording goes on; postmortem lists it.
transient_errors_are_gaps() {
	require_kernel
	workdir
	local inj=$OUTPUT/lab/faultinj.so
	[ -f "$inj" ] || fail "$inj missing: run make"
	lab_begin
	lab_hold 50 1000 >/dev/null || fail "holder"
	# every iterator read fails once a scan is recorded, until the gap is
	record_with_gap "$WORK/rec" "$WORK/err" --scan-every 0.3 --snapshot-every 0.5
	check "exit 0: it went on ($?)" [ $? -eq 0 ]
	log "$(grep -i 'holder scan' "$WORK/err" | head -3 | tr '\n' ' ')"
	check "warned, once a minute at most" [ "$(grep -c 'record: holder scan failed: Input/output error; recording on' "$WORK/err")" -eq 1 ]
	check "the gap begun" jq -e -s 'any(.[]; .type == "gap" and .what == "holder scan" and .errno == 5 and (has("until") | not))' "$WORK/rec" >/dev/null
	check "and ended, with how often it failed" jq -e -s 'any(.[]; .type == "gap" and .what == "holder scan" and .until > .since and .failures >= 1)' "$WORK/rec" >/dev/null
	check "scans after it" jq -e -s '(map(.type == "gap" and has("until")) | index(true)) < (map(.type) | rindex("holders"))' "$WORK/rec" >/dev/null
	check "an end record: not ended by it (by the test's SIGINT)" jq -e -s '.[-1].type == "end" and .[-1].ended == "signal" and .[-1].gaps >= 1' "$WORK/rec" >/dev/null
	valid_records "$WORK/rec"
	"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pm.json" 2>/dev/null
	check "postmortem lists the gap" jq -e 'any(.gaps[]; .what == "holder scan" and .error == "Input/output error" and .until)' "$WORK/pm.json" >/dev/null
	pm "$WORK/rec"
	check "and says it" grep -q 'holder scan failed' <<<"$OUT"
}

# Killed (SIGKILL) again and again at any moment of fast rotations, and
# restarted each time: the set is always whole: no file past FILE.2, each
# starting with a header, whole records but the last line of a file,
# within the disk bound, read by postmortem.
sigkill_during_rotations() {
	require_kernel
	workdir
	local i rpid f total bad=0 max=16384
	lab_begin
	for i in $(seq 12); do
		"$PPWATCH" -v record -o "$WORK/rec" --max-size 16k --max-files 3 \
			--snapshot-every 0.002 --scan-every 0.05 30 2>"$WORK/err.$i" &
		rpid=$!
		wait_attached "$WORK/err.$i" $rpid
		# a file fills in a few hundredths of a second: the kill lands anywhere
		sleep "0.$((RANDOM % 6))$((RANDOM % 10))"
		kill -KILL $rpid
		wait $rpid 2>/dev/null
		total=0
		for f in "$WORK"/rec*; do
			total=$((total + $(stat -c %s "$f")))
			[ "$(stat -c %s "$f")" -le $max ] || { log "kill $i: $f is $(stat -c %s "$f") bytes"; bad=1; }
			[ ! -s "$f" ] || head -1 "$f" | jq -e '.type == "header"' >/dev/null ||
				{ log "kill $i: $f starts with no header"; bad=1; }
			head -n -1 "$f" | jq -e -s 'all(.[]; has("type"))' >/dev/null ||
				{ log "kill $i: $f has a damaged line before its last"; bad=1; }
		done
		[ ! -e "$WORK/rec.3" ] || { log "kill $i: rec.3 exists"; bad=1; }
		[ "$total" -le $((4 * max)) ] || { log "kill $i: $total bytes"; bad=1; }
		"$PPWATCH" -j postmortem "$WORK/rec" >"$WORK/pm.json" 2>"$WORK/pm.err"
		case $? in 0 | 1) ;; *) log "kill $i: postmortem: $(cat "$WORK/pm.err")"; bad=1 ;; esac
	done
	log "after 12 kills: $(cat "$WORK"/rec* | wc -l) lines in $(find "$WORK" -name 'rec*' | wc -l) files"
	check "the set whole after every kill" [ $bad -eq 0 ]
	check "files only root reads" [ "$(stat -c %a "$WORK"/rec* | sort -u)" = 600 ]
}

zero_intervals_refused() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	local o
	for o in --snapshot-every --scan-every; do
		"$PPWATCH" record -o /dev/null "$o" 0 1 >/dev/null 2>"$WORK.err"
		check "$o 0: exit 2" [ $? -eq 2 ]
		check "$o 0: says why" grep -q -e "$o '0': expected an interval of 1ms or more" "$WORK.err"
	done
	rm -f "$WORK.err"
}

# postmortem FILE: sets RC, OUT (text)
pm() {
	OUT=$(timeout 120 "$PPWATCH" postmortem "$@" 2>&1)	# 120 s: a hang
	RC=$?
}

cut_and_damaged_recordings() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	workdir
	local lab=$TOP/tests/fuzz/corpus/postmortem/lab-recording.jsonl len last c n=0 bad=0
	len=$(stat -c %s "$lab")
	last=$(($(head -n -1 "$lab" | wc -c)))
	# the issue's case: the last 30 bytes cut off
	head -c $((len - 30)) "$lab" >"$WORK/cut"
	pm "$WORK/cut"
	log "cut 30 bytes: exit $RC: $(grep 'is cut' <<<"$OUT")"
	check "a report, exit 0" [ $RC -eq 0 ]
	check "says where" grep -qx "$WORK/cut is cut at byte $((len - 30)): its last record is incomplete" <<<"$OUT"
	check "both pools" grep -q '^ppwatch post-mortem .*: 2 pools$' <<<"$OUT"
	# every byte of the last record, and every 997th before it (past the header)
	for c in $(seq "$(head -1 "$lab" | wc -c)" 997 "$last") $(seq "$last" $((len - 1))); do
		head -c "$c" "$lab" >"$WORK/cut"
		pm "$WORK/cut"
		n=$((n + 1))
		if [ $RC -ne 0 ] || { [ "$c" -gt "$last" ] && [ "$c" -lt $((len - 1)) ] &&
			! grep -q "is cut at byte $c:" <<<"$OUT"; }; then
			bad=$((bad + 1))
			log "cut at $c: exit $RC: $(head -3 <<<"$OUT")"
		fi
	done
	log "$n cuts read"
	check "every cut read, and said" [ $bad -eq 0 ]
	# damaged lines in the middle, a NUL block (what a power cut can leave), raw bytes
	{
		head -n 10 "$lab"
		echo 'garbage'
		head -c 512 /dev/zero
		echo
		printf '{"type":"event","event":{"time":1796057666,"event":"nid","addr":"0xffff888257572800","gen":1,"detail":"n\377d"}}\n'
		tail -n +11 "$lab"
	} >"$WORK/damaged"
	pm "$WORK/damaged"
	log "$(grep -E 'damaged|UTF-8' <<<"$OUT")"
	check "a report, exit 0 ($RC)" [ $RC -eq 0 ]
	check "2 damaged lines skipped, named" grep -q "^2 damaged lines skipped: $WORK/damaged:11 (column [0-9]*: .*); $WORK/damaged:12 (" <<<"$OUT"
	check "the raw byte read" grep -qF '1 line had bytes that are not UTF-8: read, shown as \xHH' <<<"$OUT"
	check "both pools" grep -q ': 2 pools$' <<<"$OUT"
	"$PPWATCH" -j postmortem "$WORK/damaged" >"$WORK/pm.json"
	check "JSON: the escaped detail" jq -e '[.pools[].timeline[] | select(.event == "nid")] | .[0].detail == "n\\xffd"' "$WORK/pm.json" >/dev/null
	# a rotated set with the older file cut: the message names it
	head -c 5000 "$lab" >"$WORK/set.1"
	cp "$lab" "$WORK/set"
	pm "$WORK/set"
	check "FILE.1 cut: said" grep -qx "$WORK/set.1 is cut at byte 5000: its last record is incomplete" <<<"$OUT"
	check "read both, oldest first" grep -q "^read 2 files, oldest first: $WORK/set.1, $WORK/set (" <<<"$OUT"
	# nothing readable: exit 2
	head -c 100 /dev/urandom | tr -d '\n' >"$WORK/noise"
	pm "$WORK/noise"
	check "nothing readable: exit 2 ($RC)" [ $RC -eq 2 ]
	check "says why" grep -q "nothing readable in $WORK/noise" <<<"$OUT"
}

big_recording_bounded_memory() {
	[ -x "$PPWATCH" ] || fail "$PPWATCH missing: run make"
	[ -x /usr/bin/time ] || skip "no /usr/bin/time to measure the peak RSS"
	local r
	# 200 MB, 64 pools, in 2 files (the 4 GB measurement: bench/postmortem-rss.sh 4)
	r=$(TMPDIR=/tmp "$TOP/bench/postmortem-rss.sh" 0.2 64 2) || fail "bench/postmortem-rss.sh failed"
	log "$r"
	check "read every record" jq -e '.records == .records_read' <<<"$r" >/dev/null
	check "every pool reported" jq -e '.pools_reported == 64' <<<"$r" >/dev/null
	check "peak RSS under 64 MiB for 200 MB" jq -e '.peak_rss_bytes < 64 * 1048576' <<<"$r" >/dev/null
}

run_tests
