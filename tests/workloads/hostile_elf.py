#!/usr/bin/env python3
"""A hostile ELF for the runtime plugins' ELF reader: an x86-64 shared
object whose .dynsym has NSYMS defined symbols and whose .dynstr is
STRTAB_MB of non-NUL bytes (no final NUL).  A reader that walks names as C
strings (libelf's elf_strptr scans the table at each call when it does not
end in NUL) pays symbols x table size; a bounded one pays per symbol.

usage: hostile_elf.py OUT NSYMS STRTAB_MB
"""
import struct
import sys


def main():
    out, nsyms, mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    strsz = mb << 20
    shstr = b"\0.dynsym\0.dynstr\0.shstrtab\0.text\0"
    n_dynsym, n_dynstr, n_shstr, n_text = 1, 9, 17, 27
    ehsz, phsz, shsz, symsz = 64, 56, 64, 24
    text_off = 4096
    text_sz = 4096
    dynsym_off = text_off + text_sz
    dynsym_sz = nsyms * symsz
    shstr_off = dynsym_off + dynsym_sz
    dynstr_off = (shstr_off + len(shstr) + 4095) & ~4095
    shoff = dynstr_off + strsz
    nsec = 5
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    eh += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, ehsz, shoff, 0,
                      ehsz, phsz, 1, shsz, nsec, 3)
    ph = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, shoff, shoff, 4096)
    secs = [bytes(shsz)]
    secs.append(struct.pack("<IIQQQQIIQQ", n_text, 1, 6, text_off,
                            text_off, text_sz, 0, 0, 16, 0))
    secs.append(struct.pack("<IIQQQQIIQQ", n_dynsym, 11, 2, dynsym_off,
                            dynsym_off, dynsym_sz, 4, 1, 8, symsz))
    secs.append(struct.pack("<IIQQQQIIQQ", n_shstr, 3, 0, 0, shstr_off,
                            len(shstr), 0, 0, 1, 0))
    secs.append(struct.pack("<IIQQQQIIQQ", n_dynstr, 3, 2, dynstr_off,
                            dynstr_off, strsz, 0, 0, 1, 0))
    with open(out, "wb") as f:
        f.write(eh + ph)
        f.write(b"\xc3" * (text_sz + text_off - f.tell()))
        syms = bytearray(symsz)         # symbol 0, the null one
        for i in range(1, nsyms):
            # names near the table's start: the longest scans for a NUL
            syms += struct.pack("<IBBHQQ", 1 + i % 4096, 0x12, 0, 1,
                                text_off + i % text_sz, 1)
        f.write(syms)
        f.write(shstr)
        f.write(b"\0" * (dynstr_off - f.tell()))
        chunk = b"A" * (1 << 20)
        for _ in range(mb):
            f.write(chunk)
        f.write(b"".join(secs))


if __name__ == "__main__":
    main()
