#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What 'ppwatch postmortem' needs to read a big recording: peak resident
# memory and time, for a recording of SIZE GB made of a lab recording's
# real records (tests/fuzz/corpus/postmortem/lab-recording.jsonl) laid end
# to end with their times shifted, as a recorder running for weeks would
# write them, rotated into FILES files as 'record --max-files' would. With
# POOLS > 2, each copy of the lab recording names other pools, POOLS in all
# (a host with that many queues). No root; the recording goes to a scratch
# directory (it is big: SIZE GB) and is removed afterwards.
#
#   bench/postmortem-rss.sh [SIZE_GB [POOLS [FILES]]]     (default 4 2 4)
#
# Prints one line of JSON: bytes, files, pools, records, peak_rss_bytes,
# elapsed_s, mb_per_s, exit (postmortem's exit status).
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-.output}
PPWATCH=${PPWATCH:-$OUTPUT/ppwatch}
size_gb=${1:-4} pools=${2:-2} files=${3:-4}
[ -x "$PPWATCH" ] || { echo "no $PPWATCH: run make" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/ppwatch-pm-rss.XXXXXX")
trap 'rm -rf "$dir"' EXIT

python3 - "$size_gb" "$pools" "$files" "$dir/rec.jsonl" \
	tests/fuzz/corpus/postmortem/lab-recording.jsonl <<'EOF'
import re, sys
size = float(sys.argv[1]) * 1e9
pools, nfiles, out, src = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
lines = open(src).read().splitlines()
header, body = lines[0], [l for l in lines[1:] if '"type":"end"' not in l]
addrs = sorted(set(re.findall(r'"addr":"(0x[0-9a-f]+)"', "\n".join(body))))
t0 = float(re.search(r'"time":([0-9.]+)', header).group(1))
span = float(re.search(r'"time":([0-9.]+)', body[-1]).group(1)) - t0 + 1
# each line as its parts around its times, so a copy only formats numbers
num = re.compile(r'("time":)([0-9.]+)')
def template(text):
    parts, times = [], []
    pos = 0
    for m in num.finditer(text):
        parts.append(text[pos:m.end(1)])
        times.append(float(m.group(2)) - t0)
        pos = m.end()
    parts.append(text[pos:])
    return parts, times
variants = []
for v in range(max(1, pools // max(1, len(addrs)))):
    text = "\n".join(body)
    for i, a in enumerate(addrs):
        text = text.replace(a, "0x%x" % (int(a, 16) + v * 0x100000))
    variants.append([template(l) for l in text.splitlines()])
per_file = size / nfiles
written, copy, k = 0, 0, nfiles - 1
while k >= 0:
    name = out + ("." + str(k) if k else "")
    with open(name, "w", buffering=1 << 22) as f:
        f.write(header + "\n")
        n = len(header) + 1
        while n < per_file:
            off = t0 + copy * span
            chunk = []
            for parts, times in variants[copy % len(variants)]:
                s = parts[0]
                for i, t in enumerate(times):
                    s += "%.6f" % (off + t) + parts[i + 1]
                chunk.append(s)
            chunk = "\n".join(chunk) + "\n"
            f.write(chunk)
            n += len(chunk)
            copy += 1
        written += n
    k -= 1
print("made %d bytes in %d files, %d copies of the lab recording" % (written, nfiles, copy),
      file=sys.stderr)
EOF
bytes=$(cat "$dir"/rec.jsonl* | wc -c)
records=$(cat "$dir"/rec.jsonl* | wc -l)
rc=0
/usr/bin/time -f '%M %e' -o "$dir/time" "$PPWATCH" -j postmortem "$dir/rec.jsonl" >"$dir/report.json" || rc=$?
read -r rss_kb secs <"$dir/time"
jq -c -n --argjson bytes "$bytes" --argjson files "$files" --argjson records "$records" \
	--argjson rss "$((rss_kb * 1024))" --argjson secs "$secs" --argjson rc "$rc" \
	--argjson reported "$(jq '.pools | length' "$dir/report.json")" \
	--argjson read "$(jq '.input.records' "$dir/report.json")" --argjson pools "$pools" \
	'{bytes: $bytes, files: $files, pools: $pools, records: $records, records_read: $read,
	  pools_reported: $reported, peak_rss_bytes: $rss, elapsed_s: $secs,
	  mb_per_s: ($bytes / 1e6 / $secs | floor), exit: $rc}'
