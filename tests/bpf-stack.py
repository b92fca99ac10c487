#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Each BPF program's worst call chain, by Linux 6.1's verifier rules.

    bpf-stack.py [--max-bytes N] [--max-frames N] [--limit PROG=BYTES/FRAMES]... OBJ

Reads a BPF object (the linked .output/ppwatch.bpf.o: calls between the
hook families' objects are resolved there) with nothing but the standard
library, and for every program prints its deepest call chain as the
verifier of Linux 6.1 measures it (kernel/bpf/verifier.c,
check_max_stack_depth()):

  - every bpf-to-bpf call and every callback a function passes to a helper
    (bpf_loop, bpf_for_each_map_elem: an ld_imm64 of a function) is one
    more frame; at most 8 frames (MAX_CALL_FRAMES);
  - each frame's stack is rounded up to 32 bytes (at least 32); all the
    frames of a chain together at most 512 bytes (MAX_BPF_STACK).

A function's stack is the deepest r10-relative byte its instructions
touch: loads and stores off r10, and pointers made from r10 (rX = r10;
rX += -N) that it passes on or dereferences. That is what the verifier
records as the function's stack_depth, unless a path that reaches the
deepest slot is dead code it never walks (then the figure here is the
larger, the safe side).

Exit status 1 when a program's worst chain is over --max-bytes or
--max-frames (defaults 448 and 7: room under 512 and 8), or over its
own --limit (a fnmatch pattern of program names); 0 otherwise. One line
per program: NAME BYTES B FRAMES frames: f1(N) > f2(N) > ...
"""
import argparse
import fnmatch
import struct
import sys

SHT_SYMTAB, SHT_REL = 2, 9
SHF_EXECINSTR = 0x4
STT_FUNC, STT_SECTION = 2, 3
MAX_BPF_STACK, MAX_CALL_FRAMES = 512, 8


def parse_elf(data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF object")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, flags, _addr, off, size, link, info, _al, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        secs.append(dict(name_off=name, type=typ, flags=flags, off=off, size=size,
                         link=link, info=info, entsize=entsize))
    shstr = secs[shstrndx]

    def cstr(sec, off):
        start = sec["off"] + off
        return data[start:data.index(b"\0", start)].decode()

    for s in secs:
        s["name"] = cstr(shstr, s["name_off"])
    syms = []
    symtab = next(s for s in secs if s["type"] == SHT_SYMTAB)
    strtab = secs[symtab["link"]]
    for i in range(symtab["size"] // 24):
        name, info, _other, shndx, value, size = struct.unpack_from(
            "<IBBHQQ", data, symtab["off"] + i * 24)
        syms.append(dict(name=cstr(strtab, name), type=info & 0xF, shndx=shndx,
                         value=value, size=size))
    relocs = {}  # (section index, byte offset) -> symbol
    for s in secs:
        if s["type"] != SHT_REL:
            continue
        for i in range(s["size"] // 16):
            off, info = struct.unpack_from("<QQ", data, s["off"] + i * 16)
            relocs[(s["info"], off)] = syms[info >> 32]
    return secs, syms, relocs


def insns(data, sec):
    """(byte offset, code, dst, src, off, imm) of a section's instructions"""
    base, n = sec["off"], sec["size"]
    for at in range(0, n, 8):
        code, regs, off, imm = struct.unpack_from("<BBhi", data, base + at)
        yield at, code, regs & 0xF, regs >> 4, off, imm


class Func:
    def __init__(self, name, shndx, start, size, is_prog):
        self.name, self.shndx, self.start, self.end = name, shndx, start, start + size
        self.is_prog = is_prog
        self.stack = 0
        self.callees = []  # Func, in the order of the calls


def frame_bytes(data, sec, f):
    """the deepest r10-relative byte function f touches"""
    deepest = 0
    fp = {}  # register -> its offset from r10, while it holds one
    skip = False
    for at, code, dst, src, off, imm in insns(data, sec):
        if at < f.start or at >= f.end:
            continue
        if skip:  # the second half of an ld_imm64
            skip = False
            continue
        cls = code & 7
        if code == 0x18:
            skip = True
            fp.pop(dst, None)
            continue
        if cls in (1, 0):  # LDX (LD is only ld_imm64 and the legacy packet loads)
            if cls == 1:
                base = 0 if src == 10 else fp.get(src)
                if base is not None:
                    deepest = max(deepest, -(base + off))
            fp.pop(dst, None)
        elif cls in (2, 3):  # ST, STX (atomics too)
            base = 0 if dst == 10 else fp.get(dst)
            if base is not None:
                deepest = max(deepest, -(base + off))
            if cls == 3 and (code & 0xE0) == 0xC0 and imm & 1:  # atomic fetch: src written
                fp.pop(src, None)
            if cls == 3 and (code & 0xE0) == 0xC0 and imm == 0xF1:  # cmpxchg: r0
                fp.pop(0, None)
        elif cls == 7:  # ALU64
            op, use_reg = code & 0xF0, code & 8
            if op == 0xB0 and use_reg:  # mov reg
                if src == 10:
                    fp[dst] = 0
                elif src in fp:
                    fp[dst] = fp[src]
                else:
                    fp.pop(dst, None)
            elif op in (0x00, 0x10) and not use_reg and dst in fp:  # add/sub imm
                fp[dst] += imm if op == 0x00 else -imm
                deepest = max(deepest, -fp[dst])
            else:
                fp.pop(dst, None)
        elif cls == 4:  # ALU (32-bit): no pointer survives
            fp.pop(dst, None)
        elif cls in (5, 6) and (code & 0xF0) == 0x80:  # call: r0..r5 clobbered
            for r in range(6):
                fp.pop(r, None)
    return deepest


def build(path):
    with open(path, "rb") as fh:
        data = fh.read()
    secs, syms, relocs = parse_elf(data)
    funcs = []
    for s in syms:
        if s["type"] != STT_FUNC or not s["shndx"] or s["shndx"] >= len(secs):
            continue
        sec = secs[s["shndx"]]
        if not sec["flags"] & SHF_EXECINSTR:
            continue
        funcs.append(Func(s["name"], s["shndx"], s["value"], s["size"],
                          sec["name"] != ".text"))
    by_start = {(f.shndx, f.start): f for f in funcs}

    def target(shndx, at):
        f = by_start.get((shndx, at))
        if f is None:
            raise ValueError("a call or callback to %s+%#x, where no function starts"
                             % (secs[shndx]["name"], at))
        return f

    for f in funcs:
        sec = secs[f.shndx]
        f.stack = frame_bytes(data, sec, f)
        skip = False
        for at, code, _dst, src, _off, imm in insns(data, sec):
            if at < f.start or at >= f.end:
                continue
            if skip:
                skip = False
                continue
            rel = relocs.get((f.shndx, at))
            if code == 0x18:
                skip = True
                if rel and rel["shndx"] < len(secs) and \
                        secs[rel["shndx"]]["flags"] & SHF_EXECINSTR and \
                        rel["type"] in (STT_FUNC, STT_SECTION):
                    # a function's address: a callback (BPF_PSEUDO_FUNC)
                    f.callees.append(target(rel["shndx"], rel["value"] + imm))
            elif code == 0x85 and src == 1:  # BPF_PSEUDO_CALL
                if rel:
                    f.callees.append(target(rel["shndx"], rel["value"] + (imm + 1) * 8))
                else:
                    f.callees.append(target(f.shndx, at + (imm + 1) * 8))
    return funcs


def round_frame(n):
    return (max(n, 1) + 31) // 32 * 32


def worst_chain(prog):
    """(bytes, frames, chain) of the deepest chain by bytes, then by frames"""
    best = (0, 0, [])
    # an explicit stack: (function, chain so far, bytes so far)
    todo = [(prog, [prog], round_frame(prog.stack))]
    while todo:
        f, chain, depth = todo.pop()
        if len(chain) > 64:
            raise ValueError("%s: a call cycle (%s)" % (prog.name, " > ".join(
                c.name for c in chain[-4:])))
        if (depth, len(chain)) > best[:2]:
            best = (depth, len(chain), chain)
        for c in dict.fromkeys(f.callees):
            todo.append((c, chain + [c], depth + round_frame(c.stack)))
    worst_frames = 0
    todo = [(prog, 1)]
    while todo:
        f, n = todo.pop()
        worst_frames = max(worst_frames, n)
        todo.extend((c, n + 1) for c in dict.fromkeys(f.callees))
    return best[0], worst_frames, best[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-bytes", type=int, default=448)
    ap.add_argument("--max-frames", type=int, default=7)
    ap.add_argument("--limit", action="append", default=[],
                    help="PATTERN=BYTES/FRAMES: a tighter budget for the programs it names")
    ap.add_argument("obj")
    a = ap.parse_args()
    limits = []
    for l in a.limit:
        pat, _, lim = l.partition("=")
        b, _, fr = lim.partition("/")
        limits.append((pat, int(b), int(fr)))
    try:
        funcs = build(a.obj)
    except (OSError, ValueError, StopIteration, struct.error) as e:
        print("bpf-stack: %s: %s" % (a.obj, e), file=sys.stderr)
        return 2
    bad = 0
    for p in sorted((f for f in funcs if f.is_prog), key=lambda f: f.name):
        depth, frames, chain = worst_chain(p)
        mb, mf, why = a.max_bytes, a.max_frames, "the budget"
        for pat, b, fr in limits:
            if fnmatch.fnmatchcase(p.name, pat):
                mb, mf, why = min(mb, b), min(mf, fr), "its limit " + pat
        over = depth > mb or frames > mf
        bad |= over
        print("%s %s %d B %d frames: %s%s" % (
            "FAIL" if over else "ok  ", p.name, depth, frames,
            " > ".join("%s(%d)" % (c.name, c.stack) for c in chain),
            "  [over %s: %d B / %d frames]" % (why, mb, mf) if over else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
