#!/usr/bin/env python3
# pprof export read back by an independent decoder: protoc --decode with the
# schema decodes the .pb.gz that pprof.c wrote for a cycle, and the stacks,
# counts, labels and totals are compared with the .col of the same cycle
# (both written by `test_pprof --dump`).
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

n = 0
failed = 0


def ok(cond, what, diag=None):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
    if not cond:
        failed += 1
        if diag is not None:
            print("# " + str(diag).replace("\n", "\n# "))
    return cond


TOKEN = re.compile(rb'\s*(?:([A-Za-z_][A-Za-z0-9_]*)|(-?[0-9]+)|("(?:[^"\\]|\\.)*")|([:{}]))')


def unescape(s):
    """protoc's C-style string escapes to bytes."""
    out = bytearray()
    i = 1
    while i < len(s) - 1:
        c = s[i]
        if c != 0x5c:
            out.append(c)
            i += 1
            continue
        nxt = s[i + 1]
        if 0x30 <= nxt <= 0x37:
            j = i + 1
            while j < i + 4 and 0x30 <= s[j] <= 0x37:
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
        else:
            out += {ord("n"): b"\n", ord("t"): b"\t", ord("r"): b"\r"}.get(
                nxt, bytes([nxt]))
            i += 2
    return bytes(out)


def parse_text(data):
    """protobuf text format into {field: [values]} dicts."""
    toks = []
    pos = 0
    while pos < len(data):
        m = TOKEN.match(data, pos)
        if not m or m.end() == pos:
            if data[pos:].strip() == b"":
                break
            raise ValueError("bad text at %d: %r" % (pos, data[pos:pos + 20]))
        pos = m.end()
        toks.append(m.groups())
    stack = [{}]
    i = 0
    while i < len(toks):
        ident, num, st, p = toks[i]
        if p == "}" or p == b"}":
            stack.pop()
            i += 1
            continue
        name = ident.decode()
        if toks[i + 1][3] == b"{":
            d = {}
            stack[-1].setdefault(name, []).append(d)
            stack.append(d)
            i += 2
            continue
        _, vnum, vstr, _ = toks[i + 2]
        stack[-1].setdefault(name, []).append(
            int(vnum) if vnum is not None else unescape(vstr))
        i += 3
    return stack[0]


def one(d, k, dflt=0):
    return d.get(k, [dflt])[0]


def main():
    protoc = shutil.which("protoc")
    if protoc is None:
        print("1..0 # SKIP protoc not installed (protobuf-compiler)")
        return
    top_src = os.environ["top_srcdir"]
    helper = os.path.join(os.environ["top_builddir"], "tests", "unit",
                          "test_pprof")
    tmp = tempfile.mkdtemp(prefix="gppprof.")
    try:
        r = subprocess.run([helper, "--dump", tmp])
        if not ok(r.returncode == 0, "cycle dumped as .col and .pb.gz"):
            return
        with gzip.open(os.path.join(tmp, "p.pb.gz")) as f:
            raw = f.read()
        ok(len(raw) > 0, "gunzip works")
        r = subprocess.run([protoc, "--decode", "perftools.profiles.Profile",
                            "--proto_path", os.path.join(top_src, "core", "output"),
                            "profile.proto"], input=raw,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if not ok(r.returncode == 0, "protoc --decode accepts the profile",
                  r.stderr.decode(errors="replace")):
            return
        pr = parse_text(r.stdout)
        strings = [s.decode("utf-8") for s in pr.get("string_table", [])]
        ok(strings and strings[0] == "", "string_table[0] is empty")
        S = lambda i: strings[i]
        funcs = dict((one(f, "id"), S(one(f, "name"))) for f in pr["function"])
        locs = dict((one(l, "id"), funcs[one(l["line"][0], "function_id")])
                    for l in pr["location"])
        ok(len(set(funcs.values())) == len(funcs),
           "functions deduplicated by name")
        period = one(pr, "period")
        ok(period == 10000000, "period 1e9/100 for -f 100", period)
        ok([S(one(t, "type")) + "/" + S(one(t, "unit"))
            for t in pr["sample_type"]] == ["samples/count", "cpu/nanoseconds"],
           "sample types")
        got = {}
        ns_ok = True
        for s in pr["sample"]:
            labels = {}
            for lb in s.get("label", []):
                k = S(one(lb, "key"))
                labels[k] = S(one(lb, "str")) if one(lb, "str") else one(lb, "num")
            frames = [locs[i] for i in s.get("location_id", [])][::-1]
            key = ";".join([labels.get("container", ""), labels["comm"]] + frames)
            count, ns = s["value"]
            ns_ok = ns_ok and ns == count * period
            got[key] = got.get(key, 0) + count
            if frames and frames[-1] == "0x1a0_[g]":
                ok(labels.get("stall") == "sbid", "gpu stall label", labels)
        ok(ns_ok, "cpu/nanoseconds = count * period for every sample")
        with open(os.path.join(tmp, "p.col"), "rb") as f:
            col = f.read().decode("utf-8", errors="replace").split("\n")
        want = {}
        for line in col[1:]:
            stack, cnt = line.rsplit(" ", 1)
            want[stack] = want.get(stack, 0) + int(cnt)
        ok(got == want, "pprof stacks and counts equal the .col's",
           "pprof: %r\ncol:   %r" % (got, want))
        ok(sum(got.values()) == sum(want.values()) == 24,
           "totals agree (24 samples)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
print("1..%d" % n)
sys.exit(1 if failed else 0)
