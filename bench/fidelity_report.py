#!/usr/bin/env python3
"""Compare the agent's folded stacks with perf's for one program.

    fidelity_report.py [--perf-script FILE] [--perf-folded FILE] [--tids]
        --agent FILE --comm NAME [--funcs f,g,...] [--json]

--agent: folded lines "comm;frame;...;frame count" (a .col body without the
index/container frames, or the test host's output).  --perf-script: the
text of `perf script` (default fields); it is folded here the way gProfiler
folds it.  For the program named --comm, prints the samples each saw, the
fraction whose leaf user frame is named (a symbol, not [unknown], a dso or
an address), and each function's share (the fraction of the program's
samples where it is the leaf user frame, or, for Python frames, the leaf
Python frame).  --json prints one JSON object instead.
"""
import argparse
import json
import re
import sys

KERNEL = re.compile(r'_\[k\]$')


def perf_fold(path, by_tid=False):
    """perf script text -> {(comm or tid): {stack tuple (root first): n}}."""
    out = {}
    comm, frames, tid = None, [], None
    hdr = re.compile(r'^(\S.*?)\s+(\d+)(?:/(\d+))?\s+(?:\[\d+\]\s+)?[\d.]+:')

    def flush():
        if comm is None:
            return
        key = tid if by_tid else comm
        st = tuple(reversed(frames))
        d = out.setdefault(key, {})
        d[st] = d.get(st, 0) + 1

    with open(path, errors='replace') as f:
        for line in f:
            if not line.strip():
                flush()
                comm, frames, tid = None, [], None
                continue
            if not line[0].isspace():
                flush()
                m = hdr.match(line)
                frames = []
                if m is None:
                    comm = None
                    continue
                comm = m.group(1).strip()
                tid = int(m.group(3) or m.group(2))
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                continue
            rest = parts[1].rstrip('\n')
            m = re.match(r'^(.*?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)$', rest)
            sym, dso = (m.group(1), m.group(2)) if m else (rest, '')
            if sym == '[unknown]':
                sym = '(%s)' % dso if dso and dso != 'unknown' else '[unknown]'
            elif 'kernel.kallsyms' in dso or dso.endswith('vmlinux') or \
                    dso.startswith('[') and dso.endswith(']') and \
                    'vdso' not in dso:
                sym += '_[k]'
            frames.append(sym)
    flush()
    return out


def agent_fold(path):
    out = {}
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            st, _, n = line.rpartition(' ')
            try:
                n = int(n)
            except ValueError:
                continue
            fr = st.split(';')
            d = out.setdefault(fr[0], {})
            t = tuple(fr[1:])
            d[t] = d.get(t, 0) + n
    return out


def named(frame):
    return not (frame in ('[unknown]', '') or frame.startswith('(') or
                frame.startswith('0x') or frame.startswith('[Profiling'))


def leaf_user(stack):
    """The leaf frame that is not a kernel frame (None: kernel only)."""
    for fr in reversed(stack):
        if not KERNEL.search(fr):
            return fr
    return None


def func_name(frame):
    # "name (file:line)_[p]" -> name; "name_[pn]" -> name
    if frame is None:
        return None
    frame = re.sub(r'_\[(?:p|pn|j|k)\]$', '', frame)
    return re.sub(r' \(.*\)$', '', frame)


def summary(stacks, funcs, leaf_of=leaf_user):
    total = sum(stacks.values())
    user = 0
    nm = 0
    share = {}
    kern = 0
    for st, n in stacks.items():
        if any(KERNEL.search(f) for f in st):
            kern += n
        lf = leaf_of(st)
        if lf is None:
            continue
        user += n
        if named(lf):
            nm += n
        fn = func_name(lf)
        share[fn] = share.get(fn, 0) + n
    res = {'samples': total,
           'named': nm / user if user else 0.0,
           'unnamed': user - nm,
           'kernel': kern / total if total else 0.0,
           'share': {}}
    for f in funcs:
        res['share'][f] = share.get(f, 0) / total if total else 0.0
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--perf-script')
    ap.add_argument('--agent', required=True)
    ap.add_argument('--comm', required=True)
    ap.add_argument('--funcs', default='')
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args()
    funcs = [f for f in a.funcs.split(',') if f]
    ag = agent_fold(a.agent).get(a.comm, {})
    res = {'agent': summary(ag, funcs)}
    if a.perf_script:
        pf = perf_fold(a.perf_script).get(a.comm, {})
        res['perf'] = summary(pf, funcs)
    if a.json:
        json.dump(res, sys.stdout)
        print()
        return
    for who in ('agent', 'perf'):
        if who not in res:
            continue
        r = res[who]
        print('%-6s %-14s samples %6d  named %5.1f%% (%d not)  kernel %5.1f%%'
              '  %s' % (
            who, a.comm[:14], r['samples'], 100 * r['named'], r['unnamed'],
            100 * r['kernel'],
            '  '.join('%s %.1f%%' % (f, 100 * v)
                      for f, v in r['share'].items())))


if __name__ == '__main__':
    main()
