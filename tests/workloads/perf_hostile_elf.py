#!/usr/bin/env python3
"""Runnable ELFs with hostile symbol tables, for the perf plugin's tests.

perf_hostile_elf.py IN OUT NSYMS MB [NAMES]
perf_hostile_elf.py --go IN OUT MB NFUNC

Both copy IN (a stripped 64-bit executable) to OUT with sections appended;
the program still runs (the kernel reads only its program headers), what
profiles it must read those sections to name its frames.

The first appends a .symtab of NSYMS function symbols tiling .text, named
gp_hostile_K, over a string table of MB megabytes that has no final NUL (the
last name runs to the table's end).  With NAMES, only that many names,
repeated (symbol K is named gp_hostile_{K mod NAMES}): millions of symbols
in a small table.

--go appends a .gopclntab of MB megabytes: a consistent Go 1.20 header over
NFUNC functions whose names table holds 8 MiB of names, whose function table
entries are in order but whose records lie at random offsets in the rest of
the section (random bytes), so a reader that copies the section holds MB
megabytes and one that reads it in place jumps around it.
"""
import random
import struct
import sys

EH = struct.Struct("<16sHHIQQQIHHHHHH")
SH = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHF_ALLOC = 1, 2, 3, 2


def read_elf(src):
    data = bytearray(open(src, "rb").read())
    eh = list(EH.unpack_from(data, 0))
    shoff, shnum = eh[6], eh[12]
    shdrs = [list(SH.unpack_from(data, shoff + i * SH.size)) for i in range(shnum)]
    return data, eh, shdrs


def section_names(data, eh, shdrs):
    sh = shdrs[eh[13]]
    return bytes(data[sh[4]:sh[4] + sh[5]])


def append(dst, data, eh, shdrs, secs):
    """Write data with secs appended: (name, type, flags, addr, bytes,
    link, info, align, entsize) each, link an index into secs or 0."""
    names = section_names(data, eh, shdrs)
    out = bytearray(data)
    first = len(shdrs)
    offs, noffs = [], []
    for s in secs:
        noffs.append(len(names))
        names += s[0] + b"\0"
    for s in secs:
        out += b"\0" * ((-len(out)) % 8)
        offs.append(len(out))
        out += s[4]
    out += b"\0" * ((-len(out)) % 8)
    o_names = len(out)
    out += names
    out += b"\0" * ((-len(out)) % 8)
    o_sh = len(out)
    shstr = shdrs[eh[13]]
    shdrs[eh[13]] = [shstr[0], SHT_STRTAB, 0, 0, o_names, len(names), 0, 0, 1, 0]
    for i, s in enumerate(secs):
        link = first + s[5] if s[5] is not None else 0
        shdrs.append([noffs[i], s[1], s[2], s[3], offs[i], len(s[4]), link,
                      s[6], s[7], s[8]])
    for s in shdrs:
        out += SH.pack(*s)
    eh[6], eh[12] = o_sh, len(shdrs)
    EH.pack_into(out, 0, *eh)
    open(dst, "wb").write(out)


def symtab(src, dst, nsyms, mb, nnames):
    data, eh, shdrs = read_elf(src)
    names = section_names(data, eh, shdrs)

    def name(sh):
        return names[sh[0]:names.index(b"\0", sh[0])]

    text_i = next(i for i, s in enumerate(shdrs) if name(s) == b".text")
    text_addr, text_size = shdrs[text_i][3], shdrs[text_i][5]
    # the names, the last one unterminated and running to the end
    strtab = bytearray(b"\0")
    offs = []
    for k in range(nnames):
        offs.append(len(strtab))
        strtab += b"gp_hostile_%d" % k
        if k != nnames - 1:
            strtab += b"\0"
    strtab += b"A" * max(0, mb * 1024 * 1024 - len(strtab))
    step = max(1, text_size // nsyms)
    syms = bytearray(SYM.size)  # the null symbol
    for k in range(nsyms):
        addr = text_addr + (k * step) % max(1, text_size)
        syms += SYM.pack(offs[k % nnames], (1 << 4) | 2, 0, text_i, addr, step)
    append(dst, data, eh, shdrs, [
        (b".symtab", SHT_SYMTAB, 0, 0, bytes(syms), 1, 1, 8, SYM.size),
        (b".strtab", SHT_STRTAB, 0, 0, bytes(strtab), None, 0, 1, 0)])


def gopclntab(size, nfunc):
    rnd = random.Random(7)
    funcname = 0x48
    names = b"gp_go_hostile\0" * ((8 << 20) // 14)
    cutab = funcname + len(names)
    pcln = cutab + 64
    functab = (nfunc + 1) * 8 + 4
    assert pcln + functab + 4096 < size
    out = bytearray(struct.pack("<IHBBQQQQQQQQ", 0xfffffff1, 0, 1, 8, nfunc, 0,
                                0x401000, funcname, cutab, cutab, cutab, pcln))
    out += names
    out += b"\0" * (pcln - len(out))
    for k in range(nfunc + 1):
        out += struct.pack("<II", k * 16, rnd.randrange(functab, size - pcln - 64))
    out += b"\0" * 4
    out += rnd.randbytes(size - len(out))
    return bytes(out)


def main():
    a = sys.argv[1:]
    if a and a[0] == "--go":
        src, dst, mb, nfunc = a[1], a[2], int(a[3]), int(a[4])
        data, eh, shdrs = read_elf(src)
        append(dst, data, eh, shdrs, [
            (b".gopclntab", SHT_PROGBITS, SHF_ALLOC, 0x900000,
             gopclntab(mb << 20, nfunc), None, 0, 32, 0)])
        return
    src, dst, nsyms, mb = a[0], a[1], int(a[2]), int(a[3])
    symtab(src, dst, nsyms, mb, int(a[4]) if len(a) > 4 else nsyms)


main()
