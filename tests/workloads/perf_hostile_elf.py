#!/usr/bin/env python3
"""A runnable ELF with a hostile symbol table, for the perf plugin's tests.

perf_hostile_elf.py IN OUT NSYMS MB [NAMES]

Copies IN (a stripped 64-bit executable) to OUT with a .symtab appended:
NSYMS function symbols tiling .text, named gp_hostile_K, over a string
table of MB megabytes that has no final NUL (the last name runs to the
table's end).  With NAMES, only that many names, repeated (symbol K is
named gp_hostile_{K mod NAMES}): millions of symbols in a small table.  The program still runs (the kernel reads only its program
headers); what profiles it must read those tables to name its frames.
"""
import struct
import sys

EH = struct.Struct("<16sHHIQQQIHHHHHH")
SH = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")


def main():
    src, dst, nsyms, mb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    nnames = int(sys.argv[5]) if len(sys.argv) > 5 else nsyms
    data = bytearray(open(src, "rb").read())
    eh = list(EH.unpack_from(data, 0))
    shoff, shnum, shstrndx = eh[6], eh[12], eh[13]
    shdrs = [list(SH.unpack_from(data, shoff + i * SH.size)) for i in range(shnum)]
    shstr = shdrs[shstrndx]
    names = bytes(data[shstr[4]:shstr[4] + shstr[5]])

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
    newnames = names + b".symtab\0.strtab\0"
    n_symtab, n_strtab = len(names), len(names) + 8

    def align(n):
        return (n + 7) & ~7

    out = bytearray(data)
    out += b"\0" * (align(len(out)) - len(out))
    o_sym = len(out)
    out += syms
    out += b"\0" * (align(len(out)) - len(out))
    o_str = len(out)
    out += strtab
    out += b"\0" * (align(len(out)) - len(out))
    o_names = len(out)
    out += newnames
    out += b"\0" * (align(len(out)) - len(out))
    o_sh = len(out)
    shdrs[shstrndx] = [shstr[0], 3, 0, 0, o_names, len(newnames), 0, 0, 1, 0]
    strtab_i = shnum + 1
    shdrs.append([n_symtab, 2, 0, 0, o_sym, len(syms), strtab_i, 1, 8, SYM.size])
    shdrs.append([n_strtab, 3, 0, 0, o_str, len(strtab), 0, 0, 1, 0])
    for s in shdrs:
        out += SH.pack(*s)
    eh[6], eh[12] = o_sh, len(shdrs)
    EH.pack_into(out, 0, *eh)
    open(dst, "wb").write(out)


main()
