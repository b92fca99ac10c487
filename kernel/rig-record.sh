# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=bash # sourced by kernel/rig.sh and kernel/report.sh
#
# The rig's result records: one per matrix line, kernel/results/NAME.env
# (what ran, on what, with which verdict) and NAME.log (the VM log's test
# lines, what kernel/report.sh makes the Results and Times tables of),
# committed with the code they passed on, so that a later run, on this
# machine or another, knows which lines it need not boot again
# ('make test-matrix' resumes) and the tables say what ran.
#
# A record's key is a hash of everything the line's verdict depends on:
#  - the code: the git trees of CODE_PATHS at HEAD (ppwatch's BPF and user
#    space, the VM tests, the lab, the rig itself, the config fragments);
#  - the matrix line as written (name, kind, sources, keys);
#  - the depth: test (make test) or matrix (make test-matrix: more tests);
#  - the kernel: a build's base level, the sha256 of its patches and of its
#    config fragments; a package's suite and every resolved package=version
#    (kernel/rig-package.sh package_resolve).
# Records are written only from a tree whose CODE_PATHS and kernel/matrix
# are as committed: a record must name the code it ran.
# Needs ROOT; rig.sh's say for messages.

RESULTS=${KERNEL_RESULTS:-$ROOT/kernel/results}
CODE_PATHS=(bpf cli tests/vm tests/lab kernel/rig.sh kernel/rig-base.sh kernel/rig-package.sh
	kernel/rig-record.sh kernel/config vmlinux Makefile)

# code_hash: the hash of CODE_PATHS at HEAD (empty outside a git checkout)
# (write_record also wants it to be the hash the run began with: a commit
# made while the VMs ran would otherwise name code they never had)
code_hash() {
	local specs=("${CODE_PATHS[@]/#/HEAD:}")
	{ git -C "$ROOT" rev-parse "${specs[@]}" 2>/dev/null || true; } | sha256sum | cut -c1-16
}

# code_clean: CODE_PATHS and kernel/matrix are as HEAD has them
code_clean() {
	git -C "$ROOT" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
		[ -z "$(git -C "$ROOT" status --porcelain -- "${CODE_PATHS[@]}" kernel/matrix 2>/dev/null)" ]
}

# rec_get NAME KEY: KEY of kernel/results/NAME.env (empty if none)
rec_get() {
	[ -f "$RESULTS/$1.env" ] || return 0
	sed -n "s/^$2=//p" "$RESULTS/$1.env" | tail -n1
}

# record_key INPUTS: the key of a line whose kernel inputs are INPUTS
# (one "k=v" a line), at this code and depth
record_key() {
	printf 'code=%s\n%s\n' "$(code_hash)" "$1" | sha256sum | cut -c1-16
}

# write_record NAME INPUTS VERDICT LOG RUNENV: kernel/results/NAME.{env,log}
# from the VM's log (LOG, the .txt one; none if it never booted) and its
# run record; nothing from a dirty tree
write_record() {
	local name=$1 inputs=$2 verdict=$3 log=$4 runenv=$5 summary l
	if ! code_clean; then
		say "$name: no result record (kernel/results): the tree differs from its commit in $(git -C "$ROOT" status --porcelain -- "${CODE_PATHS[@]}" kernel/matrix | awk '{ print $2 }' | head -n3 | tr '\n' ' ')"
		return 0
	fi
	# (RECORD_CODE: kernel/rig.sh cmd_test, when the run began)
	if [ "${RECORD_CODE:-$(code_hash)}" != "$(code_hash)" ]; then
		say "$name: no result record (kernel/results): the code the run began with ($RECORD_CODE: 'dirty' is uncommitted changes) is not HEAD's now ($(code_hash)): a commit landed during the run"
		return 0
	fi
	mkdir -p "$RESULTS"
	summary=
	if [ -f "$log" ]; then summary=$(grep '^PPVM-SUMMARY:' "$log" | tail -n1 || true); fi
	{
		echo "# kernel/rig.sh's record of '$name' (kernel/rig-record.sh): do not edit"
		echo "name=$name"
		echo "key=$(record_key "$inputs")"
		echo "code=$(code_hash)"
		while IFS= read -r l; do echo "input.$l"; done <<<"$inputs"
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "commit=$(git -C "$ROOT" rev-parse --short=12 HEAD)"
		echo "verdict=$verdict"
		grep -E '^(reason|qemu_rc|boots|vm_s|base|series|undeclared_skips)=' "$runenv" 2>/dev/null || true
		echo "build_s=${RECORD_BUILD_S:-}"
		echo "summary=${summary#PPVM-SUMMARY: }"
	} >"$RESULTS/$name.env.tmp"
	mv "$RESULTS/$name.env.tmp" "$RESULTS/$name.env"
	if [ -f "$log" ]; then
		# what kernel/report.sh reads: the tests' lines and the timed runs
		grep -E '^PPVM|^  \[run\] kind=|^  \[[0-9][^]]*\] ppwatch .* (attached after [0-9.]+ s|-> exit [0-9]+ \([0-9.]+ s\))' \
			"$log" >"$RESULTS/$name.log" || true
	else
		rm -f "$RESULTS/$name.log"
	fi
	say "$name: result record kernel/results/$name.env ($verdict, key $(record_key "$inputs")): commit it"
}
