#!/bin/sh
# perf plugin: kernel frames (_[k]) on top of the user frames of a
# syscall-heavy workload; idle CPU time kept as swapper; C++ names
# demangled; a JIT's perf map names its code with _[j].
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir

"$WL/perf_syscalls" -t 6 & sc=$!
"$WL/perf_cxx" -t 6 & cx=$!
"$WL/perf_jit" -t 10 & jt=$!  # outlives a slow daemon start: it unlinks its map at exit
perf_wait_exec $sc perf_syscalls
perf_wait_exec $jt perf_jit
sleep 0.3
perf_profile "$TMP/out" 4 profiling-frequency=99
ok $? "plugin ran one cycle"
wait

cat >"$TMP/check.py" <<'PY'
import sys
stacks = [l.rstrip('\n').rsplit(' ', 1) for l in open(sys.argv[1]) if l.strip()]
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
def of(comm):
    return [(s.split(';')[1:], int(c)) for s, c in stacks if s.split(';')[0] == comm]
sc = of('perf_syscalls')
tot = sum(c for f, c in sc)
kern = sum(c for f, c in sc if f and f[-1].endswith('_[k]'))
print("perf_syscalls: %d samples, %d with kernel leaf" % (tot, kern))
ok(tot > 0 and kern >= tot / 2, "syscall workload mostly in the kernel")
# libc's read() keeps no frame pointer, so fp unwinding may skip
# syscall_loop; main must be there below the kernel frames
chain = [f for f, c in sc if f and f[-1].endswith('_[k]') and 'main' in f]
ok(len(chain) > 0, "kernel frames sit on top of the user stack")
if chain:
    f = chain[0]
    i = f.index('main')
    ok(all(not x.endswith('_[k]') for x in f[:i + 1]) and
       all(x.endswith('_[k]') for x in f[f.index(next(x for x in f if x.endswith('_[k]'))):]),
       "user frames first (root), kernel frames last (leaf): " + ';'.join(f[-4:]))
cx = of('perf_cxx')
names = {x for f, c in cx for x in f}
ok('gpwork::Spinner<int>::spin' in names,
   "C++ frame demangled (%s)" % sorted(n for n in names if 'pin' in n)[:3])
jt = of('perf_jit')
names = {x for f, c in jt for x in f}
ok('jit_spin_loop_[j]' in names, "JIT frame from the perf map (%s)" %
   sorted(n for n in names if 'jit' in n)[:4])
ok(any('jit_driver' in f for f, c in jt), "JIT frame's caller resolved")
sw = [f for f, c in of('swapper')]
ok(all(all(x.endswith('_[k]') or x == '[unknown]' for x in f) for f in sw),
   "swapper stacks are kernel only (%d stacks)" % len(sw))
PY
perf_check_py "$TMP/check.py" "$TMP/out"
done_testing
