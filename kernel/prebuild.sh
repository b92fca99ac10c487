#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make test's kernels, built while the host suite runs. 'make test' starts
# 'make kernel-build' (prepare the trees, build the build lines, fetch the
# package lines of make test's set) in the background before it builds
# ppwatch, at nice 10, so the kernel builds take the cores the host's
# serial builds and its tests, which mostly wait on events, leave idle;
# tests/run.sh's kernel layer waits for it, then runs kernel-test, which
# finds the kernels built (and builds or fetches whatever the background
# run did not: its failures are the foreground's to report). A cold make
# test is shorter by the time the two overlap (kernel/README.md, "The cold
# make test budget").
#
#   kernel/prebuild.sh start   begin, if make test's layers include the
#                              kernel one and its rig can run here
#   kernel/prebuild.sh wait    until it is done; say how it went
#   kernel/prebuild.sh stop    end it if it still runs (run.sh's exit)
#
# State in $OUTPUT/kernel-prebuild.{pid,log,rc,t0}.
set -u
cd "$(dirname "$0")/.." || exit
OUTPUT=${OUTPUT:-$PWD/.output}
ST=$OUTPUT/kernel-prebuild

running() {
	local pid
	pid=$(cat "$ST.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

case "${1:-}" in
start)
	running && { echo "  kernel builds: already running (pid $(cat "$ST.pid"), $ST.log)"; exit 0; }
	rm -f "$ST.pid" "$ST.rc" "$ST.t0"
	case " ${SUITES:-kernel} " in *" kernel "*) ;; *) exit 0 ;; esac
	# no rig, or one that cannot run: the kernel layer says why itself
	[ -f kernel/kernel.mk ] || exit 0
	# a parent's jobserver is not this make's (its descriptors are closed)
	MAKEFLAGS=$(printf '%s' "${MAKEFLAGS:-}" | sed -E 's/--jobserver-(auth|fds)=[^ ]*//g; s/(^| )-j[0-9]*( |$)/ /g')
	export MAKEFLAGS
	make -s -n kernel-build >/dev/null 2>&1 || exit 0
	mkdir -p "$OUTPUT"
	date +%s >"$ST.t0"
	setsid nice -n 10 bash -c 'make -s --no-print-directory kernel-build; echo $? >"$1.rc"' \
		prebuild "$ST" </dev/null >"$ST.log" 2>&1 &
	echo $! >"$ST.pid"
	echo "  kernel builds: started in the background, nice 10 (pid $!, $ST.log)"
	;;
wait)
	[ -f "$ST.t0" ] || exit 0
	if running; then
		echo "  kernel builds: waiting for the background run (pid $(cat "$ST.pid"), $ST.log)"
		while running; do sleep 2; done
	fi
	rc=$(cat "$ST.rc" 2>/dev/null || echo '?')
	if [ "$rc" = 0 ]; then
		echo "  kernel builds: the background run ended after $(( $(date +%s) - $(cat "$ST.t0") )) s since make test's start"
	else
		echo "  kernel builds: the background run ended with status $rc; kernel-test builds again and reports why:"
		tail -n 5 "$ST.log" | sed 's/^/    /'
	fi
	rm -f "$ST.t0"
	;;
stop)
	if running; then
		echo "  kernel builds: stopping the background run (pid $(cat "$ST.pid"))"
		kill -TERM -- "-$(cat "$ST.pid")" 2>/dev/null
		while running; do sleep 1; done
	fi
	rm -f "$ST.pid" "$ST.t0"
	;;
*)
	echo "usage: kernel/prebuild.sh start|wait|stop" >&2
	exit 2
	;;
esac
