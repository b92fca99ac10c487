#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""QEMU's QMP, one command at a time (kernel/rig-vmcore.sh).

    qmp.py SOCKET COMMAND [JSON-ARGUMENTS]

Connects to QEMU's QMP unix socket, negotiates, runs COMMAND (waiting for
its answer: dump-guest-memory without detach returns when the dump is
written), prints the answer's "return" as JSON, exits 0; on an "error"
answer prints its class and description to stderr and exits 1.
"""
import json
import socket
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: qmp.py SOCKET COMMAND [JSON-ARGUMENTS]")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    f = s.makefile("rw")

    def answer():
        while True:
            line = f.readline()
            if not line:
                sys.exit("qmp: QEMU closed the connection")
            msg = json.loads(line)
            if "return" in msg or "error" in msg:
                return msg
            # greetings and asynchronous events: skipped

    json.loads(f.readline())  # the greeting
    f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
    f.flush()
    answer()
    cmd = {"execute": sys.argv[2]}
    if len(sys.argv) > 3:
        cmd["arguments"] = json.loads(sys.argv[3])
    f.write(json.dumps(cmd) + "\n")
    f.flush()
    msg = answer()
    if "error" in msg:
        e = msg["error"]
        sys.exit("qmp: %s: %s: %s" % (sys.argv[2], e.get("class"), e.get("desc")))
    print(json.dumps(msg["return"]))


if __name__ == "__main__":
    main()
