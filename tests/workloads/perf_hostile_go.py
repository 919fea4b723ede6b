#!/usr/bin/env python3
"""A runnable ELF with a hostile Go function table, for the perf plugin's tests.

perf_hostile_go.py IN OUT MB NFUNC

Copies IN (a stripped 64-bit executable) to OUT with a .gopclntab section of
MB megabytes appended: a consistent Go 1.20 header over NFUNC functions whose
names table holds 8 MiB of names, whose function table entries are in order
but whose records lie at random offsets in the rest of the section (filled
with random bytes), so a reader that copies the section holds MB megabytes
and one that reads it in place jumps around it.
"""
import random
import struct
import sys

EH = struct.Struct("<16sHHIQQQIHHHHHH")
SH = struct.Struct("<IIQQQQIIQQ")


def table(size, nfunc):
    rnd = random.Random(7)
    hdr = 0x48
    funcname = hdr
    names = b"gp_go_hostile\0" * ((8 << 20) // 14)
    cutab = funcname + len(names)
    pcln = cutab + 64
    functab = (nfunc + 1) * 8 + 4
    recs = pcln + functab
    assert recs + 4096 < size
    out = bytearray(struct.pack("<IHBBQQQQQQQQ", 0xfffffff1, 0, 1, 8, nfunc, 0,
                                0x401000, funcname, cutab, cutab, cutab, pcln))
    out += names
    out += b"\0" * (pcln - len(out))
    ft = bytearray()
    for k in range(nfunc + 1):
        ft += struct.pack("<II", k * 16, rnd.randrange(functab, size - pcln - 64))
    out += ft + b"\0" * 4
    out += rnd.randbytes(size - len(out))
    return bytes(out)


def main():
    src, dst, mb, nfunc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    data = bytearray(open(src, "rb").read())
    eh = list(EH.unpack_from(data, 0))
    shoff, shnum, shstrndx = eh[6], eh[12], eh[13]
    shdrs = [list(SH.unpack_from(data, shoff + i * SH.size)) for i in range(shnum)]
    shstr = shdrs[shstrndx]
    names = bytes(data[shstr[4]:shstr[4] + shstr[5]])
    newnames = names + b".gopclntab\0"
    out = bytearray(data)
    out += b"\0" * ((-len(out)) % 8)
    o_go = len(out)
    out += table(mb << 20, nfunc)
    out += b"\0" * ((-len(out)) % 8)
    o_names = len(out)
    out += newnames
    out += b"\0" * ((-len(out)) % 8)
    o_sh = len(out)
    shdrs[shstrndx] = [shstr[0], 3, 0, 0, o_names, len(newnames), 0, 0, 1, 0]
    shdrs.append([len(names), 1, 2, 0x900000, o_go, mb << 20, 0, 0, 32, 0])
    for s in shdrs:
        out += SH.pack(*s)
    eh[6], eh[12] = o_sh, len(shdrs)
    EH.pack_into(out, 0, *eh)
    open(dst, "wb").write(out)


main()
